#include "mpi_check.hpp"

#include <mpi.h>

namespace dualrt::mpi::detail {
namespace {

std::string error_string(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " +
                                                                      std::to_string(code);
    return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace

void check(int rc, const char* call, const std::string& context) {
    if (rc == MPI_SUCCESS) return;
    int error_class = rc;
    MPI_Error_class(rc, &error_class);
    ErrorInfo info;
    info.errc = Errc::backend_failure;
    info.backend = "mpi";
    info.call = call;
    info.code = rc;
    info.code_name = error_string(error_class);
    info.detail = error_string(rc);
    info.context = context;
    throw Error(std::move(info));
}

void raise(Errc errc, const char* operation, const std::string& detail) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "dualrt";
    info.call = operation;
    info.detail = detail;
    throw Error(std::move(info));
}

void require_mpi(const char* operation) {
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (!initialised)
        raise(Errc::unavailable, operation,
              "MPI is not initialised; call MPI_Init or MPI_Init_thread first");
    if (finalised)
        raise(Errc::unavailable, operation,
              "MPI is already finalised; dualrt::mpi objects must be used and destroyed before "
              "MPI_Finalize");
}

}  // namespace dualrt::mpi::detail
