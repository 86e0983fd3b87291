// One rank's block of a 2-D Jacobi (heat) grid: its rows plus a halo row above and below, on its
// device, swept on two queues: the two border rows on one, where the halo exchange with the
// neighbouring ranks follows them, and the interior rows on the other, so that the exchange runs
// while the interior is computed.
#pragma once

#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpi_stencil {

// The global grid: `rows` rows of `width` columns between a fixed top row (1.0) and a fixed
// bottom row (0.0); columns 0 and width - 1 are fixed too. Interior values start random in
// [0, 1), a function of (seed, row, column) only, so every rank can fill its own part.
struct Grid {
    std::size_t width = 0;
    std::size_t rows = 0;
    std::uint32_t seed = 0;
    // The starting value of global row `row` (0: the top boundary, rows + 1: the bottom one).
    float initial(std::size_t row, std::size_t column) const;
};

// Which rows a rank holds: the rows split as evenly as possible, the first ranks one more.
struct Rows {
    std::size_t first = 0;  // global row of local row 1
    std::size_t count = 0;
};
Rows rows_of(const Grid& grid, int rank, int ranks);

enum class StepMode {
    overlapped,    // border rows, then the exchange beside the interior rows
    compute_only,  // the same kernels, no exchange
    exchange_only  // the exchange alone (no kernels): what it costs when nothing hides it
};

class JacobiBlock {
public:
    // The block of `rank` of `ranks` (comm may be null for one rank alone), filled with the
    // grid's starting values, halo rows included.
    JacobiBlock(const dualrt::Device& device, dualrt::mpi::Communicator* comm, const Grid& grid,
                int rank, int ranks);

    void step(StepMode mode);
    void finish();  // both queues drained
    // The block's own rows, as they are now.
    std::vector<float> rows() ;
    const Rows& extent() const { return rows_; }

private:
    void launch_rows(dualrt::Queue& queue, std::size_t first, std::size_t count,
                     dualrt::Event& done);
    void exchange();

    dualrt::Device device_;
    dualrt::mpi::Communicator* comm_;
    Grid grid_;
    Rows rows_;
    int up_ = -1, down_ = -1;  // neighbouring ranks (-1: a fixed boundary instead)
    dualrt::Kernel kernel_;
    dualrt::Queue edge_, interior_;
    dualrt::Buffer<float> current_, next_;
    dualrt::Event border_done_, interior_done_;
};

// `steps` sweeps of the whole grid on the host: the reference for small grids.
std::vector<float> host_reference(const Grid& grid, int steps);

}  // namespace mpi_stencil
