// A receive: header in, checked, reply out, then the pieces. Staged, each piece lands in a
// pinned slot and is uploaded from there (on the uploads queue) while MPI receives the next; an
// inline buffer arrives with the header and is uploaded at once. GPU-aware, the pieces land in
// device memory once the queue's earlier work is done with it. Through NCCL, the accepted send is
// numbered in the pipe from its sender (nccl_pipes.hpp) and received from there. Through IPC,
// each piece's token names the sender's shared slot that holds it (ipc_slots.hpp): the piece is
// copied out of this rank's import of the slot, and an acknowledgement frees the slot.
#include "comm_state.hpp"
#include "mpi_check.hpp"
#include "protocol.hpp"
#include "requests.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>

namespace dualrt::mpi::detail {
namespace {

constexpr std::size_t no_piece = std::numeric_limits<std::size_t>::max();
// A sender's piece size is trusted up to this (pieces are single MPI messages of int bytes).
constexpr std::uint64_t max_piece_bytes = std::uint64_t(1) << 30;

class RecvTransfer final : public Transfer {
public:
    RecvTransfer(CommState& comm, const Queue& queue, const BufferView& buffer,
                 const ElementType& type, int source, int tag)
        : bytes_(buffer), type_(type), source_(source), tag_(tag),
          direct_(comm.transport == Transport::gpu_aware),
          nccl_(comm.transport == Transport::nccl && comm.nccl_pipes),
          ipc_(comm.transport == Transport::ipc) {
        Queue user = queue;
        after_ = user.mark();
        last_copy = after_;
        // Uploads must not overwrite what the queue's earlier work still reads.
        comm.uploads.wait(after_);
        // Room for an inline buffer: the sender decides whether the data comes along.
        message_ = comm.slots.take(header_room);
        DUALRT_MPI_CHECK(MPI_Irecv(message_.data(), static_cast<int>(header_room), MPI_BYTE,
                                   source_, tag_, comm.headers, &header_request_),
                         where());
    }

    bool advance(CommState& comm) override {
        if (!have_header_) {
            MPI_Status status;
            int done = 0;
            DUALRT_MPI_CHECK(MPI_Test(&header_request_, &done, &status), where());
            if (!done) return false;
            have_header_ = true;
            source_ = status.MPI_SOURCE;
            tag_ = status.MPI_TAG;
            // A send from this rank itself came through the host, not a pipe (send_transfer.cpp).
            nccl_ = nccl_ && source_ != comm.rank;
            int count = 0;
            DUALRT_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count), where());
            received_ = static_cast<std::size_t>(count);
            if (received_ >= sizeof header_) std::memcpy(&header_, message_.data(), sizeof header_);
            else header_.magic = 0;  // not a dualrt::mpi header
            answer(comm);
        }
        if (!test_request(reply_request_, where())) return false;
        if (header_.inline_data) return true;
        if (direct_) return advance_direct(comm);
        if (nccl_) return advance_nccl(comm);
        if (ipc_) return advance_ipc(comm);
        // Pieces arrive in order; each is uploaded from its slot as soon as it is in.
        while (next_upload_ < pieces_) {
            Piece* slot = holding(next_upload_);
            if (slot == nullptr || !test_request(slot->request, where())) break;
            const std::size_t offset = next_upload_ * header_.piece_bytes;
            slot->copied = comm.uploads.copy(bytes_.view(offset, length(next_upload_)),
                                             slot->host.view(0, length(next_upload_)));
            slot->uploading = true;
            last_copy = slot->copied;
            ++next_upload_;
        }
        // A slot takes the next piece once its upload has read it; receives are posted in piece
        // order, which is how MPI matches them to the sender's pieces.
        while (next_post_ < pieces_) {
            Piece* free_slot = nullptr;
            for (auto& slot : ring_)
                if (slot.uploading && slot.copied.is_complete()) {
                    free_slot = &slot;
                    break;
                }
            if (free_slot == nullptr) break;
            post(comm, *free_slot);
        }
        if (next_upload_ < pieces_) return false;
        for (auto& slot : ring_) comm.slots.give_back(std::move(slot.host), slot.copied);
        ring_.clear();
        return true;
    }

private:
    struct Piece {
        Slot host;
        std::size_t piece = no_piece;
        bool uploading = false;
        Event copied;
        MPI_Request request = MPI_REQUEST_NULL;
    };

