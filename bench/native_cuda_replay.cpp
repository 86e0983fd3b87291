// The native CUDA side of replay_cost: launches of `empty` one by one, and the same launches
// captured into a CUDA graph and launched with cuGraphLaunch, as a hand-written program does it.
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <chrono>
#include <vector>

namespace dualrt::bench::cuda {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

}  // namespace

ReplayCost NativeCuda::replay_cost(int launches, int repetitions) {
    detail::check_launch_arguments("cuda", launches, repetitions);
    Current current(context_);
    const Stream stream;
    unsigned unused = 0;  // empty(uint unused)
    void* params[] = {&unused};
    const auto launch_all = [&] {
        constexpr auto blocks = static_cast<unsigned>(empty_global_size / empty_local_size);
        for (int i = 0; i < launches; ++i)
            NATIVE_CU(cuLaunchKernel(empty_, blocks, 1, 1, static_cast<unsigned>(empty_local_size),
                                     1, 1, 0, stream.get(), params, nullptr));
    };

    CUgraph graph = nullptr;
    NATIVE_CU(cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_all();
    NATIVE_CU(cuStreamEndCapture(stream.get(), &graph));
    CUgraphExec exec = nullptr;
    NATIVE_CU(cuGraphInstantiate(&exec, graph, 0));

    // One batch: the enqueue's host time and the time until the stream has run it, per launch.
    const auto batch = [&](auto&& enqueue, double& enqueue_us, double& total_us) {
        const auto begin = Clock::now();
        enqueue();
        const auto enqueued = Clock::now();
        NATIVE_CU(cuStreamSynchronize(stream.get()));
        enqueue_us = microseconds(enqueued - begin) / launches;
        total_us = microseconds(Clock::now() - begin) / launches;
    };
    const auto replay = [&] { NATIVE_CU(cuGraphLaunch(exec, stream.get())); };
    std::vector<double> plain_enqueue, plain, replay_enqueue, replayed;
    double enqueue_us = 0.0, total_us = 0.0;
    batch(launch_all, enqueue_us, total_us);  // warm-ups: the first launch loads the code
    batch(replay, enqueue_us, total_us);
    for (int r = 0; r < repetitions; ++r) {
        batch(launch_all, enqueue_us, total_us);
        plain_enqueue.push_back(enqueue_us);
        plain.push_back(total_us);
        batch(replay, enqueue_us, total_us);
        replay_enqueue.push_back(enqueue_us);
        replayed.push_back(total_us);
    }
    NATIVE_CU(cuGraphExecDestroy(exec));
    NATIVE_CU(cuGraphDestroy(graph));

    ReplayCost cost;
    cost.plain_enqueue_us = detail::median(std::move(plain_enqueue));
    cost.plain_us = detail::median(std::move(plain));
    cost.replay_enqueue_us = detail::median(std::move(replay_enqueue));
    cost.replay_us = detail::median(std::move(replayed));
    cost.replay = "CUDA graph (stream capture, cuGraphLaunch)";
    return cost;
}

}  // namespace dualrt::bench::cuda
