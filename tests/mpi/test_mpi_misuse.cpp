// dualrt::mpi misused: every argument a rank can get wrong, wrong on one rank only and on every
// rank. Each case must end with a dualrt::Error on every rank involved (never a hang: CTest's
// timeout fails a stuck run), and the communicator must work right after. Also: communicators
// whose options differ between ranks, the application's own messages on native(), and a refused
// transfer among others in flight.
#include "mpi_support.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

using dualrt::mpi::Communicator;
using dualrt::mpi::CommunicatorOptions;
using dualrt::mpi::ReduceOp;
using test::error_of;
using test::partner;

// Whether this rank is one of those that get the argument wrong.
bool wrong_here(bool every_rank, int rank) { return every_rank || rank == 0; }

// A device of this process other than the rank's (POCL_DEVICES="pthread pthread" gives each rank
// two), or an empty Device where there is none.
dualrt::Device another_device() {
    for (const auto& device : dualrt::devices(test::rank_device().backend()))
        if (device != test::rank_device()) return device;
    return {};
}

// A good allreduce after a failure: the communicator is still usable on every rank.
void check_still_usable(Communicator& comm, dualrt::Queue& queue) {
    auto same = test::rank_device().alloc<float>(100);
    queue.fill(same, 2.0f);
    comm.allreduce(queue, same, ReduceOp::sum);
    std::vector<float> host(100);
    queue.copy(host, same, dualrt::Sync::blocking);
    CHECK(host == std::vector<float>(100, 2.0f * static_cast<float>(comm.size())));
}

}  // namespace

TEST_CASE("a collective argument wrong on one rank or on all is an error on every rank") {
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), size = comm.size();
    auto buffer = test::rank_device().alloc<float>(1000);
    queue.fill(buffer, 1.0f);
    const dualrt::Device other = another_device();
    // Every rank must run the same cases in the same order (they are collective), so no SUBCASE,
    // and the cases with another device run only where every rank has one.
    int every_rank_has_another = other.valid() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &every_rank_has_another, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (const bool every_rank : {false, true}) {
        INFO((every_rank ? "wrong on every rank" : "wrong on rank 0 only") << ", rank " << rank);
        const bool wrong = wrong_here(every_rank, rank);
        const auto check_case = [&](const char* what, const std::function<void()>& call,
                                    const std::string& expected) {
            INFO(what);
            const std::string error = error_of(call);
            CHECK(test::contains(error, expected));
            if (!wrong) CHECK(test::contains(error, "rank 0 failed its checks"));
            check_still_usable(comm, queue);
        };
        check_case("broadcast: root out of range",
                   [&] { comm.broadcast(queue, buffer, wrong ? size + 4 : 0); },
                   "root rank " + std::to_string(size + 4) + " is not a rank of this communicator");
        check_case("broadcast: an empty queue",
                   [&] { comm.broadcast(wrong ? dualrt::Queue() : queue, buffer, 0); },
                   "the Queue is empty");
        check_case("allreduce: an empty buffer",
                   [&] {
                       comm.allreduce(queue, wrong ? dualrt::Buffer<float>() : buffer,
                                      ReduceOp::sum);
                   },
                   "the Buffer is empty");
        check_case("allreduce: an operation that does not exist",
                   [&] {
                       comm.allreduce(queue, buffer,
                                      wrong ? static_cast<ReduceOp>(7) : ReduceOp::max);
                   },
                   "ReduceOp 7 is not one of sum, min and max");
        if (every_rank_has_another != 0) {
            auto foreign = other.alloc<float>(1000);
            auto foreign_queue = other.create_queue();
            check_case("allreduce: a buffer of another device",
                       [&] { comm.allreduce(queue, wrong ? foreign : buffer, ReduceOp::sum); },
                       "expected a buffer on this rank's device");
            check_case("broadcast: a queue of another device",
                       [&] { comm.broadcast(wrong ? foreign_queue : queue, buffer, 0); },
                       "expected a queue of this rank's device");
        } else {
            MESSAGE("buffers of another device: skipped, a rank has one device only");
        }
        if (size > 1 && !every_rank) {
            auto fewer = test::rank_device().alloc<float>(999);
            const std::string error = error_of(
                [&] { comm.allreduce(queue, wrong ? fewer : buffer, ReduceOp::sum); });
            CHECK(test::contains(error, "the ranks disagree: bytes ranges from 3996 to 4000"));
            check_still_usable(comm, queue);
        }
    }
}

