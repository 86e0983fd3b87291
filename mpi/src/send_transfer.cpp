// A send: header out, reply in, then the pieces. Staged, each piece is downloaded into a pinned
// slot (on the downloads queue) and sent from there, the next pieces' downloads running while
// MPI sends; a buffer of up to inline_bytes is downloaded behind the header and leaves in the
// header's message. GPU-aware, the pieces go from device memory once the queue's earlier work is
// done. Through NCCL, a buffer larger than inline_bytes goes whole through the pipe to the
// receiver (nccl_pipes.hpp) in the order the receiver numbered it; smaller ones still travel
// inline, with copy engines that leave the SMs to the application's kernels (NCCL's own take
// SMs: a halo exchange through NCCL hid less of itself behind a stencil's sweep). Through IPC,
// once the receiver has accepted, each piece is copied into a shared slot (ipc_slots.hpp), its
// token names the slot, and the receiver's acknowledgement frees the slot for a later piece.
#include "comm_state.hpp"
#include "mpi_check.hpp"
#include "protocol.hpp"
#include "requests.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

constexpr std::size_t no_piece = std::numeric_limits<std::size_t>::max();

class SendTransfer final : public Transfer {
public:
    SendTransfer(CommState& comm, const Queue& queue, const BufferView& buffer,
                 const ElementType& type, int dest, int tag)
        : bytes_(buffer), dest_(dest), tag_(tag), direct_(comm.transport == Transport::gpu_aware),
          // No pipe joins a rank to itself: a send to oneself goes through the host in pieces.
          nccl_(comm.transport == Transport::nccl && comm.nccl_pipes && dest != comm.rank),
          ipc_(comm.transport == Transport::ipc) {
        header_.bytes = buffer.bytes();
        header_.elem_size = type.size;
        header_.type_code = type.code;
        header_.sequence = static_cast<std::uint64_t>(comm.next_sequence());
        header_.piece_bytes = piece_bytes_for(
            buffer.bytes(), ipc_ ? comm.options.ipc_piece_bytes : comm.options.piece_bytes);
        inline_ = !direct_ && header_.bytes <= inline_bytes;
        nccl_ = nccl_ && !inline_;
        ipc_ = ipc_ && !inline_;
        header_.inline_data = inline_ ? 1 : 0;
        pieces_ = inline_ || nccl_ ? 0 : piece_count(header_.bytes, header_.piece_bytes);
        Queue user = queue;
        after_ = user.mark();
        last_copy = after_;
        DUALRT_MPI_CHECK(MPI_Irecv(&reply_, sizeof reply_, MPI_BYTE, dest_,
                                   static_cast<int>(header_.sequence), comm.replies,
                                   &reply_request_),
                         where());
        if (ipc_) comm.downloads.wait(after_);
        else if (!direct_ && !nccl_) start_downloads(comm);
        ticket_ = comm.take_header_ticket();  // last: nothing after it throws
    }

    void abandoned(CommState& comm) noexcept override {
        if (!header_posted_) comm.header_skipped(ticket_);
    }

    bool advance(CommState& comm) override {
        if (!header_posted_ && !post_header(comm)) return false;
        // The receiver has not taken the header yet.
        if (!test_request(header_request_, where())) return false;
        if (!replied_) {
            if (!test_request(reply_request_, where())) return false;
            replied_ = true;
            if (message_.valid()) comm.slots.give_back(std::move(message_), Event());
            if (!reply_.accepted) refuse(comm);
            if (nccl_) enter_pipe(comm);
        }
        if (inline_) return true;
        if (direct_) return advance_direct(comm);
        if (nccl_) return advance_nccl(comm);
        if (ipc_) return advance_ipc(comm);
        // Sends may complete out of order, so a piece is looked for in every slot; pieces leave in
        // order (the receiver matches them by order), each once downloaded.
        while (next_send_ < pieces_) {
            Piece* slot = holding(next_send_);
            if (slot == nullptr || !slot->copied.is_complete()) break;
            DUALRT_MPI_CHECK(MPI_Isend(slot->host.data(), static_cast<int>(length(next_send_)),
                                       MPI_BYTE, dest_, static_cast<int>(header_.sequence),
                                       comm.pieces, &slot->request),
                             where());
            ++next_send_;
        }
        bool sending = false;
        for (auto& slot : ring_) {
            if (slot.request == MPI_REQUEST_NULL) continue;
            if (!test_request(slot.request, where())) {
                sending = true;
                continue;
            }
            if (next_download_ < pieces_) download(comm, slot);
        }
        if (sending || next_send_ < pieces_) return false;
        for (auto& slot : ring_) comm.slots.give_back(std::move(slot.host), Event());
        ring_.clear();
        return true;
    }

private:
    // Downloads start at once: they only read the buffer, before the reply says yes.
    void start_downloads(CommState& comm) {
        comm.downloads.wait(after_);
        if (inline_) {
            message_ = comm.slots.take(sizeof(Header) + header_.bytes);
            std::memcpy(message_.data(), &header_, sizeof header_);
            if (header_.bytes > 0)
                last_copy = comm.downloads.copy(message_.view(sizeof(Header), header_.bytes),
                                                bytes_);
            return;
        }
        ring_.resize(std::min(pieces_, comm.options.pieces_in_flight));
        for (auto& slot : ring_) {
            slot.host = comm.slots.take(header_.piece_bytes);
            download(comm, slot);
        }
    }

