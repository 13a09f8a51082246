#include "profile_cmd.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "cupti_kernel_times.h"
#include "generate_cmd.h"
#include "profile_report.h"
#include "run_common.h"

namespace inferno::run {
namespace {

constexpr int kLatencyRuns = 20;
const char* const kDtypeNames[] = {"f32", "f16", "bf16", "f64", "i64", "i32", "bool"};

// The events the hook records: two per step (before, after), created before the run; with
// CUPTI, the step's launches also carry external correlation id step + 1.
struct Recorder {
  std::vector<cudaEvent_t> events;
  cudaError_t error = cudaSuccess;
  CuptiKernelTimes* cupti = nullptr;
};

void record(void* user, int32_t step, int32_t phase, void* stream) {
  auto* recorder = static_cast<Recorder*>(user);
  const size_t at = static_cast<size_t>(step) * 2 + static_cast<size_t>(phase);
  if (step < 0 || phase < 0 || phase > 1 || at >= recorder->events.size()) {
    recorder->error = cudaErrorInvalidValue;  // a step the table does not have
    return;
  }
  if (recorder->cupti != nullptr && phase == 1) recorder->cupti->pop();
  const cudaError_t e = cudaEventRecord(recorder->events[at], static_cast<cudaStream_t>(stream));
  if (e != cudaSuccess) recorder->error = e;
  if (recorder->cupti != nullptr && phase == 0)
    recorder->cupti->push(static_cast<uint64_t>(step) + 1);
}

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e-3;
}

// The median of kLatencyRuns normal runs (graph replays unless --no-graph), by events.
double end_to_end_s(cudaStream_t stream, const std::function<void()>& run_once) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  for (int i = 0; i < kLatencyRuns; ++i) {
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    run_once();  // enqueues after `start`, then waits for the stream
    check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    times.push_back(elapsed_s(start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

DevicePeaks peaks_of(int device, cudaStream_t stream) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int clock_khz = 0;
  check_cuda(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device),
             "cudaDeviceGetAttribute");
  return device_peaks(prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz,
                      copy_bandwidth(stream));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.good()) throw Exit{5, "cannot write '" + path + "'"};
}

}  // namespace

void add_profile_options(CLI::App& app, ProfileArgs& args) {
  app.add_flag("--profile", args.enabled,
               "time each kernel step (one run without a CUDA graph; CUPTI's activity records "
               "when libcupti is found, else CUDA events) and print them by time with their source "
               "op and line, achieved TFLOP/s and GB/s, fraction "
               "of peak, bound class and hints (docs/profiling.md)");
  app.add_option("--trace", args.trace,
                 "with --profile: write a Chrome trace (Perfetto loads it) to this file")
      ->type_name("FILE");
  app.add_option("--roofline", args.roofline,
                 "with --profile: write a roofline picture (SVG) to this file")
      ->type_name("FILE");
}

