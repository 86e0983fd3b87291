// The on-disk cache of OpenCL program binaries (docs/program-cache.md).
//
// A process builds each program once per device (the in-memory ProgramCache), so the cache's
// behaviour across builds is seen through child processes: this program starts itself
// (posix_spawn of /proc/self/exe, safe after OpenCL is up, unlike fork) with `--child JOBS` and a
// DUALRT_CACHE_DIR, and reads the child's exit code and its log (DUALRT_LOG=debug). A child
// builds, launches and checks its kernels against a CPU reference on random data, so an entry
// that loads the wrong binary fails there. The entry format, the key and the choice of folder
// are tested directly in test_program_cache_format.cpp (binary_cache.cpp is compiled into this
// program, which also checks entries with it here).
//
// main() exits 77 ("SKIPPED: reason") when no OpenCL device can be used here.
#define DOCTEST_CONFIG_IMPLEMENT
#include "binary_cache.hpp"

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using dualrt::opencl::BinaryCacheKey;

namespace {

// ---------------------------------------------------------------- the child: build and check

// The same kernel name in every variant, with another factor: an entry of variant 3 loaded for
// variant 2 computes the wrong numbers, which the child catches.
std::string scale_source(int factor) {
    return "#define PC_FACTOR " + std::to_string(factor) + ".0f\n" + R"CL(
__kernel void pc_scale(uint n, __global const float* x, __global float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = PC_FACTOR * x[i] + 1.0f;
}
)CL";
}

bool close_enough(float got, float want) {
    return std::fabs(got - want) <= 1e-5f;
}

// Loads variant `factor`, runs it on random data, checks the result, and checks that a wrong
// argument is refused before launch: the argument checks need the kernel argument information,
// which a program made from a binary must still have.
void check_scale(const dualrt::Device& device, dualrt::Queue& queue, int factor,
                 std::mt19937& rng) {
    device.load_sources({"program cache test " + std::to_string(factor), scale_source(factor), ""});
    const dualrt::Kernel kernel = device.kernel("pc_scale");
    const auto n = static_cast<unsigned>(std::uniform_int_distribution<unsigned>(1000, 5000)(rng));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
    for (auto& v : x) v = value(rng);
    auto dx = device.alloc<float>(n);
    auto dy = device.alloc<float>(n);
    queue.copy(dx, x, dualrt::Sync::blocking);
    queue.copy(dy, y, dualrt::Sync::blocking);
    queue.launch(kernel, {n}, {}, n, dx, dy);
    queue.copy(y, dy, dualrt::Sync::blocking);
    for (unsigned i = 0; i < n; ++i) {
        const float want = static_cast<float>(factor) * x[i] + 1.0f;
        if (!close_enough(y[i], want)) {
            throw std::runtime_error("pc_scale factor " + std::to_string(factor) + ": y[" +
                                     std::to_string(i) + "] = " + std::to_string(y[i]) +
                                     ", expected " + std::to_string(want));
        }
    }
    try {
        queue.launch(kernel, {n}, {}, n, 2.0f, dy);  // a float where a buffer belongs
    } catch (const dualrt::Error& e) {
        if (e.errc() == dualrt::Errc::invalid_argument) return;
        throw std::runtime_error(std::string("a wrong argument gave ") +
                                 dualrt::to_string(e.errc()) +
                                 ", not invalid_argument: " + e.what());
    }
    throw std::runtime_error("a float passed for a buffer parameter was not refused");
}

void check_saxpy(const dualrt::Device& device, dualrt::Queue& queue, std::mt19937& rng) {
    const dualrt::Kernel kernel = device.kernel("saxpy");
    const auto n = static_cast<unsigned>(std::uniform_int_distribution<unsigned>(1000, 5000)(rng));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const float a = value(rng);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = value(rng);
    for (auto& v : y) v = value(rng);
    auto dx = device.alloc<float>(n);
    auto dy = device.alloc<float>(n);
    queue.copy(dx, x, dualrt::Sync::blocking);
    queue.copy(dy, y, dualrt::Sync::blocking);
    queue.launch(kernel, {n}, {}, n, a, dx, dy);
    std::vector<float> out(n);
    queue.copy(out, dy, dualrt::Sync::blocking);
    for (unsigned i = 0; i < n; ++i) {
        if (!close_enough(out[i], a * x[i] + y[i]))
            throw std::runtime_error("saxpy: y[" + std::to_string(i) + "] is wrong");
    }
}

