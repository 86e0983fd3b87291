// The module's one exported symbol: the descriptor the core's registry looks up with dlsym.
#include "backend.hpp"

#include "backend/backend.hpp"

#include <memory>

namespace {

// Throws dualrt::Error (Errc::unavailable) naming the reason when CUDA cannot be used here.
std::unique_ptr<dualrt::backend::BackendImpl> create() {
    return dualrt::cuda::BackendImpl::create();
}

constexpr dualrt_backend_descriptor descriptor{dualrt::backend::api_version, "cuda", &create};

}  // namespace

// Called once by the core after dlopen. The descriptor is static; the caller does not free it.
extern "C" __attribute__((visibility("default"))) const dualrt_backend_descriptor*
dualrt_backend_entry() {
    return &descriptor;
}
