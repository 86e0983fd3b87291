#include "native_api.hpp"

#include <mutex>

namespace test::native {

Api* api(dualrt::Backend backend, std::string& why_not) {
    struct Loaded {
        std::once_flag once;
        std::unique_ptr<Api> api;
        std::string why_not;
    };
    static Loaded loaded[2];
    Loaded& slot = loaded[backend == dualrt::Backend::cuda ? 0 : 1];
    std::call_once(slot.once, [&] {
        slot.api = backend == dualrt::Backend::cuda ? make_cuda_api(slot.why_not)
                                                    : make_opencl_api(slot.why_not);
    });
    why_not = slot.why_not;
    return slot.api.get();
}

}  // namespace test::native
