// Finding and dlopen-ing backend modules. Internal.
#pragma once

#include "backend/backend.hpp"

#include <string>
#include <vector>

namespace dualrt::detail {

// The result of trying to load one backend module. Modules are never unloaded: a backend's
// objects may live until the process exits, and vendor runtimes do not survive dlclose.
struct LoadedModule {
    const dualrt_backend_descriptor* descriptor = nullptr;  // null when loading failed
    std::string path;    // the file loaded, or the places looked in
    std::string reason;  // why loading failed, in words a user can act on
};

// Folders searched for modules, in order: each entry of DUALRT_PLUGIN_PATH (':'-separated), the
// folder holding libdualrt.so itself (a build tree), then its dualrt/ subfolder (an install).
std::vector<std::string> module_search_path();

// Loads libdualrt_<name>.so from the search path and checks its entry point and API version.
LoadedModule load_backend_module(const std::string& name);

}  // namespace dualrt::detail
