// Probe: where does the MPI stencil's halo exchange wait on NVIDIA's OpenCL, when it hides
// behind the interior sweep on CUDA but not there (with markers that have no wait list), though
// opencl_cross_queue.cpp shows the driver itself overlaps a download with another queue's
// kernel? This runs the stencil's step on one device, one rank, with the exchange sent to itself
// in several forms, from dualrt::mpi's own path down to bare copies on dualrt queues, and prints
// per form the time per step and in how many steps the exchange was done before the interior
// sweep (the host looks when its wait returns). A form that hides the exchange takes about the
// compute-only time and is done first nearly always.
//   mpicxx -O2 -std=c++17 -Icore/include -I<build>/core/include -Impi/include
//     tools/probes/mpi_exchange_trace.cpp -L<build>/lib -ldualrt_mpi -ldualrt -Wl,-rpath,<build>/lib
//   mpirun -np 1 ./a.out [width] [rows]      (DUALRT_BACKEND / DUALRT_DEVICE pick the device)
#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

enum class Form {
    compute_only,    // no exchange
    mpi_self,        // dualrt::mpi isend/irecv to this rank, as mpi_stencil's exchange()
    mpi_only,        // the same exchange without kernels
    cross_record,    // edge.record(); download on a third queue after it; upload on a fourth
    cross_border,    // the same, the third queue waiting for the border kernel's own event
    cross_untimed,   // cross_record with untimed download/upload queues (as dualrt::mpi's)
    edge_queue,      // download and upload on the edge queue itself
    cross_no_poll,   // cross_record, the host waiting with Event::wait instead of polling
};

const char* name(Form form) {
    switch (form) {
        case Form::compute_only: return "compute only";
        case Form::mpi_self: return "dualrt::mpi to self";
        case Form::mpi_only: return "dualrt::mpi, no kernels";
        case Form::cross_record: return "queues 3+4 after edge.record()";
        case Form::cross_border: return "queues 3+4 after border event";
        case Form::cross_untimed: return "untimed queues 3+4 after record";
        case Form::edge_queue: return "copies on the edge queue";
        case Form::cross_no_poll: return "queues 3+4, Event::wait";
    }
    return "?";
}

struct Block {
    dualrt::Device device;
    dualrt::mpi::Communicator* comm;
    std::size_t w, n;
    dualrt::Kernel kernel;
    dualrt::Queue edge, interior, downloads, uploads, downloads_untimed, uploads_untimed;
    dualrt::Buffer<float> current, next;
    dualrt::HostBuffer<float> halo;
    dualrt::Event border_done, interior_done;
    int exchanged_first = 0, exchanged = 0;

    Block(const dualrt::Device& d, dualrt::mpi::Communicator* c, std::size_t width,
          std::size_t rows)
        : device(d), comm(c), w(width), n(rows), kernel(d.kernel("jacobi_rows")),
          edge(d.create_queue()), interior(d.create_queue()), downloads(d.create_queue()),
          uploads(d.create_queue()), downloads_untimed(d.create_queue({false})),
          uploads_untimed(d.create_queue({false})), current(d.alloc<float>((rows + 2) * width)),
          next(d.alloc<float>((rows + 2) * width)), halo(d.alloc_host<float>(2 * width)) {
        edge.fill(current, 0.5f);
        edge.fill(next, 0.5f);
        edge.finish();
    }

    void launch(dualrt::Queue& queue, std::size_t first, std::size_t count, dualrt::Event& done) {
        done = queue.launch(kernel, {w, count}, {}, current, next, static_cast<std::uint32_t>(w),
                            static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(count));
    }

    void compute() {
        if (interior_done.valid()) edge.wait(interior_done);
        launch(edge, 1, 1, border_done);
        launch(edge, n, 1, border_done);
        interior.wait(border_done);
        launch(interior, 2, n - 2, interior_done);
        (void)interior_done.is_complete();
    }

