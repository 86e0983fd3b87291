#include <dualrt/error.hpp>

#include "support/raise.hpp"

#include <cstdint>
#include <cstdio>
#include <utility>

namespace dualrt {
namespace {

// "<backend>: <call> failed with <NAME> (<code>): <detail> [<context>]" -- the parts that are
// empty are left out, so a core argument check reads "dualrt: Queue::copy: <detail>".
std::string compose_message(const ErrorInfo& info) {
    std::string msg = info.backend.empty() ? std::string("dualrt") : info.backend;
    msg += ": ";
    msg += info.call.empty() ? std::string("error") : info.call;
    if (!info.code_name.empty() || info.code != 0) {
        msg += " failed with ";
        msg += info.code_name.empty() ? std::string("error") : info.code_name;
        msg += " (" + std::to_string(info.code) + ")";
    }
    if (!info.detail.empty()) msg += ": " + info.detail;
    if (!info.context.empty()) msg += " [" + info.context + "]";
    return msg;
}

}  // namespace

Error::Error(ErrorInfo info) : std::runtime_error(compose_message(info)), info_(std::move(info)) {}

Error::~Error() = default;

const char* to_string(Errc errc) noexcept {
    switch (errc) {
        case Errc::invalid_argument: return "invalid_argument";
        case Errc::out_of_range: return "out_of_range";
        case Errc::not_found: return "not_found";
        case Errc::unavailable: return "unavailable";
        case Errc::out_of_memory: return "out_of_memory";
        case Errc::compile_error: return "compile_error";
        case Errc::backend_failure: return "backend_failure";
        case Errc::io_error: return "io_error";
        case Errc::device_lost: return "device_lost";
    }
    return "unknown";
}

namespace detail {

void raise(ErrorInfo info) { throw Error(std::move(info)); }

void raise_argument(const std::string& operation, const std::string& detail, Errc errc) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "dualrt";
    info.call = operation;
    info.detail = detail;
    throw Error(std::move(info));
}

void raise_finding(Errc errc, const char* backend, std::string call, std::int64_t code,
                   std::string code_name, std::string context, std::string detail) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = backend;
    info.call = std::move(call);
    info.code = code;
    info.code_name = std::move(code_name);
    info.context = std::move(context);
    info.detail = std::move(detail);
    raise(std::move(info));
}

std::string device_label(const DeviceInfo& info) {
    return "'" + info.name + "' (" + to_string(info.backend) + " device " +
           std::to_string(info.index) + (info.wrapped_context ? ", wrapped context" : "") + ")";
}

std::string address_text(const void* address) {
    char text[2 + 2 * sizeof(void*) + 1];
    std::snprintf(text, sizeof text, "0x%llx",
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address)));
    return text;
}

std::string format_bytes(std::size_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char text[48];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%zu B", bytes);
    else
        std::snprintf(text, sizeof text, "%.1f %s (%zu B)", value, units[unit], bytes);
    return text;
}

}  // namespace detail
}  // namespace dualrt