TEST_CASE("collectives between ranks whose communicators cut pieces differently") {
    // Each rank its own piece size and ring: the ranks settle on the smallest piece size.
    CommunicatorOptions options;
    options.piece_bytes = test::world_rank() == 0 ? 64 * 1024 : 2 * 1024 * 1024;
    options.pieces_in_flight = test::world_rank() == 0 ? 2 : 5;
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, options);
    auto queue = test::rank_device().create_queue();
    const std::size_t n = (std::size_t(3) << 20) / sizeof(float) + 17;  // several pieces of both
    const std::uint32_t seed = test::shared_seed();
    std::vector<float> mine = test::values_of<float>(seed, comm.rank(), n);
    auto buffer = test::rank_device().alloc<float>(n);
    queue.copy(buffer, mine, dualrt::Sync::blocking);
    comm.allreduce(queue, buffer, ReduceOp::max);
    std::vector<float> expected = test::values_of<float>(seed, 0, n);
    for (int r = 1; r < comm.size(); ++r) {
        const auto other = test::values_of<float>(seed, r, n);
        for (std::size_t i = 0; i < n; ++i) expected[i] = std::max(expected[i], other[i]);
    }
    std::vector<float> got(n, test::poison_float());
    queue.copy(got, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(got, expected) == "");

    queue.copy(buffer, mine, dualrt::Sync::blocking);
    comm.broadcast(queue, buffer, comm.size() - 1);
    std::fill(got.begin(), got.end(), test::poison_float());
    queue.copy(got, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(got, test::values_of<float>(seed, comm.size() - 1, n)) == "");
}

TEST_CASE("device_for_rank failing on one rank fails on every rank") {
    // DUALRT_DEVICE naming no device, on rank 0 only: its selection fails there alone.
    const char* saved = std::getenv("DUALRT_DEVICE");
    const std::string kept = saved != nullptr ? saved : "";
    if (test::world_rank() == 0) setenv("DUALRT_DEVICE", "no-such-device-anywhere", 1);
    // Sharing allowed, so that on a machine with fewer devices than ranks only rank 0 fails.
    const std::string error = error_of([] {
        dualrt::mpi::device_for_rank(MPI_COMM_WORLD, dualrt::mpi::DeviceSharing::allow);
    });
    if (saved != nullptr) setenv("DUALRT_DEVICE", kept.c_str(), 1);
    else unsetenv("DUALRT_DEVICE");
    INFO("rank " << test::world_rank() << ": " << error);
    CHECK(test::contains(error, "no-such-device-anywhere"));
    if (test::world_rank() != 0) CHECK(test::contains(error, "rank 0 failed its checks"));
    // Every rank goes on together: a good call right after.
    CHECK(dualrt::mpi::device_for_rank(MPI_COMM_WORLD, dualrt::mpi::DeviceSharing::allow).valid());
}

TEST_CASE("a send or receive whose own checks fail fails its peer too") {
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), peer = partner(rank, comm.size());
    if (comm.size() < 2) return;
    auto buffer = test::rank_device().alloc<float>(2000);
    queue.fill(buffer, 3.0f);
    const bool sender = rank % 2 == 0;
    for (const bool every_rank : {false, true}) {
        // Wrong on the sender only, on the receiver only, or on both.
        for (const bool wrong_sender : {true, false}) {
            const bool wrong = every_rank || (sender == wrong_sender);
            INFO("rank " << rank << (sender ? " (sender)" : " (receiver)")
                         << (wrong ? ", wrong here" : ", right here"));
            const int tag = 40 + (every_rank ? 2 : 0) + (wrong_sender ? 1 : 0);
            const dualrt::Queue used = wrong ? dualrt::Queue() : queue;
            const std::string error = error_of([&] {
                if (sender) comm.send(used, buffer, peer, tag);
                else comm.recv(used, buffer, peer, tag);
            });
            CHECK(test::contains(error, "the Queue is empty"));
            if (!wrong) CHECK(test::contains(error, "failed its own checks"));
        }
    }
    // Still usable, in both directions.
    auto got = test::rank_device().alloc<float>(2000);
    queue.fill(got, 0.0f);
    auto receive = comm.irecv(queue, got, peer, 50);
    comm.send(queue, buffer, peer, 50);
    queue.wait(receive.wait());
    std::vector<float> host(2000);
    queue.copy(host, got, dualrt::Sync::blocking);
    CHECK(host == std::vector<float>(2000, 3.0f));
}

