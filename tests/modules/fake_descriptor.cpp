// A backend module whose descriptor the registry must refuse, built under the OpenCL module's
// file name: FAKE_API_VERSION_OFFSET != 0 is a module built against another backend API version;
// FAKE_BACKEND_NAME other than "opencl" is another backend under the wrong file name. Either way
// the registry must say so instead of calling into it.
#include "backend/backend.hpp"

namespace {

std::unique_ptr<dualrt::backend::BackendImpl> never_called() { return nullptr; }

const dualrt_backend_descriptor descriptor{dualrt::backend::api_version + FAKE_API_VERSION_OFFSET,
                                           FAKE_BACKEND_NAME, &never_called};

}  // namespace

extern "C" __attribute__((visibility("default"))) const dualrt_backend_descriptor*
dualrt_backend_entry() {
    return &descriptor;
}
