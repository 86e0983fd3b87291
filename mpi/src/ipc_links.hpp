// Unix sockets between the ranks of one machine, which carry the file descriptors of device
// memory a rank exports (the IPC transport, ipc_slots.hpp): MPI moves bytes, not descriptors, so
// the descriptors go where only the kernel can pass them, as SCM_RIGHTS messages.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace dualrt::mpi::detail {

class IpcLinks {
public:
    IpcLinks() = default;
    IpcLinks(const IpcLinks&) = delete;
    IpcLinks& operator=(const IpcLinks&) = delete;
    ~IpcLinks();  // closes the sockets and the descriptors received and not yet taken

    // Collective over `comm`: a connected socket to every other rank, through listening sockets
    // in Linux's abstract namespace (no file is left behind). Returns "" when every rank is
    // connected, else why not (the same text on every rank, the failing rank named by its
    // `self`); nothing on any rank waits for a connection that a failed rank never makes.
    std::string open(MPI_Comm comm, int rank, int size, const std::string& self);

    // Sends `fd` (still the caller's afterwards) to `peer`, labelled with `id`. Throws
    // Errc::backend_failure when the socket fails (the peer's process is gone).
    void send(int peer, std::uint64_t id, int fd);
    // The descriptor `peer` sent with label `id` (the caller owns it). Descriptors that arrive
    // first with other labels are kept for their turn. Blocks until it arrives: call it only for
    // a label the peer has sent before saying so by MPI.
    int receive(int peer, std::uint64_t id);

private:
    std::map<int, int> sockets_;                       // rank -> connected socket
    std::map<std::pair<int, std::uint64_t>, int> early_;  // (rank, label) -> descriptor
};

}  // namespace dualrt::mpi::detail
