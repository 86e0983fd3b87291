// Choosing a backend and device: bad values are errors that say what was asked and what exists,
// never a silent fallback. Passes on any machine: where a backend is missing, the tests check
// that it is reported missing, with a reason.
#include "support.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

using dualrt::Backend;
using dualrt::Errc;

namespace {

dualrt::BackendStatus status_of(Backend backend) {
    const auto all = dualrt::backends();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [&](const auto& s) { return s.backend == backend; });
    REQUIRE(found != all.end());
    return *found;
}

std::string upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

TEST_CASE("selection: backends() reports cuda and opencl, with a reason for each missing one") {
    const auto all = dualrt::backends();
    REQUIRE(all.size() == 2);
    CHECK(all[0].backend == Backend::cuda);
    CHECK(all[1].backend == Backend::opencl);
    for (const auto& status : all) {
        INFO(dualrt::to_string(status.backend) << ": " << status.reason);
        CHECK(!status.module_path.empty());
        if (status.available) {
            CHECK(status.reason.empty());
            CHECK(status.device_count > 0);
            CHECK(status.device_count == dualrt::devices(status.backend).size());
        } else {
            CHECK(!status.reason.empty());
            CHECK_DUALRT_ERROR(Errc::unavailable, status.reason, dualrt::devices(status.backend));
        }
    }
}

TEST_CASE("selection: devices() lists every available backend's devices, CUDA first") {
    std::vector<dualrt::Device> expected;
    for (const auto backend : {Backend::cuda, Backend::opencl}) {
        if (!status_of(backend).available) continue;
        const auto list = dualrt::devices(backend);
        for (std::size_t i = 0; i < list.size(); ++i) {
            CHECK(list[i].backend() == backend);
            CHECK(list[i].info().index == static_cast<int>(i));
        }
        expected.insert(expected.end(), list.begin(), list.end());
    }
    CHECK(dualrt::devices() == expected);
}

TEST_CASE("selection: an unknown backend name is invalid_argument listing the valid ones") {
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "bogus", dualrt::select({"bogus", ""}));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "auto, cuda, opencl", dualrt::select({"bogus", ""}));
}

TEST_CASE("selection: a device that does not exist is not_found listing the devices") {
    for (const auto backend : {Backend::cuda, Backend::opencl}) {
        const std::string name = dualrt::to_string(backend);
        CAPTURE(name);
        if (!status_of(backend).available) {
            // Missing backend: says which one and why, for any device asked for.
            const auto reason = status_of(backend).reason;
            CHECK_DUALRT_ERROR(Errc::unavailable, name, dualrt::select({name, ""}));
            CHECK_DUALRT_ERROR(Errc::unavailable, reason, dualrt::select({name, "0"}));
            continue;
        }
        const auto first = dualrt::devices(backend).front();
        CHECK_DUALRT_ERROR(Errc::not_found, "999", dualrt::select({name, "999"}));
        CHECK_DUALRT_ERROR(Errc::not_found, first.name(), dualrt::select({name, "999"}));
        CHECK_DUALRT_ERROR(Errc::not_found, "no-such-device-name",
                           dualrt::select({name, "no-such-device-name"}));
        CHECK_DUALRT_ERROR(Errc::not_found, first.name(),
                           dualrt::select({name, "no-such-device-name"}));
    }
    if (!dualrt::devices().empty()) {
        CHECK_DUALRT_ERROR(Errc::not_found, "999", dualrt::select({"auto", "999"}));
        CHECK_DUALRT_ERROR(Errc::not_found, "no-such-device-name",
                           dualrt::select({"auto", "no-such-device-name"}));
    }
}

