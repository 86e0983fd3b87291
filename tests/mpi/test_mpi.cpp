// dualrt::mpi on every rank: device placement, point-to-point transfers of device buffers (inline
// with the header and in pieces, sizes around the piece size, sub-views, both directions at once,
// wildcards, order within a tag), broadcast and allreduce
// against host references, and the errors: ranks that disagree on sizes or types, bad ranks and
// tags. Inputs are fresh per run (a seed rank 0 draws and shares); outputs are poisoned first.
#include "mpi_support.hpp"

#include "../../mpi/src/placement.hpp"

#include <algorithm>

namespace {

using dualrt::mpi::Communicator;
using dualrt::mpi::CommunicatorOptions;
using dualrt::mpi::ReduceOp;
using test::error_of;
using test::partner;

// Small pieces, so that a few hundred KiB already make several pieces and reuse every slot (the
// staged path's pinned ones and the IPC path's shared ones).
CommunicatorOptions small_pieces() {
    CommunicatorOptions options;
    options.piece_bytes = 64 * 1024;
    options.ipc_piece_bytes = 64 * 1024;
    options.pieces_in_flight = 2;
    return options;
}


template <typename T>
dualrt::Buffer<T> device_copy(dualrt::Queue& queue, const std::vector<T>& host) {
    auto buffer = test::rank_device().alloc<T>(host.size());
    queue.copy(buffer, host, dualrt::Sync::blocking);
    return buffer;
}

template <typename T>
std::vector<T> host_copy(dualrt::Queue& queue, const dualrt::Buffer<T>& buffer) {
    std::vector<T> host(buffer.size());
    queue.copy(host, buffer, dualrt::Sync::blocking);
    return host;
}


}  // namespace

TEST_CASE("placement: one device per node-local rank, a clear error beyond, wrapping if allowed") {
    using dualrt::mpi::DeviceSharing;
    using dualrt::mpi::detail::device_index_for;
    CHECK(device_index_for(0, 2, 2, DeviceSharing::forbid, "GPU") == 0);
    CHECK(device_index_for(1, 2, 2, DeviceSharing::forbid, "GPU") == 1);
    CHECK(device_index_for(3, 4, 2, DeviceSharing::allow, "GPU") == 1);
    const std::string message = error_of(
        [] { device_index_for(2, 3, 2, DeviceSharing::forbid, "CUDA device"); });
    CHECK(test::contains(message, "3 ranks but has 2 CUDA devices"));
    CHECK(test::contains(message, "DeviceSharing::allow"));
    CHECK(test::contains(error_of([] { device_index_for(0, 1, 0, DeviceSharing::allow, "GPU"); }),
                         "no GPUs"));
    CHECK(test::contains(error_of([] { device_index_for(1, 2, 1, DeviceSharing::forbid, "GPU"); }),
                         "2 ranks but has 1 GPU (node-local rank 1"));
}

TEST_CASE("device_for_rank gives each rank of a node its own device") {
    const int index = test::rank_device().info().index;
    std::vector<int> all(static_cast<std::size_t>(test::world_size()));
    MPI_Allgather(&index, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::sort(all.begin(), all.end());
    // Without DUALRT_DEVICE or sharing, every rank of this one node has its own index.
    if (std::getenv("DUALRT_DEVICE") == nullptr &&
        std::getenv("DUALRT_MPI_TESTS_SHARE_DEVICES") == nullptr)
        CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("send and recv move device buffers exactly, at every size around the piece size") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), size = comm.size(), peer = partner(rank, size);
    // Up to 65536 floats (256 KiB) travel inline; beyond, in 64 KiB pieces: 65537 makes five,
    // the last of one float, and 100003 seven.
    for (const std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65536),
                                std::size_t(65537), std::size_t(100003)}) {
        const std::uint32_t seed = test::shared_seed();
        INFO("n " << n << ", seed " << seed << ", rank " << rank);
        auto out = device_copy(queue, test::values_of<float>(seed, rank, n));
        auto in = device_copy(queue, std::vector<float>(n, test::poison_float()));
        // Both directions at once: non-blocking, so one rank alone also works (it sends to
        // itself).
        auto receive = comm.irecv(queue, in, peer, 5);
        auto send = comm.isend(queue, out, peer, 5);
        queue.wait(receive.wait());
        send.wait();
        CHECK(test::differences(host_copy(queue, in), test::values_of<float>(seed, peer, n)) ==
              "");
    }
}

