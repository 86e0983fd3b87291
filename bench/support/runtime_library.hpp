// A vendor library loaded at run time (dlopen) and its functions looked up by name, so that a
// program uses cuBLAS, CLBlast or a driver API where it is installed and says why not where it
// is not, without linking it. The function types come from the vendor's own header, so a call
// is checked by the compiler as if the library were linked:
//     RuntimeLibrary blast({"libclblast.so.1"});
//     auto* sgemm = DUALRT_RUNTIME_FUNCTION(blast, CLBlastSgemm);  // nullptr if missing
#pragma once

#include <string>
#include <vector>

namespace dualrt::samples {

class RuntimeLibrary {
public:
    // Loads the first of `candidates` (sonames, looked up as the dynamic loader does, or paths)
    // that dlopen accepts. Never unloaded: vendor libraries and drivers do not survive dlclose.
    // Failure is not an error: loaded() is false and why_not() says what was tried.
    explicit RuntimeLibrary(std::vector<std::string> candidates);

    bool loaded() const noexcept { return handle_ != nullptr; }
    const std::string& name() const noexcept { return name_; }  // the candidate loaded
    // Why the library, or the last function asked for, is missing; "" while all is well.
    const std::string& why_not() const noexcept { return why_not_; }

    // The address of `symbol`, or nullptr (why_not() then names it). Use
    // DUALRT_RUNTIME_FUNCTION for a typed pointer.
    void* symbol(const char* symbol);

private:
    void* handle_ = nullptr;
    std::string name_;
    std::string why_not_;
};

}  // namespace dualrt::samples

#define DUALRT_RUNTIME_STRINGIZE_EXPANDED(text) #text
#define DUALRT_RUNTIME_STRINGIZE(text) DUALRT_RUNTIME_STRINGIZE_EXPANDED(text)
// The function `fn` (declared at global scope by the vendor's header) of `library` as a pointer
// of its declared type, or nullptr. The name is macro-expanded first, so the versioned symbol a
// header maps to is the one looked up (cuda.h's cuMemAlloc is cuMemAlloc_v2).
#define DUALRT_RUNTIME_FUNCTION(library, fn) \
    reinterpret_cast<decltype(&::fn)>((library).symbol(DUALRT_RUNTIME_STRINGIZE(fn)))
