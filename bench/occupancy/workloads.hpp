// The two kernels the occupancy benchmark sweeps, one of each kind:
//   copy_f32   memory-bound: one read and one write per work-item (rate in GB/s)
//   fma_chain  compute-bound: four chains of dependent FMAs per work-item (rate in GFLOP/s)
// Each holds its host input and CPU reference once, and its device buffers for the device being
// measured; every run of a kernel writes the same output, which verify() checks in full.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dualrt::samples::occupancy {

class Workload {
public:
    virtual ~Workload() = default;

    virtual const char* kernel_name() const = 0;  // the built-in kernel ("copy_f32")
    virtual const char* unit() const = 0;         // "GB/s" or "GFLOP/s"
    virtual std::string describe() const = 0;     // sizes and how the rate is counted
    std::size_t elements() const { return elements_; }  // work-items per launch (global range)
    virtual double work() const = 0;              // bytes or flops of one run

    // Allocates the buffers on `device` and uploads the input (blocking); frees those of the
    // device before.
    virtual void prepare(const Device& device, Queue& queue) = 0;
    // Writes NaN over the output, so that an element no run writes is a mismatch.
    virtual void poison(Queue& queue) = 0;
    // Enqueues one run in work-groups of `group_size` work-items.
    virtual void launch(Queue& queue, const Kernel& kernel, std::size_t group_size) = 0;
    // "" when the output matches the CPU reference; else how many elements differ and the first.
    virtual std::string verify(Queue& queue) = 0;
    // Frees the device buffers.
    virtual void release() = 0;

protected:
    explicit Workload(std::size_t elements) : elements_(elements) {}

private:
    std::size_t elements_;
};

// dst[i] = src[i] over `elements` floats of random bits.
class CopyWorkload final : public Workload {
public:
    explicit CopyWorkload(std::size_t elements);
    const char* kernel_name() const override { return "copy_f32"; }
    const char* unit() const override { return "GB/s"; }
    std::string describe() const override;
    double work() const override;
    void prepare(const Device& device, Queue& queue) override;
    void poison(Queue& queue) override;
    void launch(Queue& queue, const Kernel& kernel, std::size_t group_size) override;
    std::string verify(Queue& queue) override;
    void release() override;

private:
    std::vector<float> input_;
    Buffer<float> src_, dst_;
};

// fma_chain over `elements` floats, `iterations` per chain. The inputs are drawn from a table of
// `distinct_inputs` values, in an order a hash of the index decides: the device computes every
// element, while the host computes each table value once, so checking all 2^24 results costs a
// table lookup each rather than 4 * iterations FMAs.
class FmaWorkload final : public Workload {
public:
    FmaWorkload(std::size_t elements, std::uint32_t iterations);
    const char* kernel_name() const override { return "fma_chain"; }
    const char* unit() const override { return "GFLOP/s"; }
    std::string describe() const override;
    double work() const override;
    void prepare(const Device& device, Queue& queue) override;
    void poison(Queue& queue) override;
    void launch(Queue& queue, const Kernel& kernel, std::size_t group_size) override;
    std::string verify(Queue& queue) override;
    void release() override;

    static constexpr std::size_t distinct_inputs = 4096;

private:
    std::uint32_t iterations_;
    std::vector<float> table_;     // the distinct input values, in [1, 2)
    std::vector<float> expected_;  // fma_chain_reference of each table value
    std::vector<std::uint16_t> which_;  // the table entry of each element
    Buffer<float> src_, dst_;
};

}  // namespace dualrt::samples::occupancy
