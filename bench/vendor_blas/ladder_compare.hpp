// Comparing a vendor SGEMM with the matmul ladder (bench/matmul): the ladder's best rung on a
// device, and whether two fp32 products of the same inputs agree. Shared by the vendor_blas
// benchmark and its test (tests/test_vendor_blas.cpp).
#pragma once

#include "matmul_rungs.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::samples::vendor_blas {

// The ladder's fastest rung whose work-groups fit the device (the last such in
// matmul::rungs()), or nullptr when none does.
const matmul::Rung* best_fitting_rung(const DeviceInfo& info);

// "" when the products x and y (of k-term sums of inputs in [-1, 1)) agree at every element
// within what two fp32 sums may each be off by: k 2^-24 sum |a b| <= k^2 2^-24, so 2 k^2 2^-24
// between them (a NaN never agrees); else how many elements do not, and the first few.
std::string disagreement(const std::vector<float>& x, const std::vector<float>& y, std::size_t k);

}  // namespace dualrt::samples::vendor_blas
