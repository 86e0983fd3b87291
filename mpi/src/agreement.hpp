// The agreement step of dualrt::mpi's collective calls: every rank learns the same outcome, so a
// mistake on one rank is an Error on every rank instead of a hang of the others.
//
// Each rank first runs its own checks (ranks, buffers, queues, options) and keeps what failed;
// then one allreduce carries, from every rank, whether its checks failed and the values the ranks
// must agree on. Only after it does any rank act on the outcome, so every rank acts alike.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace dualrt::mpi::detail {

// A value the ranks compare (`same`: every rank must pass the same) or settle (`least`: every rank
// takes the smallest any rank passed, e.g. a piece size each rank may choose on its own).
struct Agreed {
    enum class Rule { same, least };
    const char* name;
    std::int64_t value;
    Rule rule = Rule::same;
};

// Runs `checks` (this rank's own argument checks), then agrees over `comm` (collective). Throws
// on every rank alike:
//   - where any rank's checks failed: those ranks their own Error, the others an Error of the same
//     kind naming the first failing rank and its message (broadcast from it);
//   - where a `same` value differs: Errc::invalid_argument naming each value's range and what this
//     rank passed (`passed`, e.g. "1000 elements of float (4000 bytes)").
// `self` names this rank in messages ("rank 2 (opencl device 1 '...')"; empty: "rank 2").
// Returns the values settled, in the order given.
template <typename Checks>
std::vector<std::int64_t> agree(MPI_Comm comm, const char* operation, const std::string& self,
                                Checks&& checks, const std::vector<Agreed>& values,
                                const std::string& passed = "");

// The non-template part: `failure` is what this rank's checks threw (null when they passed).
std::vector<std::int64_t> agree_after(MPI_Comm comm, const char* operation,
                                      const std::string& self, std::exception_ptr failure,
                                      const std::vector<Agreed>& values,
                                      const std::string& passed);

// Collective over `comm`, for steps that fall back instead of throwing: "" where every rank's
// `problem` is empty, else the lowest such rank's, as "<its self>: <its problem>", on every rank.
// `context` names the step in MPI errors.
std::string first_problem(MPI_Comm comm, int rank, const std::string& self,
                          const std::string& problem, const std::string& context);

template <typename Checks>
std::vector<std::int64_t> agree(MPI_Comm comm, const char* operation, const std::string& self,
                                Checks&& checks, const std::vector<Agreed>& values,
                                const std::string& passed) {
    std::exception_ptr failure;
    try {
        checks();
    } catch (...) {
        failure = std::current_exception();
    }
    return agree_after(comm, operation, self, failure, values, passed);
}

}  // namespace dualrt::mpi::detail
