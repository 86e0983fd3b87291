#include "requests.hpp"

#include "mpi_check.hpp"

#include <cstdint>

namespace dualrt::mpi::detail {

bool test_request(MPI_Request& request, const std::string& context) {
    if (request == MPI_REQUEST_NULL) return true;
    int done = 0;
    DUALRT_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE), context);
    return done != 0;
}

bool all_complete(std::vector<MPI_Request>& requests, const std::string& context) {
    for (auto& request : requests)
        if (!test_request(request, context)) return false;
    return true;
}

std::vector<MPI_Request> post_pieces(Direction direction, void* base, const Header& header,
                                     int peer, MPI_Comm comm, const std::string& context) {
    const std::size_t pieces = piece_count(header.bytes, header.piece_bytes);
    std::vector<MPI_Request> requests(pieces, MPI_REQUEST_NULL);
    const int tag = static_cast<int>(header.sequence);
    for (std::size_t p = 0; p < pieces; ++p) {
        void* at = static_cast<std::uint8_t*>(base) + p * header.piece_bytes;
        const int count = static_cast<int>(piece_length(header, p));
        if (direction == Direction::send)
            DUALRT_MPI_CHECK(MPI_Isend(at, count, MPI_BYTE, peer, tag, comm, &requests[p]),
                             context);
        else
            DUALRT_MPI_CHECK(MPI_Irecv(at, count, MPI_BYTE, peer, tag, comm, &requests[p]),
                             context);
    }
    return requests;
}

}  // namespace dualrt::mpi::detail
