/// @file
/// The host arrays of a Pipeline run (dualrt::inputs, dualrt::outputs), the halo its inputs reach
/// into their neighbours with (dualrt::Halo), and what the compute function gets for each chunk
/// (dualrt::Chunk).
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/queue.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace dualrt {

/// How far each chunk's input reaches into its neighbours: elements before the chunk's first one
/// and after its last one, which the compute function reads but does not compute (stencils,
/// convolutions, sliding windows). A chunk at either end of the arrays gets only the halo that
/// exists there (Chunk::halo_before / halo_after say how much). A plain value.
///
/// With rows (Halo::rows), chunks are cut on whole rows of `row_width` elements, so a chunk is a
/// block of rows of an image stored row after row, and the halo is whole rows above and below.
class Halo {
public:
    Halo() = default;  ///< no halo: each chunk's input is exactly its own elements

    /// `before` elements before each chunk's first element and `after` after its last one.
    static Halo elements(std::size_t before, std::size_t after);
    /// `halo_rows` whole rows of `row_width` elements above and below each chunk, which is cut
    /// on whole rows. Throws Errc::invalid_argument for a row width of 0.
    static Halo rows(std::size_t row_width, std::size_t halo_rows) {
        return rows(row_width, halo_rows, halo_rows);
    }
    /// `rows_before` rows above and `rows_after` rows below each chunk, which is cut on whole
    /// rows of `row_width` elements. Throws Errc::invalid_argument for a row width of 0.
    static Halo rows(std::size_t row_width, std::size_t rows_before, std::size_t rows_after);

    std::size_t before() const noexcept { return before_; }  ///< halo elements before a chunk
    std::size_t after() const noexcept { return after_; }    ///< halo elements after a chunk
    /// Elements per row: chunk boundaries fall on multiples of it (1 without rows).
    std::size_t row_width() const noexcept { return row_width_; }
    bool empty() const noexcept { return before_ == 0 && after_ == 0; }  ///< no halo at all
    /// "none", "3 before, 5 after" or "1 row of 4096 before and after".
    std::string str() const;

private:
    std::size_t before_ = 0;
    std::size_t after_ = 0;
    std::size_t row_width_ = 1;
};

/// One host array of a run: size() elements of T at data(), either pinned (from a HostBuffer:
/// copied by DMA straight from or to it) or pageable (staged through pinned buffers, with the
/// host copy of each chunk overlapping the device work of the others). A non-owning view: the
/// memory must stay valid until run() returns. Inputs use a const T.
/// @tparam T the element type (const for inputs), trivially copyable
template <typename T>
class HostArray {
    static_assert(std::is_trivially_copyable_v<T>, "HostArray<T> needs a trivially copyable T");

public:
    /// `size` elements at `data`; `pinned` only for memory of a HostBuffer (or memory pinned by
    /// other means the backend's DMA accepts).
    HostArray(T* data, std::size_t size, bool pinned) noexcept
        : data_(data), size_(size), pinned_(pinned) {}

    T* data() const noexcept { return data_; }           ///< the first element
    std::size_t size() const noexcept { return size_; }  ///< the number of elements
    bool pinned() const noexcept { return pinned_; }     ///< copied by DMA, never staged

private:
    T* data_;
    std::size_t size_;
    bool pinned_;
};

/// `size` elements of ordinary (pageable) host memory at `data`, for dualrt::inputs and
/// dualrt::outputs: a pointer is always staged, even one into pinned memory (pass the HostBuffer
/// itself to have it copied by DMA).
template <typename T>
HostArray<T> host_array(T* data, std::size_t size) noexcept {
    return HostArray<T>(data, size, false);
}

namespace detail {

// One host array with its type erased: what the library's run() works with.
struct HostSide {
    void* data = nullptr;
    std::size_t elements = 0;
    std::size_t elem_size = 0;
    bool pinned = false;
};

template <typename T>
HostSide host_side(const HostArray<T>& array) {
    return HostSide{const_cast<void*>(static_cast<const void*>(array.data())), array.size(),
                    sizeof(T), array.pinned()};
}

// What an argument of dualrt::inputs becomes: a HostArray of const elements.
template <typename T>
HostArray<const T> as_input(const std::vector<T>& v) noexcept {
    return HostArray<const T>(v.data(), v.size(), false);
}
template <typename T>
HostArray<const T> as_input(const HostBuffer<T>& b) noexcept {
    return HostArray<const T>(b.data(), b.size(), true);
}
template <typename T>
HostArray<const T> as_input(const HostArray<T>& a) noexcept {
    return HostArray<const T>(a.data(), a.size(), a.pinned());
}

// What an argument of dualrt::outputs becomes: a HostArray of writable elements. A const
// std::vector cannot be an output (no overload takes one).
template <typename T>
HostArray<T> as_output(std::vector<T>& v) noexcept {
    return HostArray<T>(v.data(), v.size(), false);
}
template <typename T>
HostArray<T> as_output(const HostBuffer<T>& b) noexcept {  // a handle: its memory is writable
    return HostArray<T>(b.data(), b.size(), true);
}
template <typename T>
HostArray<T> as_output(const HostArray<T>& a) noexcept {
    static_assert(!std::is_const_v<T>, "an output array must be writable, not HostArray<const T>");
    return a;
}

}  // namespace detail

/// The input arrays of a run, each with its own element type; made by dualrt::inputs(...).
/// Every array is chunked alike: chunk i covers elements [offset, offset + count) of each.
/// @tparam T the element types, one per array
template <typename... T>
class Inputs {
    static_assert(sizeof...(T) >= 1, "a run needs at least one input array");

public:
    /// The arrays, in the order the Chunk gives them.
    explicit Inputs(HostArray<const T>... arrays) : sides_{detail::host_side(arrays)...} {}

    /// The same arrays, each chunk's input reaching `halo` into its neighbours (every input
    /// array gets the halo).
    Inputs with_halo(const Halo& halo) const {
        Inputs copy = *this;
        copy.halo_ = halo;
        return copy;
    }
    const Halo& halo() const noexcept { return halo_; }  ///< the halo (none unless with_halo)
    /// The arrays without their types (internal).
    const std::array<detail::HostSide, sizeof...(T)>& sides() const noexcept { return sides_; }

private:
    std::array<detail::HostSide, sizeof...(T)> sides_;
    Halo halo_;
};

/// The output arrays of a run, each with its own element type; made by dualrt::outputs(...).
/// Every array is chunked like the inputs.
/// @tparam T the element types, one per array
template <typename... T>
class Outputs {
    static_assert(sizeof...(T) >= 1, "a run needs at least one output array");

public:
    /// The arrays, in the order the Chunk gives them.
    explicit Outputs(HostArray<T>... arrays) : sides_{detail::host_side(arrays)...} {}
    /// The arrays without their types (internal).
    const std::array<detail::HostSide, sizeof...(T)>& sides() const noexcept { return sides_; }

private:
    std::array<detail::HostSide, sizeof...(T)> sides_;
};

namespace detail {
template <typename... T>
Inputs<T...> make_inputs(HostArray<const T>... arrays) {
    return Inputs<T...>(arrays...);
}
template <typename... T>
Outputs<T...> make_outputs(HostArray<T>... arrays) {
    return Outputs<T...>(arrays...);
}
}  // namespace detail

/// The input arrays of a run: any mix of std::vector (pageable, staged), HostBuffer (pinned,
/// copied by DMA) and dualrt::host_array(pointer, count) (pageable), each of its own element
/// type. They are read during run() and must hold the same number of elements as every other
/// array of the run.
///
/// @code{.cpp}
/// pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
///     auto [da, db] = chunk.inputs;
///     auto [dc] = chunk.outputs;
///     chunk.queue.launch(triad, {chunk.size()}, {}, da, db, dc, s, std::uint32_t(chunk.size()));
/// });
/// @endcode
template <typename... A>
auto inputs(const A&... arrays) {
    return detail::make_inputs(detail::as_input(arrays)...);
}

/// The output arrays of a run: any mix of std::vector (not const), HostBuffer and
/// dualrt::host_array(pointer, count), each of its own element type and as long as the inputs.
/// Every chunk's result is in them when run() returns.
template <typename... A>
auto outputs(A&&... arrays) {
    return detail::make_outputs(detail::as_output(arrays)...);
}

/// Where a chunk lies and where its work goes; the part of a Chunk that does not depend on the
/// arrays' types. Valid only during the call of the compute function.
struct ChunkPlace {
    /// The queue to enqueue this chunk's work on, and nowhere else: the chunk's download is
    /// ordered after the work on this queue only, so work on another queue may not be in the
    /// outputs (order it first with `queue.wait(event)` where it must be; a command left on
    /// another queue of the device unordered makes run() throw). With PipelineMode::lanes
    /// (the default), consecutive chunks get different queues and their work may run at the
    /// same time; with two_queues and three_queues it is the one compute queue, in chunk order.
    /// On OpenCL a run that times none of its chunks uses queues made without timing
    /// (QueueOptions::timing): their record() gives untimed events, which order work but cannot
    /// be timed. Time a chunk's work with PipelineTiming::every_chunk and the report instead.
    Queue& queue;
    std::size_t index;        ///< 0, 1, ... in array order
    std::size_t offset;       ///< the chunk's first element within the whole arrays
    std::size_t count;        ///< the chunk's own elements (what the outputs get)
    std::size_t halo_before;  ///< halo elements in front of the chunk's own in every input view
    std::size_t halo_after;   ///< halo elements after the chunk's own in every input view
    std::size_t row_width;    ///< the halo's row width (1 without rows)
    /// The position in Pipeline::devices() of the device whose queue `queue` is: the index of
    /// the Kernel to launch (kernels are per device), e.g. `triads[chunk.device_index]`. 0 for a
    /// Pipeline of one device.
    std::size_t device_index = 0;

    std::size_t size() const noexcept { return count; }  ///< the chunk's own elements
    /// The chunk's own rows (count / row_width): the launch height of a row-block stencil.
    std::size_t rows() const noexcept { return count / row_width; }
};

/// What the compute function gets for each chunk of a run with one input and one output array
/// (the run overloads that take two arrays).
/// @tparam In the element type of the input
/// @tparam Out the element type of the output
template <typename In, typename Out>
struct Chunk : ChunkPlace {
    /// The chunk's input on the device, already there when the chunk's work runs: halo_before
    /// elements, the chunk's own count elements, then halo_after elements.
    Buffer<In> input;
    /// Where the chunk's result must be written: count elements (the same memory as the
    /// input's own elements when PipelineOptions::in_place).
    Buffer<Out> output;
};

/// What the compute function gets for each chunk of a run over dualrt::inputs(...) and
/// dualrt::outputs(...): one device view per array, in the order the arrays were given.
/// `auto [a, b] = chunk.inputs;` names them; `chunk.input<0>()` does too where the chunk's type
/// is spelled out.
/// @tparam I the input element types
/// @tparam O the output element types
template <typename... I, typename... O>
struct Chunk<Inputs<I...>, Outputs<O...>> : ChunkPlace {
    /// The chunk's inputs on the device, each halo_before + count + halo_after elements.
    std::tuple<Buffer<I>...> inputs;
    /// Where the chunk's results must be written, count elements each.
    std::tuple<Buffer<O>...> outputs;

    /// Input array K's view.
    template <std::size_t K>
    const auto& input() const noexcept {
        return std::get<K>(inputs);
    }
    /// Output array K's view.
    template <std::size_t K>
    const auto& output() const noexcept {
        return std::get<K>(outputs);
    }
};

namespace detail {

// A chunk with its types erased: the views are in input and output order.
struct ChunkViews {
    Queue* queue = nullptr;
    const BufferView* inputs = nullptr;
    const BufferView* outputs = nullptr;
    std::size_t index = 0, offset = 0, count = 0, halo_before = 0, halo_after = 0, row_width = 1;
    std::size_t device_index = 0;

    ChunkPlace place() const {
        return ChunkPlace{*queue,      index,     offset,       count,
                          halo_before, halo_after, row_width,   device_index};
    }
};

// Builds the typed Chunk a compute function takes from the erased views.
template <typename C>
struct ChunkMaker;

template <typename In, typename Out>
struct ChunkMaker<Chunk<In, Out>> {
    static Chunk<In, Out> make(const ChunkViews& v) {
        return Chunk<In, Out>{{v.place()}, Buffer<In>(v.inputs[0]), Buffer<Out>(v.outputs[0])};
    }
};

template <typename... I, typename... O>
struct ChunkMaker<Chunk<Inputs<I...>, Outputs<O...>>> {
    static Chunk<Inputs<I...>, Outputs<O...>> make(const ChunkViews& v) {
        return make(v, std::index_sequence_for<I...>{}, std::index_sequence_for<O...>{});
    }
    template <std::size_t... KI, std::size_t... KO>
    static Chunk<Inputs<I...>, Outputs<O...>> make(const ChunkViews& v,
                                                   std::index_sequence<KI...>,
                                                   std::index_sequence<KO...>) {
        return Chunk<Inputs<I...>, Outputs<O...>>{
            {v.place()},
            std::tuple<Buffer<I>...>(Buffer<I>(v.inputs[KI])...),
            std::tuple<Buffer<O>...>(Buffer<O>(v.outputs[KO])...)};
    }
};

}  // namespace detail
}  // namespace dualrt
