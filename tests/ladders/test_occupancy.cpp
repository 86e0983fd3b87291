// The work-group size sweep's pieces (bench/occupancy): the fma_chain kernel against the CPU
// reference the sample uses, with sizes that leave a partial last work-group; what
// Kernel::occupancy() reports (limits on both backends, resident work-groups on CUDA only);
// Kernel::suggest_group_size() within the kernel's limits; and the bad inputs both refuse.
#include "../support.hpp"
// fma_chain's CPU reference and tolerance, as the sample checks it.
#include "../../bench/occupancy/fma_reference.hpp"
#include "../../bench/transpose/rungs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace occupancy = dualrt::samples::occupancy;

constexpr std::size_t guard = 37;  // elements past n that must keep the poison

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// Not a multiple of any power of two above 1, so the last work-group is partial.
std::size_t partial(std::size_t n) { return n % 2 == 0 ? n + 1 : n; }

bool is_cuda() { return test::device().backend() == dualrt::Backend::cuda; }

// The largest work-group `kernel` may be launched with here.
std::size_t group_limit(const dualrt::Kernel& kernel) {
    return std::min(kernel.occupancy(1).max_group_size,
                    test::device().info().max_work_group_size);
}

// The local memory one work-group may use on this device, in bytes.
std::size_t local_memory_limit() {
    return static_cast<std::size_t>(test::device().info().local_memory_bytes);
}

// Runs fma_chain over `input` into a poisoned output with guard elements, in work-groups of
// `local`; returns "" when every element matches the CPU reference and the guards kept the
// poison, else the first few mismatches.
std::string fma_chain_differences(const std::vector<float>& input, std::uint32_t iterations,
                                  const dualrt::Range& local) {
    const auto& device = test::device();
    const std::size_t n = input.size();
    auto q = device.create_queue();
    auto src = device.alloc<float>(n);
    auto dst = device.alloc<float>(n + guard);
    q.copy(src, input);
    q.fill(dst, test::poison_float());
    q.launch(device.kernel("fma_chain"), n, local, u32(n), iterations, src, dst);
    std::vector<float> out(n + guard, 0.0f);
    q.copy(out, dst, dualrt::Sync::blocking);

    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const float expected = i < n ? occupancy::fma_chain_reference(input[i], iterations)
                                     : test::poison_float();
        const bool ok = i < n ? occupancy::fma_chain_close(out[i], expected) : std::isnan(out[i]);
        if (ok) continue;
        if (++count <= 5)
            report += " [" + std::to_string(i) + "] got " + test::show(out[i]) + ", expected " +
                      test::show(expected) + ";";
    }
    return count == 0 ? std::string()
                      : std::to_string(count) + " of " + std::to_string(out.size()) +
                            " elements wrong:" + report;
}

// The kernels the checks below look at: the sweep's two, and one with a __local parameter.
const char* const kernels[] = {"fma_chain", "copy_f32", "group_reverse"};

}  // namespace

TEST_CASE("occupancy: fma_chain matches the CPU reference, partial work-groups included") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t limit = group_limit(test::device().kernel("fma_chain"));
    std::vector<dualrt::Range> locals = {dualrt::Range{}};
    for (const std::size_t size : {32, 64, 100, 256})
        if (size <= limit) locals.emplace_back(size);
    for (const auto& local : locals) {
        CAPTURE(local.str());
        for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33},
                                    std::size_t{255}, std::size_t{1001},
                                    partial(rnd.size(2000, 40000))}) {
            // 0 (the input four times over), 1, and counts that are no multiple of the unroll.
            for (const std::uint32_t iterations : {0u, 1u, 7u, 130u}) {
                CAPTURE(n);
                CAPTURE(iterations);
                CHECK(fma_chain_differences(rnd.floats(n, 1.0f, 2.0f), iterations, local) == "");
            }
        }
    }
}

