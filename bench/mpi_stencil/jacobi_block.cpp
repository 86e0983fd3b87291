#include "jacobi_block.hpp"

#include <utility>

namespace mpi_stencil {
namespace {

// splitmix64: a well-mixed value per (seed, row, column), so that ranks fill their parts alike.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

constexpr int tag_to_upper = 1;  // a rank's first row, sent to the rank above
constexpr int tag_to_lower = 2;  // its last row, sent to the rank below

}  // namespace

float Grid::initial(std::size_t row, std::size_t column) const {
    if (row == 0) return 1.0f;
    if (row == rows + 1) return 0.0f;
    const std::uint64_t bits = mix(mix(seed) ^ (row * width + column));
    return static_cast<float>(bits >> 40) / static_cast<float>(1 << 24);  // [0, 1), exact
}

Rows rows_of(const Grid& grid, int rank, int ranks) {
    const std::size_t r = static_cast<std::size_t>(rank), p = static_cast<std::size_t>(ranks);
    const std::size_t base = grid.rows / p, extra = grid.rows % p;
    Rows rows;
    rows.count = base + (r < extra ? 1 : 0);
    rows.first = 1 + r * base + std::min(r, extra);
    return rows;
}

JacobiBlock::JacobiBlock(const dualrt::Device& device, dualrt::mpi::Communicator* comm,
                         const Grid& grid, int rank, int ranks)
    : device_(device), comm_(comm), grid_(grid), rows_(rows_of(grid, rank, ranks)) {
    if (rows_.count == 0)
        throw std::invalid_argument("rank " + std::to_string(rank) + " gets no rows: the grid's " +
                                    std::to_string(grid.rows) + " rows are fewer than the " +
                                    std::to_string(ranks) + " ranks");
    if (comm_ != nullptr && rank > 0) up_ = rank - 1;
    if (comm_ != nullptr && rank + 1 < ranks) down_ = rank + 1;
    kernel_ = device_.kernel("jacobi_rows");
    edge_ = device_.create_queue();
    interior_ = device_.create_queue();
    // Local rows 0 .. count + 1 are global rows first - 1 .. first + count.
    std::vector<float> start((rows_.count + 2) * grid_.width);
    for (std::size_t local = 0; local < rows_.count + 2; ++local)
        for (std::size_t x = 0; x < grid_.width; ++x)
            start[local * grid_.width + x] = grid_.initial(rows_.first - 1 + local, x);
    current_ = device_.alloc<float>(start.size());
    next_ = device_.alloc<float>(start.size());
    // Both hold the fixed rows and columns, which no sweep writes.
    edge_.copy(current_, start, dualrt::Sync::blocking);
    edge_.copy(next_, start, dualrt::Sync::blocking);
}

void JacobiBlock::launch_rows(dualrt::Queue& queue, std::size_t first, std::size_t count,
                              dualrt::Event& done) {
    done = queue.launch(kernel_, {grid_.width, count}, {}, current_, next_,
                        static_cast<std::uint32_t>(grid_.width),
                        static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(count));
}

void JacobiBlock::exchange() {
    const std::size_t w = grid_.width, n = rows_.count;
    std::vector<dualrt::mpi::Request> receives, sends;
    // The halo rows of `next_`, which this sweep does not read, receive the neighbours' new
    // border rows; this block's new border rows go to them.
    if (up_ >= 0) receives.push_back(comm_->irecv(edge_, next_.view(0, w), up_, tag_to_lower));
    if (down_ >= 0)
        receives.push_back(comm_->irecv(edge_, next_.view((n + 1) * w, w), down_, tag_to_upper));
    if (up_ >= 0) sends.push_back(comm_->isend(edge_, next_.view(w, w), up_, tag_to_upper));
    if (down_ >= 0) sends.push_back(comm_->isend(edge_, next_.view(n * w, w), down_, tag_to_lower));
    for (auto& receive : receives) edge_.wait(receive.wait());
    for (auto& send : sends) edge_.wait(send.wait());  // the next sweep writes those rows
}

void JacobiBlock::step(StepMode mode) {
    const std::size_t n = rows_.count;
    if (mode != StepMode::exchange_only) {
        // Border rows (1 and n) after the previous interior sweep, which read rows beside them.
        // The interior rows (2 .. n - 1) need only the previous border sweep, but they wait for
        // this one: it is short, and once it is done its exchange runs during the whole interior
        // sweep, instead of whenever the GPU finds room for it beside that large kernel. Neither
        // waits for the exchange: only the next border sweep reads halo rows.
        if (interior_done_.valid()) edge_.wait(interior_done_);
        launch_rows(edge_, 1, 1, border_done_);
        if (n > 1) launch_rows(edge_, n, 1, border_done_);
        if (n > 2) {
            interior_.wait(border_done_);
            launch_rows(interior_, 2, n - 2, interior_done_);
            // OpenCL holds commands until their queue is flushed, and nothing else flushes this
            // one before the next step: polling submits the sweep now, so that it runs during
            // the exchange below instead of after it (a query and nothing more on CUDA).
            (void)interior_done_.is_complete();
        }
    }
    if (mode != StepMode::compute_only && (up_ >= 0 || down_ >= 0)) exchange();
    if (mode != StepMode::exchange_only) std::swap(current_, next_);
}

void JacobiBlock::finish() {
    edge_.finish();
    interior_.finish();
}

std::vector<float> JacobiBlock::rows() {
    finish();
    std::vector<float> out(rows_.count * grid_.width);
    edge_.copy(out.data(), out.size(), current_.view(grid_.width, out.size()),
               dualrt::Sync::blocking);
    return out;
}

std::vector<float> host_reference(const Grid& grid, int steps) {
    const std::size_t w = grid.width, h = grid.rows + 2;
    std::vector<float> a(w * h), b;
    for (std::size_t r = 0; r < h; ++r)
        for (std::size_t x = 0; x < w; ++x) a[r * w + x] = grid.initial(r, x);
    b = a;
    for (int s = 0; s < steps; ++s) {
        for (std::size_t r = 1; r + 1 < h; ++r)
            for (std::size_t x = 1; x + 1 < w; ++x) {
                const std::size_t i = r * w + x;
                b[i] = ((a[i - w] + a[i + w]) + (a[i - 1] + a[i + 1])) * 0.25f;
            }
        std::swap(a, b);
    }
    return std::vector<float>(a.begin() + static_cast<std::ptrdiff_t>(w),
                              a.end() - static_cast<std::ptrdiff_t>(w));
}

}  // namespace mpi_stencil
