// The recorded work of a Pipeline's runs (PipelineOptions::replay): every chunk's upload, compute
// and download, one recording per lane, recorded once over a layout and replayed by the runs that
// follow over the same layout, so that a run costs the host one replay per lane instead of every
// command of every chunk. Internal.
#pragma once

#include <dualrt/pipeline.hpp>
#include <dualrt/recording.hpp>

#include "run/chunk_extents.hpp"
#include "run/chunk_scheduler.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace dualrt::detail {

// Why a run in `mode` over `arrays` on `device` is not replayed, "" where it is: the compute
// function is not declared replayable, the run is not on lanes (stage queues join chunks with
// events across queues), an array is pageable (staged through the host at every run), or the
// device cannot record.
std::string cannot_replay(const PipelineOptions& options, PipelineMode mode,
                          const RunArrays& arrays, const Device& device);

class RunRecordings {
public:
    // Whether the recordings hold a run over `arrays` cut into `extents` on `lanes` lanes.
    bool hold(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
              std::size_t lanes) const;
    // Records the run that `enqueue` enqueues on `queues` (one recording per lane), for runs over
    // `arrays` cut into `extents`. The run itself has not run: replay() runs it. Throws what
    // recording throws, naming the Pipeline's part, and then holds nothing.
    void record(PipelineQueues& queues, const RunArrays& arrays,
                const std::vector<ChunkExtent>& extents, const std::function<void()>& enqueue);
    // Whether `enqueue` enqueues on `queues` exactly the commands the recordings hold (the same
    // kernels, scalar arguments and memory, by fingerprint), running none of them: what keeps a
    // compute function that changes its commands from being replayed with the old ones.
    bool match(PipelineQueues& queues, const std::function<void()>& enqueue) const;
    // Replays each lane's recording on its queue of `queues` (the same lanes, possibly the
    // device's other set of queues).
    void replay(PipelineQueues& queues) const;
    // How many runs the recordings have served, the one that recorded them included.
    std::size_t runs() const { return runs_; }

private:
    // What a recording's commands name: the arrays' addresses and sizes, the chunks and lanes.
    struct Layout {
        std::vector<std::pair<const void*, std::size_t>> arrays;
        std::vector<std::size_t> chunks;
        std::size_t lanes = 0;
        bool operator==(const Layout& other) const {
            return arrays == other.arrays && chunks == other.chunks && lanes == other.lanes;
        }
    };
    static Layout layout_of(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                            std::size_t lanes);

    Layout layout_;
    std::vector<Recording> lanes_;  // empty: nothing recorded
    mutable std::size_t runs_ = 0;
};

}  // namespace dualrt::detail
