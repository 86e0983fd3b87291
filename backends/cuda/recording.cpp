#include "recording.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "queue.hpp"

#include <cuda.h>

#include <utility>
#include <vector>

namespace dualrt::cuda {
namespace {

class GraphRecording final : public backend::RecordingImpl {
public:
    GraphRecording(std::shared_ptr<DeviceImpl> device, CUgraph graph, CUgraphExec exec)
        : device_(std::move(device)), graph_(graph), exec_(exec) {}
    ~GraphRecording() override {
        ScopedContext current(device_->context(), ScopedContext::no_throw);
        CU_CHECK_NOTHROW(cuGraphExecDestroy(exec_), "destroying a recording's executable graph");
        CU_CHECK_NOTHROW(cuGraphDestroy(graph_), "destroying a recording's graph");
    }
    GraphRecording(const GraphRecording&) = delete;
    GraphRecording& operator=(const GraphRecording&) = delete;

    backend::EventPtr replay(backend::QueueImpl& queue) override {
        // The core hands a recording only queues of its device.
        return static_cast<QueueImpl&>(queue).launch_graph(exec_);
    }

    // Updates the executable graph in place to run `graph` instead; false, changing nothing,
    // where it cannot (the commands differ in kind or order, or in something CUDA cannot update).
    // Takes `graph` on success. Graphs whose nodes differ in kind are not offered to CUDA, whose
    // refusal is an API error (which compute-sanitizer reports).
    bool update(CUgraph graph) {
        ScopedContext current(device_->context());
        if (node_kinds(graph) != node_kinds(graph_)) return false;
        CUgraphExecUpdateResultInfo result{};
        if (cuGraphExecUpdate(exec_, graph, &result) != CUDA_SUCCESS) return false;
        CU_CHECK_NOTHROW(cuGraphDestroy(graph_), "destroying a recording's former graph");
        graph_ = graph;
        return true;
    }

private:
    // The kinds of the graph's nodes (kernel, copy, memset, ...), in the order CUDA lists them.
    std::vector<CUgraphNodeType> node_kinds(CUgraph graph) const {
        std::size_t count = 0;
        CU_CHECK(cuGraphGetNodes(graph, nullptr, &count), "counting the nodes of a graph");
        std::vector<CUgraphNode> nodes(count);
        CU_CHECK(cuGraphGetNodes(graph, nodes.data(), &count), "listing the nodes of a graph");
        std::vector<CUgraphNodeType> kinds(count);
        for (std::size_t i = 0; i < count; ++i)
            CU_CHECK(cuGraphNodeGetType(nodes[i], &kinds[i]), "reading a graph node's kind");
        return kinds;
    }

    std::shared_ptr<DeviceImpl> device_;
    CUgraph graph_;
    CUgraphExec exec_;
};

class GraphRecorder final : public backend::RecorderImpl {
public:
    explicit GraphRecorder(std::shared_ptr<DeviceImpl> device)
        : device_(std::move(device)),
          queue_(std::make_shared<QueueImpl>(device_, /*timed=*/false)) {
        ScopedContext current(device_->context());
        // Relaxed: the application may call anything on other streams meanwhile; only this
        // stream, which nothing else uses, is captured.
        CU_CHECK(cuStreamBeginCapture(stream(), CU_STREAM_CAPTURE_MODE_RELAXED),
                 "starting to capture a recording on " + device_->describe());
        capturing_ = true;
    }
    ~GraphRecorder() override {
        if (!capturing_) return;
        ScopedContext current(device_->context(), ScopedContext::no_throw);
        CUgraph graph = nullptr;
        CU_CHECK_NOTHROW(cuStreamEndCapture(stream(), &graph),
                         "ending an abandoned capture on " + device_->describe());
        if (graph != nullptr) CU_CHECK_NOTHROW(cuGraphDestroy(graph), "destroying its graph");
    }
    GraphRecorder(const GraphRecorder&) = delete;
    GraphRecorder& operator=(const GraphRecorder&) = delete;

    void copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                        backend::HostBufferImpl& host, std::size_t host_offset,
                        std::size_t bytes) override {
        queue_->copy_to_device(dst, dst_offset, at(host, host_offset), bytes, Sync::async);
    }
    void copy_to_host(backend::HostBufferImpl& host, std::size_t host_offset,
                      backend::BufferImpl& src, std::size_t src_offset,
                      std::size_t bytes) override {
        queue_->copy_to_host(at(host, host_offset), src, src_offset, bytes, Sync::async);
    }
    void copy_device(backend::BufferImpl& dst, std::size_t dst_offset, backend::BufferImpl& src,
                     std::size_t src_offset, std::size_t bytes) override {
        queue_->copy_device(dst, dst_offset, src, src_offset, bytes, Sync::async);
    }
    void fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
              const void* pattern, std::size_t pattern_size) override {
        queue_->fill(dst, offset, bytes, pattern, pattern_size, Sync::async);
    }
    void launch(backend::KernelImpl& kernel, const backend::LaunchGeometry& geometry,
                backend::KernelArgs args) override {
        queue_->launch(kernel, geometry, args);
    }

    std::shared_ptr<backend::RecordingImpl> finish(
        const std::shared_ptr<backend::RecordingImpl>& previous, bool& updated) override {
        ScopedContext current(device_->context());
        CUgraph graph = nullptr;
        capturing_ = false;
        CU_CHECK(cuStreamEndCapture(stream(), &graph),
                 "ending the capture of a recording on " + device_->describe());
        updated = false;
        if (previous) {
            // The core hands a recorder only recordings of its device's backend.
            auto& earlier = static_cast<GraphRecording&>(*previous);
            if (earlier.update(graph)) {
                updated = true;
                return previous;
            }
        }
        CUgraphExec exec = nullptr;
        const CUresult status = cuGraphInstantiate(&exec, graph, 0);
        if (status != CUDA_SUCCESS) {
            CU_CHECK_NOTHROW(cuGraphDestroy(graph), "destroying a graph that did not build");
            CU_CHECK(status, "building the executable graph of a recording on " +
                                 device_->describe());
        }
        return std::make_shared<GraphRecording>(device_, graph, exec);
    }

private:
    CUstream stream() const { return reinterpret_cast<CUstream>(queue_->native_handle()); }
    static void* at(backend::HostBufferImpl& host, std::size_t offset) {
        return static_cast<unsigned char*>(host.data()) + offset;
    }

    std::shared_ptr<DeviceImpl> device_;
    std::shared_ptr<QueueImpl> queue_;  // its stream is captured, never run
    bool capturing_ = false;
};

}  // namespace

std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device) {
    return std::make_unique<GraphRecorder>(std::move(device));
}

}  // namespace dualrt::cuda
