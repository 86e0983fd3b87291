#include "runtime_library.hpp"

#include <dlfcn.h>

#include <utility>

namespace dualrt::samples {

RuntimeLibrary::RuntimeLibrary(std::vector<std::string> candidates) {
    std::string tried;
    for (const std::string& candidate : candidates) {
        // RTLD_LOCAL: the library's symbols stay its own, as a linked library's would not
        // clash with another copy in the process.
        handle_ = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle_ != nullptr) {
            name_ = candidate;
            return;
        }
        const char* error = ::dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(error ? error : candidate.c_str());
    }
    why_not_ = "cannot load any of the libraries tried (" + tried + ")";
}

void* RuntimeLibrary::symbol(const char* symbol) {
    if (handle_ == nullptr) return nullptr;
    void* address = ::dlsym(handle_, symbol);
    if (address == nullptr)
        why_not_ = name_ + " has no function " + symbol + " (an older version than expected?)";
    return address;
}

}  // namespace dualrt::samples
