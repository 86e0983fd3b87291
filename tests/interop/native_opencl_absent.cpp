// Stands in for native_opencl.cpp where this build found no OpenCL headers: the OpenCL half of
// the interop tests then reports itself skipped with this reason.
#include "native_api.hpp"

namespace test::native {

std::unique_ptr<Api> make_opencl_api(std::string& why_not) {
    why_not = "this build found no OpenCL headers (CL/cl.h), so the interop tests cannot make "
              "native OpenCL objects";
    return nullptr;
}

}  // namespace test::native
