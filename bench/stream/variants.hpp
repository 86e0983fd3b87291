// The ways a program holds its host memory while it streams, each a function that runs the same
// block schedule (StreamBench) with its own host arrays and its own way of naming them in copies.
// Adding a variant is a function of this signature and one line in the table (variants.cpp).
#pragma once

#include "stream_bench.hpp"

#include <string>
#include <vector>

namespace dualrt::samples::stream {

struct Variant {
    const char* name;   // on the command line, in the tables and the CSV
    const char* holds;  // how the host memory is held and named in the copies
    HostMemory memory;  // pinned: compared with the native pinned stream, target 0.95;
                        // pageable: also with the native pageable one, target 0.80 of native
                        // pinned where dualrt stages the copies (blocks from the staging threshold)
    Measurement (*run)(StreamBench& bench);
};

// This build's variants, in the order of the tables.
const std::vector<Variant>& variants();

// The variant functions (variants.cpp, variants_held_whole.cpp).
Measurement pinned_per_block(StreamBench& bench);
Measurement pinned_pointer(StreamBench& bench);
Measurement pageable(StreamBench& bench);
Measurement pinned_view(StreamBench& bench);
Measurement registered(StreamBench& bench);
// Through dualrt::Pipeline (variants_pipeline.cpp): two inputs and one output in chunks of the
// block size, one input of interleaved (a, b) pairs likewise, and two inputs with automatic
// chunking.
Measurement pipeline_two_inputs(StreamBench& bench);
Measurement pipeline_pairs(StreamBench& bench);
Measurement pipeline_auto(StreamBench& bench);

// The stream with every copy given a plain pointer into whole arrays (pinned or pageable).
Measurement stream_through_pointers(StreamBench& bench, float* a, float* b, float* c);

}  // namespace dualrt::samples::stream
