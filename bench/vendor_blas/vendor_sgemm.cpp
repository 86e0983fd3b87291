#include "vendor_sgemm.hpp"

namespace dualrt::samples::vendor_blas {
namespace {

[[noreturn]] void refuse(const char* library, const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "dualrt";
    info.call = std::string(library) + " sgemm";
    info.detail = detail;
    throw Error(std::move(info));
}

}  // namespace

std::unique_ptr<VendorSgemm> load_vendor_sgemm(const Device& device, std::string& why_not) {
    return device.backend() == Backend::cuda ? load_cublas_sgemm(device, why_not)
                                             : load_clblast_sgemm(device, why_not);
}

void check_operands(const char* library, Queue& /*queue*/, std::size_t m, std::size_t n,
                    std::size_t k, const Buffer<float>& a, const Buffer<float>& b,
                    const Buffer<float>& c) {
    if (m == 0 || n == 0 || k == 0)
        refuse(library, "m, n and k must be at least 1, not " + std::to_string(m) + ", " +
                            std::to_string(n) + " and " + std::to_string(k));
    const struct {
        const char* name;
        const Buffer<float>& view;
        std::size_t count;
    } operands[] = {{"A", a, m * k}, {"B", b, k * n}, {"C", c, m * n}};
    for (const auto& operand : operands) {
        if (operand.view.size() != operand.count)
            refuse(library, std::string(operand.name) + " holds " +
                                std::to_string(operand.view.size()) + " floats, not " +
                                std::to_string(operand.count));
    }
}

void raise_vendor_error(const char* backend, const std::string& call, long long code,
                        const std::string& code_name, const std::string& context) {
    ErrorInfo info;
    info.errc = Errc::backend_failure;
    info.backend = backend;
    info.call = call;
    info.code = code;
    info.code_name = code_name;
    info.context = context;
    throw Error(std::move(info));
}

}  // namespace dualrt::samples::vendor_blas
