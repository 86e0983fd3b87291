#include "support/environment.hpp"

#include <dualrt/runtime.hpp>

#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <sys/stat.h>

namespace dualrt::detail {
namespace {

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// The variable's value, or nothing when it is unset.
std::optional<std::string> read(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

[[noreturn]] void bad_value(const char* name, const std::string& value,
                            const std::string& accepted) {
    raise_argument(std::string("reading ") + name,
                   "the value '" + value + "' is not valid; expected " + accepted);
}

bool is_directory(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool parse_switch(const char* name, const std::optional<std::string>& value) {
    if (!value || value->empty()) return false;
    const std::string text = lowercase(*value);
    if (text == "1" || text == "on" || text == "true" || text == "yes") return true;
    if (text == "0" || text == "off" || text == "false" || text == "no") return false;
    bad_value(name, *value, "1, on, true or yes to turn it on; 0, off, false, no or empty for off");
}

void check_cache_dir() {
    const auto value = read(env_cache_dir);
    if (!value || value->empty() || *value == "off") return;
    struct stat info {};
    // A folder that does not exist yet is made by the cache; anything else in its place is not.
    if (::stat(value->c_str(), &info) == 0 && !S_ISDIR(info.st_mode))
        bad_value(env_cache_dir, *value,
                  "a folder (it is made if missing) or 'off'; that path exists and is not a "
                  "folder");
}

}  // namespace

std::optional<std::size_t> parse_bytes(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
    if (digits == 0 || digits > 15) return std::nullopt;
    const std::string suffix = lowercase(text.substr(digits));
    std::size_t shift = 0;
    if (suffix == "k" || suffix == "kib") shift = 10;
    else if (suffix == "m" || suffix == "mib") shift = 20;
    else if (suffix == "g" || suffix == "gib") shift = 30;
    else if (!suffix.empty() && suffix != "b") return std::nullopt;
    return static_cast<std::size_t>(std::stoull(text.substr(0, digits))) << shift;
}

bool sync_after_every_enqueue() {
    static const bool enabled = [] {
        const bool on = parse_switch(env_sync, read(env_sync));
        if (on) log().info("{}={}: every enqueue waits for its work", env_sync, *read(env_sync));
        return on;
    }();
    return enabled;
}

std::optional<std::size_t> staging_limit_from_environment() {
    const auto value = read(env_staging_limit);
    if (!value || value->empty()) return std::nullopt;
    const auto bytes = parse_bytes(*value);
    if (!bytes)
        bad_value(env_staging_limit, *value,
                  "a size in bytes with an optional K, M or G suffix (e.g. 256M), or 0 to turn "
                  "staging off");
    return bytes;
}

std::optional<std::size_t> copy_threads_from_environment() {
    const auto value = read(env_copy_threads);
    if (!value || value->empty()) return std::nullopt;
    const bool digits = value->size() <= 2 &&
                        std::all_of(value->begin(), value->end(),
                                    [](unsigned char c) { return std::isdigit(c) != 0; });
    const std::size_t threads = digits ? std::stoul(*value) : 0;
    if (threads < 1 || threads > 64)
        bad_value(env_copy_threads, *value, "a number of threads from 1 to 64");
    return threads;
}

bool command_lists_forced() {
    const auto value = read(env_recording);
    if (!value || value->empty() || *value == "auto") return false;
    if (*value == "command_list") return true;
    bad_value(env_recording, *value, "auto (the default) or command_list");
}

std::vector<std::string> plugin_folders_from_environment(bool strict) {
    std::vector<std::string> folders;
    const auto value = read(env_plugin_path);
    if (!value) return folders;
    std::size_t start = 0;
    while (start <= value->size()) {
        const auto end = value->find(':', start);
        const auto folder = value->substr(start, end == std::string::npos ? end : end - start);
        if (!folder.empty()) {
            if (strict && !is_directory(folder))
                bad_value(env_plugin_path, *value,
                          "folders separated by ':'; '" + folder + "' is not a folder");
            folders.push_back(folder);
        }
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return folders;
}

void check_environment() {
    // Each value is read afresh, though some are used as first read: a program that changes one
    // between two select() calls hears about a bad value, not just the first one.
    check_log_level();
    parse_switch(env_sync, read(env_sync));
    staging_limit_from_environment();
    copy_threads_from_environment();
    command_lists_forced();
    plugin_folders_from_environment(true);
    check_cache_dir();
}

}  // namespace dualrt::detail