TEST_CASE("occupancy: fma_chain runs in work-groups of the suggested size") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t suggested = test::device().kernel("fma_chain").suggest_group_size();
    CAPTURE(suggested);
    const std::size_t n = partial(rnd.size(suggested * 3, suggested * 40));
    CAPTURE(n);
    CHECK(fma_chain_differences(rnd.floats(n, 1.0f, 2.0f), 64, dualrt::Range(suggested)) == "");
}

TEST_CASE("occupancy: occupancy() reports the kernel's limits, and on CUDA what fits an SM") {
    const auto& info = test::device().info();
    for (const char* name : kernels) {
        CAPTURE(name);
        const dualrt::Kernel kernel = test::device().kernel(name);
        const std::size_t limit = group_limit(kernel);
        REQUIRE(limit >= 1);
        std::vector<std::size_t> sizes = {1, 32, 33, 64, 100, 128, 256, 1024, limit};
        sizes.erase(std::remove_if(sizes.begin(), sizes.end(),
                                   [&](std::size_t size) { return size > limit; }),
                    sizes.end());
        for (const std::size_t size : sizes) {
            CAPTURE(size);
            const dualrt::KernelOccupancy k = kernel.occupancy(size);
            CHECK(k.group_size == size);
            CHECK(k.local_bytes == 0);
            CHECK(k.max_group_size >= 1);
            CHECK(k.max_group_size <= info.max_work_group_size);
            CHECK(k.preferred_multiple >= 1);
            if (is_cuda()) {
                CHECK(k.preferred_multiple == 32);
                REQUIRE(k.registers_per_item.has_value());
                CHECK(*k.registers_per_item >= 1);
                CHECK(*k.registers_per_item <= 255);
                REQUIRE(k.resident_groups.has_value());
                CHECK(*k.resident_groups >= 1);  // a valid size with no local memory fits
                REQUIRE(k.max_resident_items.has_value());
                REQUIRE(k.occupancy.has_value());
                CHECK(*k.occupancy > 0.0);
                CHECK(*k.occupancy <= 1.0);
                // Whole warps per group, as the SM schedules them.
                const double warps = std::ceil(static_cast<double>(size) / 32.0);
                const double expected =
                    std::min(1.0, static_cast<double>(*k.resident_groups) * warps * 32.0 /
                                      static_cast<double>(*k.max_resident_items));
                CHECK(*k.occupancy == doctest::Approx(expected));
            } else {
                // OpenCL has no query for these: unknown, not guessed.
                CHECK_FALSE(k.registers_per_item.has_value());
                CHECK_FALSE(k.resident_groups.has_value());
                CHECK_FALSE(k.max_resident_items.has_value());
                CHECK_FALSE(k.occupancy.has_value());
            }
        }
    }
}

TEST_CASE("occupancy: more local memory never fits more work-groups") {
    const dualrt::Kernel kernel = test::device().kernel("group_reverse");
    const std::size_t local_limit = local_memory_limit();
    const std::size_t size = std::min<std::size_t>(256, group_limit(kernel));
    CAPTURE(size);
    std::vector<std::size_t> amounts = {0, 1024, 16 * 1024, local_limit};
    amounts.erase(std::remove_if(amounts.begin(), amounts.end(),
                                 [&](std::size_t bytes) { return bytes > local_limit; }),
                  amounts.end());
    std::optional<std::size_t> previous;
    for (const std::size_t bytes : amounts) {
        CAPTURE(bytes);
        const dualrt::KernelOccupancy k = kernel.occupancy(size, bytes);
        CHECK(k.local_bytes == bytes);
        CHECK(k.group_size == size);
        if (!is_cuda()) {
            CHECK_FALSE(k.resident_groups.has_value());
            continue;
        }
        REQUIRE(k.resident_groups.has_value());
        if (previous) CHECK(*k.resident_groups <= *previous);
        previous = k.resident_groups;
    }
}

