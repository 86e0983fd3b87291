// smooth5: a 5-point smoothing of one chunk of a long signal, weights (1 2 2 2 1) / 8. `in` holds
// halo_before elements in front of the chunk, its n elements, then halo_after elements; `out` gets
// the chunk's n results. A chunk at either end of the signal has no halo there, so clamping to
// the ends of `in` is clamping to the ends of the signal. Every weight is a power of two, so an
// fma the compiler may contract rounds like the separate multiply and add: the same bits on
// every device and on the host. Twin of smooth5.cu.
__kernel void smooth5(__global const float* in, __global float* out, uint n, uint halo_before,
                      uint halo_after) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const long last = (long)halo_before + n + halo_after - 1;
    const long c = (long)halo_before + (long)i;
    const float l2 = in[max(c - 2, 0L)], l1 = in[max(c - 1, 0L)];
    const float r1 = in[min(c + 1, last)], r2 = in[min(c + 2, last)];
    out[i] = (((l2 + r2) + 2.0f * (l1 + r1)) + 2.0f * in[c]) * 0.125f;
}
