// info_json_check: checks the document of `dualrt-info --json` against its documented keys
// (tools/info/info_json.hpp): strict JSON (nlohmann/json: no trailing text, commas or
// comments), every key present with its type and no key unknown, and the parts consistent with
// each other (device counts, the selected device among the devices).
//
//   info_json_check [--expect-error TEXT] FILE | -            the JSON from a file or stdin
//   info_json_check [--expect-error TEXT] -- COMMAND [ARGS]   runs COMMAND, reads its stdout
//
// Without --expect-error a device must have been selected ("error" null; COMMAND exits 0). With
// it, "error" must be an object whose message contains TEXT, and COMMAND must exit non-zero.
// Exit code: 0 passed, 1 failed (each problem on stderr), 2 bad command line, 77 skipped (no
// device on this machine: the document is still checked first).
#include <nlohmann/json.hpp>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

enum class Kind {
    string,
    boolean,
    count,  // a non-negative integer
    array,
    object,
    count_or_null,
    string_or_null,
    object_or_null,
};

struct Field {
    const char* key;
    Kind kind;
};

const char* describe(Kind kind) {
    switch (kind) {
    case Kind::string: return "a string";
    case Kind::boolean: return "a boolean";
    case Kind::count: return "a non-negative integer";
    case Kind::array: return "an array";
    case Kind::object: return "an object";
    case Kind::count_or_null: return "a non-negative integer or null";
    case Kind::string_or_null: return "a string or null";
    case Kind::object_or_null: return "an object or null";
    }
    return "?";
}

bool matches(const json& value, Kind kind) {
    switch (kind) {
    case Kind::string: return value.is_string();
    case Kind::boolean: return value.is_boolean();
    case Kind::count: return value.is_number_unsigned();
    case Kind::array: return value.is_array();
    case Kind::object: return value.is_object();
    case Kind::count_or_null: return value.is_null() || value.is_number_unsigned();
    case Kind::string_or_null: return value.is_null() || value.is_string();
    case Kind::object_or_null: return value.is_null() || value.is_object();
    }
    return false;
}

class Checker {
public:
    // Checks that `value` is an object with exactly `fields`; false when it is not an object.
    bool object(const json& value, const std::string& where, std::initializer_list<Field> fields) {
        if (!value.is_object()) {
            problem(where + " is not an object");
            return false;
        }
        std::set<std::string> known;
        for (const Field& field : fields) {
            known.insert(field.key);
            const auto found = value.find(field.key);
            if (found == value.end())
                problem(where + " has no key \"" + field.key + "\"");
            else if (!matches(*found, field.kind))
                problem(where + "." + field.key + " is " + found->type_name() + ", expected " +
                        describe(field.kind));
        }
        for (const auto& item : value.items())
            if (known.count(item.key()) == 0)
                problem(where + " has an undocumented key \"" + item.key() + "\"");
        return true;
    }

    void one_of(const json& value, const std::string& where,
                std::initializer_list<const char*> choices) {
        if (!value.is_string()) return;  // the type is reported by object()
        for (const char* choice : choices)
            if (value == choice) return;
        problem(where + " is " + value.dump() + ", not one of the documented values");
    }

    void problem(const std::string& text) { problems_.push_back(text); }
    const std::vector<std::string>& problems() const { return problems_; }

private:
    std::vector<std::string> problems_;
};

const json& at(const json& object, const char* key) {
    static const json missing;
    if (!object.is_object()) return missing;
    const auto found = object.find(key);
    return found == object.end() ? missing : *found;
}

