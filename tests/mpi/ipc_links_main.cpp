// The IPC transport's links (mpi/src/ipc_links.hpp), which need no GPU: file descriptors passed
// between the ranks' processes over Unix sockets, labelled, taken in any order, and a peer that
// closes its links is an error, not a hang. A white-box test of dualrt_mpi's internal class;
// CTest runs it on 3 ranks so that every pair is connected both ways.
#define DOCTEST_CONFIG_IMPLEMENT
#include "../../mpi/src/ipc_links.hpp"

#include <dualrt/error.hpp>

#include <doctest/doctest.h>
#include <mpi.h>

#include <memory>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

namespace {

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int world_size() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

// What a descriptor from rank `from` to rank `to` with `label` holds.
std::string content(int from, int to, std::uint64_t label) {
    return "from " + std::to_string(from) + " to " + std::to_string(to) + ", label " +
           std::to_string(label);
}

// A file in memory holding `text`: its descriptor.
int memory_file(const std::string& text) {
    const int fd = memfd_create("dualrt-ipc-links-test", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    return fd;
}

std::string read_whole(int fd) {
    std::string text(256, '\0');
    const ssize_t got = pread(fd, text.data(), text.size(), 0);
    text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    return text;
}

}  // namespace

TEST_CASE("IPC links: descriptors reach every other rank, taken in any order") {
    const int rank = world_rank(), size = world_size();
    dualrt::mpi::detail::IpcLinks links;
    REQUIRE(links.open(MPI_COMM_WORLD, rank, size, "rank " + std::to_string(rank)) == "");
    // Two descriptors to every other rank, labels 1 and 2, sent in that order ...
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (std::uint64_t label : {1, 2}) {
            const int fd = memory_file(content(rank, peer, label));
            links.send(peer, label, fd);
            close(fd);  // the peer holds its own
        }
    }
    // ... and taken label 2 first, so label 1 waits among the early arrivals.
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        for (std::uint64_t label : {2, 1}) {
            const int fd = links.receive(peer, label);
            CHECK(read_whole(fd) == content(peer, rank, label));
            close(fd);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("IPC links: a peer whose links are gone is an error naming it") {
    const int rank = world_rank(), size = world_size();
    if (size < 2) return;
    auto links = std::make_unique<dualrt::mpi::detail::IpcLinks>();
    REQUIRE(links->open(MPI_COMM_WORLD, rank, size, "rank " + std::to_string(rank)) == "");
    if (rank == 1) links.reset();  // closes its sockets
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        std::string error;
        try {
            links->receive(1, 7);
        } catch (const dualrt::Error& e) {
            error = e.what();
        }
        CHECK(error.find("rank 1 closed its link") != std::string::npos);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    doctest::Context context(argc, argv);
    int code = context.run(), worst = code;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
