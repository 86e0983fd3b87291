// Device::load_sources: kernels compiled at run time run like built-in ones, and a source that
// fails to build, is empty, defines no kernel or reuses a kernel name is refused with the right
// Errc. The suite loads into the one shared test device, so every kernel here has a name of its
// own (test_sources_*), never loaded by another case. Each source carries an OpenCL text and an
// equivalent CUDA text, since the suite runs once per backend.
#include "support.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using dualrt::Errc;

namespace {

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// y = a*x + b, and per-work-group sums of uints through local memory (a tree reduction: the
// work-group size must be a power of two). Integer sums wrap identically on host and device.
const dualrt::KernelSource two_kernels{
    "test_sources two_kernels",
    R"CL(
__kernel void test_sources_axpb(uint n, float a, float b, __global const float* x,
                                __global float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}

__kernel void test_sources_group_sum(__global const uint* in, __global uint* sums,
                                     __local uint* scratch, uint n) {
    const size_t i = get_global_id(0);
    const size_t lid = get_local_id(0);
    scratch[lid] = i < n ? in[i] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) sums[get_group_id(0)] = scratch[0];
}
)CL",
    R"CU(
#include "dualrt_kernel.cuh"

extern "C" __global__ void test_sources_axpb(uint n, float a, float b, const float* x,
                                             float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}

extern "C" __global__ void test_sources_group_sum(const uint* in, uint* sums,
                                                  dualrt_local<uint> scratch, uint n) {
    const size_t i = get_global_id(0);
    const size_t lid = get_local_id(0);
    scratch[lid] = i < n ? in[i] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) sums[get_group_id(0)] = scratch[0];
}
)CU"};

// Loads a source into the test device once per process and returns the names that load gave
// back: doctest re-enters a case for every subcase, the cases may run in any order or alone, and
// a second load of the same source is refused by design.
const std::vector<std::string>& load_once(const dualrt::KernelSource& source) {
    static std::map<std::string, std::vector<std::string>> loaded;  // names by source name
    auto found = loaded.find(source.name);
    if (found == loaded.end())
        found = loaded.emplace(source.name, test::device().load_sources(source)).first;
    return found->second;
}

// A source with one kernel, `kernel_name`(uint n, uint* y), that writes `value` to y[0, n).
dualrt::KernelSource constant_writer(const std::string& source_name,
                                     const std::string& kernel_name, std::uint32_t value) {
    const std::string body = "    const size_t i = get_global_id(0);\n"
                             "    if (i < n) y[i] = " + std::to_string(value) + "u;\n"
                             "}\n";
    return {source_name,
            "__kernel void " + kernel_name + "(uint n, __global uint* y) {\n" + body,
            "#include \"dualrt_kernel.cuh\"\n"
            "extern \"C\" __global__ void " + kernel_name + "(uint n, uint* y) {\n" + body};
}

// Runs a constant_writer kernel over n elements of a poisoned buffer; "" when all are `value`.
std::string run_constant_writer(const std::string& kernel_name, std::size_t n,
                                std::uint32_t value) {
    auto q = test::device().create_queue();
    auto y = test::device().alloc<std::uint32_t>(n);
    q.fill(y, test::poison_u32);
    q.launch(test::device().kernel(kernel_name), n, dualrt::Range{}, u32(n), y);
    std::vector<std::uint32_t> out(n, 0);
    q.copy(out, y, dualrt::Sync::blocking);
    return test::differences(out, std::vector<std::uint32_t>(n, value));
}

bool is_cuda() { return test::device().backend() == dualrt::Backend::cuda; }

// The largest power of two <= limit (limit >= 1).
std::size_t power_of_two_at_most(std::size_t limit) {
    std::size_t p = 1;
    while (p * 2 <= limit) p *= 2;
    return p;
}

}  // namespace

TEST_CASE("sources: load_sources returns the kernel names, which kernel() then finds") {
    auto names = load_once(two_kernels);  // in any order
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"test_sources_axpb", "test_sources_group_sum"});

    const auto axpb = test::device().kernel("test_sources_axpb");
    CHECK(axpb.name() == "test_sources_axpb");
    CHECK(axpb.param_count() == 5);
    CHECK(test::device().kernel("test_sources_group_sum").param_count() == 4);
    // Built-in kernels are still there.
    CHECK(test::device().kernel("saxpy").name() == "saxpy");
}

