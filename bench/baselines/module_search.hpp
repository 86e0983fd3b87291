// Where the benchmarks' run-time modules (the native and the vendor baselines) are looked for:
// shared by native_loader.cpp and vendor/vendor_loader.cpp so both search the same folders in the
// same order.
#pragma once

#include <dualrt/dualrt.hpp>

#include <string>
#include <vector>

namespace dualrt::bench {

// The folders to look in, in order: next to the running program, each DUALRT_PLUGIN_PATH folder,
// then the folder `backend`'s module was loaded from (next to libdualrt.so), which is where the
// build and the install put the baseline modules too.
std::vector<std::string> module_search_folders(Backend backend);

// The first `folder/file` that is a regular file, or "" with `looked_in` listing the folders
// (", "-separated) for the message that says it is missing.
std::string find_module(const std::string& file, Backend backend, std::string& looked_in);

}  // namespace dualrt::bench