// JOBS: "source:N" (pc_scale with factor N), "builtin" (saxpy), or "both:N".
int child_main(const std::string& jobs) {
    try {
        const dualrt::Device device = dualrt::select();
        if (device.backend() != dualrt::Backend::opencl) {
            std::fprintf(stderr, "CHILD ERROR: not an OpenCL device\n");
            return 3;
        }
        dualrt::Queue queue = device.create_queue();
        std::mt19937 rng(std::random_device{}());
        const bool both = jobs.rfind("both:", 0) == 0;
        if (both || jobs.rfind("source:", 0) == 0)
            check_scale(device, queue, std::stoi(jobs.substr(jobs.find(':') + 1)), rng);
        if (both || jobs == "builtin") check_saxpy(device, queue, rng);
        std::printf("CHILD OK\n");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "CHILD ERROR: %s\n", e.what());
        return 1;
    }
}

// ---------------------------------------------------------------- the parent: run children

struct Child {
    pid_t pid = -1;
    fs::path log;
};

struct ChildResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_all(const fs::path& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    REQUIRE(out.good());
}

bool contains(const std::string& text, const std::string& needle) {
    return text.find(needle) != std::string::npos;
}

int count(const std::string& text, const std::string& needle) {
    int found = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + needle.size()))
        ++found;
    return found;
}

// Environment changes: a value sets the variable, nullopt removes it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// One folder per test case, removed at the end (made writable first, for the read-only case).
struct TempDir {
    fs::path path;
    TempDir() {
        static int serial = 0;
        path = fs::temp_directory_path() /
               ("dualrt-program-cache-test-" + std::to_string(::getpid()) + "-" +
                std::to_string(++serial) + "-" + std::to_string(std::random_device{}()));
        fs::create_directories(path / "logs");
    }
    ~TempDir() {
        std::error_code error;
        for (auto it = fs::recursive_directory_iterator(path, error);
             !error && it != fs::recursive_directory_iterator(); it.increment(error))
            if (it->is_directory(error)) ::chmod(it->path().c_str(), 0755);
        fs::remove_all(path, error);
    }
    fs::path log_file() {
        static int serial = 0;
        return path / "logs" / ("child-" + std::to_string(++serial) + ".log");
    }
};

Child spawn_child(const std::string& jobs, const EnvChanges& changes, const fs::path& log) {
    std::map<std::string, std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        const auto eq = text.find('=');
        if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
    }
    env["DUALRT_LOG"] = "debug";
    env["DUALRT_BACKEND"] = "opencl";
    for (const auto& [name, value] : changes) {
        if (value)
            env[name] = *value;
        else
            env.erase(name);
    }
    std::vector<std::string> env_text;
    for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& text : env_text) envp.push_back(text.data());
    envp.push_back(nullptr);

    static const std::string self = fs::read_symlink("/proc/self/exe").string();
    std::string arg0 = self, flag = "--child", jobs_arg = jobs;
    char* argv[] = {arg0.data(), flag.data(), jobs_arg.data(), nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    Child child;
    child.log = log;
    const int error = ::posix_spawn(&child.pid, self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE_MESSAGE(error == 0, "posix_spawn: " << std::strerror(error));
    return child;
}

ChildResult wait_child(const Child& child) {
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0) REQUIRE(errno == EINTR);
    ChildResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.output = read_all(child.log);
    return result;
}

ChildResult run_child(TempDir& dir, const std::string& jobs, const EnvChanges& changes) {
    return wait_child(spawn_child(jobs, changes, dir.log_file()));
}

// Runs a child on cache folder `cache` and requires that it succeeded.
ChildResult run_ok(TempDir& dir, const std::string& jobs, const fs::path& cache) {
    ChildResult result = run_child(dir, jobs, {{dualrt::env_cache_dir, cache.string()}});
    INFO("child '" << jobs << "' output:\n" << result.output);
    REQUIRE(result.exit_code == 0);
    REQUIRE(count(result.output, "CHILD OK") == 1);
    return result;
}

