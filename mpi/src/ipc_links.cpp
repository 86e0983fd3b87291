#include "ipc_links.hpp"

#include "agreement.hpp"
#include "mpi_check.hpp"

#include <dualrt/error.hpp>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace dualrt::mpi::detail {
namespace {

constexpr const char* operation = "dualrt::mpi::Communicator (IPC links)";

std::string system_error(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

// A name in the abstract namespace (sun_path[0] == 0), unique on this machine: the process id,
// a count of this process's links, and a random number for processes in other PID namespaces
// (containers) that share the network namespace and may have the same id.
sockaddr_un listening_address() {
    static std::atomic<unsigned> opened{0};
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string name = "dualrt-mpi-" + std::to_string(getpid()) + "-" +
                             std::to_string(opened.fetch_add(1)) + "-" +
                             std::to_string(std::random_device{}());
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    return address;
}

socklen_t length_of(const sockaddr_un& address) {
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 +
                                  std::strlen(address.sun_path + 1));
}

bool write_all(int socket, const void* data, std::size_t bytes) {
    const char* at = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t sent = ::send(socket, at, bytes, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return false;
        at += sent;
        bytes -= static_cast<std::size_t>(sent);
    }
    return true;
}

bool read_all(int socket, void* data, std::size_t bytes) {
    char* at = static_cast<char*>(data);
    while (bytes > 0) {
        const ssize_t got = ::recv(socket, at, bytes, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        at += got;
        bytes -= static_cast<std::size_t>(got);
    }
    return true;
}

// One message of a link: an 8-byte label, and room for one descriptor beside it.
struct LabelledMessage {
    std::uint64_t label = 0;
    iovec data{&label, sizeof label};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr header{};

    LabelledMessage() {
        header.msg_iov = &data;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof control;
    }
    LabelledMessage(const LabelledMessage&) = delete;  // it points into itself
    LabelledMessage& operator=(const LabelledMessage&) = delete;
};

}  // namespace

IpcLinks::~IpcLinks() {
    for (auto& [rank, socket] : sockets_) close(socket);
    for (auto& [label, fd] : early_) close(fd);
}

std::string IpcLinks::open(MPI_Comm comm, int rank, int size, const std::string& self) {
    const auto agree = [&](const std::string& problem) {
        return first_problem(comm, rank, self, problem, "connecting the ranks' IPC links");
    };
    std::string problem;
    sockaddr_un address = listening_address();
    const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct Closed {
        int fd;
        ~Closed() {
            if (fd >= 0) close(fd);
        }
    } closed{listener};
    if (listener < 0) problem = system_error("socket(AF_UNIX)");
    else if (bind(listener, reinterpret_cast<const sockaddr*>(&address), length_of(address)) != 0)
        problem = system_error("binding a Unix socket");
    else if (listen(listener, size) != 0)
        problem = system_error("listening on a Unix socket");
    if (std::string why = agree(problem); !why.empty()) return why;

    std::vector<sockaddr_un> addresses(static_cast<std::size_t>(size));
    DUALRT_MPI_CHECK(MPI_Allgather(&address, sizeof address, MPI_BYTE, addresses.data(),
                                   sizeof address, MPI_BYTE, comm),
                     "sharing the ranks' IPC socket names");
    // Each rank connects to the ranks above it (which queue the connection without accepting
    // yet) and says who it is; once every connection is made, each accepts those from below.
    for (int peer = rank + 1; peer < size && problem.empty(); ++peer) {
        const int link = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (link < 0) {
            problem = system_error("socket(AF_UNIX)");
            break;
        }
        sockets_[peer] = link;
        const sockaddr_un& to = addresses[static_cast<std::size_t>(peer)];
        if (connect(link, reinterpret_cast<const sockaddr*>(&to), length_of(to)) != 0)
            problem = system_error("connecting to rank " + std::to_string(peer) +
                                   "'s Unix socket (are the ranks on one machine, in one "
                                   "network namespace?)");
        else if (!write_all(link, &rank, sizeof rank))
            problem = system_error("writing to rank " + std::to_string(peer) + "'s Unix socket");
    }
    if (std::string why = agree(problem); !why.empty()) return why;
    for (int accepted = 0; accepted < rank && problem.empty(); ++accepted) {
        const int link = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        int peer = -1;
        if (link < 0) problem = system_error("accepting a Unix socket connection");
        else if (!read_all(link, &peer, sizeof peer) || peer < 0 || peer >= rank) {
            problem = "a connection to this rank's Unix socket did not name a lower rank";
            close(link);
        } else {
            sockets_[peer] = link;
        }
    }
    return agree(problem);
}

void IpcLinks::send(int peer, std::uint64_t id, int fd) {
    const auto link = sockets_.find(peer);
    if (link == sockets_.end())
        raise(Errc::backend_failure, operation, "no link to rank " + std::to_string(peer));
    LabelledMessage message;
    message.label = id;
    cmsghdr* rights = CMSG_FIRSTHDR(&message.header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(rights), &fd, sizeof fd);
    ssize_t sent = -1;
    do sent = sendmsg(link->second, &message.header, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent != static_cast<ssize_t>(sizeof id))
        raise(Errc::backend_failure, operation,
              system_error("passing device memory to rank " + std::to_string(peer)));
}

int IpcLinks::receive(int peer, std::uint64_t id) {
    if (const auto kept = early_.find({peer, id}); kept != early_.end()) {
        const int fd = kept->second;
        early_.erase(kept);
        return fd;
    }
    const auto link = sockets_.find(peer);
    if (link == sockets_.end())
        raise(Errc::backend_failure, operation, "no link to rank " + std::to_string(peer));
    for (;;) {
        LabelledMessage message;
        std::uint64_t& label = message.label;
        ssize_t got = -1;
        do got = recvmsg(link->second, &message.header, MSG_CMSG_CLOEXEC);
        while (got < 0 && errno == EINTR);
        const cmsghdr* rights = got > 0 ? CMSG_FIRSTHDR(&message.header) : nullptr;
        int fd = -1;
        if (rights != nullptr && rights->cmsg_level == SOL_SOCKET &&
            rights->cmsg_type == SCM_RIGHTS)
            std::memcpy(&fd, CMSG_DATA(rights), sizeof fd);
        // The label and its descriptor travel in one message of 8 bytes; a shorter read is
        // completed (the descriptor comes with the first byte).
        if (got > 0 && got < static_cast<ssize_t>(sizeof label) &&
            !read_all(link->second, reinterpret_cast<char*>(&label) + got,
                      sizeof label - static_cast<std::size_t>(got)))
            got = -1;
        if (got <= 0 || fd < 0) {
            if (fd >= 0) close(fd);
            raise(Errc::backend_failure, operation,
                  got == 0 ? "rank " + std::to_string(peer) +
                                 " closed its link before passing the device memory it "
                                 "announced (its process ended?)"
                           : system_error("receiving device memory from rank " +
                                          std::to_string(peer)));
        }
        if (label == id) return fd;
        early_[{peer, label}] = fd;
    }
}

}  // namespace dualrt::mpi::detail
