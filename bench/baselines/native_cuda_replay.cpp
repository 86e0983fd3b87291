// The native CUDA side of replay_cost: launches one by one, and the same launches captured into a
// CUDA graph and launched with cuGraphLaunch, as a hand-written program does it. For `empty` and
// for the Jacobi sweeps.
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <vector>

namespace dualrt::bench::cuda {
namespace {

// `launch_all` enqueued one by one, and captured into a graph and replayed, per launch.
template <typename Prepare, typename LaunchAll>
ReplayCost plain_and_graph(const Stream& stream, int launches, int repetitions,
                           Prepare&& prepare, LaunchAll&& launch_all) {
    const auto finish = [&] { NATIVE_CU(cuStreamSynchronize(stream.get())); };
    ReplayCost cost;
    const detail::BatchTimes plain =
        detail::time_batches(launches, repetitions, prepare, launch_all, finish);
    CUgraph graph = nullptr;
    NATIVE_CU(cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_all();
    NATIVE_CU(cuStreamEndCapture(stream.get(), &graph));
    CUgraphExec exec = nullptr;
    NATIVE_CU(cuGraphInstantiate(&exec, graph, 0));
    const detail::BatchTimes replayed = detail::time_batches(
        launches, repetitions, prepare, [&] { NATIVE_CU(cuGraphLaunch(exec, stream.get())); },
        finish);
    NATIVE_CU(cuGraphExecDestroy(exec));
    NATIVE_CU(cuGraphDestroy(graph));
    cost.plain_enqueue_us = plain.enqueue_us;
    cost.plain_us = plain.total_us;
    cost.replay_enqueue_us = replayed.enqueue_us;
    cost.replay_us = replayed.total_us;
    cost.replay = "CUDA graph (stream capture, cuGraphLaunch)";
    return cost;
}

}  // namespace

ReplayCost NativeCuda::replay_cost(int launches, int repetitions) {
    detail::check_launch_arguments("cuda", launches, repetitions);
    Current current(context_);
    const Stream stream;
    unsigned unused = 0;  // empty(uint unused)
    void* params[] = {&unused};
    constexpr auto blocks = static_cast<unsigned>(empty_global_size / empty_local_size);
    return plain_and_graph(stream, launches, repetitions, [] {}, [&] {
        for (int i = 0; i < launches; ++i)
            NATIVE_CU(cuLaunchKernel(empty_, blocks, 1, 1, static_cast<unsigned>(empty_local_size),
                                     1, 1, 0, stream.get(), params, nullptr));
    });
}

ReplayCost NativeCuda::jacobi_replay_cost(const JacobiJob& job) {
    detail::check_launch_arguments("cuda", job.steps, job.repetitions);
    Current current(context_);
    const Stream stream;
    const std::size_t bytes = std::size_t{job.width} * job.height * sizeof(float);
    const DeviceMemory first(bytes), second(bytes);
    CUdeviceptr grids[2] = {first.get(), second.get()};
    std::uint32_t width = job.width, first_row = 1, rows = job.height - 2;
    // One parameter list per direction of the ping-pong, as a hand-written solver keeps them.
    void* forward[] = {&grids[0], &grids[1], &width, &first_row, &rows};
    void* backward[] = {&grids[1], &grids[0], &width, &first_row, &rows};
    // On the sweeps' own stream: a cuMemcpyHtoD from pageable memory may return before its DMA
    // has landed, and nothing orders the legacy stream with a non-blocking one, so the first
    // sweep could read a grid still being written (seen under load as grids that differ).
    const auto reset = [&] {
        for (CUdeviceptr grid : grids)
            NATIVE_CU(cuMemcpyHtoDAsync(grid, job.grid, bytes, stream.get()));
        NATIVE_CU(cuStreamSynchronize(stream.get()));
    };
    ReplayCost cost = plain_and_graph(stream, job.steps, job.repetitions, reset, [&] {
        for (int step = 0; step < job.steps; ++step)
            NATIVE_CU(cuLaunchKernel(jacobi_, job.width / jacobi_local[0],
                                     rows / jacobi_local[1], 1, jacobi_local[0], jacobi_local[1],
                                     1, 0, stream.get(), step % 2 == 0 ? forward : backward,
                                     nullptr));
    });
    NATIVE_CU(cuMemcpyDtoH(job.result, grids[0], bytes));
    return cost;
}

}  // namespace dualrt::bench::cuda
