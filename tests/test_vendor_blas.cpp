// A vendor BLAS on dualrt's buffers and queue (bench/vendor_blas): SGEMM by cuBLAS (CUDA) or
// CLBlast (OpenCL), loaded at run time, on views at odd offsets between poisoned guards, against
// the CPU (in double) and against the matmul ladder's best rung; once on a queue of dualrt's own
// and once on a borrowed one. Where the library is missing here the case
// is a skip with the reason.
#include "support.hpp"

#include "ladder_compare.hpp"
#include "matmul_check.hpp"
#include "matmul_rungs.hpp"
#include "vendor_sgemm.hpp"

#include <cstdint>

namespace {

namespace matmul = dualrt::samples::matmul;
namespace vendor_blas = dualrt::samples::vendor_blas;

constexpr std::size_t guard = 29;  // elements around each operand that must stay untouched

// A view of `count` elements after `guard` poisoned ones, with `guard` more after it.
struct Guarded {
    dualrt::Buffer<float> whole, view;
    Guarded(const dualrt::Device& device, dualrt::Queue& queue, std::size_t count)
        : whole(device.alloc<float>(count + 2 * guard)), view(whole.view(guard, count)) {
        queue.fill(whole, test::poison_float());
    }
    // "" when the guards still hold the poison.
    std::string guards_intact(dualrt::Queue& queue) const {
        std::vector<float> all(whole.size());
        queue.copy(all, whole, dualrt::Sync::blocking);
        const std::vector<float> poison(guard, test::poison_float());
        const std::string before = test::differences(all.data(), poison.data(), guard);
        const std::string after =
            test::differences(all.data() + guard + view.size(), poison.data(), guard);
        return before + after;
    }
};

// The vendor SGEMM of the suite's device, or nullptr after a "SKIPPED: reason" message.
std::unique_ptr<vendor_blas::VendorSgemm> vendor_or_skip() {
    std::string why_not;
    auto vendor = vendor_blas::load_vendor_sgemm(test::device(), why_not);
    if (!vendor) MESSAGE("SKIPPED: no vendor BLAS for this device: " << why_not);
    return vendor;
}

}  // namespace

TEST_CASE("vendor BLAS: SGEMM on dualrt buffers and queues agrees with the CPU and the ladder") {
    const dualrt::Device& device = test::device();
    const auto vendor = vendor_or_skip();
    if (!vendor) return;
    MESSAGE("vendor: " << vendor->describe());
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t m = rnd.size(1, 150), n = rnd.size(1, 150), k = rnd.size(1, 150);
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    const auto host_a = rnd.floats(m * k);
    const auto host_b = rnd.floats(k * n);
    const matmul::Checker checker(host_a, host_b, m, n, k, 4096, rnd.seed);

    auto own = device.create_queue();
    const auto owner = device.create_queue();  // owns the native queue borrowed below
    const auto borrowed = dualrt::wrap_queue(
        device, dualrt::ForeignHandle{device.backend(), owner.native_handle()},
        dualrt::Ownership::borrow);
    Guarded a(device, own, m * k), b(device, own, k * n), c(device, own, m * n);
    own.copy(a.view, host_a);
    own.copy(b.view, host_b);

    std::vector<float> by_vendor(m * n, test::poison_float());
    for (dualrt::Queue queue : {own, borrowed}) {
        queue.wait(own.record());  // the inputs and the poison are in place
        vendor->sgemm(queue, m, n, k, a.view, b.view, c.view);
        queue.copy(by_vendor, c.view, dualrt::Sync::blocking);
        CHECK(checker.check(by_vendor) == "");
        CHECK(c.guards_intact(queue) == "");
        queue.fill(c.view, test::poison_float(), dualrt::Sync::blocking);
    }
    CHECK(a.guards_intact(own) == "");
    CHECK(b.guards_intact(own) == "");

    // The ladder on whole buffers: OpenCL passes views to kernels as sub-buffers, whose offsets
    // must be aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, which the guards' odd offsets are not.
    const matmul::Rung* rung = vendor_blas::best_fitting_rung(device.info());
    REQUIRE(rung != nullptr);
    auto whole_a = device.alloc<float>(m * k), whole_b = device.alloc<float>(k * n);
    auto whole_c = device.alloc<float>(m * n);
    own.copy(whole_a, host_a);
    own.copy(whole_b, host_b);
    own.fill(whole_c, test::poison_float());
    matmul::launch(own, device.kernel(rung->kernel), *rung, whole_a, whole_b, whole_c, m, n, k);
    std::vector<float> by_ladder(m * n, test::poison_float());
    own.copy(by_ladder, whole_c, dualrt::Sync::blocking);
    CHECK(checker.check(by_ladder) == "");
    CHECK(vendor_blas::disagreement(by_vendor, by_ladder, k) == "");
}

TEST_CASE("vendor BLAS: operands of the wrong size are refused before the library sees them") {
    const dualrt::Device& device = test::device();
    const auto vendor = vendor_or_skip();
    if (!vendor) return;
    auto queue = device.create_queue();
    auto a = device.alloc<float>(6), b = device.alloc<float>(6), c = device.alloc<float>(4);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "C holds 4 floats, not 9",
                       vendor->sgemm(queue, 3, 3, 2, a, b, c));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "at least 1",
                       vendor->sgemm(queue, 0, 3, 2, a, b, c));
}
