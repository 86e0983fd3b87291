// The on-disk cache of OpenCL program binaries (docs/program-cache.md): which folder, the key of a
// build, the entry format, reading and verifying an entry, writing one atomically. It knows no
// OpenCL type: cached_build.cpp brings the binaries to and from the driver, and the tests compile
// this file alone to check the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::opencl {

// Raised whenever the entry layout or the meaning of a key field changes: old entries then stop
// matching (they hash to other names, and their header says another version).
inline constexpr std::uint32_t binary_cache_format_version = 1;

// Everything a program binary depends on. Any change to one of them must give another key.
struct BinaryCacheInputs {
    std::string source;            // the OpenCL C text
    std::string options;           // the build options
    std::string device_name;       // CL_DEVICE_NAME
    std::string device_version;    // CL_DEVICE_VERSION
    std::string driver_version;    // CL_DRIVER_VERSION
    std::string platform_name;     // CL_PLATFORM_NAME
    std::string platform_version;  // CL_PLATFORM_VERSION
};

// A 128-bit XXH3 hash of the format version and the inputs, each field length-prefixed.
struct BinaryCacheKey {
    std::uint64_t high = 0;
    std::uint64_t low = 0;

    std::string hex() const;  // 32 lowercase hex digits, high half first

    friend bool operator==(const BinaryCacheKey& a, const BinaryCacheKey& b) {
        return a.high == b.high && a.low == b.low;
    }
    friend bool operator!=(const BinaryCacheKey& a, const BinaryCacheKey& b) { return !(a == b); }
};

BinaryCacheKey binary_cache_key(const BinaryCacheInputs& inputs);

// Where the cache lives, read from the environment at each call: DUALRT_CACHE_DIR when set and
// not empty ("off": no cache), else $XDG_CACHE_HOME/dualrt/opencl, else $HOME/.cache/dualrt/opencl
// (XDG_CACHE_HOME and HOME count only when absolute). nullopt: no cache.
struct BinaryCacheFolder {
    std::string path;
    bool from_dualrt_cache_dir = false;  // named by DUALRT_CACHE_DIR, not a default
};
std::optional<BinaryCacheFolder> binary_cache_folder();

// The entry format: a 48-byte header, then the binary. Integers are little-endian.
//   offset  0  8 bytes  magic "DRTCLBIN"
//   offset  8  u32      format version (binary_cache_format_version)
//   offset 12  u32      header size (48)
//   offset 16  u64 x 2  the key, high then low half (a copy renamed to another key is caught)
//   offset 32  u64      payload size in bytes
//   offset 40  u64      XXH3-64 of the payload
inline constexpr std::size_t binary_cache_header_size = 48;

std::string encode_binary_cache_entry(const BinaryCacheKey& key,
                                      const std::vector<unsigned char>& binary);

// Checks every header field of `file` (the whole entry file) against `expected` and the payload
// against its size and checksum. Returns "" and sets `binary` when the entry is good, else why it
// is not (for the warning), leaving `binary` empty.
std::string decode_binary_cache_entry(const std::string& file, const BinaryCacheKey& expected,
                                      std::vector<unsigned char>& binary);

// The key an entry's header claims, or nullopt when `file` is too short or not an entry. For
// tools and tests; loading trusts nothing that decode_binary_cache_entry has not checked.
std::optional<BinaryCacheKey> binary_cache_entry_key(const std::string& file);

// One build's entry in the folder the environment names. Never throws: every failure of the
// cache is logged, and the build goes on without it.
class BinaryCacheEntry {
public:
    // The entry of `key`, creating the folder (with its parents) when it is missing; nullopt
    // when the cache is off or its folder cannot be created (said once per process).
    static std::optional<BinaryCacheEntry> open(const BinaryCacheKey& key) noexcept;

    const std::string& path() const { return path_; }

    // The verified binary, or nullopt: a miss (debug log), or an entry that cannot be used
    // (a warning naming the file and the reason), which the caller rebuilds and overwrites.
    std::optional<std::vector<unsigned char>> read() const noexcept;

    // The driver refused a binary that read() gave: a warning naming the file and `reason`.
    void reject(const std::string& reason) const noexcept;

    // Writes `binary` to a temporary file in the folder and renames it over the entry, so that
    // readers see the old entry or the new one, never a part. A failure removes the temporary
    // file and is logged (at info once per process, then at debug).
    void write(const std::vector<unsigned char>& binary) const noexcept;

private:
    BinaryCacheEntry(BinaryCacheKey key, std::string folder, std::string path)
        : key_(key), folder_(std::move(folder)), path_(std::move(path)) {}

    BinaryCacheKey key_;
    std::string folder_;
    std::string path_;
};

}  // namespace dualrt::opencl
