// The CUDA backend's reading of kernel signatures from .cu source text (core/src/
// kernel_signature.hpp): the built-in kernels as they are on disk, then the odd corners of C++
// source that must neither hide a kernel nor invent one.
#include "kernel_signature.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using dualrt::detail::cuda_kernel_signatures;
using dualrt::detail::cuda_scalar_size;
using dualrt::detail::KernelSignature;
using Kind = dualrt::backend::ParamInfo::Kind;

namespace {

const std::filesystem::path cuda_kernel_dir =
    std::filesystem::path(DUALRT_SOURCE_DIR) / "kernels" / "cu";

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// What one parameter must read as.
struct Expected {
    Kind kind;
    std::size_t size;
    const char* type_name;
    const char* name;
};

void check_kernel(const KernelSignature& kernel, const std::string& name,
                  const std::vector<Expected>& params) {
    INFO("kernel " << kernel.name);
    CHECK(kernel.name == name);
    REQUIRE(kernel.params.size() == params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
        INFO("parameter " << i);
        CHECK(kernel.params[i].kind == params[i].kind);
        CHECK(kernel.params[i].size == params[i].size);
        CHECK(kernel.params[i].type_name == params[i].type_name);
        CHECK(kernel.params[i].name == params[i].name);
    }
}

std::vector<std::string> names(const std::vector<KernelSignature>& kernels) {
    std::vector<std::string> out;
    for (const auto& kernel : kernels) out.push_back(kernel.name);
    return out;
}

constexpr std::size_t ptr = sizeof(void*);

}  // namespace

TEST_CASE("kernel signature: the built-in kernels/cu/*.cu as on disk") {
    const auto saxpy = cuda_kernel_signatures(read_text(cuda_kernel_dir / "saxpy.cu"));
    REQUIRE(saxpy.size() == 1);
    check_kernel(saxpy[0], "saxpy",
                 {{Kind::scalar, 4, "uint", "n"},
                  {Kind::scalar, 4, "float", "a"},
                  {Kind::buffer, ptr, "const float* __restrict__", "x"},
                  {Kind::buffer, ptr, "float* __restrict__", "y"}});

    const auto fill = cuda_kernel_signatures(read_text(cuda_kernel_dir / "fill.cu"));
    REQUIRE(fill.size() == 1);
    check_kernel(fill[0], "fill",
                 {{Kind::buffer, ptr, "float*", "out"},
                  {Kind::scalar, 4, "float", "value"},
                  {Kind::scalar, 4, "uint", "n"}});

    const auto busy = cuda_kernel_signatures(read_text(cuda_kernel_dir / "busy.cu"));
    REQUIRE(busy.size() == 1);
    check_kernel(busy[0], "busy",
                 {{Kind::buffer, ptr, "float*", "data"},
                  {Kind::scalar, 4, "uint", "n"},
                  {Kind::scalar, 4, "uint", "iterations"}});

    const auto reverse = cuda_kernel_signatures(read_text(cuda_kernel_dir / "group_reverse.cu"));
    REQUIRE(reverse.size() == 1);
    check_kernel(reverse[0], "group_reverse",
                 {{Kind::buffer, ptr, "float*", "data"},
                  {Kind::local, 4, "dualrt_local<float>", "scratch"},
                  {Kind::scalar, 4, "uint", "n"}});

    const auto index = cuda_kernel_signatures(read_text(cuda_kernel_dir / "index.cu"));
    REQUIRE(index.size() == 2);
    check_kernel(index[0], "index_2d",
                 {{Kind::buffer, ptr, "uint*", "out"},
                  {Kind::scalar, 4, "uint", "width"},
                  {Kind::scalar, 4, "uint", "height"}});
    check_kernel(index[1], "index_3d",
                 {{Kind::buffer, ptr, "uint*", "out"},
                  {Kind::scalar, 4, "uint", "width"},
                  {Kind::scalar, 4, "uint", "height"},
                  {Kind::scalar, 4, "uint", "depth"}});

    // The shared header defines a template and device functions, but no kernel.
    CHECK(cuda_kernel_signatures(read_text(cuda_kernel_dir / "dualrt_kernel.cuh")).empty());
}

