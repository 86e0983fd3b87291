// stencil_blur3x3: a 3x3 blur of a block of image rows, weights (1 2 1, 2 4 2, 1 2 1) / 16, edges
// clamped. `in` holds halo_top rows above the block, its `rows` rows, then halo_bottom rows below,
// each `width` floats; `out` gets the block's rows. A block at the image's top (or bottom) has no
// halo row there, so clamping to the rows of `in` is clamping to the image's edge.
// Every weight is a power of two, so each product is exact and contracting a multiply and an add
// into an fma changes nothing: the result is the same bits on every device and on the host.
__kernel void stencil_blur3x3(__global const float* in, __global float* out, uint width,
                              uint rows, uint halo_top, uint halo_bottom) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x >= width || y >= rows) return;
    const size_t in_rows = (size_t)halo_top + rows + halo_bottom;
    const size_t row = y + halo_top;
    const size_t up = row > 0 ? row - 1 : 0;
    const size_t down = row + 1 < in_rows ? row + 1 : row;
    const size_t left = x > 0 ? x - 1 : 0;
    const size_t right = x + 1 < width ? x + 1 : x;
    __global const float* a = in + up * width;
    __global const float* b = in + row * width;
    __global const float* c = in + down * width;
    const float top = (a[left] + 2.0f * a[x]) + a[right];
    const float middle = (b[left] + 2.0f * b[x]) + b[right];
    const float bottom = (c[left] + 2.0f * c[x]) + c[right];
    out[y * width + x] = ((top + 2.0f * middle) + bottom) * 0.0625f;
}