std::vector<fs::path> files_in(const fs::path& folder, bool entries) {
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto& item : fs::directory_iterator(folder, error)) {
        const bool entry =
            item.path().extension() == ".clbin" && item.path().filename().string().size() == 32 + 6;
        if (entry == entries) found.push_back(item.path());
    }
    return found;
}
std::vector<fs::path> entries_in(const fs::path& folder) {
    return files_in(folder, true);
}
std::vector<fs::path> others_in(const fs::path& folder) {
    return files_in(folder, false);
}

// The key an entry's file name claims.
BinaryCacheKey key_of(const fs::path& entry) {
    const std::string hex = entry.stem().string();
    REQUIRE(hex.size() == 32);
    return BinaryCacheKey{std::stoull(hex.substr(0, 16), nullptr, 16),
                          std::stoull(hex.substr(16), nullptr, 16)};
}

// Whether `entry` is a complete, valid entry of the key its name claims.
bool valid_entry(const fs::path& entry) {
    std::vector<unsigned char> binary;
    const std::string why =
        dualrt::opencl::decode_binary_cache_entry(read_all(entry), key_of(entry), binary);
    INFO(entry.string() << ": " << why);
    CHECK(why.empty());
    return why.empty() && !binary.empty();
}

struct Stamp {
    ino_t inode = 0;
    long long mtime_ns = 0;
    std::string content;
};
Stamp stamp(const fs::path& file) {
    struct stat info {};
    REQUIRE(::stat(file.c_str(), &info) == 0);
    return {info.st_ino,
            static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec,
            read_all(file)};
}

const std::string warning = "[dualrt warning] OpenCL program cache: ";

// An entry of pc_scale factor 2 in a fresh folder, damaged by `damage`, then rebuilt: the child
// must succeed (its results are checked), warn naming the file and one of `reasons`, and store a
// good entry over the damaged one. The new entry must replace the old file (a temporary file
// renamed over it), never be written into it: a hard link to the damaged file, made outside the
// folder, must keep the damaged bytes, since a reader may hold the old file open meanwhile.
template <typename Damage>
void check_rebuilt(const std::vector<std::string>& reasons, Damage damage) {
    TempDir dir;
    const fs::path cache = dir.path / "cache";
    run_ok(dir, "source:2", cache);
    const auto entries = entries_in(cache);
    REQUIRE(entries.size() == 1);
    const fs::path entry = entries[0];
    damage(dir, cache, entry);
    const fs::path old_link = dir.path / "old-entry";
    fs::create_hard_link(entry, old_link);
    const std::string damaged = read_all(entry);

    const ChildResult result = run_ok(dir, "source:2", cache);
    INFO("output:\n" << result.output);
    CHECK(count(result.output, warning + "rebuilding " + entry.string() + ": ") == 1);
    bool reason_given = false;
    for (const auto& reason : reasons)
        reason_given = reason_given || contains(result.output, reason);
    CHECK(reason_given);
    CHECK(count(result.output, "OpenCL program cache: stored " + entry.string()) == 1);
    CHECK(entries_in(cache) == entries);
    CHECK(others_in(cache).empty());
    CHECK(valid_entry(entry));
    CHECK(read_all(old_link) == damaged);
    CHECK(stamp(entry).inode != stamp(old_link).inode);
}

// ---------------------------------------------------------------- the cache, process by process

TEST_CASE("a miss stores an entry; the next process hits it and does not rewrite it") {
    TempDir dir;
    const fs::path cache = dir.path / "new" / "cache";  // created, parents too
    const ChildResult first = run_ok(dir, "source:2", cache);
    INFO("first output:\n" << first.output);
    const auto entries = entries_in(cache);
    REQUIRE(entries.size() == 1);
    CHECK(others_in(cache).empty());
    CHECK(count(first.output, "OpenCL program cache: miss " + entries[0].string()) == 1);
    CHECK(count(first.output, "OpenCL program cache: stored " + entries[0].string()) == 1);
    CHECK(count(first.output, warning) == 0);
    CHECK(valid_entry(entries[0]));
    const Stamp before = stamp(entries[0]);

    const ChildResult second = run_ok(dir, "source:2", cache);
    INFO("second output:\n" << second.output);
    CHECK(count(second.output, "OpenCL program cache: hit " + entries[0].string()) == 1);
    CHECK(count(second.output, "OpenCL program cache: stored") == 0);
    CHECK(count(second.output, "OpenCL program cache: miss") == 0);
    CHECK(count(second.output, warning) == 0);
    const Stamp after = stamp(entries[0]);
    CHECK(after.inode == before.inode);
    CHECK(after.mtime_ns == before.mtime_ns);
    CHECK(after.content == before.content);
    CHECK(entries_in(cache) == entries);
}

