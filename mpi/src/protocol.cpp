#include "protocol.hpp"

#include <algorithm>

namespace dualrt::mpi::detail {
namespace {

const char* type_name(std::uint64_t code) {
    switch (code) {
    case 1: return "int8";
    case 2: return "uint8";
    case 3: return "int16";
    case 4: return "uint16";
    case 5: return "int32";
    case 6: return "uint32";
    case 7: return "int64";
    case 8: return "uint64";
    case 9: return "float";
    case 10: return "double";
    default: return nullptr;
    }
}

}  // namespace

MPI_Datatype datatype_of(std::uint64_t code) {
    switch (code) {
    case 1: return MPI_INT8_T;
    case 2: return MPI_UINT8_T;
    case 3: return MPI_INT16_T;
    case 4: return MPI_UINT16_T;
    case 5: return MPI_INT32_T;
    case 6: return MPI_UINT32_T;
    case 7: return MPI_INT64_T;
    case 8: return MPI_UINT64_T;
    case 9: return MPI_FLOAT;
    case 10: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

std::string describe(std::uint64_t bytes, std::uint64_t elem_size, std::uint64_t type_code) {
    const std::uint64_t count = elem_size == 0 ? 0 : bytes / elem_size;
    const char* name = type_name(type_code);
    return std::to_string(count) + " elements of " +
           (name != nullptr ? std::string(name)
                            : "a " + std::to_string(elem_size) + "-byte type") +
           " (" + std::to_string(bytes) + " bytes)";
}

std::size_t piece_bytes_for(std::size_t bytes, std::size_t largest) {
    constexpr std::size_t granule = std::size_t(64) << 10;
    const std::size_t quarter = ((bytes / 4 + granule - 1) / granule) * granule;
    return std::min(largest, std::max(inline_bytes, quarter));
}

bool accepts(const Header& header, std::uint64_t bytes, const ElementType& expected) {
    return header.magic == header_magic && header.bytes == bytes &&
           header.elem_size == expected.size && header.type_code == expected.code;
}

}  // namespace dualrt::mpi::detail
