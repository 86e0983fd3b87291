// triad: c = a + s * b over n elements, the STREAM benchmark's triad. The `stream` sample moves
// a, b and c through two queues in blocks and times the copies around it; the kernel reads two
// floats and writes one per element, so it is a small share of each block's time. fma() rounds
// once, so a host reference with std::fma matches bit for bit (a contracted or separate multiply
// and add would each be allowed by the compilers, and would differ in the last bit).
// Twin of kernels/cu/stream.cu.
__kernel void triad(uint n, float s, __global const float* restrict a,
                    __global const float* restrict b, __global float* restrict c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = fma(s, b[i], a[i]);
}

// triad_pairs: the same over a and b interleaved in one array of pairs (ab[2i] = a[i],
// ab[2i + 1] = b[i]): the stream with one input array. Twin of kernels/cu/stream.cu.
__kernel void triad_pairs(uint n, float s, __global const float* restrict ab,
                          __global float* restrict c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = fma(s, ab[2 * i + 1], ab[2 * i]);
}