    void exchange_mpi() {
        std::vector<dualrt::mpi::Request> receives, sends;
        receives.push_back(comm->irecv(edge, next.view(0, w), 0, 2));
        receives.push_back(comm->irecv(edge, next.view((n + 1) * w, w), 0, 1));
        sends.push_back(comm->isend(edge, next.view(w, w), 0, 1));
        sends.push_back(comm->isend(edge, next.view(n * w, w), 0, 2));
        for (auto& r : receives) edge.wait(r.wait());
        for (auto& s : sends) edge.wait(s.wait());
    }

    void exchange_queues(dualrt::Queue& down, dualrt::Queue& up, bool after_border, bool poll) {
        dualrt::Event after = after_border ? border_done : edge.record();
        down.wait(after);
        dualrt::Event d1 = down.copy(halo.view(0, w), next.view(w, w));
        dualrt::Event d2 = down.copy(halo.view(w, w), next.view(n * w, w));
        if (poll)
            while (!d2.is_complete()) std::this_thread::yield();
        else
            d2.wait();
        up.wait(after);
        up.copy(next.view(0, w), halo.view(w, w));
        edge.wait(up.copy(next.view((n + 1) * w, w), halo.view(0, w)));
    }

    void exchange_edge() {
        edge.copy(halo.view(0, w), next.view(w, w));
        dualrt::Event d2 = edge.copy(halo.view(w, w), next.view(n * w, w));
        while (!d2.is_complete()) std::this_thread::yield();
        edge.copy(next.view(0, w), halo.view(w, w));
        edge.copy(next.view((n + 1) * w, w), halo.view(0, w));
    }

    void step(Form form) {
        if (form != Form::mpi_only) compute();
        switch (form) {
            case Form::compute_only: break;
            case Form::mpi_self:
            case Form::mpi_only: exchange_mpi(); break;
            case Form::cross_record: exchange_queues(downloads, uploads, false, true); break;
            case Form::cross_border: exchange_queues(downloads, uploads, true, true); break;
            case Form::cross_untimed:
                exchange_queues(downloads_untimed, uploads_untimed, false, true);
                break;
            case Form::edge_queue: exchange_edge(); break;
            case Form::cross_no_poll: exchange_queues(downloads, uploads, false, false); break;
        }
        if (form != Form::compute_only && form != Form::mpi_only) {
            ++exchanged;
            if (!interior_done.is_complete()) ++exchanged_first;
        }
        if (form != Form::mpi_only) std::swap(current, next);
    }

    void finish() {
        for (auto* q : {&edge, &interior, &downloads, &uploads, &downloads_untimed,
                        &uploads_untimed})
            q->finish();
    }
};

double ms_per_step(Block& block, Form form, int steps, int repetitions) {
    for (int s = 0; s < 5; ++s) block.step(form);
    block.finish();
    block.exchanged = block.exchanged_first = 0;
    std::vector<double> runs;
    for (int r = 0; r < repetitions; ++r) {
        const auto start = Clock::now();
        for (int s = 0; s < steps; ++s) block.step(form);
        block.finish();
        runs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count() /
                       steps);
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int code = 0;
    try {
        const std::size_t width = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 32768;
        const std::size_t rows = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 16384;
        const dualrt::Device device = dualrt::select();
        dualrt::mpi::Communicator comm(device);
        Block block(device, &comm, width, rows);
        std::printf("device: %s; grid %zu x %zu per step, 100 steps x 5, median\n",
                    device.info().name.c_str(), width, rows);
        const double compute = ms_per_step(block, Form::compute_only, 100, 5);
        std::printf("%-34s %8.4f ms/step\n", name(Form::compute_only), compute);
        for (Form form : {Form::mpi_only, Form::mpi_self, Form::cross_record, Form::cross_border,
                          Form::cross_untimed, Form::edge_queue, Form::cross_no_poll,
                          Form::mpi_self}) {
            const double ms = ms_per_step(block, form, 100, 5);
            std::printf("%-34s %8.4f ms/step  +%.4f over compute  done before the interior in "
                        "%d of %d steps\n",
                        name(form), ms, ms - compute, block.exchanged_first, block.exchanged);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        code = 1;
    }
    MPI_Finalize();
    return code;
}