TEST_CASE("sources: a loaded kernel computes y = a*x + b like its CPU reference") {
    load_once(two_kernels);
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1000, 300000);
    const float a = rnd.uniform(0.5f, 2.0f) * (rnd.size(0, 1) ? 1.0f : -1.0f);
    const float b = rnd.uniform(-4.0f, 4.0f);
    CAPTURE(n);
    CAPTURE(a);
    CAPTURE(b);
    const auto x = rnd.floats(n);

    auto q = test::device().create_queue();
    auto dx = test::device().alloc<float>(n);
    auto dy = test::device().alloc<float>(n);
    q.copy(dx, x);
    q.fill(dy, test::poison_float());
    dualrt::Range local;
    SUBCASE("default local range") {}
    SUBCASE("local range 64") { local = dualrt::Range(64); }
    CAPTURE(local.str());
    q.launch(test::device().kernel("test_sources_axpb"), n, local, u32(n), a, b, dx, dy);
    std::vector<float> out(n, 0.0f);
    q.copy(out, dy, dualrt::Sync::blocking);
    // a*x + b rounds like saxpy with y = b: once (fma) or twice.
    CHECK(test::saxpy_differences(out, a, x, std::vector<float>(n, b)) == "");
}

TEST_CASE("sources: a loaded kernel with a local-memory argument sums each work-group") {
    load_once(two_kernels);
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& info = test::device().info();
    const auto kernel = test::device().kernel("test_sources_group_sum");
    const std::size_t limit = std::min(info.max_work_group_size, info.max_work_item_sizes[0]);
    std::size_t group = 64;
    SUBCASE("group of 64") {}
    SUBCASE("group of 256 or the device limit") { group = 256; }
    SUBCASE("group of 1") { group = 1; }
    group = power_of_two_at_most(std::min(group, limit));
    const std::size_t groups = rnd.size(1, 2000);
    const std::size_t n = group * groups - (group > 1 ? rnd.size(0, group - 1) : 0);
    CAPTURE(group);
    CAPTURE(n);

    std::vector<std::uint32_t> in(n);
    for (auto& v : in) v = rnd.bits<std::uint32_t>();
    std::vector<std::uint32_t> expected(groups, 0);
    for (std::size_t i = 0; i < n; ++i) expected[i / group] += in[i];  // wraps like the device

    auto q = test::device().create_queue();
    auto din = test::device().alloc<std::uint32_t>(n);
    auto dsums = test::device().alloc<std::uint32_t>(groups);
    q.copy(din, in);
    q.fill(dsums, test::poison_u32);
    q.launch(kernel, group * groups, group, din, dsums,
             dualrt::local_bytes(group * sizeof(std::uint32_t)), u32(n));
    std::vector<std::uint32_t> out(groups, 0);
    q.copy(out, dsums, dualrt::Sync::blocking);
    CHECK(test::differences(out, expected) == "");
}

