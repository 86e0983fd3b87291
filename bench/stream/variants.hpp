// The ways a program holds its host memory while it streams, each a function that sets up the
// same block schedule (StreamBench) with its own host arrays and its own way of naming them in
// copies. Adding a variant is a function of this signature and one line in the table
// (variants.cpp).
#pragma once

#include "stream_bench.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dualrt::samples::stream {

struct Variant {
    const char* name;   // on the command line, in the tables and the CSV
    const char* holds;  // how the host memory is held and named in the copies
    HostMemory memory;  // pinned: compared with the native pinned stream, target 0.95;
                        // pageable: also with the native pageable one, target 0.80 of native
                        // pinned where dualrt stages the copies (blocks from the staging threshold)
    PreparedStream (*prepare)(StreamBench& bench);
};

// This build's variants, in the order of the tables.
const std::vector<Variant>& variants();

// The variant functions (variants.cpp, variants_held_whole.cpp).
PreparedStream pinned_per_block(StreamBench& bench);
PreparedStream pinned_pointer(StreamBench& bench);
PreparedStream pageable(StreamBench& bench);
PreparedStream pinned_view(StreamBench& bench);
PreparedStream registered(StreamBench& bench);
// Through dualrt::Pipeline (variants_pipeline.cpp): two inputs and one output in chunks of the
// block size, one input of interleaved (a, b) pairs likewise, two inputs in chunks of the block
// size replaying their recorded runs, and two inputs with automatic chunking.
PreparedStream pipeline_two_inputs(StreamBench& bench);
PreparedStream pipeline_pairs(StreamBench& bench);
PreparedStream pipeline_replay(StreamBench& bench);
PreparedStream pipeline_auto(StreamBench& bench);

// The stream with every copy given a plain pointer into whole arrays (pinned or pageable) that
// `owner` keeps alive.
PreparedStream stream_through_pointers(StreamBench& bench, std::shared_ptr<const void> owner,
                                       float* a, float* b, float* c);

}  // namespace dualrt::samples::stream
