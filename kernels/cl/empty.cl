// empty: does nothing, so launching it costs only the launch (the samples' launch_cost measures
// enqueue cost and round trip with it). The unused parameter is there because NVIDIA's OpenCL
// compiler emits PTX that ptxas rejects ("Parsing error near '}'", driver 580.159.04) for a
// kernel without parameters, with or without a body.
__kernel void empty(uint unused) { (void)unused; }