    // Checks the header, answers it, and (accepted) uploads inline data or posts the first
    // receives of the pieces.
    void answer(CommState& comm) {
        if (header_.magic == header_magic && header_.sender_failed) {
            // The sender's own checks failed: it expects no reply.
            const std::size_t carried = received_ - std::min(received_, sizeof(Header));
            const std::size_t length = std::min<std::size_t>(header_.bytes, carried);
            const std::string problem(static_cast<const char*>(static_cast<const void*>(
                                          message_.data() + sizeof(Header))),
                                      length);
            comm.slots.give_back(std::move(message_), Event());
            raise(Errc::invalid_argument, "dualrt::mpi::Communicator::recv",
                  comm.describe_self() + " expected " +
                      describe(bytes_.bytes(), type_.size, type_.code) + " from rank " +
                      std::to_string(source_) + " with tag " + std::to_string(tag_) +
                      ", whose send failed its own checks: " + problem);
        }
        const bool well_formed =
            header_.inline_data ? received_ == sizeof(Header) + header_.bytes
                                : header_.piece_bytes > 0 && header_.piece_bytes <= max_piece_bytes;
        const bool accepted = accepts(header_, bytes_.bytes(), type_) && well_formed;
        reply_.accepted = accepted ? 1 : 0;
        reply_.bytes = bytes_.bytes();
        reply_.elem_size = type_.size;
        reply_.type_code = type_.code;
        if (accepted && nccl_ && !header_.inline_data) enter_pipe(comm);
        DUALRT_MPI_CHECK(MPI_Isend(&reply_, sizeof reply_, MPI_BYTE, source_,
                                   static_cast<int>(header_.sequence), comm.replies,
                                   &reply_request_),
                         where());
        if (!accepted) {
            comm.slots.give_back(std::move(message_), Event());
            // The sender waits for this answer; a small message, it leaves at once.
            DUALRT_MPI_CHECK(MPI_Wait(&reply_request_, MPI_STATUS_IGNORE), where());
            raise(Errc::invalid_argument, "dualrt::mpi::Communicator::recv",
                  comm.describe_self() + " expected " +
                      describe(bytes_.bytes(), type_.size, type_.code) + " from rank " +
                      std::to_string(source_) + " with tag " + std::to_string(tag_) +
                      ", which sent " +
                      describe(header_.bytes, header_.elem_size, header_.type_code) +
                      (header_.magic != header_magic ? " (not a dualrt::mpi header)" : "") +
                      "; both ranks must pass buffers of the same element type and count");
        }
        if (header_.inline_data) {
            if (header_.bytes > 0)
                last_copy = comm.uploads.copy(bytes_, message_.view(sizeof(Header),
                                                                    header_.bytes));
            comm.slots.give_back(std::move(message_), last_copy);
            return;
        }
        comm.slots.give_back(std::move(message_), Event());
        pieces_ = piece_count(header_.bytes, header_.piece_bytes);
        if (ipc_) {
            while (next_post_ < pieces_ && shared_.size() < comm.options.pieces_in_flight)
                post_token(comm);
            return;
        }
        if (direct_ || nccl_) return;
        ring_.resize(std::min(pieces_, comm.options.pieces_in_flight));
        for (auto& slot : ring_) {
            slot.host = comm.slots.take(header_.piece_bytes);
            post(comm, slot);
        }
    }

    // Numbers the send in the pipe from its sender (opened with the communicator).
    void enter_pipe(CommState& comm) {
        Pipe& pipe = comm.pipes.from_rank(source_);
        reply_.pipe_number = pipe.take_number();
        ticket_in_pipe_ = pipe.add(reply_.pipe_number, bytes_, after_);
    }

    bool advance_nccl(CommState& comm) {
        comm.pipes.from_rank(source_).pump();
        if (!ticket_in_pipe_->enqueued) return false;
        last_copy = ticket_in_pipe_->done;
        return true;
    }