void check_document(Checker& c, const json& doc) {
    if (!c.object(doc, "the document",
                  {{"format_version", Kind::count}, {"dualrt_version", Kind::string},
                   {"backends", Kind::array}, {"devices", Kind::array},
                   {"peer_access", Kind::array}, {"selection", Kind::object},
                   {"error", Kind::object_or_null}}))
        return;
    if (at(doc, "format_version") != 1) c.problem("format_version is not 1");

    std::set<std::string> available;
    std::size_t counted = 0;
    const json& backends = at(doc, "backends");
    for (std::size_t i = 0; backends.is_array() && i < backends.size(); ++i) {
        const json& b = backends[i];
        const std::string where = "backends[" + std::to_string(i) + "]";
        if (!c.object(b, where,
                      {{"name", Kind::string}, {"available", Kind::boolean},
                       {"reason", Kind::string}, {"module_path", Kind::string},
                       {"version", Kind::string}, {"device_count", Kind::count}}))
            continue;
        c.one_of(at(b, "name"), where + ".name", {"cuda", "opencl"});
        if (at(b, "available") == true && at(b, "name").is_string()) {
            available.insert(at(b, "name").get<std::string>());
            if (at(b, "device_count").is_number_unsigned())
                counted += at(b, "device_count").get<std::size_t>();
        }
        if (at(b, "available") == false && at(b, "reason") == "")
            c.problem(where + " is unavailable without a reason");
    }

    const json& devices = at(doc, "devices");
    for (std::size_t i = 0; devices.is_array() && i < devices.size(); ++i) {
        const json& d = devices[i];
        const std::string where = "devices[" + std::to_string(i) + "]";
        if (!c.object(d, where,
                      {{"backend", Kind::string}, {"index", Kind::count}, {"name", Kind::string},
                       {"vendor", Kind::string}, {"platform", Kind::string},
                       {"driver_version", Kind::string}, {"architecture", Kind::string},
                       {"type", Kind::string}, {"global_memory_bytes", Kind::count},
                       {"local_memory_bytes", Kind::count}, {"compute_units", Kind::count},
                       {"max_work_group_size", Kind::count},
                       {"max_work_item_sizes", Kind::array}, {"copy_engines", Kind::count_or_null},
                       {"pci_bus_id", Kind::string_or_null},
                       {"shares_host_memory", Kind::boolean},
                       {"can_map_host_memory", Kind::boolean},
                       {"zero_copy_worthwhile", Kind::boolean},
                       {"recording", Kind::string}}))
            continue;
        c.one_of(at(d, "type"), where + ".type", {"gpu", "cpu", "accelerator", "other"});
        c.one_of(at(d, "recording"), where + ".recording",
                 {"none", "graph", "command buffer", "command list"});
        const json& backend = at(d, "backend");
        if (backend.is_string() && available.count(backend.get<std::string>()) == 0)
            c.problem(where + ".backend " + backend.dump() + " is not an available backend");
        const json& sizes = at(d, "max_work_item_sizes");
        if (sizes.is_array()) {
            bool all_counts = true;
            for (const auto& size : sizes) all_counts = all_counts && size.is_number_unsigned();
            if (sizes.size() != 3 || !all_counts)
                c.problem(where + ".max_work_item_sizes is not 3 non-negative integers");
        }
    }

    const json& selection = at(doc, "selection");
    if (c.object(selection, "selection",
                 {{"asked", Kind::object}, {"selected", Kind::object_or_null}})) {
        c.object(at(selection, "asked"), "selection.asked",
                 {{"backend", Kind::string}, {"device", Kind::string}});
        const json& selected = at(selection, "selected");
        if (selected.is_object() &&
            c.object(selected, "selection.selected",
                     {{"backend", Kind::string}, {"index", Kind::count}, {"name", Kind::string}})) {
            bool listed = false;
            for (const auto& d : devices)
                listed = listed || (at(d, "backend") == at(selected, "backend") &&
                                    at(d, "index") == at(selected, "index") &&
                                    at(d, "name") == at(selected, "name"));
            if (!listed) c.problem("selection.selected is none of the devices");
        }
    }

    const json& error = at(doc, "error");
    if (error.is_object() &&
        c.object(error, "error", {{"errc", Kind::string}, {"message", Kind::string}}))
        c.one_of(at(error, "errc"), "error.errc",
                 {"invalid_argument", "out_of_range", "not_found", "unavailable", "out_of_memory",
                  "compile_error", "backend_failure", "io_error", "device_lost", "other"});
    if (error.is_null()) {
        if (!at(selection, "selected").is_object())
            c.problem("neither a selected device nor an error");
        if (devices.is_array() && devices.size() != counted)
            c.problem("devices lists " + std::to_string(devices.size()) +
                      " devices, the available backends count " + std::to_string(counted));
    } else if (!at(selection, "selected").is_null()) {
        c.problem("an error and a selected device at once");
    }
}

