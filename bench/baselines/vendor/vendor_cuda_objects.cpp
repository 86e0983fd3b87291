// The CUDA runtime side of the vendor module's plumbing: error checks, RAII owners of memory,
// streams and events, and the choice of device (vendor_cuda.hpp).
#include "vendor_cuda.hpp"
#include "vendor_module.hpp"

#include <dualrt/error.hpp>

#include <cctype>
#include <cstdio>
#include <limits>

namespace dualrt::bench::vendor {
namespace {

// The codes that say the runtime cannot work on this machine at all, rather than that a call
// failed: the loader reports these as "no vendor baseline here".
bool means_unavailable(cudaError_t result) {
    switch (result) {
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorDevicesUnavailable:
        return true;
    default:
        return false;
    }
}

// A kernel fault leaves the context unusable: every later call fails the same way.
bool means_device_lost(cudaError_t result) {
    switch (result) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

void check(cudaError_t result, const char* call, const std::string& context) {
    if (result == cudaSuccess) return;
    ErrorInfo info;
    info.errc = result == cudaErrorMemoryAllocation ? Errc::out_of_memory
                : means_unavailable(result)         ? Errc::unavailable
                : means_device_lost(result)         ? Errc::device_lost
                                                    : Errc::backend_failure;
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(result);
    info.code_name = cudaGetErrorName(result);
    info.detail = cudaGetErrorString(result);
    info.context = "vendor baseline: " + context;
    throw Error(std::move(info));
}

void invalid_argument(const char* call, const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "cuda";
    info.call = call;
    info.detail = detail;
    info.context = "vendor baseline";
    throw Error(std::move(info));
}

void check_runs(const char* call, int warmup, int repetitions) {
    if (warmup < 0 || repetitions < 1)
        invalid_argument(call, "warmup must be >= 0 and repetitions >= 1, not " +
                                   std::to_string(warmup) + " and " +
                                   std::to_string(repetitions));
}

std::size_t byte_count(const char* call, const char* what, std::size_t count, std::size_t size) {
    if (count > std::numeric_limits<std::size_t>::max() / size)
        invalid_argument(call, std::string(what) + " of " + std::to_string(count) + " elements of " +
                                   std::to_string(size) + " bytes overflows std::size_t");
    return count * size;
}

DeviceMemory::DeviceMemory(std::size_t bytes, const std::string& context) {
    check(cudaMalloc(&pointer_, bytes), "cudaMalloc",
          std::to_string(bytes) + " bytes for " + context);
}

DeviceMemory::~DeviceMemory() { (void)cudaFree(pointer_); }

Stream::Stream() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags(cudaStreamNonBlocking)", "its stream");
}

Stream::~Stream() { (void)cudaStreamDestroy(stream_); }

TimingEvent::TimingEvent() { check(cudaEventCreate(&event_), "cudaEventCreate", "its events"); }

TimingEvent::~TimingEvent() { (void)cudaEventDestroy(event_); }

SelectedDevice::SelectedDevice(int ordinal, const std::string& pci_bus_id) : ordinal_(ordinal) {
    const std::string context = "CUDA device " + std::to_string(ordinal);
    check(cudaSetDevice(ordinal), "cudaSetDevice", context);
    if (pci_bus_id.empty()) return;
    // Formatted as dualrt's CUDA backend does ("%04x:%02x:%02x.0"), so equal ids compare equal.
    int domain = 0, bus = 0, slot = 0;
    check(cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, ordinal),
          "cudaDeviceGetAttribute(cudaDevAttrPciDomainId)", context);
    check(cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, ordinal),
          "cudaDeviceGetAttribute(cudaDevAttrPciBusId)", context);
    check(cudaDeviceGetAttribute(&slot, cudaDevAttrPciDeviceId, ordinal),
          "cudaDeviceGetAttribute(cudaDevAttrPciDeviceId)", context);
    char runtime_id[32];
    std::snprintf(runtime_id, sizeof runtime_id, "%04x:%02x:%02x.0",
                  static_cast<unsigned>(domain), static_cast<unsigned>(bus),
                  static_cast<unsigned>(slot));
    if (lower(runtime_id) != lower(pci_bus_id))
        invalid_argument(DUALRT_VENDOR_ENTRY_NAME,
                         "dualrt's CUDA device " + std::to_string(ordinal) + " is at PCI " +
                             pci_bus_id + " but the CUDA runtime's device " +
                             std::to_string(ordinal) + " is at " + runtime_id +
                             ": the two number the devices differently, so the vendor baseline "
                             "would measure another GPU");
}

}  // namespace dualrt::bench::vendor
