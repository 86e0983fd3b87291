#include "run/chunk_extents.hpp"

#include <algorithm>
#include <string>

namespace dualrt::detail {

InputRange input_range(const ChunkExtent& chunk, const Halo& halo, std::size_t total) {
    InputRange range;
    range.halo_before = std::min(halo.before(), chunk.offset);
    const std::size_t end = chunk.offset + chunk.count;
    range.halo_after = std::min(halo.after(), total - end);
    range.first = chunk.offset - range.halo_before;
    range.count = range.halo_before + chunk.count + range.halo_after;
    return range;
}

std::vector<ChunkExtent> extents_of(const std::vector<std::size_t>& sizes, std::size_t first) {
    std::vector<ChunkExtent> extents;
    extents_of(sizes, extents, first);
    return extents;
}

void extents_of(const std::vector<std::size_t>& sizes, std::vector<ChunkExtent>& extents,
                std::size_t first) {
    extents.clear();
    extents.reserve(sizes.size());
    for (std::size_t size : sizes) {
        extents.push_back(ChunkExtent{first, size});
        first += size;
    }
}

std::vector<std::size_t> sizes_of(const std::vector<ChunkExtent>& extents) {
    std::vector<std::size_t> sizes;
    sizes.reserve(extents.size());
    for (const auto& extent : extents) sizes.push_back(extent.count);
    return sizes;
}

std::vector<std::size_t> fixed_sizes(std::size_t count, std::size_t per_chunk) {
    std::vector<std::size_t> sizes;
    if (per_chunk == 0) return sizes;
    sizes.reserve(count / per_chunk + 1);
    for (std::size_t done = 0; done < count; done += per_chunk)
        sizes.push_back(std::min(per_chunk, count - done));
    return sizes;
}

std::size_t round_to_granule(std::size_t elements, std::size_t granule) {
    return std::max(granule, elements / granule * granule);
}

std::vector<std::size_t> equal_sizes(std::size_t count, std::size_t chunks, std::size_t granule) {
    std::vector<std::size_t> sizes;
    if (count == 0 || chunks == 0) return sizes;
    const std::size_t granules = (count + granule - 1) / granule;
    chunks = std::min(chunks, granules);
    // Chunk c gets granules [c * granules / chunks, (c + 1) * granules / chunks): sizes differ
    // by at most one granule, and only the last is cut short by the arrays' end.
    std::size_t done = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t end_granule = (c + 1) * granules / chunks;
        const std::size_t end = std::min(count, end_granule * granule);
        sizes.push_back(end - done);
        done = end;
    }
    return sizes;
}

std::vector<std::size_t> shaped_sizes(std::size_t count, std::size_t body, std::size_t head,
                                      std::size_t tail, std::size_t granule,
                                      std::size_t smallest) {
    body = round_to_granule(body, granule);
    const auto step_size = [&](std::size_t halvings) {
        const std::size_t size = body >> std::min<std::size_t>(halvings, 63);
        return round_to_granule(std::max(size, smallest), granule);
    };
    std::vector<std::size_t> front, back;
    std::size_t used = 0;
    for (std::size_t k = head; k >= 1; --k) {
        front.push_back(step_size(k));
        used += front.back();
    }
    for (std::size_t k = 1; k <= tail; ++k) {
        back.push_back(step_size(k));
        used += back.back();
    }
    if (used >= count) return {};
    const std::size_t rest = count - used;
    // The middle in chunks of at most `body`, as equal as the granule allows (never above it:
    // a body at the largest chunk the staging rings hold must not grow them; rounding the count
    // to nearest made chunks of 4224659 elements from a body of 4194304, and NVIDIA's OpenCL
    // took 0.3 s to pin the larger rings). The arrays' odd end (a partial granule)
    // goes to the last chunk, which is the tail's smallest or the middle's.
    const std::size_t whole_rest = rest / granule * granule;
    std::vector<std::size_t> middle;
    if (whole_rest > 0)
        middle = equal_sizes(whole_rest, std::max<std::size_t>(1, (whole_rest + body - 1) / body),
                             granule);
    std::vector<std::size_t> sizes = front;
    sizes.insert(sizes.end(), middle.begin(), middle.end());
    sizes.insert(sizes.end(), back.begin(), back.end());
    const std::size_t odd = rest - whole_rest;
    if (odd > 0) {
        if (sizes.empty()) return {odd};
        sizes.back() += odd;
    }
    return sizes;
}

std::string describe_sizes(const std::vector<std::size_t>& sizes) {
    // Plain appends: every run describes its chunks, and a stream's set-up alone cost more than
    // the rest of this.
    using std::to_string;
    std::string text = to_string(sizes.size()) + (sizes.size() == 1 ? " chunk" : " chunks");
    if (sizes.empty()) return text;
    // A run of sizes growing at the front, one shrinking at the end (by a quarter or more per
    // chunk, so that equal chunks a granule apart do not count), and the middle.
    const auto grows = [](std::size_t from, std::size_t to) { return from * 5 < to * 4; };
    std::size_t rise = 0;
    while (rise + 1 < sizes.size() && grows(sizes[rise], sizes[rise + 1])) ++rise;
    std::size_t fall = 0;
    while (fall + 1 < sizes.size() - rise &&
           grows(sizes[sizes.size() - 1 - fall], sizes[sizes.size() - 2 - fall]))
        ++fall;
    const std::size_t middle = sizes.size() - rise - fall;
    text += ":";
    if (rise > 0) text += " " + to_string(rise) + " rising from " + to_string(sizes.front()) + ",";
    const auto mid_begin = sizes.begin() + static_cast<std::ptrdiff_t>(rise);
    const auto mid_end = mid_begin + static_cast<std::ptrdiff_t>(middle);
    const auto [low, high] = std::minmax_element(mid_begin, mid_end);
    text += " " + to_string(middle) + " of " + to_string(*low);
    if (*low != *high) text += " to " + to_string(*high);
    if (fall > 0) text += ", " + to_string(fall) + " falling to " + to_string(sizes.back());
    text += " elements";
    return text;
}

}  // namespace dualrt::detail
