// Every environment variable the library reads, parsed in one place, so that a bad value fails
// when the device is chosen (dualrt::select) with a message naming the variable, the value and
// what is accepted, rather than at the first operation that happens to read it. Internal; the
// backends use these too, so that one spelling has one meaning everywhere.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dualrt::detail {

// Checks every DUALRT_* variable the library reads (runtime.hpp lists them). Throws
// Errc::invalid_argument for the first bad one. Cheap: called by each select().
void check_environment();

// DUALRT_SYNC: on for 1, on, true, yes; off when unset, empty, 0, off, false, no (any case).
// Read once per process.
bool sync_after_every_enqueue();

// DUALRT_STAGING_LIMIT in bytes ("256M", "1g", "0"), or nothing when unset or empty.
std::optional<std::size_t> staging_limit_from_environment();

// DUALRT_COPY_THREADS: threads (1-64) that the host memcpy of staged copies uses, or nothing
// when unset or empty.
std::optional<std::size_t> copy_threads_from_environment();

// DUALRT_RECORDING=command_list: OpenCL devices record as command lists even where they have
// command buffers (to test that path on any device). False when unset, empty or "auto".
bool command_lists_forced();

// The folders of DUALRT_PLUGIN_PATH, in order (empty entries skipped). `strict`: one that is not
// a folder is an error (select); otherwise it is kept, and module loading reports what is missing
// where it looked (the registry, which lists backends without throwing).
std::vector<std::string> plugin_folders_from_environment(bool strict);

// "268435456", "256M", "256MiB", "1g": bytes, with an optional K/M/G (KiB/MiB/GiB) or B suffix.
std::optional<std::size_t> parse_bytes(const std::string& text);

}  // namespace dualrt::detail
