// Two ways of doing one job, measured in turns: what a benchmark compares (dualrt and the native
// baseline, a Pipeline over several devices and one over the fastest alone) runs round by round,
// so that both see the host and the device in the same state. Measured one after the other, the
// second could meet a host the first left slower, and either drifts over a minute of runs.
#pragma once

namespace dualrt::samples {

// Round `round` of two ways: `first` then `second` in even rounds, the other order in odd ones,
// so that neither always runs right after the other.
template <typename First, typename Second>
void in_turns(int round, First&& first, Second&& second) {
    if (round % 2 == 0) {
        first();
        second();
    } else {
        second();
        first();
    }
}

}  // namespace dualrt::samples
