// A backend module built against another backend API version. The registry must refuse it and
// say so, instead of calling into objects whose layout it does not know.
#include "backend/backend.hpp"

namespace {

std::unique_ptr<dualrt::backend::BackendImpl> never_called() { return nullptr; }

const dualrt_backend_descriptor descriptor{dualrt::backend::api_version + 1000, "opencl",
                                           &never_called};

}  // namespace

extern "C" __attribute__((visibility("default"))) const dualrt_backend_descriptor*
dualrt_backend_entry() {
    return &descriptor;
}
