// empty: does nothing, so launching it costs only the launch. Twin of kernels/cl/empty.cl, whose
// unused parameter works around NVIDIA's OpenCL compiler failing on parameterless kernels.
#include "dualrt_kernel.cuh"

extern "C" __global__ void empty(uint unused) { (void)unused; }
