// module_search_folders / find_module: see module_search.hpp.
#include "module_search.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace dualrt::bench {
namespace {

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string executable_folder() {
    std::vector<char> buffer(4096);
    const ssize_t length = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    if (length <= 0) return {};
    return folder_of(std::string(buffer.data(), static_cast<std::size_t>(length)));
}

}  // namespace

std::vector<std::string> module_search_folders(Backend backend) {
    std::vector<std::string> folders;
    const auto add = [&](const std::string& folder) {
        if (!folder.empty() && std::find(folders.begin(), folders.end(), folder) == folders.end())
            folders.push_back(folder);
    };
    add(executable_folder());
    if (const char* extra = std::getenv(env_plugin_path)) {
        const std::string list = extra;
        std::size_t start = 0;
        while (start <= list.size()) {
            const auto end = list.find(':', start);
            add(list.substr(start, end == std::string::npos ? std::string::npos : end - start));
            if (end == std::string::npos) break;
            start = end + 1;
        }
    }
    for (const auto& status : backends())
        if (status.backend == backend && status.available) add(folder_of(status.module_path));
    return folders;
}

std::string find_module(const std::string& file, Backend backend, std::string& looked_in) {
    looked_in.clear();
    for (const auto& folder : module_search_folders(backend)) {
        if (is_file(folder + "/" + file)) return folder + "/" + file;
        looked_in += (looked_in.empty() ? "" : ", ") + folder;
    }
    return {};
}

}  // namespace dualrt::bench
