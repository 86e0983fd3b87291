// The SGEMM ladder (kernels/*/matmul.*, launched through bench/matmul/matmul_rungs.hpp): every
// rung computes C = A * B for sizes that are not multiples of any tile (1 x 1 x 1 included), for
// one that is a multiple of every tile, and on views (one not 16-byte aligned: rung 6's scalar
// path), against a CPU reference accumulated in double. An fp32 sum of k products is off by at
// most about k * 2^-24 * sum |a b|; the tolerance is twice that (and the rungs, which add in
// the same order, must agree bit for bit). C is poisoned (NaN) before each rung and has guard
// elements after it (and before it in the view test) that must stay untouched; each rung runs
// twice on the same buffers, as the sample's timed runs do.
#include "../../bench/matmul/matmul_rungs.hpp"
#include "../support.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace {

namespace matmul = dualrt::samples::matmul;

constexpr std::size_t guard = 37;  // guard elements after C (and before it in the view test)

struct Size {
    std::size_t m, n, k;
};

// The double-precision product and each element's tolerance.
struct Reference {
    std::vector<double> value, tolerance;
};

Reference reference(const std::vector<float>& a, const std::vector<float>& b, const Size& s) {
    Reference ref{std::vector<double>(s.m * s.n, 0.0), std::vector<double>(s.m * s.n, 0.0)};
    for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t p = 0; p < s.k; ++p) {
            const double x = a[i * s.k + p];
            for (std::size_t j = 0; j < s.n; ++j) {
                const double product = x * static_cast<double>(b[p * s.n + j]);
                ref.value[i * s.n + j] += product;
                ref.tolerance[i * s.n + j] += std::fabs(product);
            }
        }
    for (auto& t : ref.tolerance) t *= static_cast<double>(s.k) * FLT_EPSILON;  // 2 k 2^-24
    return ref;
}

// "" when every element of `c` is within its tolerance (a NaN left by the poison never is);
// otherwise how many are not and the first few.
std::string mismatches(const std::vector<float>& c, const Reference& ref, const Size& s) {
    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const double error = std::fabs(static_cast<double>(c[i]) - ref.value[i]);
        if (error <= ref.tolerance[i]) continue;
        if (++count <= 5)
            report += " C[" + std::to_string(i / s.n) + "][" + std::to_string(i % s.n) +
                      "] = " + test::show(c[i]) + ", expected " + test::show(ref.value[i]) + ";";
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(c.size()) + " elements wrong:" + report;
}

bool fits(const matmul::Rung& rung) {
    const auto& info = test::device().info();
    return rung.local_x * rung.local_y <= info.max_work_group_size &&
           rung.local_x <= info.max_work_item_sizes[0] &&
           rung.local_y <= info.max_work_item_sizes[1];
}

