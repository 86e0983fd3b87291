// NCCL, loaded at run time (libnccl.so.2, or DUALRT_NCCL_LIBRARY), as the backends load their
// drivers: dualrt_mpi builds and runs where NCCL is absent, and such ranks keep MPI's paths.
//
// The few declarations used are typed here from NCCL's ABI (stable since 2.14, the first release
// with ncclConfig_t) rather than taken from nccl.h, which needs the CUDA runtime's headers and is
// absent on machines without NCCL.
#pragma once

#include <dualrt/device.hpp>

#include <cstddef>
#include <string>

namespace dualrt::mpi::detail::nccl {

using Comm = struct ncclComm*;
using Stream = void*;  // cudaStream_t, the same object as a CUstream

enum Result : int {
    success = 0,
    in_progress = 7,
};

struct UniqueId {
    char internal[128];
};

enum DataType : int {
    int8 = 0,
    uint8 = 1,
    int32 = 2,
    uint32 = 3,
    int64 = 4,
    uint64 = 5,
    float32 = 7,
    float64 = 8,
};

enum RedOp : int { sum = 0, max = 2, min = 3 };

// ncclConfig_t as NCCL 2.14 defined it: NCCL reads a config by its `version`, so later releases
// take it as it stands and give the fields added since their defaults.
struct Config {
    std::size_t size = sizeof(Config);
    unsigned int magic = 0xcafebeef;
    unsigned int version = 21400;  // NCCL_VERSION(2, 14, 0)
    int blocking = 1;  // 0: calls return at once, and ncclCommGetAsyncError says when done
    int cga_cluster_size = undefined;
    int min_ctas = undefined;
    int max_ctas = undefined;
    const char* net_name = nullptr;
    static constexpr int undefined = -2147483647 - 1;  // NCCL_CONFIG_UNDEF_INT
};

struct Library {
    Result (*get_version)(int*);
    Result (*get_unique_id)(UniqueId*);
    Result (*comm_init_rank_config)(Comm*, int, UniqueId, int, Config*);
    Result (*comm_get_async_error)(Comm, Result*);
    Result (*group_start)();
    Result (*group_end)();
    Result (*comm_finalize)(Comm);
    Result (*comm_abort)(Comm);
    Result (*comm_destroy)(Comm);
    const char* (*get_error_string)(Result);
    const char* (*get_last_error)(Comm);
    Result (*send)(const void*, std::size_t, DataType, int, Comm, Stream);
    Result (*recv)(void*, std::size_t, DataType, int, Comm, Stream);
    Result (*broadcast)(const void*, void*, std::size_t, DataType, int, Comm, Stream);
    Result (*all_reduce)(const void*, void*, std::size_t, DataType, RedOp, Comm, Stream);
    int version = 0;  // e.g. 22809 for 2.28.9
    // "2.28.9"
    std::string version_string() const;
};

// The library, loaded once per process; nullptr where it cannot be loaded, with `why` set.
const Library* library(std::string& why);

// Makes `device`'s CUDA context current on this thread while it lives (NCCL works on the
// current device), and restores the one before.
class CurrentDevice {
public:
    explicit CurrentDevice(const Device& device);
    ~CurrentDevice();
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    void* previous_ = nullptr;
    bool changed_ = false;
};

// "NCCL ncclSend: unhandled cuda error (...)": a failed call in an Error message.
std::string describe_failure(const Library& nccl, const char* call, Result result, Comm comm);

}  // namespace dualrt::mpi::detail::nccl
