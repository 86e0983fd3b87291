// The program cache's entry format, key and choice of folder, tested directly on
// backends/opencl/binary_cache.cpp, which is compiled into this test program (it uses no OpenCL).
// The behaviour across processes is in test_program_cache.cpp.
#include "binary_cache.hpp"

#include <dualrt/runtime.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using dualrt::opencl::BinaryCacheInputs;
using dualrt::opencl::BinaryCacheKey;

namespace {

bool contains(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
}

// Environment changes: a value sets the variable, nullopt removes it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

BinaryCacheInputs sample_inputs() {
    return {"__kernel void k(){}", "-cl-std=CL1.2", "device", "OpenCL 3.0", "driver 1", "platform",
            "OpenCL 3.0 platform"};
}

TEST_CASE("key: every input counts, and field boundaries cannot collide") {
    const BinaryCacheInputs base = sample_inputs();
    const BinaryCacheKey key = dualrt::opencl::binary_cache_key(base);
    CHECK(dualrt::opencl::binary_cache_key(base) == key);
    const std::string hex = key.hex();
    CHECK(hex.size() == 32);
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);

    std::string BinaryCacheInputs::*fields[] = {
        &BinaryCacheInputs::source,          &BinaryCacheInputs::options,
        &BinaryCacheInputs::device_name,     &BinaryCacheInputs::device_version,
        &BinaryCacheInputs::driver_version,  &BinaryCacheInputs::platform_name,
        &BinaryCacheInputs::platform_version};
    for (auto field : fields) {
        BinaryCacheInputs changed = base;
        changed.*field += " ";
        CHECK(dualrt::opencl::binary_cache_key(changed) != key);
    }
    BinaryCacheInputs split_a = base, split_b = base;
    split_a.source = "ab";
    split_a.options = "c";
    split_b.source = "a";
    split_b.options = "bc";
    CHECK(dualrt::opencl::binary_cache_key(split_a) != dualrt::opencl::binary_cache_key(split_b));
}

TEST_CASE("entry: round trip, and every kind of damage is found and named") {
    using dualrt::opencl::decode_binary_cache_entry;
    const BinaryCacheKey key = dualrt::opencl::binary_cache_key(sample_inputs());
    std::mt19937 rng(std::random_device{}());
    std::vector<unsigned char> binary(1000 + rng() % 1000);
    for (auto& b : binary) b = static_cast<unsigned char>(rng());
    const std::string good = dualrt::opencl::encode_binary_cache_entry(key, binary);
    REQUIRE(good.size() == dualrt::opencl::binary_cache_header_size + binary.size());

    std::vector<unsigned char> out;
    CHECK(decode_binary_cache_entry(good, key, out).empty());
    CHECK(out == binary);
    CHECK(dualrt::opencl::binary_cache_entry_key(good) == std::optional<BinaryCacheKey>(key));

    const auto reason = [&](const std::string& file) {
        const std::string why = decode_binary_cache_entry(file, key, out);
        CHECK(out.empty());
        return why;
    };
    const auto flipped = [&](std::size_t at) {
        std::string file = good;
        file[at] = static_cast<char>(file[at] ^ 0x40);
        return file;
    };
    CHECK(contains(reason(""), "empty"));
    CHECK(contains(reason(good.substr(0, 20)), "truncated"));
    CHECK(contains(reason(good.substr(0, good.size() - 1)), "truncated"));
    CHECK(contains(reason(good + "x"), "the header announces"));
    CHECK(contains(reason(flipped(0)), "magic"));
    CHECK(contains(reason(flipped(8)), "format version"));
    CHECK(contains(reason(flipped(12)), "header size"));
    CHECK(contains(reason(flipped(20)), "foreign"));
    CHECK(contains(reason(flipped(30)), "foreign"));
    CHECK(contains(reason(flipped(good.size() - 1)), "checksum"));
    CHECK(contains(reason(flipped(40)), "checksum"));
    BinaryCacheKey other = key;
    other.low ^= 1;
    CHECK(contains(reason(dualrt::opencl::encode_binary_cache_entry(other, binary)), "foreign"));
    CHECK(contains(reason(dualrt::opencl::encode_binary_cache_entry(key, {})), "empty binary"));
}

// Sets or removes environment variables for one scope, restoring them afterwards.
struct ScopedEnv {
    std::map<std::string, std::optional<std::string>> saved;
    explicit ScopedEnv(const EnvChanges& changes) {
        for (const auto& [name, value] : changes) {
            const char* old = std::getenv(name.c_str());
            saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
        }
    }
    ~ScopedEnv() {
        for (const auto& [name, value] : saved) {
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
        }
    }
};

std::string folder_for(const EnvChanges& changes) {
    const ScopedEnv env(changes);
    const auto folder = dualrt::opencl::binary_cache_folder();
    return folder ? folder->path : "<none>";
}

TEST_CASE("folder: DUALRT_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
    const std::string dir = dualrt::env_cache_dir;
    CHECK(folder_for({{dir, "/tmp/c"}, {"XDG_CACHE_HOME", "/x"}}) == "/tmp/c");
    CHECK(folder_for({{dir, "off"}, {"XDG_CACHE_HOME", "/x"}}) == "<none>");
    CHECK(folder_for({{dir, ""}, {"XDG_CACHE_HOME", "/x"}}) == "/x/dualrt/opencl");
    CHECK(folder_for({{dir, std::nullopt}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}) ==
          "/x/dualrt/opencl");
    CHECK(folder_for({{dir, std::nullopt}, {"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}) ==
          "/h/.cache/dualrt/opencl");
    CHECK(folder_for({{dir, std::nullopt}, {"XDG_CACHE_HOME", std::nullopt}, {"HOME", "/h"}}) ==
          "/h/.cache/dualrt/opencl");
    CHECK(folder_for(
              {{dir, std::nullopt}, {"XDG_CACHE_HOME", std::nullopt}, {"HOME", std::nullopt}}) ==
          "<none>");
    const ScopedEnv named({{dir, "/tmp/c"}});
    CHECK(dualrt::opencl::binary_cache_folder()->from_dualrt_cache_dir);
}

}  // namespace
