// Stands in for native_cuda.cpp where this build found no CUDA Toolkit (no cuda.h): the CUDA half
// of the interop tests then reports itself skipped with this reason.
#include "native_api.hpp"

namespace test::native {

std::unique_ptr<Api> make_cuda_api(std::string& why_not) {
    why_not = "this build found no CUDA Toolkit (cuda.h), so the interop tests cannot make native "
              "CUDA objects";
    return nullptr;
}

}  // namespace test::native
