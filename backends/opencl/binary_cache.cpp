// The on-disk cache of OpenCL program binaries: folder, key, entry format, verified reads and
// atomic writes. See binary_cache.hpp for the format and docs/program-cache.md for the user's view.
#include "binary_cache.hpp"

#include "support/log.hpp"

#include <dualrt/runtime.hpp>

// Header-only use: xxhash's functions are compiled into this file, so nothing new is linked.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

namespace dualrt::opencl {
namespace {

constexpr char magic[8] = {'D', 'R', 'T', 'C', 'L', 'B', 'I', 'N'};

// Entries are a few KiB to a few MiB; anything far larger is not ours, and reading it whole
// would only waste memory.
constexpr std::uint64_t max_entry_bytes = std::uint64_t{1} << 30;

void put_u32(std::string& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}
void put_u64(std::string& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}
std::uint64_t get_le(const std::string& in, std::size_t offset, int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value |= std::uint64_t{static_cast<unsigned char>(in[offset + static_cast<std::size_t>(i)])}
                 << (8 * i);
    return value;
}

// Each field goes in as its length then its bytes, so ("ab", "c") and ("a", "bc") differ.
void hash_field(XXH3_state_t& state, const void* data, std::size_t size) {
    unsigned char length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<unsigned char>((std::uint64_t{size} >> (8 * i)) & 0xFFu);
    XXH3_128bits_update(&state, length, sizeof length);
    XXH3_128bits_update(&state, data, size);
}
void hash_field(XXH3_state_t& state, const std::string& text) {
    hash_field(state, text.data(), text.size());
}

std::string error_text(int error) {
    return std::error_code(error, std::generic_category()).message();
}

// Says something about the cache once per process at `level`, and at debug afterwards: a cache
// that cannot work is worth one line, not one per program built.
void log_once(std::atomic<bool>& said, spdlog::level::level_enum level, const std::string& text) {
    const bool first = !said.exchange(true);
    detail::log().log(first ? level : spdlog::level::debug, "OpenCL program cache: {}", text);
}
std::atomic<bool> folder_unusable_said{false};
std::atomic<bool> write_failed_said{false};

// The whole file, or nullopt with errno-style `error` (ENOENT: there is none).
std::optional<std::string> read_file(const std::string& path, int& error, std::string& why) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        why = "cannot open it: " + error_text(error);
        return std::nullopt;
    }
    std::optional<std::string> content;
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        error = errno;
        why = "cannot stat it: " + error_text(error);
    } else if (!S_ISREG(info.st_mode)) {
        error = EINVAL;
        why = "it is not a regular file";
    } else if (static_cast<std::uint64_t>(info.st_size) > max_entry_bytes) {
        error = EFBIG;
        why = "it is " + std::to_string(info.st_size) + " bytes, too large to be an entry";
    } else {
        std::string data(static_cast<std::size_t>(info.st_size), '\0');
        std::size_t done = 0;
        while (done < data.size()) {
            const ssize_t got = ::read(fd, &data[done], data.size() - done);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) {
                error = errno;
                why = "cannot read it: " + error_text(error);
                break;
            }
            if (got == 0) break;  // shrank under us: the checks below say "truncated"
            done += static_cast<std::size_t>(got);
        }
        data.resize(done);
        if (why.empty()) content = std::move(data);
    }
    ::close(fd);
    return content;
}

// The temporary file's name is unique across processes (pid) and threads (counter), and the
// random part keeps a pid reused after a crash from meeting its predecessor's leftover.
std::string temporary_name(const std::string& final_name) {
    static std::atomic<unsigned> counter{0};
    std::uint64_t random = 0;
    try {
        std::random_device device;
        random = (std::uint64_t{device()} << 32) ^ device();
    } catch (...) {  // no entropy source: the clock is unique enough beside pid and counter
        random =
            static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%u.%016llx", static_cast<long>(::getpid()),
                  counter.fetch_add(1), static_cast<unsigned long long>(random));
    return "." + final_name + suffix;  // hidden, and never ends in ".clbin"
}

bool write_all(int fd, const std::string& data, int& error) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t wrote = ::write(fd, data.data() + done, data.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) {
            error = errno;
            return false;
        }
        done += static_cast<std::size_t>(wrote);
    }
    return true;
}

}  // namespace

