// alloc_shared: one allocation for the CUDA and the OpenCL device of one GPU. CUDA exports it (a
// POSIX file descriptor of virtual-memory-managed device memory), OpenCL imports the descriptor
// (cl_khr_external_memory_opaque_fd); both then address the same bytes. OpenCL cannot export
// memory, so the CUDA side always allocates, whichever order the devices are given in.
//
// alloc_exported / import_exported: the same between processes. The exporting process allocates
// through the CUDA device of its OpenCL device's GPU and imports a duplicate of the descriptor
// into its own OpenCL device; the descriptor itself goes to the other process.
#include <dualrt/shared_memory.hpp>

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "support/raise.hpp"

#include <dualrt/runtime.hpp>

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace dualrt {
namespace backend {

std::string DeviceImpl::cannot_export_memory() const {
    return std::string("the ") + to_string(info().backend) + " backend cannot export memory";
}

DeviceImpl::ExportedMemory DeviceImpl::export_memory(std::size_t) {
    detail::raise_argument("alloc_shared", cannot_export_memory(), Errc::unavailable);
}

std::string DeviceImpl::cannot_import_memory() const {
    return std::string("the ") + to_string(info().backend) + " backend cannot import memory";
}

std::shared_ptr<BufferImpl> DeviceImpl::import_memory(int fd, std::size_t) {
    close(fd);
    detail::raise_argument("alloc_shared", cannot_import_memory(), Errc::unavailable);
}

DeviceImpl::ImportLimit DeviceImpl::largest_import() const { return {}; }

}  // namespace backend

namespace {

// Which of the pair exports (the CUDA one) and which imports, or why the pair cannot share.
struct Roles {
    const Device* exporter = nullptr;
    const Device* importer = nullptr;
    std::string reason;
};

Roles roles_of(const Device& a, const Device& b) {
    Roles roles;
    const DeviceInfo& ia = a.info();
    const DeviceInfo& ib = b.info();
    const std::string pair = detail::device_label(ia) + " and " + detail::device_label(ib);
    if (detail::backend_of(a) == detail::backend_of(b)) {
        roles.reason = pair + " are one device: use one buffer";
        return roles;
    }
    if (!ia.pci_bus_id || !ib.pci_bus_id || *ia.pci_bus_id != *ib.pci_bus_id) {
        roles.reason = pair + " are not known to be one GPU (PCI bus ids " +
                       ia.pci_bus_id.value_or("unknown") + " and " +
                       ib.pci_bus_id.value_or("unknown") + ")";
        return roles;
    }
    if (ia.backend == ib.backend) {
        roles.reason = pair + " are both " + to_string(ia.backend) +
                       " devices; sharing needs one CUDA device (which exports) and one OpenCL "
                       "device (which imports)";
        return roles;
    }
    roles.exporter = ia.backend == Backend::cuda ? &a : &b;
    roles.importer = ia.backend == Backend::cuda ? &b : &a;
    if (const std::string why = detail::backend_of(*roles.exporter)->cannot_export_memory();
        !why.empty())
        roles.reason = detail::device_label(roles.exporter->info()) + ": " + why;
    else if (const std::string why_not =
                 detail::backend_of(*roles.importer)->cannot_import_memory();
             !why_not.empty())
        roles.reason = detail::device_label(roles.importer->info()) + ": " + why_not;
    return roles;
}

// The device that allocates memory `device` shares with other processes (a CUDA device of the
// same GPU), or why there is none. Checks that `device` imports, too.
struct ProcessExporter {
    Device device;
    std::string reason;
};

ProcessExporter process_exporter_for(const Device& device) {
    ProcessExporter found;
    const DeviceInfo& info = device.info();
    const std::string label = detail::device_label(info);
    if (const std::string why = detail::backend_of(device)->cannot_import_memory(); !why.empty()) {
        found.reason = label + ": " + why;
        return found;
    }
    if (!info.pci_bus_id) {
        found.reason = label + ": its PCI bus id is unknown, so no CUDA device is known to be "
                               "the same GPU (the memory is allocated through CUDA)";
        return found;
    }
    std::vector<Device> cuda;
    try {
        cuda = devices(Backend::cuda);
    } catch (const Error& e) {
        found.reason = label + ": the memory is allocated through CUDA, which is unavailable (" +
                       e.detail() + ")";
        return found;
    }
    for (Device& candidate : cuda) {
        if (candidate.info().pci_bus_id != info.pci_bus_id) continue;
        const std::string why = detail::backend_of(candidate)->cannot_export_memory();
        if (!why.empty()) found.reason = detail::device_label(candidate.info()) + ": " + why;
        else found.device = std::move(candidate);
        return found;
    }
    found.reason = label + ": no CUDA device has its PCI bus id " + *info.pci_bus_id +
                   " (the memory is allocated through CUDA)";
    return found;
}

void require_device(const char* operation, const Device& device) {
    if (!device.valid()) detail::raise_argument(operation, "the Device is empty");
}

// Refuses counts of 0 and ones that overflow; the bytes of `count` elements otherwise.
std::size_t checked_bytes(const char* operation, std::size_t count, std::size_t elem_size) {
    if (count == 0) detail::raise_argument(operation, "count is 0; expected at least 1 element");
    if (count > SIZE_MAX / elem_size)
        detail::raise_argument(operation, std::to_string(count) + " elements of " +
                                              std::to_string(elem_size) +
                                              " bytes overflow the address space");
    return count * elem_size;
}

// Refuses more than `importer`'s largest safe import; `advice` ends the message.
void require_importable(const char* operation, const Device& importer, std::size_t bytes,
                        const std::string& advice) {
    const backend::DeviceImpl::ImportLimit limit = detail::backend_of(importer)->largest_import();
    if (bytes > limit.bytes)
        detail::raise_argument(operation,
                               detail::format_bytes(bytes) + " cannot be shared: " +
                                   detail::device_label(importer.info()) + " imports at most " +
                                   detail::format_bytes(limit.bytes) + " (" + limit.why + ")" +
                                   advice,
                               Errc::unavailable);
}

// The bytes of `count` elements that `device` may import, or an Error saying why not.
std::size_t shareable_bytes(const char* operation, const Device& device, std::size_t count,
                            std::size_t elem_size) {
    const std::size_t bytes = checked_bytes(operation, count, elem_size);
    require_importable(operation, device, bytes, "");
    return bytes;
}

void require_devices(const char* operation, const Device& a, const Device& b) {
    if (!a.valid() || !b.valid())
        detail::raise_argument(operation, std::string(!a.valid() ? "the first" : "the second") +
                                              " Device is empty");
}

}  // namespace

SharingSupport sharing_support(const Device& a, const Device& b) {
    require_devices("sharing_support", a, b);
    const Roles roles = roles_of(a, b);
    return SharingSupport{roles.reason.empty(), roles.reason};
}

SharingSupport process_sharing_support(const Device& device) {
    require_device("process_sharing_support", device);
    const ProcessExporter exporter = process_exporter_for(device);
    return SharingSupport{exporter.reason.empty(), exporter.reason};
}

namespace detail {

std::pair<BufferView, int> alloc_exported_bytes(const Device& device, std::size_t count,
                                                std::size_t elem_size) {
    const char* op = "alloc_exported";
    require_device(op, device);
    const std::size_t bytes = shareable_bytes(op, device, count, elem_size);
    const ProcessExporter exporter = process_exporter_for(device);
    if (!exporter.reason.empty()) raise_argument(op, exporter.reason, Errc::unavailable);
    backend::DeviceImpl::ExportedMemory exported =
        detail::backend_of(exporter.device)->export_memory(bytes);
    const int own = dup(exported.fd);
    if (own < 0) {
        const int error = errno;
        close(exported.fd);
        raise_argument(op, std::string("duplicating the exported memory's file descriptor "
                                       "failed: ") +
                               std::strerror(error),
                       Errc::backend_failure);
    }
    std::shared_ptr<backend::BufferImpl> imported;
    try {
        imported = detail::backend_of(device)->import_memory(own, bytes);
    } catch (...) {
        close(exported.fd);
        throw;
    }
    // The imported buffer keeps the exporting device's buffer alive with it: the allocation
    // belongs to that CUDA context.
    struct Both {
        std::shared_ptr<backend::BufferImpl> imported, exported;
    };
    auto both = std::make_shared<Both>(Both{std::move(imported), std::move(exported.buffer)});
    backend::BufferImpl* const view = both->imported.get();
    return {BufferView(std::shared_ptr<backend::BufferImpl>(std::move(both), view), 0, bytes),
            exported.fd};
}

BufferView import_exported_bytes(const Device& device, int fd, std::size_t count,
                                 std::size_t elem_size) {
    const char* op = "import_exported";
    try {
        require_device(op, device);
        if (fd < 0) raise_argument(op, "the file descriptor " + std::to_string(fd) +
                                           " is not one; expected one from alloc_exported");
        const std::size_t bytes = shareable_bytes(op, device, count, elem_size);
        if (const std::string why = detail::backend_of(device)->cannot_import_memory();
            !why.empty())
            raise_argument(op, device_label(device.info()) + ": " + why, Errc::unavailable);
        const int taken = fd;
        fd = -1;  // import_memory owns it from here, whatever happens
        return BufferView(detail::backend_of(device)->import_memory(taken, bytes), 0, bytes);
    } catch (...) {
        if (fd >= 0) close(fd);
        throw;
    }
}

std::pair<BufferView, BufferView> alloc_shared_bytes(const Device& a, const Device& b,
                                                     std::size_t count, std::size_t elem_size) {
    const char* op = "alloc_shared";
    require_devices(op, a, b);
    const std::size_t bytes = checked_bytes(op, count, elem_size);
    const Roles roles = roles_of(a, b);
    if (!roles.reason.empty())
        raise_argument(op, roles.reason + "; Queue::copy between them stages through pinned "
                                          "memory instead",
                       Errc::unavailable);
    require_importable(op, *roles.importer, bytes,
                       "; share smaller buffers, or copy (Queue::copy stages it)");
    backend::DeviceImpl::ExportedMemory exported =
        detail::backend_of(*roles.exporter)->export_memory(bytes);
    std::shared_ptr<backend::BufferImpl> imported =
        detail::backend_of(*roles.importer)->import_memory(exported.fd, bytes);
    BufferView exported_view(std::move(exported.buffer), 0, bytes);
    BufferView imported_view(std::move(imported), 0, bytes);
    if (roles.exporter == &a) return {std::move(exported_view), std::move(imported_view)};
    return {std::move(imported_view), std::move(exported_view)};
}

}  // namespace detail
}  // namespace dualrt