TEST_CASE("kernel signature: every kernels/cu/*.cu file is fully classified") {
    // A kernel added later must be readable too: every parameter known, sized and named.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cuda_kernel_dir)) {
        if (entry.path().extension() != ".cu") continue;
        ++files;
        INFO("file " << entry.path().filename().string());
        const auto kernels = cuda_kernel_signatures(read_text(entry.path()));
        CHECK(!kernels.empty());
        for (const auto& kernel : kernels) {
            INFO("kernel " << kernel.name);
            for (const auto& param : kernel.params) {
                INFO("parameter " << param.type_name << " " << param.name);
                CHECK(param.kind != Kind::unknown);
                CHECK(param.size > 0);
                CHECK(!param.name.empty());
            }
        }
    }
    CHECK(files >= 5);
}

TEST_CASE("kernel signature: comments, literals and preprocessor lines hide no kernel") {
    const std::string source = R"cu(
// __global__ void fake_line(int x) {}
/* __global__ void fake_block(float* p) {
   } */
#define KERNEL __global__ void fake_macro(int x) {}
#define LONG_MACRO(x) \
    __global__ void fake_continued(int x) {}
__device__ const char* text = "__global__ void fake_string(int x) {}";
__device__ const char* escaped = "\" __global__ void fake_escaped() {} \\";
__device__ const char quote = '"';  // a lone quote in a character literal opens no string
__device__ const char* raw = R"x(__global__ void fake_raw() {} )" )x";
__device__ const int million = 1'000'000;  // digit separators open no character literal
__global__ void real(int a /* , float* fake */, float b // , int fake
) {}
)cu";
    const auto kernels = cuda_kernel_signatures(source);
    REQUIRE(kernels.size() == 1);
    check_kernel(kernels[0], "real",
                 {{Kind::scalar, 4, "int", "a"}, {Kind::scalar, 4, "float", "b"}});
}

TEST_CASE("kernel signature: multi-line parameters, launch bounds, specifiers") {
    const std::string source = R"cu(
extern "C" __global__ void __launch_bounds__(256, 2)
bounded(
    const float *
        in,
    unsigned   long long
        count,
    volatile int* __restrict__ flags) {
    in += count;
}
__launch_bounds__(128) static __global__ void bounds_first(double2 d) {}
static __global__ __launch_bounds__(64, 1, 1) void bounds_before_void(float3 v, char c) {}
__global__ void no_params() {}
__global__ void void_params(void) {}
__global__ void arrays(float data[], int fixed[4]) {}
__global__ void defaults(int n = 3, float scale = 1.0f) {}
)cu";
    const auto kernels = cuda_kernel_signatures(source);
    REQUIRE(kernels.size() == 7);
    check_kernel(kernels[0], "bounded",
                 {{Kind::buffer, ptr, "const float*", "in"},
                  {Kind::scalar, 8, "unsigned long long", "count"},
                  {Kind::buffer, ptr, "volatile int* __restrict__", "flags"}});
    check_kernel(kernels[1], "bounds_first", {{Kind::scalar, 16, "double2", "d"}});
    check_kernel(kernels[2], "bounds_before_void",
                 {{Kind::scalar, 12, "float3", "v"}, {Kind::scalar, 1, "char", "c"}});
    check_kernel(kernels[3], "no_params", {});
    check_kernel(kernels[4], "void_params", {});
    check_kernel(kernels[5], "arrays",
                 {{Kind::buffer, ptr, "float[]", "data"}, {Kind::buffer, ptr, "int[4]", "fixed"}});
    check_kernel(kernels[6], "defaults",
                 {{Kind::scalar, 4, "int", "n"}, {Kind::scalar, 4, "float", "scale"}});
}

TEST_CASE("kernel signature: extern \"C\" blocks and namespaces are looked into") {
    const std::string source = R"cu(
extern "C" {
__global__ void first(int* a) { a[0] = 1; }
__global__ void second(uint n) {}
}
namespace mine {
__global__ void third(float x) {}
}
)cu";
    CHECK(names(cuda_kernel_signatures(source)) ==
          std::vector<std::string>{"first", "second", "third"});
}

TEST_CASE("kernel signature: templates and prototypes are skipped") {
    const std::string source = R"cu(
template <typename T>
__global__ void generic(T* data, int n) { if (n > 0) data[0] = T{}; }
template <typename T, int N = (3 > 2)>
__global__ void __launch_bounds__(N) generic_bounded(T x) {}
template <>
__global__ void generic<float>(float* data, int n) {}
template __global__ void generic<int>(int* data, int n);
template <typename T> struct Holder { T value; };
extern "C" __global__ void declared(int n);
__global__ void declared_then_defined(float* p);
__global__ void declared_then_defined(float* p) { *p = 0; }
__global__ void after_templates(Holder<int> h) {}
)cu";
    CHECK(names(cuda_kernel_signatures(source)) ==
          std::vector<std::string>{"declared_then_defined", "after_templates"});
}

