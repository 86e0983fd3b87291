/// @file
/// Finding backends and devices, and choosing one (DUALRT_BACKEND, DUALRT_DEVICE).
#pragma once

#include <dualrt/device.hpp>
#include <dualrt/types.hpp>

#include <string>
#include <vector>

namespace dualrt {

/// @name Environment variables
/// The environment variables the library reads, by name.
/// @{
inline constexpr const char* env_backend = "DUALRT_BACKEND";          ///< auto | cuda | opencl
inline constexpr const char* env_device = "DUALRT_DEVICE";            ///< index or name substring
inline constexpr const char* env_log = "DUALRT_LOG";                  ///< spdlog level name
inline constexpr const char* env_plugin_path = "DUALRT_PLUGIN_PATH";  ///< extra module folders
inline constexpr const char* env_sync = "DUALRT_SYNC";  ///< "1": wait after every enqueue
inline constexpr const char* env_staging_limit = "DUALRT_STAGING_LIMIT";  ///< bytes, K/M/G; 0: off
inline constexpr const char* env_copy_threads = "DUALRT_COPY_THREADS";  ///< host memcpy threads
/// "command_list": OpenCL devices record as a list of prepared commands even where they have
/// command buffers (DeviceInfo::recording); unset or "auto": the best path each device has
inline constexpr const char* env_recording = "DUALRT_RECORDING";
/// program cache folder; "off": none
inline constexpr const char* env_cache_dir = "DUALRT_CACHE_DIR";
/// @}

/// What the library knows about one backend after trying to load it.
struct BackendStatus {
    Backend backend = Backend::opencl;  ///< which backend this is about
    bool available = false;             ///< whether it loaded and can be used
    std::string reason;       ///< why it is not available (empty when it is)
    std::string module_path;  ///< the module file loaded or looked for
    std::string version;      ///< the backend's own description when available
    std::size_t device_count = 0;  ///< its devices (0 when unavailable)
};

/// Loads (once) and reports every backend dualrt knows, available or not. Never throws for a
/// missing backend: that is what `reason` is for.
std::vector<BackendStatus> backends();

/// The devices of one backend. Throws Errc::unavailable with the reason if it cannot be used.
std::vector<Device> devices(Backend backend);

/// Every device of every available backend, CUDA first.
std::vector<Device> devices();

/// What to choose: the values DUALRT_BACKEND and DUALRT_DEVICE take.
struct Selection {
    std::string backend = "auto";  ///< auto | cuda | opencl
    std::string device;            ///< "" (default device), an index, or a name substring

    /// Reads DUALRT_BACKEND and DUALRT_DEVICE (unset means "auto" and "").
    static Selection from_environment();
};

/// Chooses a device. auto: the first CUDA device if there is one, else the first OpenCL GPU, else
/// the first OpenCL device. A device given as a number is an index into the chosen backend's
/// devices; text is a case-insensitive substring of the device's name, vendor, platform or
/// architecture (the OpenCL version string, so "pocl" finds PoCL). Anything that cannot be
/// honoured throws (Errc::invalid_argument, not_found or unavailable) with what was asked, what
/// exists, and why each missing backend is missing. Never falls back silently.
Device select(const Selection& selection);

/// select(Selection::from_environment())
Device select();

}  // namespace dualrt