// Runs argv[0..] and returns its stdout; `status` gets its exit code (-1: it did not exit).
std::optional<std::string> run(char** argv, int& status) {
    int fds[2];
    if (pipe(fds) != 0) return std::nullopt;
    const pid_t pid = fork();
    if (pid < 0) return std::nullopt;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        std::cerr << "info_json_check: cannot run " << argv[0] << ": " << std::strerror(errno)
                  << "\n";
        _exit(127);
    }
    close(fds[1]);
    std::string out;
    char buffer[4096];
    for (;;) {
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got > 0) out.append(buffer, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR) break;
    }
    close(fds[0]);
    int raw = 0;
    while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return out;
}

int usage() {
    std::cerr << "usage: info_json_check [--expect-error TEXT] FILE | - | -- COMMAND [ARGS...]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::optional<std::string> expected_error;
    int arg = 1;
    if (arg + 1 < argc && std::string(argv[arg]) == "--expect-error") {
        expected_error = argv[arg + 1];
        arg += 2;
    }
    if (arg >= argc) return usage();

    std::string text;
    std::optional<int> status;  // the command's exit code, when this program ran it
    const std::string source = argv[arg];
    if (source == "--") {
        if (arg + 1 >= argc) return usage();
        int code = 0;
        const auto out = run(argv + arg + 1, code);
        if (!out) {
            std::cerr << "info_json_check: cannot start " << argv[arg + 1] << "\n";
            return 1;
        }
        text = *out;
        status = code;
    } else if (source == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream file(source);
        if (!file) {
            std::cerr << "info_json_check: cannot read " << source << "\n";
            return 1;
        }
        text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }

    json doc;
    try {
        doc = json::parse(text);  // strict: the whole input is one JSON value
    } catch (const json::parse_error& e) {
        std::cerr << "FAILED: the output is not valid JSON: " << e.what() << "\n--- output:\n"
                  << text << "\n---\n";
        return 1;
    }

    Checker c;
    check_document(c, doc);
    const json& error = at(doc, "error");
    const json& error_message = at(error, "message");
    const std::string message =
        error_message.is_string() ? error_message.get<std::string>() : std::string();
    bool skip = false;
    if (expected_error) {
        if (!error.is_object())
            c.problem("expected an error object naming '" + *expected_error + "', got none");
        else if (message.find(*expected_error) == std::string::npos)
            c.problem("error.message does not name '" + *expected_error + "': " + message);
        if (status && *status == 0) c.problem("the command exited 0 despite the error");
    } else if (!error.is_null()) {
        // No device on this machine is a skip, not a failure; any other error fails.
        const json& devices = at(doc, "devices");
        skip = devices.is_array() && devices.empty() &&
               (at(error, "errc") == "unavailable" || at(error, "errc") == "not_found");
        if (!skip) c.problem("unexpected error: " + message);
    } else if (status && *status != 0) {
        c.problem("the command exited " + std::to_string(*status) + " without an error object");
    }

    if (!c.problems().empty()) {
        for (const auto& problem : c.problems()) std::cerr << "FAILED: " << problem << "\n";
        std::cerr << "--- document:\n" << doc.dump(2) << "\n";
        return 1;
    }
    if (skip) {
        std::cout << "SKIPPED: no device to select here: " << message << "\n";
        return 77;
    }
    std::cout << "passed: " << at(doc, "backends").size() << " backends, "
              << at(doc, "devices").size() << " devices"
              << (expected_error ? ", error: " + message : std::string()) << "\n";
    return 0;
}
