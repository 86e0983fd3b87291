// A work-around for PoCL's cache of compiled work-group functions, which aborts a process that
// launches one kernel over grids of growing width while earlier launches of it are in flight.
//
// PoCL (3.1 and 5.0 checked) compiles a kernel per local size *and* per grid width class, and
// keeps the loaded functions in one process-wide list with a reference count each: a launch
// takes the first entry whose width covers its grid (making one when none does, at the front),
// but a finished launch gives back the first entry with the same kernel and local size,
// whatever its width. When a wider launch has made a new entry while narrower ones still hold
// the old, their return lands on the new entry, and a later return finds its count at zero:
// `pocl_release_dlhandle_cache: Assertion found->ref_count > 0 failed`. Pipelines meet it
// naturally (chunk sizes ramp up), in about 1 of 17 runs of sample.stream.pipeline on PoCL 3.1
// and in half the multi_device runs on the GPU machine's PoCL 5.0 (docs/RELIABILITY.md).
//
// The guard keeps every launch of a kernel on PoCL apart from a launch that widens its grid:
// that one waits until the kernel's launches in flight have finished, and no later launch of
// the kernel is enqueued until it has finished too. From then on one entry, the widest, serves
// every launch. Entries are shared between PoCL contexts (the hash is the program's), so the
// guard is process-wide and keyed by the kernel's name. It counts launches in flight through
// completion callbacks rather than holding their events, which would keep their contexts alive
// (and OpenCL cannot wait for events of several contexts at once). It costs a flush and a
// callback per launch, and one wait per new widest grid of a kernel and local size, on PoCL
// devices only. (A widening launch waits for ever for an earlier launch queued behind a user
// event that only its own thread would set later: on PoCL, set such events before launching.)
#pragma once

#include "cl.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <string>

namespace dualrt::opencl {

// Enqueues one launch of kernel `name` on a PoCL device through `enqueue`, which must enqueue
// it on `queue` with `event` as its event (never null). `local` is the work-group size, `width`
// the widest extent of the grid in work-items. Blocks when the launch widens the kernel's grid
// (see above). Throws what `enqueue` throws, or dualrt::Error when a wait fails.
void pocl_guarded_launch(const std::string& name, const std::array<std::size_t, 3>& local,
                         std::size_t width, const cl::CommandQueue& queue, cl::Event& event,
                         const std::function<void(cl::Event*)>& enqueue);

}  // namespace dualrt::opencl
