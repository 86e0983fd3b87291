// Choosing a run's chunks: the fixed cuts of Chunking::count and Chunking::elements, and
// automatic chunking. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// What the chunk sizes depend on besides the chunking.
struct PlanRequest {
    std::size_t count = 0;          // elements in every array
    std::size_t granule = 1;        // chunk boundaries fall on multiples of it (whole rows)
    std::size_t widest_elem = 1;    // the largest element size of any array, in bytes
    std::size_t halo_elements = 0;  // halo before + after each chunk
    // Whether some array is pageable host memory, whose chunks pass through pinned staging
    // buffers: runs dealt to several devices then keep their chunks smaller.
    bool staged = false;
    // The devices the chunks are dealt to: with several, chunks stay small enough that each
    // device gets many.
    std::size_t devices = 1;
};

inline bool operator==(const PlanRequest& a, const PlanRequest& b) {
    return a.count == b.count && a.granule == b.granule && a.widest_elem == b.widest_elem &&
           a.halo_elements == b.halo_elements && a.staged == b.staged && a.devices == b.devices;
}
inline bool operator!=(const PlanRequest& a, const PlanRequest& b) { return !(a == b); }

struct PlanDecision {
    std::vector<std::size_t> sizes;
    std::string how;  // for PipelineReport::chunking
};

// The chunk sizes of a run. Fixed chunking needs per-chunk counts that are whole rows;
// `operation` names the call in the errors.
//
// Automatic chunking on one device cuts the arrays into equal chunks of about a quarter of
// them, within 1 to 16 MiB of the widest array: the chunks that keep a PCIe bus busy while
// their fixed costs (enqueues, DMA set-up) stay small, with fill and drain short. That is the
// best fixed chunk size of c = a + s*b on 16 MiB (4 MiB chunks) and 256 MiB arrays (16 MiB), on
// CUDA and NVIDIA's OpenCL alike, and a plan fitted run by run to a model of the stages measured
// no better on any workload (docs/overlap.md, "Choosing the chunks"). Over several devices
// chunks are about 1/(32 x devices) of the arrays (1 MiB at least, 256 MiB at most, 16 MiB where
// staged), ending in three halvings: a run ends when its last device does, up to about one
// chunk after the others, so small chunks keep that to a few percent of the run, and the last
// chunks, halved, shorten it further.
PlanDecision choose_plan(const Chunking& chunking, const PlanRequest& request,
                         const char* operation);

}  // namespace dualrt::detail
