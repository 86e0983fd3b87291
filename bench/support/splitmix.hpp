// The benchmarks' random inputs: splitmix64, fast enough for the 2^26 and more elements of a
// large array (std::mt19937 with a distribution takes seconds there), random enough to tell
// elements apart, and the same values from the same seed on every machine.
#pragma once

#include <cstdint>

namespace dualrt::samples {

// The next 64 random bits of the sequence that `state` stands at (it moves on).
inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace dualrt::samples
