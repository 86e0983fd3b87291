// Stands in for clblast_sgemm.cpp where this build found no CLBlast header (clblast_c.h; on
// Debian: apt-get install libclblast-dev).
#include "vendor_sgemm.hpp"

namespace dualrt::samples::vendor_blas {

std::unique_ptr<VendorSgemm> load_clblast_sgemm(const Device&, std::string& why_not) {
    why_not = "this build found no CLBlast header (clblast_c.h; on Debian: apt-get install "
              "libclblast-dev)";
    return nullptr;
}

}  // namespace dualrt::samples::vendor_blas
