#include "agreement.hpp"

#include "mpi_check.hpp"

#include <dualrt/error.hpp>

namespace dualrt::mpi::detail {
namespace {

// What a failed check threw, as every rank will see it.
struct Failure {
    Errc errc = Errc::invalid_argument;
    std::string message;
};

Failure describe_failure(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const Error& e) {
        return {e.errc(), e.what()};
    } catch (const std::exception& e) {
        return {Errc::backend_failure, e.what()};
    } catch (...) {
        return {Errc::backend_failure, "an exception of unknown type"};
    }
}

// The first failing rank's errc and message, from that rank to every other (collective).
Failure share_failure(MPI_Comm comm, int from, const std::exception_ptr& failure, int rank,
                      const char* operation) {
    Failure shared;
    if (rank == from) shared = describe_failure(failure);
    std::int64_t head[2] = {static_cast<std::int64_t>(shared.errc),
                            static_cast<std::int64_t>(shared.message.size())};
    const std::string context = std::string(operation) + ": telling every rank what failed";
    DUALRT_MPI_CHECK(MPI_Bcast(head, 2, MPI_INT64_T, from, comm), context);
    shared.errc = static_cast<Errc>(head[0]);
    shared.message.resize(static_cast<std::size_t>(head[1]));
    if (head[1] > 0)
        DUALRT_MPI_CHECK(MPI_Bcast(shared.message.data(), static_cast<int>(head[1]), MPI_CHAR,
                                   from, comm),
                         context);
    return shared;
}

}  // namespace

std::vector<std::int64_t> agree_after(MPI_Comm comm, const char* operation,
                                      const std::string& self, std::exception_ptr failure,
                                      const std::vector<Agreed>& values,
                                      const std::string& passed) {
    int rank = 0, size = 1;
    DUALRT_MPI_CHECK(MPI_Comm_rank(comm, &rank), std::string(operation) + ": finding this rank");
    DUALRT_MPI_CHECK(MPI_Comm_size(comm, &size), std::string(operation) + ": counting the ranks");
    const std::string me = self.empty() ? "rank " + std::to_string(rank) : self;
    // One MPI_MAX allreduce: the first failing rank as size - rank (0: none failed), then each
    // value and its negation (their maxima give every value's range).
    std::vector<std::int64_t> all{failure ? size - rank : 0};
    for (const auto& value : values) {
        all.push_back(value.value);
        all.push_back(-value.value);
    }
    DUALRT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()),
                                   MPI_INT64_T, MPI_MAX, comm),
                     std::string(operation) + ": comparing the ranks' arguments");
    if (all[0] != 0) {
        const int first = size - static_cast<int>(all[0]);
        const Failure shared = share_failure(comm, first, failure, rank, operation);
        if (failure) std::rethrow_exception(failure);
        raise(shared.errc, operation,
              "rank " + std::to_string(first) + " failed its checks of this collective call, so " +
                  "no rank went on (" + me + " passed them): " + shared.message);
    }
    std::vector<std::int64_t> settled;
    std::string disagreement;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::int64_t high = all[1 + 2 * i], low = -all[2 + 2 * i];
        settled.push_back(values[i].rule == Agreed::Rule::least ? low : values[i].value);
        if (values[i].rule == Agreed::Rule::least || high == low) continue;
        disagreement += std::string(disagreement.empty() ? "" : "; ") + values[i].name +
                        " ranges from " + std::to_string(low) + " to " + std::to_string(high);
    }
    if (!disagreement.empty())
        raise(Errc::invalid_argument, operation,
              "the ranks disagree: " + disagreement + " (" + me +
                  (passed.empty() ? "" : " passed " + passed) +
                  "); every rank must pass the same arguments");
    return settled;
}

std::string first_problem(MPI_Comm comm, int rank, const std::string& self,
                          const std::string& problem, const std::string& context) {
    struct {
        int bad, rank;
    } mine{problem.empty() ? 0 : 1, rank}, first{0, 0};
    // Among ranks with a problem, MPI_MAXLOC takes the lowest rank.
    DUALRT_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, comm), context);
    if (first.bad == 0) return "";
    std::string text = self + ": " + problem;
    int length = static_cast<int>(text.size());
    DUALRT_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first.rank, comm), context);
    text.resize(static_cast<std::size_t>(length));
    DUALRT_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, first.rank, comm), context);
    return text;
}

}  // namespace dualrt::mpi::detail
