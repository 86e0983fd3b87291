// Stands in for cublas_sgemm.cpp where this build found no CUDA Toolkit (cublas_v2.h).
#include "vendor_sgemm.hpp"

namespace dualrt::samples::vendor_blas {

std::unique_ptr<VendorSgemm> load_cublas_sgemm(const Device&, std::string& why_not) {
    why_not = "this build found no CUDA Toolkit with cuBLAS headers (cublas_v2.h)";
    return nullptr;
}

}  // namespace dualrt::samples::vendor_blas
