// Helpers of the MPI suite: this rank's device, the partner rank, and inputs every rank can
// recompute (a seed chosen by rank 0 and shared).
#pragma once

#include "../support.hpp"

#include <dualrt/mpi.hpp>
#include <dualrt/shared_memory.hpp>

#include <functional>
#include <string>

namespace test {

// The device of this rank, from dualrt::mpi::device_for_rank in main().
const dualrt::Device& rank_device();

inline int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}
inline int world_size() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

// The rank this one exchanges with: its neighbour in pairs (0-1, 2-3, ...), itself when alone.
inline int partner(int rank, int size) { return size == 1 ? 0 : rank ^ 1; }

// Runs `body`; returns the message of the dualrt::Error it threw ("" when none).
inline std::string error_of(const std::function<void()>& body) {
    try {
        body();
    } catch (const dualrt::Error& e) {
        return e.what();
    }
    return {};
}

// A fresh seed per call, the same on every rank (rank 0 draws it).
inline std::uint32_t shared_seed() {
    std::uint32_t seed = std::random_device{}();
    MPI_Bcast(&seed, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    return seed;
}

// The values rank `rank` holds for a given seed: any rank can recompute any other's.
template <typename T>
std::vector<T> values_of(std::uint32_t seed, int rank, std::size_t n) {
    std::mt19937 engine(seed + 7919u * static_cast<std::uint32_t>(rank));
    std::vector<T> out(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<double> dist(-100.0, 100.0);
        for (auto& v : out) v = static_cast<T>(dist(engine));
    } else {
        std::uniform_int_distribution<long long> dist(-1000, 1000);
        for (auto& v : out) v = static_cast<T>(dist(engine));
    }
    return out;
}

}  // namespace test