TEST_CASE("sources: loaded kernels get the same argument checks as built-in ones") {
    load_once(two_kernels);
    auto q = test::device().create_queue();
    const auto axpb = test::device().kernel("test_sources_axpb");
    auto x = test::device().alloc<float>(16);
    auto y = test::device().alloc<float>(16);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources_axpb",  // b is missing
                       q.launch(axpb, 16, dualrt::Range{}, u32(16), 2.0f, x, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources_axpb",  // double where float
                       q.launch(axpb, 16, dualrt::Range{}, u32(16), 2.0, 1.0f, x, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources_axpb",  // scalar where a buffer
                       q.launch(axpb, 16, dualrt::Range{}, u32(16), 2.0f, 1.0f, 1.0f, y));
}

TEST_CASE("sources: a source that does not compile is compile_error with the compiler's log") {
    // The bad line uses an identifier that nothing declares: every compiler names it.
    const dualrt::KernelSource broken{
        "test_sources broken_source",
        "__kernel void test_sources_broken(uint n, __global float* y) {\n"
        "    const size_t i = get_global_id(0);\n"
        "    if (i < n) y[i] = test_sources_undeclared_q7 * 2.0f;\n"
        "}\n",
        "#include \"dualrt_kernel.cuh\"\n"
        "extern \"C\" __global__ void test_sources_broken(uint n, float* y) {\n"
        "    const size_t i = get_global_id(0);\n"
        "    if (i < n) y[i] = test_sources_undeclared_q7 * 2.0f;\n"
        "}\n"};
    CHECK_DUALRT_ERROR(Errc::compile_error, "test_sources_undeclared_q7",
                       test::device().load_sources(broken));
    CHECK_DUALRT_ERROR(Errc::compile_error, "test_sources broken_source",
                       test::device().load_sources(broken));
    // Nothing of it was registered, and the device still runs built-in kernels correctly.
    CHECK_DUALRT_ERROR(Errc::not_found, "test_sources_broken",
                       test::device().kernel("test_sources_broken"));
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    CHECK(test::run_saxpy(q, rnd.size(1000, 100000), rnd.engine) == "");
}

TEST_CASE("sources: a kernel name that exists already is refused, and nothing is registered") {
    SUBCASE("a built-in name") {
        // saxpy clashes with the built-in; its partner must not be registered either.
        const dualrt::KernelSource clash{
            "test_sources builtin_clash",
            "__kernel void test_sources_partner(__global float* y) { y[0] = 1.0f; }\n"
            "__kernel void saxpy(uint n, float a, __global const float* x, __global float* y) {\n"
            "    const size_t i = get_global_id(0);\n"
            "    if (i < n) y[i] = a * x[i] + y[i];\n"
            "}\n",
            "#include \"dualrt_kernel.cuh\"\n"
            "extern \"C\" __global__ void test_sources_partner(float* y) { y[0] = 1.0f; }\n"
            "extern \"C\" __global__ void saxpy(uint n, float a, const float* x, float* y) {\n"
            "    const size_t i = get_global_id(0);\n"
            "    if (i < n) y[i] = a * x[i] + y[i];\n"
            "}\n"};
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "'saxpy'", test::device().load_sources(clash));
        // The message says where the existing kernel comes from.
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "a built-in kernel of kernels/c",
                           test::device().load_sources(clash));
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources builtin_clash",
                           test::device().load_sources(clash));
        CHECK_DUALRT_ERROR(Errc::not_found, "test_sources_partner",
                           test::device().kernel("test_sources_partner"));
        // The built-in saxpy is still the one that runs.
        test::Random rnd;
        INFO("seed " << rnd.seed);
        auto q = test::device().create_queue();
        CHECK(test::run_saxpy(q, rnd.size(1000, 100000), rnd.engine) == "");
    }
    SUBCASE("the same source loaded twice") {
        const auto twice = constant_writer("test_sources loaded_twice", "test_sources_twice", 7);
        CHECK(test::device().load_sources(twice) == std::vector<std::string>{"test_sources_twice"});
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources_twice",
                           test::device().load_sources(twice));
        // The kernel of the first load still works.
        CHECK(run_constant_writer("test_sources_twice", 1000, 7) == "");
    }
}

TEST_CASE("sources: threads loading at once each get their kernels; a contended name loads once") {
    // Every thread loads a source of its own and then the one source all of them share: exactly
    // one load of the shared source succeeds, the others are refused as duplicates. Results are
    // checked on the main thread (doctest reports assertions from there).
    constexpr int thread_count = 4;
    const auto contended = constant_writer("test_sources contended", "test_sources_contended", 99);
    std::string own_results[thread_count];
    std::string contended_results[thread_count];
    std::thread threads[thread_count];
    for (int t = 0; t < thread_count; ++t) {
        threads[t] = std::thread([&, t] {
            const std::string kernel = "test_sources_thread_" + std::to_string(t);
            const auto value = static_cast<std::uint32_t>(t + 1);
            try {
                test::device().load_sources(
                    constant_writer("test_sources thread " + std::to_string(t), kernel, value));
                own_results[t] = run_constant_writer(kernel, 5000, value);
            } catch (const std::exception& e) {
                own_results[t] = std::string("exception: ") + e.what();
            }
            try {
                test::device().load_sources(contended);
                contended_results[t] = "loaded";
            } catch (const dualrt::Error& e) {
                contended_results[t] = e.errc() == Errc::invalid_argument
                                           ? "refused"
                                           : std::string("unexpected error: ") + e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    int loaded = 0, refused = 0;
    for (int t = 0; t < thread_count; ++t) {
        CAPTURE(t);
        CHECK(own_results[t] == "");
        CAPTURE(contended_results[t]);
        CHECK((contended_results[t] == "loaded" || contended_results[t] == "refused"));
        loaded += contended_results[t] == "loaded" ? 1 : 0;
        refused += contended_results[t] == "refused" ? 1 : 0;
    }
    CHECK(loaded == 1);
    CHECK(refused == thread_count - 1);
    CHECK(run_constant_writer("test_sources_contended", 1000, 99) == "");
}

TEST_CASE("sources: empty text, no kernels, and unknown names are refused") {
    SUBCASE("no text for this device's backend") {
        // Only the other backend's text: nothing for this device to compile.
        dualrt::KernelSource other{"test_sources other_backend_only", {}, {}};
        const std::string text = "__kernel void test_sources_other(__global float* y) {}\n";
        (is_cuda() ? other.opencl : other.cuda) = text;
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources other_backend_only",
                           test::device().load_sources(other));
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "has no",
                           test::device().load_sources(dualrt::KernelSource{"test_sources empty",
                                                                            {}, {}}));
    }
    SUBCASE("a source that defines no kernel") {
        const dualrt::KernelSource helpers_only{
            "test_sources no_kernels",
            "/* a helper for __kernel functions, not one itself */\n"
            "float test_sources_helper(float v) { return 2.0f * v; }  // kernel-free\n",
            "#include \"dualrt_kernel.cuh\"\n"
            "__device__ float test_sources_helper(float v) { return 2.0f * v; }\n"};
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "test_sources no_kernels",
                           test::device().load_sources(helpers_only));
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "no kernel",
                           test::device().load_sources(helpers_only));
    }
    SUBCASE("an unknown kernel name after loading") {
        load_once(two_kernels);
        CHECK_DUALRT_ERROR(Errc::not_found, "test_sources_no_such_kernel",
                           test::device().kernel("test_sources_no_such_kernel"));
        // The list of known kernels includes the loaded ones.
        CHECK_DUALRT_ERROR(Errc::not_found, "test_sources_axpb",
                           test::device().kernel("test_sources_no_such_kernel"));
    }
}

