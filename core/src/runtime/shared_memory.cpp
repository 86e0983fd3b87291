// alloc_shared: one allocation for the CUDA and the OpenCL device of one GPU. CUDA exports it (a
// POSIX file descriptor of virtual-memory-managed device memory), OpenCL imports the descriptor
// (cl_khr_external_memory_opaque_fd); both then address the same bytes. OpenCL cannot export
// memory, so the CUDA side always allocates, whichever order the devices are given in.
#include <dualrt/shared_memory.hpp>

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "support/raise.hpp"

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

namespace detail {

std::pair<BufferView, BufferView> alloc_shared_bytes(const Device& a, const Device& b,
                                                     std::size_t count, std::size_t elem_size) {
    const char* op = "alloc_shared";
    require_devices(op, a, b);
    if (count == 0) raise_argument(op, "count is 0; expected at least 1 element");
    if (count > SIZE_MAX / elem_size)
        raise_argument(op, std::to_string(count) + " elements of " + std::to_string(elem_size) +
                               " bytes overflow the address space");
    const Roles roles = roles_of(a, b);
    if (!roles.reason.empty())
        raise_argument(op, roles.reason + "; Queue::copy between them stages through pinned "
                                          "memory instead",
                       Errc::unavailable);
    const std::size_t bytes = count * elem_size;
    const backend::DeviceImpl::ImportLimit limit =
        detail::backend_of(*roles.importer)->largest_import();
    if (bytes > limit.bytes)
        raise_argument(op, format_bytes(bytes) + " cannot be shared: " +
                               device_label(roles.importer->info()) + " imports at most " +
                               format_bytes(limit.bytes) + " (" + limit.why +
                               "); share smaller buffers, or copy (Queue::copy stages it)",
                       Errc::unavailable);
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