std::string BinaryCacheKey::hex() const {
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                  static_cast<unsigned long long>(low));
    return text;
}

BinaryCacheKey binary_cache_key(const BinaryCacheInputs& inputs) {
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_128bits_reset(&state);
    unsigned char version[4];
    for (int i = 0; i < 4; ++i)
        version[i] = static_cast<unsigned char>((binary_cache_format_version >> (8 * i)) & 0xFFu);
    hash_field(state, version, sizeof version);
    for (const std::string* field :
         {&inputs.source, &inputs.options, &inputs.device_name, &inputs.device_version,
          &inputs.driver_version, &inputs.platform_name, &inputs.platform_version})
        hash_field(state, *field);
    const XXH128_hash_t hash = XXH3_128bits_digest(&state);
    return BinaryCacheKey{hash.high64, hash.low64};
}

std::optional<BinaryCacheFolder> binary_cache_folder() {
    // Read at each build, not once: a program (or a test) may change it between builds.
    if (const char* dir = std::getenv(env_cache_dir); dir != nullptr && *dir != '\0') {
        if (std::string(dir) == "off") return std::nullopt;
        return BinaryCacheFolder{dir, true};
    }
    // The XDG base-directory rules: a relative XDG_CACHE_HOME is invalid and ignored.
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
        return BinaryCacheFolder{std::string(xdg) + "/dualrt/opencl", false};
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
        return BinaryCacheFolder{std::string(home) + "/.cache/dualrt/opencl", false};
    return std::nullopt;
}

std::string encode_binary_cache_entry(const BinaryCacheKey& key,
                                      const std::vector<unsigned char>& binary) {
    std::string out(magic, sizeof magic);
    out.reserve(binary_cache_header_size + binary.size());
    put_u32(out, binary_cache_format_version);
    put_u32(out, static_cast<std::uint32_t>(binary_cache_header_size));
    put_u64(out, key.high);
    put_u64(out, key.low);
    put_u64(out, binary.size());
    put_u64(out, XXH3_64bits(binary.data(), binary.size()));
    out.append(reinterpret_cast<const char*>(binary.data()), binary.size());
    return out;
}

std::optional<BinaryCacheKey> binary_cache_entry_key(const std::string& file) {
    if (file.size() < binary_cache_header_size ||
        file.compare(0, sizeof magic, magic, sizeof magic) != 0)
        return std::nullopt;
    return BinaryCacheKey{get_le(file, 16, 8), get_le(file, 24, 8)};
}

std::string decode_binary_cache_entry(const std::string& file, const BinaryCacheKey& expected,
                                      std::vector<unsigned char>& binary) {
    binary.clear();
    if (file.empty()) return "the file is empty (0 bytes)";
    if (file.size() < binary_cache_header_size)
        return "truncated: " + std::to_string(file.size()) + " bytes, shorter than the " +
               std::to_string(binary_cache_header_size) + "-byte header";
    if (file.compare(0, sizeof magic, magic, sizeof magic) != 0)
        return "not a dualrt program cache entry (wrong magic bytes)";
    if (const auto version = get_le(file, 8, 4); version != binary_cache_format_version)
        return "format version " + std::to_string(version) + ", this dualrt reads version " +
               std::to_string(binary_cache_format_version);
    if (const auto header = get_le(file, 12, 4); header != binary_cache_header_size)
        return "header size " + std::to_string(header) + ", expected " +
               std::to_string(binary_cache_header_size);
    const BinaryCacheKey key{get_le(file, 16, 8), get_le(file, 24, 8)};
    if (key != expected)
        return "foreign entry: it holds the binary of another build (key " + key.hex() +
               "), copied or renamed under this name";
    const std::uint64_t payload = get_le(file, 32, 8);
    const std::uint64_t present = file.size() - binary_cache_header_size;
    if (payload != present)
        return (payload > present ? "truncated: the header announces " : "the header announces ") +
               std::to_string(payload) + " payload bytes, the file holds " +
               std::to_string(present);
    if (payload == 0) return "the entry holds an empty binary";
    const char* data = file.data() + binary_cache_header_size;
    if (XXH3_64bits(data, payload) != get_le(file, 40, 8))
        return "checksum mismatch: the binary is corrupt";
    binary.assign(reinterpret_cast<const unsigned char*>(data),
                  reinterpret_cast<const unsigned char*>(data) + payload);
    return {};
}