TEST_CASE("built-in kernels are cached, and each source has an entry of its own") {
    TempDir dir;
    const fs::path cache = dir.path / "cache";
    run_ok(dir, "builtin", cache);
    REQUIRE(entries_in(cache).size() == 1);  // kernels/cl/saxpy.cl
    const ChildResult hit = run_ok(dir, "builtin", cache);
    CHECK(count(hit.output, "OpenCL program cache: hit " + entries_in(cache)[0].string()) == 1);

    // Another source text, another key. (The build options are the same for every program of
    // the library; that they are part of the key is checked by the key test above.)
    run_ok(dir, "source:2", cache);
    run_ok(dir, "source:3", cache);
    const auto entries = entries_in(cache);
    CHECK(entries.size() == 3);
    for (const auto& entry : entries) CHECK(valid_entry(entry));
    CHECK(others_in(cache).empty());
}

TEST_CASE("a corrupt payload is rebuilt with a warning") {
    check_rebuilt({"checksum mismatch"}, [](TempDir&, const fs::path&, const fs::path& entry) {
        std::string data = read_all(entry);
        data[data.size() / 2 + 24] = static_cast<char>(data[data.size() / 2 + 24] ^ 0x01);
        write_all(entry, data);
    });
}

TEST_CASE("a truncated entry is rebuilt with a warning") {
    check_rebuilt({"truncated"}, [](TempDir&, const fs::path&, const fs::path& entry) {
        const std::string data = read_all(entry);
        write_all(entry, data.substr(0, data.size() / 2));
    });
}

TEST_CASE("a zero-length entry is rebuilt with a warning") {
    check_rebuilt({"the file is empty"},
                  [](TempDir&, const fs::path&, const fs::path& entry) { write_all(entry, ""); });
}

TEST_CASE("a foreign entry (another build's file under this name) is rebuilt with a warning") {
    // Factor 3's entry copied over factor 2's: same kernel name, so only the key in the header
    // tells them apart; loaded, it would compute 3x + 1 and the child would fail.
    check_rebuilt({"foreign entry"},
                  [](TempDir& dir, const fs::path& cache, const fs::path& entry) {
                      run_ok(dir, "source:3", cache);
                      const auto entries = entries_in(cache);
                      REQUIRE(entries.size() == 2);
                      const fs::path other = entries[0] == entry ? entries[1] : entries[0];
                      write_all(entry, read_all(other));
                      fs::remove(other);
                  });
}

TEST_CASE("a well-formed entry whose binary the driver refuses is rebuilt with a warning") {
    // PoCL refuses it at clCreateProgramWithBinary; another driver may at clBuildProgram.
    check_rebuilt({"the driver refused the binary", "building the program from the binary failed"},
                  [](TempDir&, const fs::path&, const fs::path& entry) {
                      std::vector<unsigned char> garbage(4096);
                      std::mt19937 rng(std::random_device{}());
                      for (auto& b : garbage) b = static_cast<unsigned char>(rng());
                      write_all(entry,
                                dualrt::opencl::encode_binary_cache_entry(key_of(entry), garbage));
                  });
}

TEST_CASE("a cache folder that cannot be created: programs build, said once, nothing written") {
    TempDir dir;
    write_all(dir.path / "plain-file", "not a folder");
    const fs::path cache = dir.path / "plain-file" / "cache";  // fails for root too
    const ChildResult result = run_ok(dir, "both:2", cache);
    INFO("output:\n" << result.output);
    CHECK(count(result.output, warning + "cannot use the folder '" + cache.string() + "'") == 1);
    CHECK(count(result.output, "OpenCL program cache: stored") == 0);
    CHECK(read_all(dir.path / "plain-file") == "not a folder");
}

