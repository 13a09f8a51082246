// What `inferno-run --profile` prints and writes, from measured facts: the kernel table sorted by
// time (share, achieved TFLOP/s and GB/s, fraction of the device's peak, a bound class), hints,
// a Chrome trace (Perfetto loads it) and a roofline picture (SVG). Pure CPU code over timings
// and the model's cost table (codegen/kernel_cost.h says how FLOPs and bytes are counted), so
// the tests feed it synthetic timings; the GPU side only measures (docs/profiling.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inferno::run {

/// One profiled step: what the model's cost table says about it, and how long it took.
struct ProfileStep {
  std::string node;      ///< "%add_2"
  std::string op;        ///< "gemm"
  std::string location;  ///< "modeling_llama.py:271", or ""
  std::string dtype;     ///< "f32", "f16", ...
  std::string kernel;    ///< "cublasLt (tensor cores)", ...
  int32_t launches = 1;
  double flops = 0;
  double bytes = 0;    ///< read + written
  double start_s = 0;  ///< from the first step's start
  double seconds = 0;  ///< its launches' GPU time (ProfileInput::timing says how measured)
};

/// The device's roofs: FLOP/s on FMA units and on tensor cores, and memory bandwidth (from a
/// device-to-device copy measured once, not the datasheet).
struct DevicePeaks {
  std::string name;
  double fma_flops_per_s = 0;
  double tensor_flops_per_s = 0;
  double bytes_per_s = 0;
};

/// Peak FLOP/s from the SM count and clock (kHz) for a compute capability: FP32 lanes x 2 per
/// clock per SM, and dense f16 tensor-core FLOPs per clock per SM (0: unknown arch, no tensor
/// roof). Used for the fraction of peak, never as a claim about a particular board.
DevicePeaks device_peaks(const std::string& name, int cc_major, int cc_minor, int sm_count,
                         double clock_khz, double copy_bytes_per_s);

/// Peak device memory by use, in bytes.
struct MemoryUse {
  double weights = 0, arena = 0, workspace = 0, state = 0;
};

/// How the steps were timed: CUPTI's activity records (the GPU's own start and end of each of a
/// step's kernels, copies and memsets, summed), or a pair of CUDA events around each step's
/// launches (when CUPTI is not there), which adds the events' own cost to every step.
enum class StepTiming { kCudaEvents, kCupti };
const char* step_timing_name(StepTiming timing);

struct ProfileInput {
  std::vector<ProfileStep> steps;  ///< in launch order
  StepTiming timing = StepTiming::kCudaEvents;
  double end_to_end_s = 0;  ///< one run measured alone (a CUDA graph replay where possible)
  DevicePeaks peaks;
  MemoryUse memory;
};

enum class Bound { kCompute, kMemory, kLatency };
const char* bound_name(Bound bound);

/// A table row: one step with its derived rates.
struct ProfileRow {
  const ProfileStep* step = nullptr;
  double share = 0;          ///< of the summed step times
  double flops_per_s = 0;    ///< achieved
  double bytes_per_s = 0;    ///< achieved
  double peak_fraction = 0;  ///< of its bound's roof (compute roof or bandwidth)
  Bound bound = Bound::kLatency;
};

/// Steps under this time, doing under a quarter of either roof, are latency-bound.
inline constexpr double kLatencyBoundSeconds = 10e-6;

/// The roof a step's FLOPs run against: tensor cores when its kernel uses them, else FMA units.
double compute_roof(const ProfileStep& step, const DevicePeaks& peaks);

/// The rows, slowest first (ties in launch order). A step is compute-bound when its arithmetic
/// intensity (FLOPs per byte) is above the ridge point of its roofs, memory-bound below it, and
/// latency-bound when it is short (kLatencyBoundSeconds) and reaches under 25% of both roofs.
std::vector<ProfileRow> profile_rows(const ProfileInput& input);

/// The table and its summary: total kernel time, end-to-end latency, launch overhead (their
/// difference), peak memory by use.
std::string profile_table(const ProfileInput& input);

/// Advice drawn from the measurements, one line each (empty when there is none).
std::vector<std::string> profile_hints(const ProfileInput& input);

/// What `inferno-run --profile` prints: the table, then each hint on its own line after "hint: ".
/// tools/bench/profile_table.py parses this text (test/runtime/profile_report_test.cpp feeds it
/// this function's output).
std::string profile_report_text(const ProfileInput& input);

/// A Chrome trace (JSON object format): one complete ("X") event per step, named by its source
/// op, with its kernel, location, FLOPs and bytes in args.
std::string chrome_trace_json(const ProfileInput& input);

/// A log-log roofline: the bandwidth slope, the FMA and tensor roofs, one dot per step.
std::string roofline_svg(const ProfileInput& input);

}  // namespace inferno::run
