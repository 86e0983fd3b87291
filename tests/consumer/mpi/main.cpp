// Built against the installed package; run as one MPI rank (singleton, no mpirun): the rank's
// device, a send to itself, and an allreduce.
#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int code = 0;
    try {
        const dualrt::Device device = dualrt::mpi::device_for_rank();
        {
            dualrt::mpi::Communicator comm(device);
            auto queue = device.create_queue();
            const std::vector<int> values{1, 2, 3, 4};
            auto out = device.alloc<int>(values.size());
            auto in = device.alloc<int>(values.size());
            queue.copy(out, values, dualrt::Sync::blocking);
            auto receive = comm.irecv(queue, in, 0, 1);
            comm.isend(queue, out, 0, 1).wait();
            queue.wait(receive.wait());
            comm.allreduce(queue, in, dualrt::mpi::ReduceOp::sum);
            std::vector<int> got(values.size());
            queue.copy(got, in, dualrt::Sync::blocking);
            std::printf("mpi consumer: %s device '%s', %s transfers, got %d %d %d %d\n",
                        dualrt::to_string(device.backend()), device.name().c_str(),
                        dualrt::mpi::to_string(comm.transport()), got[0], got[1], got[2], got[3]);
            code = got == values ? 0 : 1;
        }
    } catch (const dualrt::Error& e) {
        std::printf("SKIPPED: %s\n", e.what());
        code = 77;
    }
    MPI_Finalize();
    return code;
}
