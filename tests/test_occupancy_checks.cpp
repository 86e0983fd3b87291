// Device-free tests of Kernel::occupancy() and Kernel::suggest_group_size() through the fake
// backend: the core refuses bad values before the backend sees them, with messages that name the
// value and the limit, and passes good ones through. The fake kernel's limit (128) is tighter
// than its device's (1024), and the device has 48 KiB of local memory per work-group.
#include "backend/backend_access.hpp"
#include "fake_backend.hpp"
#include "support.hpp"

namespace {

using dualrt::Errc;

struct FakeKernel {
    dualrt::Device device{std::make_shared<test::fake::Device>("fake")};
    dualrt::Kernel kernel = device.kernel("saxpy");
    const test::fake::Kernel& backend() const {
        return static_cast<const test::fake::Kernel&>(*dualrt::detail::backend_of(kernel));
    }
};

}  // namespace

TEST_CASE("occupancy checks: bad values never reach the backend") {
    FakeKernel fake;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "group_size 0; expected 1 to 128",
                       fake.kernel.occupancy(0));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "group_size 129 exceeds the kernel's maximum work-group size of 128",
                       fake.kernel.occupancy(129));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Kernel::occupancy('saxpy')",
                       fake.kernel.occupancy(129));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes 49153",
                       fake.kernel.occupancy(64, 49153));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "49152 B", fake.kernel.occupancy(64, 49153));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes 49153",
                       fake.kernel.suggest_group_size(49153));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Kernel::suggest_group_size('saxpy')",
                       fake.kernel.suggest_group_size(49153));
    CHECK(fake.backend().backend_calls == 0);
}

TEST_CASE("occupancy checks: the limits themselves are allowed, and the request is echoed") {
    FakeKernel fake;
    const dualrt::KernelOccupancy k = fake.kernel.occupancy(128, 49152);
    CHECK(k.group_size == 128);
    CHECK(k.local_bytes == 49152);
    CHECK(k.max_group_size == 128);
    CHECK(k.preferred_multiple == 32);
    CHECK_FALSE(k.resident_groups.has_value());
    CHECK_FALSE(k.occupancy.has_value());
    CHECK(fake.kernel.occupancy(1).group_size == 1);
    CHECK(fake.kernel.suggest_group_size(49152) == 64);
    CHECK(fake.kernel.suggest_group_size() == 64);
    CHECK(fake.backend().backend_calls == 4);
}

TEST_CASE("occupancy checks: an empty Kernel says so") {
    const dualrt::Kernel empty;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Kernel::occupancy", empty.occupancy(32));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the Kernel is empty", empty.occupancy(32));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Kernel::suggest_group_size",
                       empty.suggest_group_size());
}
