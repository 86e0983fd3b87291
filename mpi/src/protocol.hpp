// What two ranks tell each other before a buffer moves, so that a disagreement on sizes or types
// is an error on both sides rather than a truncated message or a hang.
//
// A send posts a Header (on the header communicator, with the user's tag), the receiver answers
// with a Reply (reply communicator, tag = the header's sequence number), and only an accepted
// reply lets the pieces go (piece communicator, tag = sequence number, in order, so MPI's
// non-overtaking rule matches them to the receives posted in the same order).
//
// A rank whose own checks of a send or receive fail (an empty or foreign buffer or queue) throws,
// and still tells the peer where it can name one (a valid rank and tag): a failed send posts a
// header carrying its message instead of data, a failed receive answers the header it matches
// with a refusal carrying its message. So the peer's transfer fails too, instead of waiting.
//
// A buffer of up to inline_bytes travels inside the header's message instead (staged senders):
// one message, whose reply the sender waits for while the receiver already uploads. Halo rows and
// other small messages then cost one message, not three in turn. Every receive posts room for an
// inline buffer, so the limit is part of the protocol, the same on every rank.
#pragma once

#include <dualrt/mpi.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dualrt::mpi::detail {

inline constexpr std::uint64_t header_magic = 0x64756172746d7069;  // "duartmpi"

inline constexpr std::size_t inline_bytes = std::size_t(256) << 10;

// 64 bytes, so that inline data after it starts aligned for any element type and for DMA.
struct Header {
    std::uint64_t magic = header_magic;
    std::uint64_t bytes = 0;        // the whole buffer
    std::uint64_t elem_size = 0;    // sizeof(T)
    std::uint64_t type_code = 0;    // type_code<T>()
    std::uint64_t sequence = 0;     // the tag of the reply and the pieces
    std::uint64_t piece_bytes = 0;  // how the sender cuts the buffer
    std::uint64_t inline_data = 0;  // 1: the bytes follow this header in the same message
    // 1: the sender's own checks failed; instead of data, its error message follows (`bytes`
    // long), and no reply is expected.
    std::uint64_t sender_failed = 0;
};
static_assert(sizeof(Header) == 64, "the header is 64 bytes on every rank");
// Room a receive posts: a header and an inline buffer.
inline constexpr std::size_t header_room = sizeof(Header) + inline_bytes;

struct Reply {
    std::uint64_t accepted = 0;
    std::uint64_t bytes = 0;  // what the receiver expected
    std::uint64_t elem_size = 0;
    std::uint64_t type_code = 0;
    // 1: the receiver's own checks failed; `problem` holds its message (cut to fit).
    std::uint64_t receiver_failed = 0;
    // The NCCL transport (nccl_pipes.hpp): the receiver's number for this send in the pipe from
    // the sender.
    std::uint64_t pipe_number = 0;
    char problem[464] = {};
};
static_assert(sizeof(Reply) == 512, "the reply is 512 bytes on every rank");

// A failing rank's message as the peer receives it: at most this many bytes.
inline constexpr std::size_t problem_bytes = 4096;

// "1000 elements of float (4000 bytes)", "12 elements of a 24-byte type (288 bytes)".
std::string describe(std::uint64_t bytes, std::uint64_t elem_size, std::uint64_t type_code);

// Whether a receive of `expected` accepts `header`: same byte count, element size and type.
bool accepts(const Header& header, std::uint64_t bytes, const ElementType& expected);

// The piece size a staged send of `bytes` uses: at most `largest` (the options'), and small enough
// that a buffer of a few pieces still overlaps its copies with MPI (about four pieces), but not
// below the inline size.
std::size_t piece_bytes_for(std::size_t bytes, std::size_t largest);

// The pieces a buffer of `bytes` is cut into (0 for an empty one).
inline std::size_t piece_count(std::uint64_t bytes, std::uint64_t piece_bytes) {
    return static_cast<std::size_t>((bytes + piece_bytes - 1) / piece_bytes);
}

}  // namespace dualrt::mpi::detail