    // A piece that waits in one of the sender's shared slots.
    struct SharedPiece {
        std::size_t piece = 0;
        IpcToken token;
        IpcAck ack;
        Event copied;
        bool copying = false, acknowledging = false;
        MPI_Request token_request = MPI_REQUEST_NULL, ack_request = MPI_REQUEST_NULL;
    };

    void post_token(CommState& comm) {
        SharedPiece& piece = shared_.emplace_back();
        piece.piece = next_post_++;
        DUALRT_MPI_CHECK(MPI_Irecv(&piece.token, sizeof piece.token, MPI_BYTE, source_,
                                   static_cast<int>(header_.sequence), comm.pieces,
                                   &piece.token_request),
                         where());
    }

    bool advance_ipc(CommState& comm) {
        // Tokens arrive in piece order; each piece is copied out of the slot as soon as its token
        // is in.
        for (SharedPiece& piece : shared_) {
            if (piece.copying) continue;
            if (!test_request(piece.token_request, where())) break;
            take_piece(comm, piece);
        }
        // Acknowledged in order once copied, each making room for a later piece's token.
        while (!shared_.empty() && shared_.front().copying) {
            SharedPiece& piece = shared_.front();
            if (!piece.acknowledging) {
                if (!piece.copied.is_complete()) break;
                piece.ack.piece = piece.piece;
                send_ack(comm, piece);
            }
            if (!test_request(piece.ack_request, where())) break;
            shared_.pop_front();
            ++acknowledged_;
            if (next_post_ < pieces_) post_token(comm);
        }
        return acknowledged_ == pieces_;
    }

    void send_ack(CommState& comm, SharedPiece& piece) {
        DUALRT_MPI_CHECK(MPI_Isend(&piece.ack, sizeof piece.ack, MPI_BYTE, source_,
                                   static_cast<int>(header_.sequence), comm.replies,
                                   &piece.ack_request),
                         where());
        piece.acknowledging = true;
    }

    // Copies the piece out of this rank's import of the sender's slot. A piece it cannot take is
    // acknowledged as failed before this rank throws, so that the sender throws too.
    void take_piece(CommState& comm, SharedPiece& piece) {
        const std::size_t bytes = length(piece.piece);
        try {
            if (piece.token.piece != piece.piece || piece.token.slot_bytes < bytes)
                raise(Errc::backend_failure, "dualrt::mpi::Communicator::recv",
                      "the token of piece " + std::to_string(piece.piece) + " names piece " +
                          std::to_string(piece.token.piece) + " in a slot of " +
                          std::to_string(piece.token.slot_bytes) + " bytes");
            const Buffer<std::byte>& slot =
                comm.ipc->imported(source_, piece.token.slot, piece.token.slot_bytes);
            piece.copied = comm.uploads.copy(
                bytes_.view(piece.piece * header_.piece_bytes, bytes), slot.view(0, bytes));
        } catch (const Error& e) {
            piece.ack.piece = piece.piece;
            piece.ack.failed = 1;
            std::string(e.what()).copy(piece.ack.problem, sizeof piece.ack.problem - 1);
            send_ack(comm, piece);
            // A small message: it leaves at once, and the sender waits for it.
            DUALRT_MPI_CHECK(MPI_Wait(&piece.ack_request, MPI_STATUS_IGNORE), where());
            throw;
        }
        last_copy = piece.copied;
        piece.copying = true;
    }

    void post(CommState& comm, Piece& slot) {
        slot.piece = next_post_++;
        slot.uploading = false;
        DUALRT_MPI_CHECK(MPI_Irecv(slot.host.data(), static_cast<int>(length(slot.piece)),
                                   MPI_BYTE, source_, static_cast<int>(header_.sequence),
                                   comm.pieces, &slot.request),
                         where());
    }

    Piece* holding(std::size_t piece) {
        for (auto& slot : ring_)
            if (slot.piece == piece && !slot.uploading) return &slot;
        return nullptr;
    }

    std::size_t length(std::size_t piece) const { return piece_length(header_, piece); }

    bool advance_direct(CommState& comm) {
        if (!posted_) {
            if (!after_.is_complete()) return false;
            requests_ = post_pieces(Direction::receive, device_address(bytes_, 0), header_,
                                    source_, comm.pieces, where());
            posted_ = true;
        }
        return all_complete(requests_, where());
    }

