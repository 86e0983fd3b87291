// empty: does next to nothing, so launching it costs only the launch (the samples' launch_cost
// measures enqueue cost and round trip with it). The barrier is there because a kernel whose
// body compiles to nothing makes NVIDIA's OpenCL compiler emit PTX that ptxas rejects
// ("Parsing error near '}'", driver 580.159.04); one barrier in a one-work-item group is free.
__kernel void empty(void) { barrier(CLK_LOCAL_MEM_FENCE); }