// Runs every rung on A and B at element `offset` of their buffers (and C at `offset` of its
// own), checking C and the guards around it.
void check_rungs(const Size& s, std::size_t offset, test::Random& rnd) {
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    CAPTURE(offset);
    const auto a = rnd.floats(s.m * s.k);
    const auto b = rnd.floats(s.k * s.n);
    const Reference ref = reference(a, b, s);

    auto q = test::device().create_queue();
    auto a_buffer = test::device().alloc<float>(offset + a.size());
    auto b_buffer = test::device().alloc<float>(offset + b.size());
    auto c_buffer = test::device().alloc<float>(offset + s.m * s.n + guard);
    const auto a_view = a_buffer.view(offset, a.size());
    const auto b_view = b_buffer.view(offset, b.size());
    const auto c_view = c_buffer.view(offset, s.m * s.n);
    // Blocking: an asynchronous copy reads `a` and `b` until it completes, and a view OpenCL
    // refuses throws from the first launch, before any wait, freeing them while the copy may
    // still run (ASan caught PoCL reading freed memory so in CI).
    q.copy(a_view, a, dualrt::Sync::blocking);
    q.copy(b_view, b, dualrt::Sync::blocking);

    std::vector<float> first;  // the first rung's C
    for (const auto& rung : matmul::rungs()) {
        CAPTURE(rung.title);
        if (!fits(rung)) {
            MESSAGE("skipped: work-groups of " << rung.local().str() << " exceed the device's");
            continue;
        }
        const auto kernel = test::device().kernel(rung.kernel);
        q.fill(c_buffer, test::poison_float());
        matmul::launch(q, kernel, rung, a_view, b_view, c_view, s.m, s.n, s.k);
        matmul::launch(q, kernel, rung, a_view, b_view, c_view, s.m, s.n, s.k);
        std::vector<float> out(c_buffer.size(), 0.0f);
        q.copy(out, c_buffer, dualrt::Sync::blocking);

        const std::vector<float> c(out.begin() + static_cast<std::ptrdiff_t>(offset),
                                   out.end() - static_cast<std::ptrdiff_t>(guard));
        CHECK(mismatches(c, ref, s) == "");
        // Every rung adds the same products in the same order (kernels/cu/matmul.cu), so all
        // agree with the first bit for bit.
        if (first.empty())
            first = c;
        else
            CHECK(test::differences(c, first) == "");
        std::vector<float> guards(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(offset));
        guards.insert(guards.end(), out.end() - static_cast<std::ptrdiff_t>(guard), out.end());
        CHECK(test::differences(guards, std::vector<float>(guards.size(), test::poison_float())) ==
              "");
    }
}

}  // namespace

TEST_CASE("matmul: every rung matches the CPU reference at sizes off the tiles") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    // 1: a single product; 17 x 33 x 5: below every tile; 129 x 65 x 257: one past the tiles of
    // rungs 4-6 in m, one past 64 in n, k not a multiple of 4 or 8 (rung 6's scalar path);
    // 200 x 300 x 100: partial blocks in every rung, k and n multiples of 4 (its float4 path).
    for (const Size& s : {Size{1, 1, 1}, Size{17, 33, 5}, Size{129, 65, 257},
                          Size{200, 300, 100}})
        check_rungs(s, 0, rnd);
}

TEST_CASE("matmul: every rung matches the CPU reference at a multiple of every tile") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    check_rungs(Size{256, 256, 64}, 0, rnd);
}

TEST_CASE("matmul: every rung matches the CPU reference at a random size") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    check_rungs(Size{rnd.size(1, 300), rnd.size(1, 300), rnd.size(1, 300)}, 0, rnd);
}

TEST_CASE("matmul: every rung works on views; unaligned ones take rung 6's scalar path") {
    // k and n are multiples of 4, so at element offset 1 only the views' addresses rule out
    // rung 6's float4 accesses; offset 128 (512 bytes) is aligned for them. CUDA takes a view at
    // any element offset; OpenCL sub-buffers need CL_DEVICE_MEM_BASE_ADDR_ALIGN, so there the
    // library may refuse a view instead.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (std::size_t offset : {std::size_t{1}, std::size_t{128}}) {
        try {
            check_rungs(Size{130, 132, 36}, offset, rnd);
        } catch (const dualrt::Error& e) {
            const std::string message = e.what();
            INFO("message: " << message);
            REQUIRE(test::device().backend() == dualrt::Backend::opencl);
            CHECK(e.errc() == dualrt::Errc::invalid_argument);
            MESSAGE("OpenCL refused a view at element offset " << offset << ": " << message);
        }
    }
}

TEST_CASE("matmul: launch refuses views of the wrong size") {
    const auto& rung = matmul::rungs().back();
    auto q = test::device().create_queue();
    const auto kernel = test::device().kernel(rung.kernel);
    auto a = test::device().alloc<float>(6);
    auto b = test::device().alloc<float>(12);
    auto c = test::device().alloc<float>(8);
    // A 2 x 3 times B 3 x 4 is C 2 x 4: C's view is right, then one float short.
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "C holds 7 floats, not 8",
                       matmul::launch(q, kernel, rung, a, b, c.view(0, 7), 2, 4, 3));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "m, n and k must be",
                       matmul::launch(q, kernel, rung, a, b, c, 0, 4, 3));
}