    struct Piece {
        Slot host;
        std::size_t piece = no_piece;
        Event copied;
        MPI_Request request = MPI_REQUEST_NULL;
    };

    // The header (with the inline data, once downloaded) leaves when every earlier send's has.
    bool post_header(CommState& comm) {
        if (!comm.may_post_header(ticket_)) return false;
        if (inline_ && !last_copy.is_complete()) return false;
        if (inline_)
            DUALRT_MPI_CHECK(MPI_Isend(message_.data(),
                                       static_cast<int>(sizeof(Header) + header_.bytes), MPI_BYTE,
                                       dest_, tag_, comm.headers, &header_request_),
                             where());
        else
            DUALRT_MPI_CHECK(MPI_Isend(&header_, sizeof header_, MPI_BYTE, dest_, tag_,
                                       comm.headers, &header_request_),
                             where());
        header_posted_ = true;
        comm.header_posted();
        return true;
    }

    Piece* holding(std::size_t piece) {
        for (auto& slot : ring_)
            if (slot.piece == piece) return &slot;
        return nullptr;
    }

    std::size_t length(std::size_t piece) const { return piece_length(header_, piece); }

    void download(CommState& comm, Piece& slot) {
        const std::size_t piece = next_download_++;
        const std::size_t offset = piece * header_.piece_bytes;
        slot.piece = piece;
        slot.copied = comm.downloads.copy(slot.host.view(0, length(piece)),
                                          bytes_.view(offset, length(piece)));
        last_copy = slot.copied;
    }

    bool advance_direct(CommState& comm) {
        if (!posted_) {
            if (!after_.is_complete()) return false;
            requests_ = post_pieces(Direction::send, device_address(bytes_, 0), header_,
                                    dest_, comm.pieces, where());
            posted_ = true;
        }
        return all_complete(requests_, where());
    }

    // The receiver numbered this send in the pipe.
    void enter_pipe(CommState& comm) {
        ticket_in_pipe_ = comm.pipes.to_rank(dest_).add(reply_.pipe_number, bytes_, after_);
    }

    bool advance_nccl(CommState& comm) {
        comm.pipes.to_rank(dest_).pump();
        if (!ticket_in_pipe_->enqueued) return false;
        last_copy = ticket_in_pipe_->done;
        return true;
    }

    // A piece in a shared slot: copied in, its token sent, its acknowledgement awaited.
    struct SharedPiece {
        IpcSlot* slot = nullptr;
        std::size_t piece = 0;
        Event copied;
        IpcToken token;
        IpcAck ack;
        bool token_posted = false;
        MPI_Request token_request = MPI_REQUEST_NULL, ack_request = MPI_REQUEST_NULL;
    };

    // Slots are taken only once the receiver has accepted: a slot then waits only for a receiver
    // that is taking the pieces, so sends that wait for slots never wait on each other.
    bool advance_ipc(CommState& comm) {
        while (next_download_ < pieces_ && shared_.size() < comm.options.pieces_in_flight) {
            IpcSlot* slot = comm.ipc->take(dest_);
            if (slot == nullptr) break;
            SharedPiece& piece = shared_.emplace_back();
            piece.slot = slot;
            piece.piece = next_download_++;
            const std::size_t offset = piece.piece * header_.piece_bytes;
            piece.copied = comm.downloads.copy(slot->memory.view(0, length(piece.piece)),
                                               bytes_.view(offset, length(piece.piece)));
            last_copy = piece.copied;
        }
        // Tokens leave in piece order (the receiver matches them by order), each once its piece
        // is in the slot; acknowledgements come back in the same order.
        for (SharedPiece& piece : shared_) {
            if (piece.token_posted) continue;
            if (!piece.copied.is_complete()) break;
            piece.token.slot = piece.slot->id;
            piece.token.slot_bytes = piece.slot->memory.bytes();
            piece.token.piece = piece.piece;
            const int tag = static_cast<int>(header_.sequence);
            DUALRT_MPI_CHECK(MPI_Irecv(&piece.ack, sizeof piece.ack, MPI_BYTE, dest_, tag,
                                       comm.replies, &piece.ack_request),
                             where());
            DUALRT_MPI_CHECK(MPI_Isend(&piece.token, sizeof piece.token, MPI_BYTE, dest_, tag,
                                       comm.pieces, &piece.token_request),
                             where());
            piece.token_posted = true;
        }
        while (!shared_.empty() && shared_.front().token_posted) {
            SharedPiece& piece = shared_.front();
            if (!test_request(piece.token_request, where()) ||
                !test_request(piece.ack_request, where()))
                break;
            if (piece.ack.failed)
                raise(Errc::backend_failure, "dualrt::mpi::Communicator::send",
                      comm.describe_self() + ": rank " + std::to_string(dest_) +
                          " could not take piece " + std::to_string(piece.piece) + " of the " +
                          where() + " from shared device memory: " +
                          std::string(piece.ack.problem,
                                      strnlen(piece.ack.problem, sizeof piece.ack.problem)));
            comm.ipc->give_back(*piece.slot);
            shared_.pop_front();
            ++acknowledged_;
        }
        return acknowledged_ == pieces_;
    }

