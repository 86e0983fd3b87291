// A work-around for PoCL's cache of compiled work-group functions, which aborts a process that
// has launches of one kernel over grids of different widths in flight at once.
//
// PoCL (3.1 and 5.0 checked, lib/CL/devices/common.c) keeps the loaded work-group functions in
// one process-wide list, an entry per kernel, local size and grid width, with a reference count
// each. A launch, when it starts to run, takes the first entry of its kernel and local size
// whose width covers its grid and moves it to the front (or makes one there); a finished launch
// gives back the first entry of its kernel and local size, whatever its width. So when launches
// in flight hold two entries, one's return may land on the other, and a later return finds a
// count at zero: `pocl_release_dlhandle_cache: Assertion found->ref_count > 0 failed`.
// Pipelines meet it naturally (chunk sizes ramp up and down): unguarded, it aborts the stress
// suite in nearly every run on PoCL 5.0, and sample.stream.pipeline in about 1 of 17 runs on
// Debian 12's PoCL 3.1 (docs/RELIABILITY.md).
//
// The guard lets launches of one kernel and local size be in flight together only when their
// grids are the same: they then all take the same entry, which stays at the front. A launch
// over another grid waits until those in flight have finished (and launches over the current
// grid queue behind it, so it is not starved). Entries are shared between PoCL contexts and
// devices (the hash is the program's), so the guard is process-wide and keyed by the kernel's
// name. It counts launches in flight through completion callbacks rather than holding their
// events, which would keep their contexts alive (and OpenCL cannot wait for events of several
// contexts at once). It costs a flush and a callback per launch on PoCL, and a drain of the
// kernel's launches in flight each time its grid changes. (A launch waits for ever for one in
// flight that waits for a user event only its own thread would set later: dualrt makes none.)
#pragma once

#include "cl.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <string>

namespace dualrt::opencl {

// Enqueues one launch of kernel `name` on a PoCL device through `enqueue`, which must enqueue
// it on `queue` with `event` as its event (never null). `local` is the work-group size and
// `grid` the work-items per dimension. Blocks while launches of the kernel and local size over
// another grid are in flight (see above). Throws what `enqueue` throws, or dualrt::Error.
void pocl_guarded_launch(const std::string& name, const std::array<std::size_t, 3>& local,
                         const std::array<std::size_t, 3>& grid, const cl::CommandQueue& queue,
                         cl::Event& event, const std::function<void(cl::Event*)>& enqueue);

}  // namespace dualrt::opencl