TEST_CASE("blocking send and recv of sub-views, in turn") {
    if (test::world_size() < 2) return;  // a blocking send to oneself has no receiver yet
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank();
    const std::uint32_t seed = test::shared_seed();
    const std::size_t n = 70001, offset = 333, count = 50000;
    INFO("seed " << seed << ", rank " << rank);
    if (rank == 0) {
        auto source = device_copy(queue, test::values_of<std::int32_t>(seed, 0, n));
        comm.send(queue, source.view(offset, count), 1, 11);
    } else if (rank == 1) {
        auto target = device_copy(queue, std::vector<std::int32_t>(n, -1));
        comm.recv(queue, target.view(17, count), 0, 11);
        const auto got = host_copy(queue, target);
        const auto sent = test::values_of<std::int32_t>(seed, 0, n);
        std::vector<std::int32_t> expected(n, -1);
        std::copy(sent.begin() + offset, sent.begin() + offset + count, expected.begin() + 17);
        CHECK(test::differences(got, expected) == "");
    }
}

TEST_CASE("several transfers in flight, wildcards, and messages of one tag kept in order") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), peer = partner(rank, comm.size());
    const std::uint32_t seed = test::shared_seed();
    INFO("seed " << seed << ", rank " << rank);
    // The first message travels inline with its header, the others in pieces: the first's header
    // waits for its download, and the second's must not overtake it.
    const std::size_t sizes[] = {100, 40000, 40000};
    std::vector<dualrt::Buffer<double>> outs, ins;
    std::vector<dualrt::mpi::Request> sends, receives;
    for (int k = 0; k < 3; ++k) {
        outs.push_back(device_copy(queue, test::values_of<double>(seed + k, rank, sizes[k])));
        ins.push_back(device_copy(queue, std::vector<double>(sizes[k], -0.0)));
    }
    // Two messages share tag 3; the third comes from any source with any tag.
    receives.push_back(comm.irecv(queue, ins[0], peer, 3));
    receives.push_back(comm.irecv(queue, ins[1], peer, 3));
    receives.push_back(comm.irecv(queue, ins[2], MPI_ANY_SOURCE, MPI_ANY_TAG));
    for (int k = 0; k < 3; ++k) sends.push_back(comm.isend(queue, outs[k], peer, k < 2 ? 3 : 9));
    for (auto& receive : receives) queue.wait(receive.wait());
    for (auto& send : sends) send.wait();
    for (int k = 0; k < 3; ++k)
        CHECK(test::differences(host_copy(queue, ins[k]),
                                test::values_of<double>(seed + k, peer, sizes[k])) == "");
}

TEST_CASE("a receive of another size or type fails on both ranks, and the communicator goes on") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    const int rank = comm.rank(), peer = partner(rank, comm.size());
    auto floats = test::rank_device().alloc<float>(1000);
    auto fewer = test::rank_device().alloc<float>(999);
    auto ints = test::rank_device().alloc<std::int32_t>(1000);
    queue.fill(floats, 1.5f);
    SUBCASE("count") {
        auto receive = comm.irecv(queue, fewer, peer, 21);
        auto send = comm.isend(queue, floats, peer, 21);
        const std::string received = error_of([&] { receive.wait(); });
        const std::string sent = error_of([&] { send.wait(); });
        CHECK(test::contains(received, "expected 999 elements of float (3996 bytes)"));
        CHECK(test::contains(received, "which sent 1000 elements of float (4000 bytes)"));
        CHECK(test::contains(sent, "sent 1000 elements of float (4000 bytes) to rank"));
        CHECK(test::contains(sent, "which expected 999 elements of float"));
    }
    SUBCASE("count, in pieces") {
        auto big = test::rank_device().alloc<float>(100000);
        auto smaller = test::rank_device().alloc<float>(99999);
        queue.fill(big, 0.5f);
        auto receive = comm.irecv(queue, smaller, peer, 24);
        auto send = comm.isend(queue, big, peer, 24);
        CHECK(test::contains(error_of([&] { receive.wait(); }),
                             "expected 99999 elements of float (399996 bytes)"));
        CHECK(test::contains(error_of([&] { send.wait(); }),
                             "which expected 99999 elements of float"));
    }
    SUBCASE("type") {
        auto receive = comm.irecv(queue, ints, peer, 22);
        auto send = comm.isend(queue, floats, peer, 22);
        CHECK(test::contains(error_of([&] { receive.wait(); }),
                             "expected 1000 elements of int32 (4000 bytes)"));
        CHECK(test::contains(error_of([&] { send.wait(); }), "which expected 1000 elements of "
                                                             "int32"));
    }
    // Still usable: a good exchange right after.
    auto good = test::rank_device().alloc<float>(1000);
    queue.fill(good, 0.0f);
    auto receive = comm.irecv(queue, good, peer, 23);
    comm.isend(queue, floats, peer, 23).wait();
    queue.wait(receive.wait());
    CHECK(host_copy(queue, good) == std::vector<float>(1000, 1.5f));
}

