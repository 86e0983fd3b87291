// busy: compute-bound work whose cost per element is a parameter. Each element runs `iterations`
// dependent fused multiply-adds (v = v * 0.9999 + 0.0001), so the time grows linearly with
// `iterations` while memory traffic stays one read and one write. Used to balance compute
// against copies. fma() rounds once, so a host reference with std::fma matches bit for bit.
__kernel void busy(__global float* data, uint n, uint iterations) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    float v = data[i];
    for (uint k = 0; k < iterations; ++k) v = fma(v, 0.9999f, 0.0001f);
    data[i] = v;
}
