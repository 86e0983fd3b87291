// empty: does next to nothing, so launching it costs only the launch. Twin of kernels/cl/empty.cl
// (whose barrier keeps NVIDIA's OpenCL compiler from failing on an empty body; kept here too so
// both backends run the same kernel). `(void)` rather than `()`: the twin check compares
// parameter lists as written, and OpenCL C spells an empty one `(void)`.
#include "dualrt_kernel.cuh"

extern "C" __global__ void empty(void) { barrier(CLK_LOCAL_MEM_FENCE); }