TEST_CASE("selection: valid choices pick the documented device") {
    for (const auto backend : {Backend::cuda, Backend::opencl}) {
        if (!status_of(backend).available) continue;
        const std::string name = dualrt::to_string(backend);
        CAPTURE(name);
        const auto list = dualrt::devices(backend);
        for (std::size_t i = 0; i < list.size(); ++i)
            CHECK(dualrt::select({name, std::to_string(i)}) == list[i]);
        // A name is a case-insensitive substring of the name, vendor, platform or architecture.
        const auto by_name = dualrt::select({name, upper(list.back().name())});
        CHECK(upper(by_name.name()).find(upper(list.back().name())) != std::string::npos);
        // The default device prefers a GPU on OpenCL, and is the first CUDA device.
        const auto chosen = dualrt::select({name, ""});
        CHECK(chosen.backend() == backend);
        if (backend == Backend::cuda) CHECK(chosen == list.front());
        const bool any_gpu = std::any_of(list.begin(), list.end(), [](const auto& d) {
            return d.info().type == dualrt::DeviceType::gpu;
        });
        if (backend == Backend::opencl && any_gpu)
            CHECK(chosen.info().type == dualrt::DeviceType::gpu);
    }
    // auto: CUDA when it is there, else an OpenCL GPU, else the first OpenCL device.
    if (status_of(Backend::cuda).available)
        CHECK(dualrt::select({"auto", ""}) == dualrt::devices(Backend::cuda).front());
    else if (status_of(Backend::opencl).available)
        CHECK(dualrt::select({"auto", ""}) == dualrt::select({"opencl", ""}));
    else
        CHECK_DUALRT_ERROR(Errc::unavailable, "no backend", dualrt::select({"auto", ""}));
}

TEST_CASE("selection: Selection::from_environment reads DUALRT_BACKEND and DUALRT_DEVICE") {
    // This executable runs its tests on one thread, so changing the environment here is safe.
    const char* saved_backend = std::getenv(dualrt::env_backend);
    const char* saved_device = std::getenv(dualrt::env_device);
    const std::string backend_text = saved_backend ? saved_backend : "";
    const std::string device_text = saved_device ? saved_device : "";

    ::unsetenv(dualrt::env_backend);
    ::unsetenv(dualrt::env_device);
    auto unset = dualrt::Selection::from_environment();
    CHECK(unset.backend == "auto");
    CHECK(unset.device == "");

    ::setenv(dualrt::env_backend, "opencl", 1);
    ::setenv(dualrt::env_device, "pocl", 1);
    auto set = dualrt::Selection::from_environment();
    CHECK(set.backend == "opencl");
    CHECK(set.device == "pocl");

    ::setenv(dualrt::env_backend, "", 1);  // empty means unset
    CHECK(dualrt::Selection::from_environment().backend == "auto");

    ::setenv(dualrt::env_backend, "bogus", 1);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "unknown backend 'bogus'", dualrt::select());

    if (saved_backend) ::setenv(dualrt::env_backend, backend_text.c_str(), 1);
    else ::unsetenv(dualrt::env_backend);
    if (saved_device) ::setenv(dualrt::env_device, device_text.c_str(), 1);
    else ::unsetenv(dualrt::env_device);
}

namespace {

// Sets one variable for a scope, restoring what was there, however the scope ends.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) saved_ = old;
        ::setenv(name, value, 1);
    }
    ~ScopedVariable() {
        if (saved_) ::setenv(name_, saved_->c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
    std::optional<std::string> saved_;
};

}  // namespace

TEST_CASE("selection: every bad DUALRT_* value fails select() at once, naming variable and value") {
    struct Case {
        const char* name;
        const char* value;
        const char* accepted;  // part of the message that says what is accepted
    };
    const Case cases[] = {
        {dualrt::env_staging_limit, "abc", "a size in bytes with an optional K, M or G suffix"},
        {dualrt::env_staging_limit, "12X", "e.g. 256M"},
        {dualrt::env_sync, "banana", "1, on, true or yes"},
        {dualrt::env_copy_threads, "0", "a number of threads from 1 to 64"},
        {dualrt::env_copy_threads, "many", "a number of threads from 1 to 64"},
        {dualrt::env_log, "loud", "expected one of: off, critical, error, warn"},
        {dualrt::env_plugin_path, "/no/such/folder", "'/no/such/folder' is not a folder"},
        {dualrt::env_cache_dir, "/etc/hostname", "that path exists and is not a folder"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        CAPTURE(c.value);
        ScopedVariable bad(c.name, c.value);
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, c.accepted, dualrt::select());
        try {
            dualrt::select();
        } catch (const dualrt::Error& e) {
            CHECK(test::contains(e.what(), c.name));
            if (std::string(c.name) != dualrt::env_log) CHECK(test::contains(e.what(), c.value));
        }
    }
    // Good values of the same variables still select a device.
    ScopedVariable limit(dualrt::env_staging_limit, "64M");
    ScopedVariable sync(dualrt::env_sync, "off");
    ScopedVariable log(dualrt::env_log, "warn");
    ScopedVariable cache(dualrt::env_cache_dir, "off");
    if (dualrt::devices().empty()) return;
    CHECK(dualrt::select().valid());
}