TEST_CASE("broadcast from every root gives every rank the root's buffer") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    for (int root = 0; root < comm.size(); ++root) {
        const std::uint32_t seed = test::shared_seed();
        const std::size_t n = 50001;
        INFO("root " << root << ", seed " << seed << ", rank " << comm.rank());
        auto buffer = device_copy(queue, comm.rank() == root
                                             ? test::values_of<float>(seed, root, n)
                                             : std::vector<float>(n, test::poison_float()));
        comm.broadcast(queue, buffer, root);
        CHECK(test::differences(host_copy(queue, buffer), test::values_of<float>(seed, root, n)) ==
              "");
    }
}

template <typename T>
void check_allreduce(Communicator& comm, dualrt::Queue& queue, ReduceOp op, std::size_t n) {
    const std::uint32_t seed = test::shared_seed();
    INFO(dualrt::mpi::to_string(op) << ", n " << n << ", seed " << seed << ", rank "
                                    << comm.rank());
    auto buffer = device_copy(queue, test::values_of<T>(seed, comm.rank(), n));
    comm.allreduce(queue, buffer, op);
    // The reference in rank order; sums of doubles may differ in the last bits with MPI's
    // order, so floating-point sums are compared with a tolerance.
    std::vector<T> expected = test::values_of<T>(seed, 0, n);
    for (int r = 1; r < comm.size(); ++r) {
        const auto other = test::values_of<T>(seed, r, n);
        for (std::size_t i = 0; i < n; ++i)
            expected[i] = op == ReduceOp::sum   ? static_cast<T>(expected[i] + other[i])
                          : op == ReduceOp::min ? std::min(expected[i], other[i])
                                                : std::max(expected[i], other[i]);
    }
    const auto got = host_copy(queue, buffer);
    if constexpr (std::is_floating_point_v<T>) {
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!(std::abs(got[i] - expected[i]) <= 1e-4 * (1 + std::abs(expected[i])))) ++wrong;
        CHECK(wrong == 0);
    } else {
        CHECK(test::differences(got, expected) == "");
    }
}

TEST_CASE("allreduce: sum, min and max of integers and floating point") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    for (const auto op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max}) {
        check_allreduce<std::int32_t>(comm, queue, op, 70000);
        check_allreduce<float>(comm, queue, op, 33333);
        check_allreduce<double>(comm, queue, op, 9000);
        check_allreduce<std::uint64_t>(comm, queue, op, 1);
    }
}

TEST_CASE("collectives whose ranks disagree fail on every rank instead of hanging") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD, small_pieces());
    auto queue = test::rank_device().create_queue();
    auto buffer = test::rank_device().alloc<float>(100 + static_cast<std::size_t>(comm.rank()));
    queue.fill(buffer, 2.0f);
    if (comm.size() > 1) {
        CHECK(test::contains(error_of([&] { comm.allreduce(queue, buffer, ReduceOp::sum); }),
                             "the ranks disagree: bytes ranges from 400 to"));
        CHECK(test::contains(error_of([&] { comm.broadcast(queue, buffer, 0); }),
                             "every rank must pass the same arguments"));
    }
    // Still usable.
    auto same = test::rank_device().alloc<float>(100);
    queue.fill(same, 2.0f);
    comm.allreduce(queue, same, ReduceOp::sum);
    CHECK(host_copy(queue, same) == std::vector<float>(100, 2.0f * comm.size()));
}

TEST_CASE("bad ranks, tags and options are clear errors") {
    Communicator comm(test::rank_device(), MPI_COMM_WORLD);
    auto queue = test::rank_device().create_queue();
    auto buffer = test::rank_device().alloc<float>(10);
    const int size = comm.size();
    CHECK(test::contains(error_of([&] { comm.send(queue, buffer, size, 0); }),
                         "destination rank " + std::to_string(size) +
                             " is not a rank of this communicator; expected 0 to " +
                             std::to_string(size - 1)));
    CHECK(test::contains(error_of([&] { comm.recv(queue, buffer, 0, -5); }),
                         "tag -5 is out of range; expected 0 to MPI_TAG_UB"));
    CHECK(test::contains(error_of([&] { comm.broadcast(queue, buffer, -1); }),
                         "root rank -1 is not a rank"));
    CommunicatorOptions tiny;
    tiny.piece_bytes = 100;
    CHECK(test::contains(error_of([&] { Communicator bad(test::rank_device(), MPI_COMM_WORLD,
                                                         tiny); }),
                         "piece_bytes 100 is out of range; expected 4 KiB to 1 GiB"));
    CommunicatorOptions huge;
    huge.ipc_piece_bytes = std::size_t(512) << 20;
    CHECK(test::contains(error_of([&] { Communicator bad(test::rank_device(), MPI_COMM_WORLD,
                                                         huge); }),
                         "ipc_piece_bytes 536870912 is out of range; expected 4 KiB to 256 MiB"));
    CHECK(test::contains(error_of([&] { Communicator bad(dualrt::Device(), MPI_COMM_WORLD); }),
                         "the Device is empty"));
}
