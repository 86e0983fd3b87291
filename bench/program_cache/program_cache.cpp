// program_cache: what the on-disk cache of OpenCL program binaries (docs/program-cache.md) saves.
// It times the build of every built-in kernel (Device::kernel for each name) in a fresh child
// process, so that no in-memory cache helps:
//   cold     on an empty cache folder: every program is compiled from source and stored
//   cached   on the same folder again: every program is made from its stored binary
// each repetition in a folder of its own; median, min and max over the repetitions. The device's
// context is created before the clock starts, so the times are the builds alone.
#include "options.hpp"
#include "csv.hpp"
#include "native_common.hpp"
#include "table.hpp"

#include <dualrt/dualrt.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using dualrt::samples::fixed;

// Set in the children's environment: the same program, the same options, the child's role.
constexpr const char* child_marker = "DUALRT_PROGRAM_CACHE_SAMPLE_CHILD";

// Every built-in kernel (kernels/cl/*.cl): six programs, index.cl defines two of them.
const std::vector<std::string> kernel_names = {"fill",     "saxpy",         "busy", "index_2d",
                                               "index_3d", "group_reverse", "empty"};

// --backend / DUALRT_BACKEND, with OpenCL for auto: the cache is OpenCL's.
dualrt::Selection selection_of(const dualrt::samples::Args& args) {
    dualrt::Selection selection = args.selection();
    if (selection.backend.empty() || selection.backend == "auto") selection.backend = "opencl";
    return selection;
}

// The child: builds every built-in kernel and prints how long that took.
int child(const dualrt::samples::Args& args) {
    const dualrt::Device device = dualrt::select(selection_of(args));
    const dualrt::Queue queue = device.create_queue();  // the context, outside the timing
    const auto begin = std::chrono::steady_clock::now();
    for (const auto& name : kernel_names) static_cast<void>(device.kernel(name));
    const auto end = std::chrono::steady_clock::now();
    std::printf("build_ms=%.6f\n", std::chrono::duration<double, std::milli>(end - begin).count());
    return 0;
}

struct ChildRun {
    double build_ms = 0.0;
    int hits = 0;    // "OpenCL program cache: hit" lines in its log
    int stored = 0;  // "OpenCL program cache: stored" lines
    std::vector<std::string> warnings;  // the library's warnings, which the child's log holds
};

int count(const std::string& text, const std::string& needle) {
    int found = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++found;
    return found;
}

// Runs this program again as a child on cache folder `cache`, with its output in `log`.
ChildRun run_child(char** argv, const fs::path& cache, const fs::path& log,
                   bool keep_driver_cache) {
    std::map<std::string, std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        if (const auto eq = text.find('='); eq != std::string::npos)
            env[text.substr(0, eq)] = text.substr(eq + 1);
    }
    env[child_marker] = "1";
    env[dualrt::env_cache_dir] = cache.string();
    env[dualrt::env_log] = "debug";  // the hit/stored lines say the cache did its work
    if (!keep_driver_cache) {
        // The drivers' own caches would make "cold" partly warm: NVIDIA's JIT cache
        // (~/.nv/ComputeCache) and PoCL's kernel cache (~/.cache/pocl).
        env["CUDA_CACHE_DISABLE"] = "1";
        env["POCL_KERNEL_CACHE"] = "0";
    }
    std::vector<std::string> env_text;
    for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& text : env_text) envp.push_back(text.data());
    envp.push_back(nullptr);

    const std::string self = fs::read_symlink("/proc/self/exe").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    const int error = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(error));

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    std::ifstream in(log);
    const std::string output((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    const auto at = output.find("build_ms=");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || at == std::string::npos)
        throw std::runtime_error("the child process failed; its output:\n" + output);
    ChildRun run;
    run.build_ms = std::strtod(output.c_str() + at + 9, nullptr);
    run.hits = count(output, "OpenCL program cache: hit");
    run.stored = count(output, "OpenCL program cache: stored");
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("[dualrt warning]", 0) == 0) run.warnings.push_back(line);
    return run;
}

// A folder for the cache folders, removed at the end.
struct TempRoot {
    fs::path path;
    TempRoot() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                              "/dualrt-program-cache-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
        path = pattern;
    }
    ~TempRoot() {
        std::error_code error;
        fs::remove_all(path, error);
    }
};

