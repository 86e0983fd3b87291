// A dualrt::Device that says it is CUDA device 0 at PCI ffff:ff:ff.0 and can do nothing else: for
// vendor_loader_test.cpp, so that load_vendor_baseline's CUDA path (find the module, dlopen it,
// create the baseline, check the device) runs on a machine without a GPU too. No GPU sits at that
// PCI address, so the module must refuse it either way: where the CUDA runtime cannot start
// (no driver), as unavailable; where it can, because the runtime's device 0 is elsewhere.
#pragma once

#include "backend/backend.hpp"  // dualrt_internal: the interface behind dualrt::Device

#include <dualrt/dualrt.hpp>

#include <memory>
#include <string>
#include <vector>

namespace vendor_test {

inline constexpr const char* stand_in_pci_bus_id = "ffff:ff:ff.0";

class StandInCudaDevice final : public dualrt::backend::DeviceImpl {
public:
    StandInCudaDevice() {
        info_.backend = dualrt::Backend::cuda;
        info_.index = 0;
        info_.name = "stand-in CUDA device";
        info_.platform = "CUDA";
        info_.pci_bus_id = stand_in_pci_bus_id;
    }
    const dualrt::DeviceInfo& info() const override { return info_; }
    std::shared_ptr<dualrt::backend::BufferImpl> create_buffer(std::size_t) override {
        refuse("create_buffer");
    }
    std::shared_ptr<dualrt::backend::HostBufferImpl> create_host_buffer(std::size_t) override {
        refuse("create_host_buffer");
    }
    std::shared_ptr<dualrt::backend::MappedBufferImpl> create_mapped_buffer(
        std::size_t) override {
        refuse("create_mapped_buffer");
    }
    std::shared_ptr<dualrt::backend::QueueImpl> create_queue(bool) override {
        refuse("create_queue");
    }
    std::shared_ptr<dualrt::backend::KernelImpl> kernel(const std::string&) override {
        refuse("kernel");
    }
    std::vector<std::string> load_source(const std::string&, const std::string&) override {
        refuse("load_source");
    }
    dualrt::NativeHandle native_handle() const override { return 0; }
    dualrt::NativeHandle native_context() const override { return 0; }

private:
    // The loader only reads info(): anything else is a bug in the loader or the test.
    [[noreturn]] static void refuse(const char* call) {
        dualrt::ErrorInfo error;
        error.errc = dualrt::Errc::unavailable;
        error.backend = "cuda";
        error.call = call;
        error.detail = "the stand-in CUDA device of the vendor.loader test does nothing";
        throw dualrt::Error(std::move(error));
    }

    dualrt::DeviceInfo info_;
};

inline dualrt::Device stand_in_cuda_device() {
    return dualrt::Device(std::make_shared<StandInCudaDevice>());
}

}  // namespace vendor_test
