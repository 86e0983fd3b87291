#include "recording.hpp"

#include <dualrt/error.hpp>

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "queue.hpp"
#include "support/raise.hpp"

#include <cuda.h>

#include <string>
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

// Each lane is a stream of the recorder's own. Lane 0's stream is captured; another lane's joins
// the capture by waiting for an event of lane 0, and every lane joins lane 0 again before the
// capture ends, as CUDA's capture of several streams requires. A point is the graph node its
// command made, and a wait for it adds that node to the waiting stream's capture dependencies:
// the exact command, not the other lane's position at the time of the wait (a Pipeline on stage
// queues records each chunk's next upload before its compute waits for this one's).
class GraphRecorder final : public backend::RecorderImpl {
public:
    explicit GraphRecorder(std::shared_ptr<DeviceImpl> device) : device_(std::move(device)) {
        lanes_.push_back(std::make_shared<QueueImpl>(device_, /*timed=*/false));
        ScopedContext current(device_->context());
        // Relaxed: the application may call anything on other streams meanwhile; only these
        // streams, which nothing else uses, are captured.
        CU_CHECK(cuStreamBeginCapture(stream(0), CU_STREAM_CAPTURE_MODE_RELAXED),
                 "starting to capture a recording on " + device_->describe());
        capturing_ = true;
    }
    ~GraphRecorder() override {
        ScopedContext current(device_->context(), ScopedContext::no_throw);
        if (capturing_) {
            CUgraph graph = nullptr;
            try {
                join_lanes();
            } catch (const dualrt::Error&) {
                // Ending the capture below fails too then, and is logged.
            }
            CU_CHECK_NOTHROW(cuStreamEndCapture(stream(0), &graph),
                             "ending an abandoned capture on " + device_->describe());
            if (graph != nullptr) CU_CHECK_NOTHROW(cuGraphDestroy(graph), "destroying its graph");
        }
        for (CUevent event : events_)
            CU_CHECK_NOTHROW(cuEventDestroy(event), "destroying an event of a capture");
    }
    GraphRecorder(const GraphRecorder&) = delete;
    GraphRecorder& operator=(const GraphRecorder&) = delete;

    std::size_t add_lane() override {
        lanes_.push_back(std::make_shared<QueueImpl>(device_, /*timed=*/false));
        order(0, lanes_.size() - 1);
        return lanes_.size() - 1;
    }
    void wait(std::size_t lane, Point point) override {
        if (lane_of_[point] == lane) return;
        ScopedContext current(device_->context());
        CUgraphNode node = node_of_[point];
        CU_CHECK(cuStreamUpdateCaptureDependencies(stream(lane), &node, nullptr, 1,
                                                   CU_STREAM_ADD_CAPTURE_DEPENDENCIES),
                 "recording a wait between lanes");
    }
    Point copy_to_device(std::size_t lane, backend::BufferImpl& dst, std::size_t dst_offset,
                         backend::HostBufferImpl& host, std::size_t host_offset,
                         std::size_t bytes) override {
        lanes_[lane]->copy_to_device(dst, dst_offset, at(host, host_offset), bytes, Sync::async);
        return recorded(lane);
    }
    Point copy_to_host(std::size_t lane, backend::HostBufferImpl& host, std::size_t host_offset,
                       backend::BufferImpl& src, std::size_t src_offset,
                       std::size_t bytes) override {
        lanes_[lane]->copy_to_host(at(host, host_offset), src, src_offset, bytes, Sync::async);
        return recorded(lane);
    }
    Point copy_device(std::size_t lane, backend::BufferImpl& dst, std::size_t dst_offset,
                      backend::BufferImpl& src, std::size_t src_offset,
                      std::size_t bytes) override {
        lanes_[lane]->copy_device(dst, dst_offset, src, src_offset, bytes, Sync::async);
        return recorded(lane);
    }
    Point fill(std::size_t lane, backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
               const void* pattern, std::size_t pattern_size) override {
        lanes_[lane]->fill(dst, offset, bytes, pattern, pattern_size, Sync::async);
        return recorded(lane);
    }
    Point launch(std::size_t lane, backend::KernelImpl& kernel,
                 const backend::LaunchGeometry& geometry, backend::KernelArgs args) override {
        lanes_[lane]->launch(kernel, geometry, args);
        return recorded(lane);
    }

    std::shared_ptr<backend::RecordingImpl> finish(
        const std::shared_ptr<backend::RecordingImpl>& previous, bool& updated) override {
        ScopedContext current(device_->context());
        join_lanes();
        CUgraph graph = nullptr;
        capturing_ = false;
        CU_CHECK(cuStreamEndCapture(stream(0), &graph),
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
    CUstream stream(std::size_t lane) const {
        return reinterpret_cast<CUstream>(lanes_[lane]->native_handle());
    }
    static void* at(backend::HostBufferImpl& host, std::size_t offset) {
        return static_cast<unsigned char*>(host.data()) + offset;
    }
    // The point of the command just captured on `lane`: the stream's one capture dependency now.
    Point recorded(std::size_t lane) {
        ScopedContext current(device_->context());
        CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
        const CUgraphNode* dependencies = nullptr;
        std::size_t count = 0;
        CU_CHECK(cuStreamGetCaptureInfo(stream(lane), &status, nullptr, nullptr, &dependencies,
                                        nullptr, &count),
                 "reading the node a recorded command made");
        if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE || count != 1)
            detail::raise_finding(Errc::backend_failure, "cuda", "cuStreamGetCaptureInfo", 0, "",
                                  "recording on " + device_->describe(),
                                  "the command just recorded left " + std::to_string(count) +
                                      " capture dependencies, expected its own node alone");
        lane_of_.push_back(lane);
        node_of_.push_back(dependencies[0]);
        return lane_of_.size() - 1;
    }
    // Lane `later`'s next commands wait for what lane `earlier` has recorded so far: an event of
    // the capture (joining a lane to the capture, and every lane to lane 0 at its end).
    void order(std::size_t earlier, std::size_t later) {
        ScopedContext current(device_->context());
        CUevent event = nullptr;
        CU_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                 "creating an event for a recording on " + device_->describe());
        events_.push_back(event);
        CU_CHECK(cuEventRecord(event, stream(earlier)), "recording a wait between lanes");
        CU_CHECK(cuStreamWaitEvent(stream(later), event, 0), "recording a wait between lanes");
    }
    // Every other lane's commands end before lane 0's end: the capture's end joins them.
    void join_lanes() {
        for (std::size_t lane = 1; lane < lanes_.size(); ++lane) order(lane, 0);
    }

    std::shared_ptr<DeviceImpl> device_;
    std::vector<std::shared_ptr<QueueImpl>> lanes_;  // their streams are captured, never run
    std::vector<std::size_t> lane_of_;              // the lane of each point
    std::vector<CUgraphNode> node_of_;              // the graph node of each point
    std::vector<CUevent> events_;  // of the waits between lanes, destroyed with the recorder
    bool capturing_ = false;
};

}  // namespace

std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device) {
    return std::make_unique<GraphRecorder>(std::move(device));
}

}  // namespace dualrt::cuda