int run(const dualrt::samples::Args& args, char** argv) {
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const bool keep_driver_cache = args.flag("keep-driver-cache");
    const dualrt::Device device = dualrt::select(selection_of(args));
    const auto& info = device.info();
    if (info.backend != dualrt::Backend::opencl) {
        std::cerr << "error: the program cache is OpenCL's (CUDA's built-in kernels are compiled "
                     "ahead of time); choose an OpenCL device (--backend opencl)\n";
        return 2;
    }
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(
            args.csv_path(), {"backend", "device", "platform", "driver", "kernels", "repetitions",
                              "driver_cache", "cold_ms", "cached_ms", "speedup", "cold_min_ms",
                              "cold_max_ms", "cached_min_ms", "cached_max_ms"});

    std::cout << "dualrt " << dualrt::version_string() << " program cache on OpenCL device "
              << info.index << " '" << info.name << "' (" << info.platform << ", driver "
              << info.driver_version << ")\n"
              << "building " << kernel_names.size() << " built-in kernels in a fresh process: "
              << "cold (empty cache folder) vs cached (same folder again); median of "
              << repetitions << "; driver caches "
              << (keep_driver_cache ? "kept (cold times may be partly warm)"
                                    : "off (CUDA_CACHE_DISABLE=1, POCL_KERNEL_CACHE=0)")
              << "\n\n";

    const TempRoot root;
    std::vector<double> cold, cached;
    for (int r = 0; r < repetitions; ++r) {
        const fs::path cache = root.path / ("cache-" + std::to_string(r));
        const ChildRun first = run_child(argv, cache, root.path / "cold.log", keep_driver_cache);
        const ChildRun second = run_child(argv, cache, root.path / "cached.log", keep_driver_cache);
        for (const ChildRun* child_run : {&first, &second})
            for (const auto& line : child_run->warnings) std::cerr << line << "\n";
        if (first.stored == 0 || second.hits != first.stored)
            std::cerr << "warning: repetition " << r + 1 << ": the cold run stored " << first.stored
                      << " programs, the cached run hit " << second.hits
                      << "; the cache did not do its whole work\n";
        cold.push_back(first.build_ms);
        cached.push_back(second.build_ms);
    }
    using dualrt::bench::detail::median;
    const double cold_ms = median(cold), cached_ms = median(cached);
    const double speedup = cached_ms > 0.0 ? cold_ms / cached_ms : 0.0;
    const auto [cold_min, cold_max] = std::minmax_element(cold.begin(), cold.end());
    const auto [cached_min, cached_max] = std::minmax_element(cached.begin(), cached.end());

    dualrt::samples::Table table(
        {"kernels", "cold ms", "cached ms", "speedup", "cold min..max", "cached min..max"});
    table.add({std::to_string(kernel_names.size()), fixed(cold_ms, 1), fixed(cached_ms, 1),
               fixed(speedup, 1) + "x", fixed(*cold_min, 1) + ".." + fixed(*cold_max, 1),
               fixed(*cached_min, 1) + ".." + fixed(*cached_max, 1)});
    table.print(std::cout);
    csv.row({dualrt::to_string(info.backend), info.name, info.platform, info.driver_version,
             std::to_string(kernel_names.size()), std::to_string(repetitions),
             keep_driver_cache ? "kept" : "off", fixed(cold_ms, 3), fixed(cached_ms, 3),
             fixed(speedup, 2), fixed(*cold_min, 3), fixed(*cold_max, 3), fixed(*cached_min, 3),
             fixed(*cached_max, 3)});
    if (csv.enabled()) std::cout << "rows written to " << csv.path() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::SharedOptions shared;
    shared.progress = false;
    dualrt::samples::Args args(
        "program_cache",
        "Build time of all built-in OpenCL kernels, cold (empty program cache) vs cached\n"
        "(binaries from the on-disk cache, docs/program-cache.md), each in a fresh process.\n"
        "Drivers have caches of their own: NVIDIA's JIT cache (~/.nv/ComputeCache, off with\n"
        "CUDA_CACHE_DISABLE=1) and PoCL's kernel cache (~/.cache/pocl, off with\n"
        "POCL_KERNEL_CACHE=0). Cold times are honest only with them off, so the children run\n"
        "with both set unless --keep-driver-cache is given. The default backend is OpenCL.",
        shared);
    args.add_integer("repetitions", "N", "cold + cached pairs, each in a new cache folder (median)",
                     5, 1, 1000);
    args.add_flag("keep-driver-cache",
                  "leave the drivers' own caches to the environment in the children (do not "
                  "set CUDA_CACHE_DISABLE=1 and POCL_KERNEL_CACHE=0)");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        if (std::getenv(child_marker) != nullptr) return child(args);
        return run(args, argv);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
