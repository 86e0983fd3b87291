// Building OpenCL programs through the on-disk binary cache (binary_cache.hpp): the OpenCL side.
// It asks the device what the key needs, makes programs from cached binaries, and hands the
// binaries of programs built from source to the cache.
#pragma once

#include "binary_cache.hpp"
#include "cl.hpp"

#include <optional>
#include <string>

namespace dualrt::opencl {

// One program build's way through the cache:
//     CachedBuild cached(device, source, options);
//     if (auto program = cached.load(context)) return *program;
//     ... build from source ...
//     cached.store(program);
// Nothing here makes a build fail: with the cache off or unusable, load() finds nothing and
// store() does nothing, and every problem is logged.
class CachedBuild {
public:
    // Finds the entry of `source` built with `options` for `device` (one device of `context`).
    CachedBuild(const cl::Device& device, const std::string& source, const std::string& options);

    // The program made from the cached binary and built with the same options, or nullopt: a
    // miss, or an entry that cannot be used (a warning naming the file and the reason), which
    // the caller builds from source and store()s over.
    std::optional<cl::Program> load(const cl::Context& context);

    // Stores the binary of `program`, just built from source with these options.
    void store(const cl::Program& program) noexcept;

private:
    cl::Device device_;
    std::string options_;
    std::optional<BinaryCacheEntry> entry_;
};

}  // namespace dualrt::opencl
