// KernelSource::from_files: kernel sources read from disk, for Device::load_sources.
#include <dualrt/device.hpp>

#include "support/raise.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace dualrt {
namespace {

// The whole file, or Errc::io_error naming it and the system's reason.
std::string read_text(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    if (file) text << file.rdbuf();
    if (!file || file.bad()) {
        const int reason = errno;
        ErrorInfo info;
        info.errc = Errc::io_error;
        info.call = "KernelSource::from_files";
        info.context = "kernel source file '" + path + "'";
        info.detail = std::string("cannot read it: ") +
                      (reason != 0 ? std::strerror(reason) : "unknown error");
        detail::raise(std::move(info));
    }
    return text.str();
}

}  // namespace

KernelSource KernelSource::from_files(const std::string& opencl_path,
                                      const std::string& cuda_path) {
    if (opencl_path.empty() && cuda_path.empty()) {
        detail::raise_argument("KernelSource::from_files",
                               "both paths are empty; give a .cl file, a .cu file or both");
    }
    KernelSource source;
    source.name = opencl_path.empty() ? cuda_path
                  : cuda_path.empty() ? opencl_path
                                      : opencl_path + " + " + cuda_path;
    if (!opencl_path.empty()) source.opencl = read_text(opencl_path);
    if (!cuda_path.empty()) source.cuda = read_text(cuda_path);
    return source;
}

}  // namespace dualrt