TEST_CASE("a read-only cache folder is read but not written") {
    if (::geteuid() == 0) {
        MESSAGE(
            "skipped: running as root, which ignores folder permissions (the case of a "
            "folder that cannot be created runs for root too)");
        return;
    }
    TempDir dir;
    const fs::path cache = dir.path / "cache";
    run_ok(dir, "source:2", cache);
    const auto entries = entries_in(cache);
    REQUIRE(entries.size() == 1);
    REQUIRE(::chmod(cache.c_str(), 0555) == 0);

    const ChildResult hit = run_ok(dir, "source:2", cache);
    CHECK(count(hit.output, "OpenCL program cache: hit " + entries[0].string()) == 1);
    // Two misses that cannot be stored: one line at info, not one per program.
    const ChildResult misses = run_ok(dir, "both:3", cache);
    INFO("output:\n" << misses.output);
    CHECK(count(misses.output, "[dualrt info] OpenCL program cache: cannot create a file in") == 1);
    CHECK(count(misses.output, "OpenCL program cache: stored") == 0);
    CHECK(count(misses.output, warning) == 0);
    REQUIRE(::chmod(cache.c_str(), 0755) == 0);
    CHECK(entries_in(cache) == entries);
    CHECK(others_in(cache).empty());
}

TEST_CASE("DUALRT_CACHE_DIR=off: nothing is read or written") {
    TempDir dir;
    const EnvChanges env = {{dualrt::env_cache_dir, "off"},
                            {"XDG_CACHE_HOME", (dir.path / "xdg").string()},
                            {"HOME", (dir.path / "home").string()}};
    const ChildResult result = run_child(dir, "both:2", env);
    INFO("output:\n" << result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(count(result.output, "OpenCL program cache: off") == 2);
    CHECK(count(result.output, "OpenCL program cache: miss") == 0);
    CHECK(count(result.output, "OpenCL program cache: stored") == 0);
    CHECK(!fs::exists(dir.path / "xdg" / "dualrt"));
    CHECK(!fs::exists(dir.path / "home" / ".cache" / "dualrt"));
}

TEST_CASE("without DUALRT_CACHE_DIR: $XDG_CACHE_HOME/dualrt/opencl, else $HOME/.cache/...") {
    TempDir dir;
    const ChildResult xdg = run_child(
        dir, "source:2",
        {{dualrt::env_cache_dir, std::nullopt}, {"XDG_CACHE_HOME", (dir.path / "xdg").string()}});
    INFO("output:\n" << xdg.output);
    REQUIRE(xdg.exit_code == 0);
    CHECK(entries_in(dir.path / "xdg" / "dualrt" / "opencl").size() == 1);

    const ChildResult home = run_child(dir, "source:2",
                                       {{dualrt::env_cache_dir, std::nullopt},
                                        {"XDG_CACHE_HOME", std::nullopt},
                                        {"HOME", (dir.path / "home").string()}});
    INFO("output:\n" << home.output);
    REQUIRE(home.exit_code == 0);
    CHECK(entries_in(dir.path / "home" / ".cache" / "dualrt" / "opencl").size() == 1);
}

TEST_CASE("processes started at once on an empty folder: all succeed, one entry per program") {
    TempDir dir;
    const fs::path cache = dir.path / "cache";
    std::vector<Child> children;
    for (int i = 0; i < 6; ++i)
        children.push_back(
            spawn_child("both:2", {{dualrt::env_cache_dir, cache.string()}}, dir.log_file()));
    for (const Child& child : children) {
        const ChildResult result = wait_child(child);
        INFO("output:\n" << result.output);
        CHECK(result.exit_code == 0);
        CHECK(count(result.output, warning) == 0);  // nobody saw a partial entry
    }
    const auto entries = entries_in(cache);
    CHECK(entries.size() == 2);  // pc_scale and kernels/cl/saxpy.cl
    for (const auto& entry : entries) CHECK(valid_entry(entry));
    CHECK(others_in(cache).empty());  // no temporary file left behind
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "--child") return child_main(argv[2]);

    // The children need an OpenCL device; without one, this is a skip with the reason.
    try {
        dualrt::Selection selection = dualrt::Selection::from_environment();
        selection.backend = "opencl";
        const dualrt::Device device = dualrt::select(selection);
        std::printf("dualrt program cache tests on OpenCL device %d '%s' (platform '%s')\n",
                    device.info().index, device.name().c_str(), device.info().platform.c_str());
    } catch (const dualrt::Error& e) {
        if (e.errc() == dualrt::Errc::unavailable) {
            std::printf("SKIPPED: opencl: %s\n", e.what());
            return 77;
        }
        std::fprintf(stderr, "cannot select an OpenCL device: %s\n", e.what());
        return 1;
    }
    std::fflush(stdout);
    doctest::Context context(argc, argv);
    return context.run();
}
