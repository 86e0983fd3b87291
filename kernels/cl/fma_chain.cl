// fma_chain: compute-bound work for the work-group size sweep (bench/occupancy). Each element
// runs four independent chains of `iterations` dependent fused multiply-adds from its input,
// v = fma(v, m, 0.01f) with a multiplier m per chain, and writes their sum:
//   dst[i] = (a + b) + (c + d)
// The chains are independent so that one work-item keeps several FMAs in flight (instruction-
// level parallelism): one dependent chain would be bound by the FMA latency instead of the
// throughput. Each chain moves its value from the input towards its fixed point 0.01 / (1 - m),
// between 25 and 100, by some 1% per iteration at first: inputs in [1, 2) stay within [1, 100]
// (no overflow, no denormal that a flush-to-zero could change), and an iteration more or less
// changes the result far beyond rounding. fma() rounds once and the sums add no product that a
// compiler could contract, so a host reference with std::fma in float
// (bench/occupancy/fma_reference.hpp) matches. 8 * iterations flops per element.
// Twin of kernels/cu/fma_chain.cu.

// One step of each of the four chains.
#define FMA_CHAIN_STEP()               \
    a = fma(a, 0.9999f, 0.01f);        \
    b = fma(b, 0.9998f, 0.01f);        \
    c = fma(c, 0.9997f, 0.01f);        \
    d = fma(d, 0.9996f, 0.01f)

__kernel void fma_chain(uint n, uint iterations, __global const float* restrict src,
                        __global float* restrict dst) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const float x = src[i];
    float a = x, b = x, c = x, d = x;
    // Four steps per pass, written out: the loop's own instructions (counter, compare, branch)
    // then cost little beside 16 FMAs, whatever the compiler's unrolling does (PoCL's LLVM
    // cannot honour `#pragma unroll 4` on this loop and warns). The rest runs one step at a time.
    for (uint pass = 0; pass < iterations / 4; ++pass) {
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
    }
    for (uint k = 0; k < iterations % 4; ++k) {
        FMA_CHAIN_STEP();
    }
    dst[i] = (a + b) + (c + d);
}