TEST_CASE("occupancy: a kernel's own local memory counts against local_bytes") {
    using dualrt::Errc;
    // A tile x (tile + 1) float tile declared in the kernel (kernels/*/transpose.*).
    const dualrt::Kernel kernel = test::device().kernel("transpose_padded_f32");
    const std::size_t tile_bytes =
        dualrt::samples::transpose::tile * (dualrt::samples::transpose::tile + 1) * sizeof(float);
    const std::size_t local_limit = local_memory_limit();
    const std::size_t own = kernel.occupancy(256).static_local_bytes;
    CAPTURE(own);
    if (!is_cuda() && own == 0)
        // PoCL on the GPU machine (Ubuntu 24.04) answers CL_KERNEL_LOCAL_MEM_SIZE with 0 for the
        // kernel's own __local variables, against the specification; dualrt passes it on.
        MESSAGE("this OpenCL driver reports no local memory for the kernel's __local tile");
    else
        CHECK(own >= tile_bytes);
    REQUIRE(own <= local_limit);
    // What is left beside the tile still gives a size; one byte more leaves none that can run.
    CHECK(kernel.suggest_group_size(local_limit - own) >= 1);
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "local_bytes " + std::to_string(local_limit - own + 1),
                       kernel.suggest_group_size(local_limit - own + 1));
    if (own == 0) {  // the driver above: one byte more is past the device's own limit
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes " + std::to_string(local_limit + 1),
                           kernel.occupancy(256, local_limit + 1));
        return;
    }
    const dualrt::KernelOccupancy full = kernel.occupancy(256, local_limit - own + 1);
    if (is_cuda()) {
        REQUIRE(full.resident_groups.has_value());
        CHECK(*full.resident_groups == 0);
        REQUIRE(full.occupancy.has_value());
        CHECK(*full.occupancy == 0.0);
    } else {
        CHECK_FALSE(full.resident_groups.has_value());
    }
}

TEST_CASE("occupancy: suggest_group_size() is within the kernel's limit, in preferred multiples") {
    for (const char* name : {"fma_chain", "copy_f32", "group_reverse", "saxpy"}) {
        CAPTURE(name);
        const dualrt::Kernel kernel = test::device().kernel(name);
        const std::size_t limit = group_limit(kernel);
        for (const std::size_t local_bytes : {std::size_t{0}, std::size_t{4096}}) {
            CAPTURE(local_bytes);
            const std::size_t suggested = kernel.suggest_group_size(local_bytes);
            CAPTURE(suggested);
            CHECK(suggested >= 1);
            CHECK(suggested <= limit);
            const dualrt::KernelOccupancy k = kernel.occupancy(suggested, local_bytes);
            if (k.preferred_multiple <= limit) CHECK(suggested % k.preferred_multiple == 0);
            if (is_cuda()) {
                REQUIRE(k.resident_groups.has_value());
                CHECK(*k.resident_groups >= 1);
            } else {
                // The documented rule: the largest multiple up to min(limit, 256).
                const std::size_t cap = std::min<std::size_t>(limit, 256);
                if (k.preferred_multiple <= cap)
                    CHECK(suggested == cap / k.preferred_multiple * k.preferred_multiple);
            }
        }
    }
}

TEST_CASE("occupancy: bad sizes are invalid_argument naming the value and the limit") {
    using dualrt::Errc;
    const auto& info = test::device().info();
    const dualrt::Kernel kernel = test::device().kernel("fma_chain");
    const std::size_t limit = group_limit(kernel);
    const std::size_t too_much_local = static_cast<std::size_t>(info.local_memory_bytes) + 1;

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "group_size 0", kernel.occupancy(0));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "group_size " + std::to_string(limit + 1),
                       kernel.occupancy(limit + 1));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "maximum work-group size of " + std::to_string(limit),
                       kernel.occupancy(limit + 1));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes " + std::to_string(too_much_local),
                       kernel.occupancy(32, too_much_local));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, std::to_string(info.local_memory_bytes) + " B",
                       kernel.occupancy(32, too_much_local));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes " + std::to_string(too_much_local),
                       kernel.suggest_group_size(too_much_local));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "fma_chain", kernel.occupancy(0));

    const dualrt::Kernel empty;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", empty.occupancy(32));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", empty.suggest_group_size());
}
