// Faults the driver reports, on a GPU: a kernel that writes far outside its buffer, and device
// memory exhausted for real. Run by dualrt_faults (fault_main.cpp), one case per process.
#include "support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using dualrt::Errc;

namespace {

// A write 4 TiB past the start of `data`: no allocation is that large, so the address is
// illegal on every GPU.
const dualrt::KernelSource wild_write{
    "test_faults wild_write",
    "__kernel void test_faults_wild_write(__global uint* data, ulong offset) {\n"
    "    data[offset] = 1u;\n"
    "}\n",
    "#include \"dualrt_kernel.cuh\"\n"
    "extern \"C\" __global__ void test_faults_wild_write(uint* data, ulong offset) {\n"
    "    data[offset] = 1u;\n"
    "}\n"};
constexpr std::uint64_t wild_offset = (std::uint64_t{1} << 42) / sizeof(std::uint32_t);

bool sync_mode() {
    const char* value = std::getenv(dualrt::env_sync);
    return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

// saxpy on every device of the other backend still works after this device failed.
void check_other_backend_works(dualrt::Backend failed) {
    for (const dualrt::Device& other : dualrt::devices()) {
        if (other.backend() == failed) continue;
        INFO("other device: " << dualrt::to_string(other.backend()) << " '" << other.name()
                              << "'");
        test::Random rnd;
        auto queue = other.create_queue();
        CHECK(test::run_saxpy(queue, 100000, rnd.engine) == "");
    }
}

}  // namespace

TEST_CASE("faults: a kernel fault is device_lost, naming the kernels that may have faulted") {
    const auto& device = test::device();
    device.load_sources(wild_write);
    auto quiet = device.create_queue();
    auto faulty = device.create_queue();
    // saxpy completes (finish) before the fault, so it is no suspect.
    test::Random rnd;
    CHECK(test::run_saxpy(quiet, 4096, rnd.engine) == "");
    quiet.finish();

    auto data = device.alloc<std::uint32_t>(1024);
    bool thrown = false;
    try {
        faulty.launch(device.kernel("test_faults_wild_write"), {1}, {1}, data, wild_offset);
        // Without DUALRT_SYNC the launch returns at once; the fault surfaces at the next wait.
        CHECK_FALSE(sync_mode());
        faulty.finish();
    } catch (const dualrt::Error& e) {
        thrown = true;
        const std::string message = e.what();
        INFO("message: " << message);
        CHECK(e.errc() == Errc::device_lost);
        CHECK(test::contains(message, "'test_faults_wild_write' (launch #"));
        CHECK_FALSE(test::contains(message, "'saxpy'"));
        // With DUALRT_SYNC=1 the launch itself reported it, so it is the only suspect.
        if (sync_mode()) CHECK(message.find("(launch #") == message.rfind("(launch #"));
        MESSAGE("the fault reads: " << message);
    }
    CHECK_MESSAGE(thrown, "the wild write was not reported");

    // What the device does afterwards: CUDA keeps failing with device_lost (its context is
    // poisoned); whatever the backend does, it is a dualrt::Error, never a crash or a hang.
    try {
        auto after = device.create_queue();
        const std::string wrong = test::run_saxpy(after, 4096, rnd.engine);
        CHECK(wrong == "");
        MESSAGE("the device still works after the fault");
    } catch (const dualrt::Error& e) {
        MESSAGE("after the fault: " << std::string(e.what()));
        if (device.backend() == dualrt::Backend::cuda) CHECK(e.errc() == Errc::device_lost);
    }
    check_other_backend_works(device.backend());
}

TEST_CASE("faults: exhausting device memory is out_of_memory, and the device recovers") {
    const auto& device = test::device();
    const std::size_t total = device.info().global_memory_bytes;
    // Chunks of 1/64 of the memory, each filled so that drivers that allocate lazily (NVIDIA's
    // OpenCL places a buffer at its first use) really hold it.
    const std::size_t chunk = total / 64;
    auto queue = device.create_queue();
    std::vector<dualrt::Buffer<std::uint8_t>> held;
    std::string message;
    try {
        for (std::size_t i = 0; i < 4 * 64; ++i) {  // 4x the memory: the loop must stop earlier
            held.push_back(device.alloc<std::uint8_t>(chunk));
            queue.fill(held.back(), std::uint8_t{0x5a}, dualrt::Sync::blocking);
        }
    } catch (const dualrt::Error& e) {
        message = e.what();
        INFO("message: " << message);
        CHECK(e.errc() == Errc::out_of_memory);
    }
    const double held_fraction = static_cast<double>(held.size() * chunk) / total;
    MESSAGE("held " << held.size() << " chunks of " << chunk / (1 << 20) << " MiB ("
                    << held_fraction * 100.0 << "% of " << total / (1 << 20)
                    << " MiB) before: " << message);
    REQUIRE_FALSE(message.empty());
    // Other processes may hold some memory, but most of it must have been usable.
    CHECK(held_fraction > 0.75);

    // Everything released: the device allocates and computes again.
    held.clear();
    queue.finish();
    // A quarter of the memory again, in chunks (OpenCL caps single allocations, at 1/4 of the
    // memory on NVIDIA's driver).
    for (std::size_t i = 0; i < 16; ++i) {
        held.push_back(device.alloc<std::uint8_t>(chunk));
        queue.fill(held.back(), std::uint8_t{0xa5}, dualrt::Sync::blocking);
    }
    std::vector<std::uint8_t> last(chunk, 0);
    queue.copy(last, held.back(), dualrt::Sync::blocking);
    CHECK(std::count(last.begin(), last.end(), std::uint8_t{0xa5}) ==
          static_cast<std::ptrdiff_t>(chunk));
    held.clear();
    test::Random rnd;
    CHECK(test::run_saxpy(queue, 1 << 20, rnd.engine) == "");
}
