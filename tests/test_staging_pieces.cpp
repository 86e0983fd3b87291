// Which copies are staged (staged_copy.hpp), and how they are cut into pieces
// (staging_slots.hpp): every byte once, in order, no piece larger than a staging buffer, and small
// pieces only at the two ends; and the room a Pipeline's pinned rings get (chunk_buffers.hpp).
#include "run/chunk_buffers.hpp"
#include "staging/staged_copy.hpp"
#include "staging/staging_slots.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

namespace {

using dualrt::detail::min_staging_piece_bytes;
using dualrt::detail::staging_piece_at;

std::vector<std::size_t> pieces_of(std::size_t bytes, std::size_t piece) {
    std::vector<std::size_t> lengths;
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t length = staging_piece_at(done, bytes, piece);
        REQUIRE(length > 0);
        lengths.push_back(length);
        done += length;
    }
    return lengths;
}

constexpr std::size_t MiB = std::size_t{1} << 20;

}  // namespace

TEST_CASE("staged copies: from 256 KiB on a GPU, uploads from 64 KiB on CUDA; 1 MiB on a CPU") {
    using dualrt::detail::min_staged_download_bytes;
    using dualrt::detail::min_staged_upload_bytes;
    dualrt::DeviceInfo device;
    device.type = dualrt::DeviceType::gpu;
    device.backend = dualrt::Backend::cuda;
    CHECK(min_staged_upload_bytes(device) == std::size_t{64} << 10);
    CHECK(min_staged_download_bytes(device) == std::size_t{256} << 10);
    device.backend = dualrt::Backend::opencl;
    CHECK(min_staged_upload_bytes(device) == std::size_t{256} << 10);
    CHECK(min_staged_download_bytes(device) == std::size_t{256} << 10);
    // A device in the host's own memory (a CPU device, an integrated GPU) gains nothing sooner.
    device.shares_host_memory = true;
    CHECK(min_staged_upload_bytes(device) == std::size_t{1} << 20);
    CHECK(min_staged_download_bytes(device) == std::size_t{1} << 20);
}

TEST_CASE("staged copies: pieces cover the copy, ramp at both ends, and fit the buffers") {
    for (const std::size_t bytes : {std::size_t{1}, 4095 * std::size_t{1}, MiB, 3 * MiB + 17,
                                    16 * MiB, 256 * MiB + 4096 + 3, std::size_t{1} << 30}) {
        for (const std::size_t piece : {512 * 1024 * std::size_t{1}, 2 * MiB, 8 * MiB}) {
            CAPTURE(bytes);
            CAPTURE(piece);
            const auto lengths = pieces_of(bytes, piece);
            std::size_t total = 0;
            for (std::size_t i = 0; i < lengths.size(); ++i) {
                CHECK(lengths[i] <= piece);
                total += lengths[i];
                // Only the last piece may end off 64-byte alignment.
                if (i + 1 < lengths.size()) CHECK(lengths[i] % 64 == 0);
            }
            CHECK(total == bytes);
        }
    }
    // 256 MiB through 8 MiB buffers: 1, 2, 4, then full pieces, then 4, 2, 1.
    const auto lengths = pieces_of(256 * MiB, 8 * MiB);
    REQUIRE(lengths.size() > 6);
    CHECK(lengths[0] == 1 * MiB);
    CHECK(lengths[1] == 2 * MiB);
    CHECK(lengths[2] == 4 * MiB);
    CHECK(lengths[3] == 8 * MiB);
    CHECK(lengths[lengths.size() / 2] == 8 * MiB);
    CHECK(lengths.back() <= 1 * MiB);
    CHECK(lengths[lengths.size() - 2] <= 2 * MiB);
    // Small copies keep the staging minimum: no piece under 512 KiB but a copy's only one.
    for (const std::size_t length : pieces_of(4 * MiB, MiB))
        CHECK(length >= min_staging_piece_bytes);
}

TEST_CASE("staging: a Pipeline's pinned rings get room for plans that move by a few percent") {
    using dualrt::detail::ring_buffer_bytes;
    // 4144372 floats, then 4194304 (16 MiB): one size for both, no pinning anew.
    CHECK(ring_buffer_bytes(4144372 * 4) == std::size_t{16} << 20);
    CHECK(ring_buffer_bytes(std::size_t{16} << 20) == std::size_t{16} << 20);
    CHECK(ring_buffer_bytes((std::size_t{16} << 20) + 1) == std::size_t{18} << 20);
    CHECK(ring_buffer_bytes(1) == 1);
    CHECK(ring_buffer_bytes(17) == 18);
    // Never smaller, never more than an eighth larger.
    for (std::size_t bytes = 1; bytes < (std::size_t{1} << 30); bytes = bytes * 3 + 7) {
        CAPTURE(bytes);
        const std::size_t room = ring_buffer_bytes(bytes);
        CHECK(room >= bytes);
        CHECK(room - bytes <= bytes / 8);
    }
}
