// How a Communicator moves device buffers: every rank uses the same transport and can say why;
// DUALRT_MPI_TRANSPORT asked for a transport a rank cannot use, given a bad value, or set
// differently on two ranks is an error on every rank. And sends that cross between ranks,
// received in another order than they were sent, all arrive whole: on the NCCL transport each
// direction between two ranks is its own pipe, numbered in the order the receiver accepts.
#include "mpi_support.hpp"

#include <cstdlib>

namespace {

using dualrt::mpi::Communicator;
using dualrt::mpi::Transport;
using test::error_of;

// Sets DUALRT_MPI_TRANSPORT on the ranks `here` says, for the life of the object.
class TransportAsked {
public:
    TransportAsked(const char* value, bool here) {
        const char* saved = std::getenv("DUALRT_MPI_TRANSPORT");
        had_ = saved != nullptr;
        if (had_) saved_ = saved;
        if (here) setenv("DUALRT_MPI_TRANSPORT", value, 1);
    }
    ~TransportAsked() {
        if (had_) setenv("DUALRT_MPI_TRANSPORT", saved_.c_str(), 1);
        else unsetenv("DUALRT_MPI_TRANSPORT");
    }

private:
    bool had_ = false;
    std::string saved_;
};

// Whether every rank says yes.
bool on_every_rank(bool yes) {
    int all = yes ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

// A Communicator made with DUALRT_MPI_TRANSPORT=`value` on every rank: its transport, or the
// error, which must be on every rank or on none.
struct Outcome {
    Transport transport = Transport::staged;
    std::string error;
};
Outcome asking_for(const char* value) {
    TransportAsked asked(value, true);
    Outcome outcome;
    outcome.error = error_of([&] {
        Communicator comm(test::rank_device());
        outcome.transport = comm.transport();
    });
    const bool failed = !outcome.error.empty();
    CHECK((on_every_rank(failed) || on_every_rank(!failed)));
    return outcome;
}

}  // namespace

TEST_CASE("every rank uses the same transport and says why") {
    Communicator comm(test::rank_device());
    const int mine = static_cast<int>(comm.transport());
    int least = mine, most = mine;
    MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(least == most);
    const std::string reason = comm.transport_reason();
    INFO("rank " << comm.rank() << ": " << std::string(to_string(comm.transport())) << ", "
                  << reason);
    CHECK(test::contains(reason, to_string(comm.transport())));
    if (comm.transport() != Transport::nccl) CHECK(test::contains(reason, "not NCCL"));
    const char* asked = std::getenv("DUALRT_MPI_TRANSPORT");
    const bool automatic = asked == nullptr || std::string(asked).empty() ||
                           std::string(asked) == "auto";
    if (asked != nullptr && std::string(asked) == "staged")
        CHECK(comm.transport() == Transport::staged);
    if (automatic && test::rank_device().backend() == dualrt::Backend::opencl) {
        CHECK(test::contains(reason, "OpenCL device"));
        // IPC wherever every rank's device shares memory with other processes, else staged,
        // saying why not IPC.
        const bool shares = on_every_rank(
            comm.size() > 1 && dualrt::process_sharing_support(test::rank_device()).possible);
        CHECK(comm.transport() == (shares ? Transport::ipc : Transport::staged));
        if (!shares) CHECK(test::contains(reason, "not IPC, since"));
    }
}

TEST_CASE("DUALRT_MPI_TRANSPORT=ipc is IPC on every rank or an error on every rank") {
    const Outcome outcome = asking_for("ipc");
    INFO("rank " << test::world_rank() << ": " << outcome.error);
    if (!outcome.error.empty()) {
        CHECK(test::contains(outcome.error, "DUALRT_MPI_TRANSPORT=ipc"));
        const auto support = dualrt::process_sharing_support(test::rank_device());
        // Each rank names its own reason where it has one.
        if (!support.possible && test::rank_device().backend() == dualrt::Backend::opencl)
            CHECK(test::contains(outcome.error, support.reason));
    } else {
        CHECK(outcome.transport == Transport::ipc);
    }
    CHECK(Communicator(test::rank_device()).size() == test::world_size());
}

TEST_CASE("DUALRT_MPI_TRANSPORT=nccl is NCCL on every rank or an error on every rank") {
    const Outcome outcome = asking_for("nccl");
    INFO("rank " << test::world_rank() << ": " << outcome.error);
    if (!outcome.error.empty()) {
        CHECK(test::contains(outcome.error, "NCCL"));
        if (test::rank_device().backend() == dualrt::Backend::opencl)
            CHECK(test::contains(outcome.error, "OpenCL device"));
    } else {
        CHECK(outcome.transport == Transport::nccl);
    }
    // The ranks go on together.
    CHECK(Communicator(test::rank_device()).size() == test::world_size());
}

TEST_CASE("a bad or differing DUALRT_MPI_TRANSPORT is an error on every rank") {
    {
        TransportAsked bad("fastest", test::world_rank() == 0);
        const std::string error = error_of([] { Communicator comm(test::rank_device()); });
        INFO("rank " << test::world_rank() << ": " << error);
        CHECK(test::contains(error, "fastest"));
        if (test::world_rank() == 0)
            CHECK(test::contains(error, "expected one of: auto, staged, gpu-aware, nccl, ipc"));
    }
    if (test::world_size() > 1) {
        // Named on every rank, so that the environment the ranks started with does not matter.
        TransportAsked differing(test::world_rank() == 0 ? "staged" : "auto", true);
        const std::string error = error_of([] { Communicator comm(test::rank_device()); });
        INFO("rank " << test::world_rank() << ": " << error);
        CHECK(test::contains(error, "DUALRT_MPI_TRANSPORT"));
    }
    CHECK(Communicator(test::rank_device()).size() == test::world_size());
}

TEST_CASE("sends that cross, received in another order than sent, arrive whole") {
    Communicator comm(test::rank_device());
    if (comm.size() < 2) return;
    const int peer = test::partner(comm.rank(), comm.size());
    if (peer >= comm.size()) return;  // the odd rank out
    auto queue = test::rank_device().create_queue();
    const std::uint32_t seed = test::shared_seed();
    // Sizes around NCCL's and the staged path's pieces, one inline-sized.
    const std::vector<std::size_t> sizes{1000, (std::size_t(3) << 20) + 7,
                                         (std::size_t(9) << 20) + 1};
    std::vector<dualrt::Buffer<float>> sent, received;
    std::vector<dualrt::mpi::Request> requests;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const auto values = test::values_of<float>(seed + static_cast<std::uint32_t>(i),
                                                   comm.rank(), sizes[i]);
        sent.push_back(test::rank_device().alloc<float>(sizes[i]));
        queue.copy(sent.back(), values, dualrt::Sync::blocking);
        requests.push_back(comm.isend(queue, sent.back(), peer, static_cast<int>(i)));
    }
    // Received last tag first: each rank's receives match its partner's sends in reverse.
    for (std::size_t i = sizes.size(); i-- > 0;) {
        received.insert(received.begin(), test::rank_device().alloc<float>(sizes[i]));
        queue.fill(received.front(), test::poison_float());
        requests.push_back(comm.irecv(queue, received.front(), peer, static_cast<int>(i)));
    }
    for (auto& request : requests) queue.wait(request.wait());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::vector<float> got(sizes[i]);
        queue.copy(got, received[i], dualrt::Sync::blocking);
        INFO("tag " << i << ", " << sizes[i] << " floats, "
                    << std::string(to_string(comm.transport())));
        CHECK(test::differences(got, test::values_of<float>(seed + static_cast<std::uint32_t>(i),
                                                            peer, sizes[i])) == "");
    }
}

TEST_CASE("a send to oneself arrives whole, inline and in pieces") {
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    const std::uint32_t seed = test::shared_seed();
    for (const std::size_t n : {std::size_t(1000), (std::size_t(3) << 20) + 7}) {
        const auto values = test::values_of<float>(seed, comm.rank(), n);
        auto sent = test::rank_device().alloc<float>(n);
        queue.copy(sent, values, dualrt::Sync::blocking);
        auto received = test::rank_device().alloc<float>(n);
        queue.fill(received, test::poison_float());
        auto receive = comm.irecv(queue, received, comm.rank(), 7);
        auto send = comm.isend(queue, sent, comm.rank(), 7);
        queue.wait(receive.wait());
        send.wait();
        std::vector<float> got(n);
        queue.copy(got, received, dualrt::Sync::blocking);
        INFO(n << " floats, " << std::string(to_string(comm.transport())));
        CHECK(test::differences(got, values) == "");
    }
}