TEST_CASE("a rank or tag out of range fails on the calling rank before anything is sent") {
    // No peer can be named: as in MPI, the other rank would wait for a send never made, so the
    // error is the calling rank's alone (docs/mpi.md says so).
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    auto buffer = test::rank_device().alloc<float>(10);
    CHECK(test::contains(error_of([&] { comm.isend(queue, buffer, -2, 1); }),
                         "destination rank -2 is not a rank"));
    CHECK(test::contains(error_of([&] { comm.irecv(queue, buffer, comm.size(), 1); }),
                         "source rank " + std::to_string(comm.size()) + " is not a rank"));
    CHECK(test::contains(error_of([&] { comm.isend(queue, buffer, 0, -1); }),
                         "tag -1 is out of range"));
    CHECK(test::contains(error_of([&] { comm.irecv(queue, buffer, 0, -7); }),
                         "tag -7 is out of range"));
    check_still_usable(comm, queue);
}

TEST_CASE("native() is the application's own: dualrt's messages never match its receives") {
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), peer = partner(rank, comm.size());
    if (comm.size() < 2) return;
    const MPI_Comm mine = comm.native();
    int compared = MPI_UNEQUAL;
    MPI_Comm_compare(mine, MPI_COMM_WORLD, &compared);
    CHECK(compared == MPI_CONGRUENT);
    auto buffer = test::rank_device().alloc<float>(1000);
    queue.fill(buffer, 4.0f);
    auto got = test::rank_device().alloc<float>(1000);
    // The same tag on both, and dualrt's header sent first: an application receive on a
    // communicator dualrt also used would match the header.
    const int tag = 9;
    std::vector<float> app_message(1000, 7.0f), app_got(1000, 0.0f);
    if (rank % 2 == 0) {
        auto send = comm.isend(queue, buffer, peer, tag);
        // The header leaves once its inline data is downloaded, on a later call into dualrt.
        for (int i = 0; i < 20; ++i) {
            send.test();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        CHECK(MPI_Send(app_message.data(), 1000, MPI_FLOAT, peer, tag, mine) == MPI_SUCCESS);
        send.wait();
    } else {
        // The application receives before dualrt does: it must get its own message.
        MPI_Status status;
        CHECK(MPI_Recv(app_got.data(), 1000, MPI_FLOAT, peer, tag, mine, &status) ==
              MPI_SUCCESS);
        CHECK(app_got == app_message);
        auto receive = comm.irecv(queue, got, peer, tag);
        queue.wait(receive.wait());
        std::vector<float> host(1000);
        queue.copy(host, got, dualrt::Sync::blocking);
        CHECK(host == std::vector<float>(1000, 4.0f));
    }
}

TEST_CASE("a refused transfer among others in flight: clear errors, and the good one arrives") {
    Communicator comm(test::rank_device());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), peer = partner(rank, comm.size());
    if (comm.size() < 2) return;
    auto hundred = test::rank_device().alloc<float>(100);
    auto two_hundred = test::rank_device().alloc<float>(200);
    auto ninety_nine = test::rank_device().alloc<float>(99);
    queue.fill(hundred, 1.0f);
    queue.fill(two_hundred, 2.0f);
    queue.fill(ninety_nine, 0.0f);
    if (rank % 2 == 0) {
        auto mismatched = comm.isend(queue, hundred, peer, 1);
        auto good = comm.isend(queue, two_hundred, peer, 2);
        CHECK(test::contains(error_of([&] { mismatched.wait(); }),
                             "which expected 99 elements of float"));
        CHECK_NOTHROW(good.wait());
    } else {
        auto received = test::rank_device().alloc<float>(200);
        queue.fill(received, 0.0f);
        auto good = comm.irecv(queue, received, peer, 2);
        auto mismatched = comm.irecv(queue, ninety_nine, peer, 1);
        CHECK(test::contains(error_of([&] { mismatched.wait(); }),
                             "which sent 100 elements of float"));
        dualrt::Event arrived;
        CHECK_NOTHROW(arrived = good.wait());
        queue.wait(arrived);
        std::vector<float> host(200);
        queue.copy(host, received, dualrt::Sync::blocking);
        CHECK(host == std::vector<float>(200, 2.0f));
    }
}