void profile_command(const ProfileArgs& args, inferno_loaded_model* model, inferno_session* session,
                     cudaStream_t stream, int device, const std::vector<inferno_tensor>& inputs,
                     const std::vector<inferno_tensor>& outputs,
                     const std::function<void()>& run_once) {
  int32_t entries = 0;
  check(inferno_model_num_variants(model, &entries));
  int32_t most_steps = 0;
  for (int32_t e = 0; e < entries; ++e) {
    const inferno_kernel_cost* steps = nullptr;
    int32_t count = 0;
    check(inferno_model_profile_steps(model, e, &steps, &count));
    most_steps = std::max(most_steps, count);
  }
  Recorder recorder;
  recorder.events.resize(static_cast<size_t>(most_steps) * 2);
  for (cudaEvent_t& event : recorder.events) check_cuda(cudaEventCreate(&event), "cudaEventCreate");
  struct Destroy {
    Recorder& r;
    ~Destroy() {
      for (cudaEvent_t event : r.events) cudaEventDestroy(event);
    }
  } destroy{recorder};

  ProfileInput input;
  input.end_to_end_s = end_to_end_s(stream, run_once);
  int32_t entry = 0;
  std::unique_ptr<CuptiKernelTimes> cupti;
  std::string no_cupti;
  for (int pass = 0; pass < 2; ++pass) {  // the first warms up the plain launches' path
    if (pass == 1) {
      cupti = CuptiKernelTimes::start(no_cupti);
      recorder.cupti = cupti.get();
    }
    check(inferno_session_run_profiled(
        session, stream, inputs.data(), static_cast<int32_t>(inputs.size()), outputs.data(),
        static_cast<int32_t>(outputs.size()), record, &recorder, &entry));
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check_cuda(recorder.error, "recording a step's event");
  }
  std::map<uint64_t, KernelSpan> spans;
  if (cupti != nullptr && !cupti->finish(spans, no_cupti)) cupti.reset();
  const inferno_kernel_cost* steps = nullptr;
  int32_t count = 0;
  check(inferno_model_profile_steps(model, entry, &steps, &count));
  // Every step that launches must have its work attributed, or the events time them all.
  for (int32_t i = 0; cupti != nullptr && i < count; ++i) {
    if (steps[i].launches > 0 && spans.count(static_cast<uint64_t>(i) + 1) == 0) {
      no_cupti = "CUPTI attributed no kernel to step " + std::to_string(i);
      cupti.reset();
    }
  }
  if (cupti != nullptr) {
    input.timing = StepTiming::kCupti;
  } else {
    std::fprintf(stderr, "inferno-run: step times from CUDA events (%s)\n", no_cupti.c_str());
  }
  for (int32_t i = 0; i < count; ++i) {
    const inferno_kernel_cost& s = steps[i];
    ProfileStep step;
    step.node = s.node >= 0 ? "%" + std::string(s.node_name) : "(" + std::string(s.node_name) + ")";
    step.op = s.op;
    step.location = s.location;
    step.dtype = kDtypeNames[s.dtype];  // checked by the runtime when it read the table
    step.kernel = s.kernel;
    step.launches = s.launches;
    step.flops = s.flops;
    step.bytes = static_cast<double>(s.bytes_read) + static_cast<double>(s.bytes_written);
    const cudaEvent_t begin = recorder.events[2 * static_cast<size_t>(i)];
    step.start_s = elapsed_s(recorder.events[0], begin);
    step.seconds = elapsed_s(begin, recorder.events[2 * static_cast<size_t>(i) + 1]);
    if (input.timing == StepTiming::kCupti) {
      // The GPU's own times: start from the first step's first kernel, duration the sum of the
      // step's kernels (0 for a step that launched nothing, e.g. an empty tensor's).
      const auto span = spans.find(static_cast<uint64_t>(i) + 1);
      const auto first = spans.find(1);
      step.seconds = span == spans.end() ? 0.0 : static_cast<double>(span->second.kernel_ns) * 1e-9;
      if (span != spans.end() && first != spans.end()) {
        step.start_s = static_cast<double>(
                           span->second.first_start_ns -
                           std::min(first->second.first_start_ns, span->second.first_start_ns)) *
                       1e-9;
      }
    }
    input.steps.push_back(std::move(step));
  }
  input.peaks = peaks_of(device, stream);
  uint64_t weights = 0, arena = 0, workspace = 0, state = 0;
  check(inferno_model_memory_use(model, &weights, &arena, &workspace, &state));
  input.memory = {static_cast<double>(weights), static_cast<double>(arena),
                  static_cast<double>(workspace), static_cast<double>(state)};

  std::printf("%s", profile_report_text(input).c_str());
  if (!args.trace.empty()) write_text(args.trace, chrome_trace_json(input));
  if (!args.roofline.empty()) write_text(args.roofline, roofline_svg(input));
}

}  // namespace inferno::run