TEST_CASE("kernel signature: unknown types are scalars of unknown size; names may be missing") {
    const std::string source = R"cu(
struct Params { float scale; int count; };
__global__ void structs(Params p, const Params q, struct Params r, Wrapper<float*> w,
                        std::size_t count, __grid_constant__ const Params g) {}
__global__ void unnamed(float*, uint, Params, dualrt_local<float>, const float* __restrict__) {}
)cu";
    const auto kernels = cuda_kernel_signatures(source);
    REQUIRE(kernels.size() == 2);
    check_kernel(kernels[0], "structs",
                 {{Kind::scalar, 0, "Params", "p"},
                  {Kind::scalar, 0, "const Params", "q"},
                  {Kind::scalar, 0, "struct Params", "r"},
                  {Kind::scalar, 0, "Wrapper<float*>", "w"},
                  {Kind::scalar, sizeof(std::size_t), "std::size_t", "count"},
                  {Kind::scalar, 0, "__grid_constant__ const Params", "g"}});
    check_kernel(kernels[1], "unnamed",
                 {{Kind::buffer, ptr, "float*", ""},
                  {Kind::scalar, 4, "uint", ""},
                  {Kind::scalar, 0, "Params", ""},
                  {Kind::local, 4, "dualrt_local<float>", ""},
                  {Kind::buffer, ptr, "const float* __restrict__", ""}});
}

TEST_CASE("kernel signature: truncated and malformed sources end the scan, nothing more") {
    const std::string source = read_text(cuda_kernel_dir / "saxpy.cu") + R"cu(
template <typename T> __global__ void t(T x) {}
extern "C" { __global__ void __launch_bounds__(256, 2) k(const float* a, /* c */ uint n) {} }
const char* s = "x"; char c = 'y'; const char* r = R"d(z)d";
)cu";
    const std::size_t complete = cuda_kernel_signatures(source).size();
    CHECK(complete == 2);
    // Every prefix of the source: cut in a parameter list, a comment, a literal, a template.
    for (std::size_t length = 0; length <= source.size(); ++length)
        CHECK(cuda_kernel_signatures(source.substr(0, length)).size() <= complete);

    const auto cut = source.find("float a,");
    REQUIRE(cut != std::string::npos);
    CHECK(cuda_kernel_signatures(source.substr(0, cut + 5)).empty());

    for (const char* odd : {"__global__", "__global__ void", "__global__ void (", ")))(((",
                            "template <", "template < > > > {", "__global__ void k(}{",
                            "__launch_bounds__(", "\"", "'", "/*", "R\"abc(", "#define \\"}) {
        INFO("source: " << odd);
        CHECK(cuda_kernel_signatures(odd).empty());
    }
}

TEST_CASE("kernel signature: cuda_scalar_size of CUDA scalar and vector types") {
    const std::pair<const char*, std::size_t> sizes[] = {
        {"char", 1},      {"signed char", 1},   {"unsigned char", 1},     {"uchar", 1},
        {"bool", 1},      {"short", 2},         {"unsigned short", 2},    {"ushort", 2},
        {"half", 2},      {"__half", 2},        {"int", 4},               {"const int", 4},
        {"uint", 4},      {"unsigned", 4},      {"unsigned int", 4},      {"float", 4},
        {"long", 8},      {"ulong", 8},         {"unsigned long", 8},     {"long long", 8},
        {"unsigned long long", 8},              {"long long unsigned int", 8},
        {"double", 8},    {"size_t", 8},        {"std::size_t", 8},       {"ptrdiff_t", 8},
        {"int8_t", 1},    {"uint16_t", 2},      {"int32_t", 4},           {"uint32_t", 4},
        {"int64_t", 8},   {"uint64_t", 8},      {"const volatile uint64_t", 8},
        {"char1", 1},     {"uchar4", 4},        {"short3", 6},            {"ushort2", 4},
        {"int2", 8},      {"uint4", 16},        {"float3", 12},           {"float4", 16},
        {"long2", 16},    {"ulonglong3", 24},   {"double2", 16},          {"double4", 32},
        // Unknown: structs, typedefs it does not know, pointers, templates, no type.
        {"Params", 0},    {"struct Params", 0}, {"float*", 0},
        {"dualrt_local<float>", 0},
        {"float5", 0},    {"long double", 0},   {"", 0},                  {"const", 0},
    };
    for (const auto& [type, size] : sizes) {
        INFO("type: " << type);
        CHECK(cuda_scalar_size(type) == size);
    }
}
