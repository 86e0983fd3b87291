// How dualrt_mpi reports failures: dualrt::Error with MPI's own message for a failing MPI call,
// and the library's own checks in dualrt's usual form.
#pragma once

#include <dualrt/error.hpp>

#include <string>

namespace dualrt::mpi::detail {

// Throws Errc::backend_failure naming `call`, MPI's error class and string, and `context`, when
// `rc` is not MPI_SUCCESS.
void check(int rc, const char* call, const std::string& context);
#define DUALRT_MPI_CHECK(call, context) ::dualrt::mpi::detail::check((call), #call, (context))

// Throws `errc` from `operation` with `detail` (backend "dualrt").
[[noreturn]] void raise(Errc errc, const char* operation, const std::string& detail);

// Throws Errc::unavailable from `operation` unless MPI is initialised and not finalised.
void require_mpi(const char* operation);

}  // namespace dualrt::mpi::detail