    // The receiver said no: both ranks throw. Nothing of this send is left in flight (the header
    // was received, the pieces never left); the downloads are waited for before the slots go back.
    [[noreturn]] void refuse(CommState& comm) {
        for (auto& slot : ring_) {
            if (slot.copied.valid()) slot.copied.wait();
            comm.slots.give_back(std::move(slot.host), Event());
        }
        ring_.clear();
        const std::string sent = comm.describe_self() + " sent " +
                                 describe(header_.bytes, header_.elem_size, header_.type_code) +
                                 " to rank " + std::to_string(dest_) + " with tag " +
                                 std::to_string(tag_);
        if (reply_.receiver_failed)
            raise(Errc::invalid_argument, "dualrt::mpi::Communicator::send",
                  sent + ", whose receive failed its own checks: " +
                      std::string(reply_.problem, strnlen(reply_.problem, sizeof reply_.problem)));
        raise(Errc::invalid_argument, "dualrt::mpi::Communicator::send",
              sent + ", which expected " +
                  describe(reply_.bytes, reply_.elem_size, reply_.type_code) +
                  "; both ranks must pass buffers of the same element type and count");
    }

    std::string where() const {
        return "send of " + std::to_string(header_.bytes) + " bytes to rank " +
               std::to_string(dest_) + ", tag " + std::to_string(tag_);
    }

    Buffer<std::byte> bytes_;
    int dest_, tag_;
    bool direct_, nccl_, ipc_, inline_ = false;
    std::uint64_t ticket_ = 0;
    Header header_;
    Reply reply_;
    Slot message_;  // an inline send's header and data
    MPI_Request header_request_ = MPI_REQUEST_NULL, reply_request_ = MPI_REQUEST_NULL;
    bool header_posted_ = false, replied_ = false, posted_ = false;
    Event after_;
    std::size_t pieces_ = 0, next_download_ = 0, next_send_ = 0;
    std::vector<Piece> ring_;
    std::deque<SharedPiece> shared_;  // MPI holds pointers into it: a deque keeps them in place
    std::size_t acknowledged_ = 0;
    std::vector<MPI_Request> requests_;
    std::shared_ptr<PipeTicket> ticket_in_pipe_;
};

// A send whose own checks failed: its header carries the error message to the receiver instead of
// data, in its turn among the headers, and expects no reply.
class FailedSend final : public Transfer {
public:
    FailedSend(CommState& comm, int dest, int tag, const std::string& problem)
        : dest_(dest), tag_(tag),
          message_(sizeof(Header) + std::min(problem.size(), problem_bytes)) {
        Header header;
        header.bytes = message_.size() - sizeof(Header);
        header.sequence = static_cast<std::uint64_t>(comm.next_sequence());
        header.sender_failed = 1;
        std::memcpy(message_.data(), &header, sizeof header);
        std::memcpy(message_.data() + sizeof header, problem.data(), header.bytes);
        ticket_ = comm.take_header_ticket();
    }

    void abandoned(CommState& comm) noexcept override {
        if (!posted_) comm.header_skipped(ticket_);
    }

    bool advance(CommState& comm) override {
        if (!posted_) {
            if (!comm.may_post_header(ticket_)) return false;
            DUALRT_MPI_CHECK(MPI_Isend(message_.data(), static_cast<int>(message_.size()),
                                       MPI_BYTE, dest_, tag_, comm.headers, &request_),
                             "telling rank " + std::to_string(dest_) + " that a send failed");
            posted_ = true;
            comm.header_posted();
        }
        return test_request(request_, "telling rank " + std::to_string(dest_) +
                                          " that a send failed");
    }

private:
    int dest_, tag_;
    std::vector<char> message_;
    std::uint64_t ticket_ = 0;
    bool posted_ = false;
    MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace

std::shared_ptr<Transfer> start_send(CommState& comm, const Queue& queue, const BufferView& buffer,
                                     const ElementType& type, int dest, int tag) {
    const char* op = "dualrt::mpi::Communicator::send";
    comm.check_rank(op, "destination", dest, 0);
    comm.check_tag(op, tag, false);
    try {
        comm.check_queue_and_buffer(op, queue, buffer);
    } catch (const Error& e) {
        comm.active.push_back(std::make_shared<FailedSend>(comm, dest, tag, e.what()));
        throw;
    }
    auto transfer = std::make_shared<SendTransfer>(comm, queue, buffer, type, dest, tag);
    comm.active.push_back(transfer);
    return transfer;
}

}  // namespace dualrt::mpi::detail