    std::string where() const {
        return "receive of " + std::to_string(bytes_.bytes()) + " bytes from rank " +
               std::to_string(source_) + ", tag " + std::to_string(tag_);
    }

    Buffer<std::byte> bytes_;
    ElementType type_;
    int source_, tag_;
    bool direct_, nccl_, ipc_;
    std::shared_ptr<PipeTicket> ticket_in_pipe_;
    Header header_;
    Reply reply_;
    Slot message_;  // the header, and an inline buffer after it
    std::size_t received_ = 0;  // bytes of the header's message
    MPI_Request header_request_ = MPI_REQUEST_NULL, reply_request_ = MPI_REQUEST_NULL;
    bool have_header_ = false, posted_ = false;
    Event after_;
    std::size_t pieces_ = 0, next_post_ = 0, next_upload_ = 0;
    std::vector<Piece> ring_;
    std::deque<SharedPiece> shared_;  // MPI holds pointers into it: a deque keeps them in place
    std::size_t acknowledged_ = 0;
    std::vector<MPI_Request> requests_;
};

// A receive whose own checks failed, left behind to answer the header it would have matched with a
// refusal carrying its message, so that the sender fails too instead of waiting for a reply. One
// whose sender never comes is cancelled when the communicator goes.
class FailedRecv final : public Transfer {
public:
    FailedRecv(CommState& comm, int source, int tag, const std::string& problem)
        : message_(comm.slots.take(header_room)) {
        reply_.receiver_failed = 1;
        problem.copy(reply_.problem, sizeof reply_.problem - 1);
        DUALRT_MPI_CHECK(MPI_Irecv(message_.data(), static_cast<int>(header_room), MPI_BYTE,
                                   source, tag, comm.headers, &header_request_),
                         "answering a send after a failed receive");
    }

    bool advance(CommState& comm) override {
        if (header_request_ != MPI_REQUEST_NULL) {
            MPI_Status status;
            int done = 0;
            DUALRT_MPI_CHECK(MPI_Test(&header_request_, &done, &status),
                             "answering a send after a failed receive");
            if (!done) return false;
            Header header;
            std::memcpy(&header, message_.data(), sizeof header);
            comm.slots.give_back(std::move(message_), Event());
            // A send that failed too expects no answer; anything else that is not a dualrt header
            // has none to expect either.
            if (header.magic != header_magic || header.sender_failed) return true;
            DUALRT_MPI_CHECK(MPI_Isend(&reply_, sizeof reply_, MPI_BYTE, status.MPI_SOURCE,
                                       static_cast<int>(header.sequence), comm.replies,
                                       &reply_request_),
                             "answering a send after a failed receive");
        }
        return test_request(reply_request_, "answering a send after a failed receive");
    }

    // Only while it waits for the header: after that it has a reply in flight to finish.
    bool cancellable() const noexcept override { return header_request_ != MPI_REQUEST_NULL; }
    void cancel(CommState& comm) noexcept override {
        if (header_request_ == MPI_REQUEST_NULL) return;
        MPI_Cancel(&header_request_);
        MPI_Wait(&header_request_, MPI_STATUS_IGNORE);
        comm.slots.give_back(std::move(message_), Event());
    }

private:
    Slot message_;
    Reply reply_;
    MPI_Request header_request_ = MPI_REQUEST_NULL, reply_request_ = MPI_REQUEST_NULL;
};

}  // namespace

std::shared_ptr<Transfer> start_recv(CommState& comm, const Queue& queue, const BufferView& buffer,
                                     const ElementType& type, int source, int tag) {
    const char* op = "dualrt::mpi::Communicator::recv";
    comm.check_rank(op, "source", source, MPI_ANY_SOURCE);
    comm.check_tag(op, tag, true);
    try {
        comm.check_queue_and_buffer(op, queue, buffer);
    } catch (const Error& e) {
        comm.active.push_back(std::make_shared<FailedRecv>(comm, source, tag, e.what()));
        throw;
    }
    auto transfer = std::make_shared<RecvTransfer>(comm, queue, buffer, type, source, tag);
    comm.active.push_back(transfer);
    return transfer;
}

}  // namespace dualrt::mpi::detail
