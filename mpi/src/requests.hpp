// MPI requests as the transfers use them: tested without blocking, and a buffer's pieces posted
// all at once straight from or into device memory (the GPU-aware path).
#pragma once

#include "protocol.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dualrt::mpi::detail {

// Whether `request` has completed (MPI_REQUEST_NULL counts as done); throws for an MPI error.
bool test_request(MPI_Request& request, const std::string& context);
// Whether every one of `requests` has completed.
bool all_complete(std::vector<MPI_Request>& requests, const std::string& context);

// Bytes of piece `piece` of the buffer `header` describes.
inline std::size_t piece_length(const Header& header, std::size_t piece) {
    const std::size_t offset = piece * header.piece_bytes;
    return std::min<std::size_t>(header.piece_bytes, header.bytes - offset);
}

enum class Direction { send, receive };
// Posts every piece of the buffer at `base` (device memory MPI reads or writes) to or from rank
// `peer`, tagged with the header's sequence number, in order.
std::vector<MPI_Request> post_pieces(Direction direction, void* base, const Header& header,
                                     int peer, MPI_Comm comm, const std::string& context);

}  // namespace dualrt::mpi::detail