TEST_CASE("sources: KernelSource::from_files reads .cl and .cu files, and names an "
          "unreadable one") {
    // Both texts, written to files of this process's own, so either backend finds its kernel.
    const std::string folder = std::filesystem::temp_directory_path() /
                               ("dualrt_test_sources_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    const std::string cl_path = folder + "/from_files.cl";
    const std::string cu_path = folder + "/from_files.cu";
    std::ofstream(cl_path) << "__kernel void test_sources_from_files(uint n, "
                              "__global uint* out) {\n"
                              "    const size_t i = get_global_id(0);\n"
                              "    if (i < n) out[i] = 3u * (uint)i + 7u;\n}\n";
    std::ofstream(cu_path) << "#include \"dualrt_kernel.cuh\"\n"
                              "extern \"C\" __global__ void test_sources_from_files(uint n, "
                              "uint* out) {\n"
                              "    const size_t i = get_global_id(0);\n"
                              "    if (i < n) out[i] = 3u * (uint)i + 7u;\n}\n";

    SUBCASE("the kernel of the files runs") {
        const dualrt::KernelSource source = dualrt::KernelSource::from_files(cl_path, cu_path);
        CHECK(source.name == cl_path + " + " + cu_path);
        CHECK(load_once(source) == std::vector<std::string>{"test_sources_from_files"});
        const std::uint32_t n = 1001;
        dualrt::Queue queue = test::device().create_queue();
        auto out = test::device().alloc<std::uint32_t>(n);
        queue.fill(out, 0xdeadbeefu);
        queue.launch(test::device().kernel("test_sources_from_files"), {n}, {}, n, out);
        std::vector<std::uint32_t> result(n);
        queue.copy(result, out, dualrt::Sync::blocking);
        std::size_t wrong = 0;
        for (std::uint32_t i = 0; i < n; ++i) wrong += result[i] != 3u * i + 7u;
        CHECK(wrong == 0);
    }
    SUBCASE("a missing file is io_error naming it; no paths at all is invalid_argument") {
        CHECK_DUALRT_ERROR(Errc::io_error, folder + "/missing.cl",
                           dualrt::KernelSource::from_files(folder + "/missing.cl", cu_path));
        CHECK_DUALRT_ERROR(Errc::io_error, "No such file",
                           dualrt::KernelSource::from_files(cl_path, folder + "/missing.cu"));
        CHECK_DUALRT_ERROR(Errc::invalid_argument, "both paths are empty",
                           dualrt::KernelSource::from_files("", ""));
        // One file alone is enough; the other backend's text stays empty.
        const auto only_cl = dualrt::KernelSource::from_files(cl_path, "");
        CHECK(only_cl.cuda.empty());
        CHECK(only_cl.name == cl_path);
    }
    std::filesystem::remove_all(folder);
}