std::optional<BinaryCacheEntry> BinaryCacheEntry::open(const BinaryCacheKey& key) noexcept {
    try {
        const auto folder = binary_cache_folder();
        if (!folder) {
            detail::log().debug("OpenCL program cache: off ({}=off, or no XDG_CACHE_HOME or HOME)",
                                env_cache_dir);
            return std::nullopt;
        }
        std::error_code error;
        std::filesystem::create_directories(folder->path, error);
        if (!error && !std::filesystem::is_directory(folder->path, error) && !error)
            error = std::make_error_code(std::errc::not_a_directory);
        if (error) {
            // A folder the user named is worth a warning; a default one (say, a read-only HOME
            // in a container) only a note.
            log_once(folder_unusable_said,
                     folder->from_dualrt_cache_dir ? spdlog::level::warn : spdlog::level::info,
                     "cannot use the folder '" + folder->path + "'" +
                         (folder->from_dualrt_cache_dir ? std::string(" (") + env_cache_dir + ")"
                                                        : std::string()) +
                         ": " + error.message() + "; building programs without the cache");
            return std::nullopt;
        }
        const std::string name = key.hex() + ".clbin";
        return BinaryCacheEntry(key, folder->path, folder->path + "/" + name);
    } catch (...) {  // out of memory while making a path: no cache, the build goes on
        return std::nullopt;
    }
}

std::optional<std::vector<unsigned char>> BinaryCacheEntry::read() const noexcept {
    try {
        int error = 0;
        std::string why;
        const auto file = read_file(path_, error, why);
        if (!file) {
            if (error == ENOENT) {
                detail::log().debug("OpenCL program cache: miss {}", path_);
            } else {
                detail::log().warn("OpenCL program cache: rebuilding {}: {}", path_, why);
            }
            return std::nullopt;
        }
        std::vector<unsigned char> binary;
        why = decode_binary_cache_entry(*file, key_, binary);
        if (!why.empty()) {
            detail::log().warn("OpenCL program cache: rebuilding {}: {}", path_, why);
            return std::nullopt;
        }
        return binary;
    } catch (...) {
        return std::nullopt;
    }
}

void BinaryCacheEntry::reject(const std::string& reason) const noexcept {
    try {
        detail::log().warn("OpenCL program cache: rebuilding {}: {}", path_, reason);
    } catch (...) {
    }
}

void BinaryCacheEntry::write(const std::vector<unsigned char>& binary) const noexcept {
    std::string temporary;
    try {
        const std::string data = encode_binary_cache_entry(key_, binary);
        const std::string final_name = key_.hex() + ".clbin";
        temporary = folder_ + "/" + temporary_name(final_name);
        // O_EXCL: the name is ours alone. No fsync: it would cost milliseconds per build, and
        // an entry torn by a power failure is caught on load (size, checksum) and rebuilt.
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        int error = 0;
        std::string failure;
        if (fd < 0) {
            error = errno;
            temporary.clear();  // nothing to remove
            failure = "cannot create a file in '" + folder_ + "': " + error_text(error);
        } else {
            const bool wrote = write_all(fd, data, error);
            if (::close(fd) != 0 && wrote) error = errno;
            if (!wrote || error != 0) {
                failure = "cannot write '" + temporary + "': " + error_text(error);
            } else if (::rename(temporary.c_str(), path_.c_str()) != 0) {
                failure =
                    "cannot rename '" + temporary + "' to '" + path_ + "': " + error_text(errno);
            } else {
                detail::log().debug("OpenCL program cache: stored {}", path_);
                return;
            }
        }
        if (!temporary.empty()) ::unlink(temporary.c_str());
        log_once(write_failed_said, spdlog::level::info,
                 failure + "; programs are built without storing their binaries");
    } catch (...) {
        if (!temporary.empty()) ::unlink(temporary.c_str());
    }
}

}  // namespace dualrt::opencl
