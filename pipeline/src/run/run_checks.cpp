#include "run/run_checks.hpp"

#include "staging/pinned_ranges.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <charconv>

namespace dualrt::detail {
namespace {

std::string name_of(const char* side, std::size_t index) {
    return std::string(side) + " " + std::to_string(index);
}

}  // namespace

RunArrays checked_arrays(const HostSide* inputs, std::size_t input_count,
                         const HostSide* outputs, std::size_t output_count, const Halo& halo,
                         bool in_place, const char* operation) {
    RunArrays arrays;
    checked_arrays(inputs, input_count, outputs, output_count, halo, in_place, operation, arrays);
    return arrays;
}

void checked_arrays(const HostSide* inputs, std::size_t input_count, const HostSide* outputs,
                    std::size_t output_count, const Halo& halo, bool in_place,
                    const char* operation, RunArrays& arrays) {
    arrays.inputs.assign(inputs, inputs + input_count);
    arrays.outputs.assign(outputs, outputs + output_count);
    arrays.halo = halo;
    arrays.count = input_count > 0 ? inputs[0].elements : 0;
    // The array's name is formatted only for the error: every run passes these checks.
    const auto check_length = [&](const HostSide& side, const char* kind, std::size_t k) {
        if (side.elements != arrays.count)
            raise_argument(operation, name_of(kind, k) + " holds " +
                                          std::to_string(side.elements) +
                                          " elements, but input 0 holds " +
                                          std::to_string(arrays.count) +
                                          "; expected the same count in every array of a run");
    };
    for (std::size_t k = 1; k < input_count; ++k) check_length(inputs[k], "input", k);
    for (std::size_t k = 0; k < output_count; ++k) check_length(outputs[k], "output", k);
    if (arrays.count > 0) {
        for (std::size_t k = 0; k < input_count; ++k)
            if (inputs[k].data == nullptr)
                raise_argument(operation, "the pointer of " + name_of("input", k) +
                                              " is null; expected " +
                                              std::to_string(arrays.count) + " elements there");
        for (std::size_t k = 0; k < output_count; ++k)
            if (outputs[k].data == nullptr)
                raise_argument(operation, "the pointer of " + name_of("output", k) +
                                              " is null; expected room for " +
                                              std::to_string(arrays.count) + " elements there");
    }
    if (halo.row_width() > 1 && arrays.count % halo.row_width() != 0)
        raise_argument(operation, "the arrays hold " + std::to_string(arrays.count) +
                                      " elements, not whole rows of " +
                                      std::to_string(halo.row_width()) +
                                      " (Halo::rows); expected a multiple of the row width");
    if (in_place) {
        if (!halo.empty())
            raise_argument(operation, "in_place cannot be combined with a halo (" + halo.str() +
                                          "): a chunk's results would overwrite input elements "
                                          "its neighbours still read; expected no halo, or "
                                          "in_place off");
        if (output_count != input_count)
            raise_argument(operation, "in_place writes output k into input k's device buffer, "
                                      "but the run has " + std::to_string(input_count) +
                                          " inputs and " + std::to_string(output_count) +
                                          " outputs; expected as many of each");
        for (std::size_t k = 0; k < input_count; ++k)
            if (inputs[k].elem_size != outputs[k].elem_size)
                raise_argument(operation, "in_place needs one element size per pair, but the "
                                          "elements of " + name_of("input", k) + " have " +
                                              std::to_string(inputs[k].elem_size) +
                                              " bytes and those of " + name_of("output", k) + " " +
                                              std::to_string(outputs[k].elem_size) +
                                              "; expected the same size");
    }
}

void check_halo_fits(const Halo& halo, const std::vector<std::size_t>& sizes,
                     const char* operation) {
    if (sizes.size() < 2) return;  // one chunk has no neighbour to reach into
    const std::size_t chunk = sizes.front();
    const std::size_t reach = std::max(halo.before(), halo.after());
    if (reach > chunk)
        raise_argument(operation, "the halo reaches " + std::to_string(reach) + " elements " +
                                      (halo.before() >= halo.after() ? "before" : "after") +
                                      " each chunk, more than a chunk holds (" +
                                      std::to_string(chunk) +
                                      " elements); expected chunks at least as large as the "
                                      "halo: fewer, larger chunks, or Chunking::automatic()");
}

RunArrays as_seen_by(RunArrays arrays, backend::DeviceImpl& device) {
    mark_as_seen_by(arrays, device);
    return arrays;
}

void mark_as_seen_by(RunArrays& arrays, backend::DeviceImpl& device) {
    for (auto* side : {&arrays.inputs, &arrays.outputs})
        for (HostSide& array : *side)
            if (array.pinned && array.elements > 0) {
                // Memory pinned outside dualrt is the caller's word. A range dualrt pinned for
                // another device is registered with this one (once, for the range's life), and
                // staged only if the driver refuses.
                const std::size_t bytes = array.elements * array.elem_size;
                if (!pinned_as_claimed(device, array.data, bytes)) array.pinned = false;
            }
}

void layout_key(const RunArrays& arrays, std::string& key) {
    key.clear();
    const auto add_number = [&key](std::size_t value) {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        key.append(digits, end);
    };
    key += "in";
    for (const auto* side : {&arrays.inputs, &arrays.outputs}) {
        if (side == &arrays.outputs) key += " out";
        for (const HostSide& array : *side) {
            key += ':';
            add_number(array.elem_size);
            key += array.pinned ? 'p' : 's';
        }
    }
    key += " halo:";
    add_number(arrays.halo.before());
    key += '/';
    add_number(arrays.halo.after());
}

bool same_layout(const RunArrays& a, const RunArrays& b) {
    const auto same_side = [](const std::vector<HostSide>& x, const std::vector<HostSide>& y) {
        if (x.size() != y.size()) return false;
        for (std::size_t k = 0; k < x.size(); ++k)
            if (x[k].elem_size != y[k].elem_size || x[k].pinned != y[k].pinned) return false;
        return true;
    };
    return same_side(a.inputs, b.inputs) && same_side(a.outputs, b.outputs) &&
           a.halo.before() == b.halo.before() && a.halo.after() == b.halo.after();
}

std::string layout_key(const RunArrays& arrays) {
    std::string key;
    layout_key(arrays, key);
    return key;
}

}  // namespace dualrt::detail
