// A backend module whose vendor library is missing at run time, as libdualrt_cuda.so is on a
// machine without the NVIDIA driver: the registry must name the missing library.
#include "backend/backend.hpp"

extern "C" int fake_vendor_library_version();  // from libfake_vendor.so, absent at run time

namespace {

std::unique_ptr<dualrt::backend::BackendImpl> never_called() { return nullptr; }

const dualrt_backend_descriptor descriptor{dualrt::backend::api_version, "opencl", &never_called};

}  // namespace

extern "C" __attribute__((visibility("default"))) const dualrt_backend_descriptor*
dualrt_backend_entry() {
    return fake_vendor_library_version() > 0 ? &descriptor : nullptr;
}
