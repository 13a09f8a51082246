// inferno-run: loads a model.so, feeds it .npy inputs (or zeros), saves its outputs as .npy,
// optionally times it or counts the work one run launches; or generates tokens with an LLM
// (--generate, generate_cmd.cpp). Exit codes (as infernoc's): 0 ok, 1
// other error, 3 bad model or input, 4 no device or wrong arch, 5 I/O.
#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "generate_cmd.h"
#include "inferno/runtime.h"
#include "npy.h"
#include "profile_cmd.h"
#include "run_common.h"
#include "run_io.h"

namespace {

using inferno::run::check;
using inferno::run::check_cuda;
using inferno::run::DeviceBuffer;
using inferno::run::Exit;
using inferno::run::Handles;

// Entry point `variant`'s inputs or outputs (variant 0: the model itself).
std::vector<inferno_tensor_desc> describe(const inferno_loaded_model* model, int32_t variant,
                                          bool inputs) {
  int32_t count = 0;
  check(inputs ? inferno_model_variant_num_inputs(model, variant, &count)
               : inferno_model_variant_num_outputs(model, variant, &count));
  std::vector<inferno_tensor_desc> descs(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    check(inputs ? inferno_model_variant_input(model, variant, i, &descs[i])
                 : inferno_model_variant_output(model, variant, i, &descs[i]));
  }
  return descs;
}

// The entry point whose input shapes the --data files have, as the runtime chooses; -1 when
// none has them (the model's own inputs then say what is wrong).
int32_t variant_of_data(const inferno_loaded_model* model,
                        const std::vector<inferno::npy::Array>& arrays) {
  int32_t variants = 0;
  check(inferno_model_num_variants(model, &variants));
  for (int32_t v = 0; v < variants; ++v) {
    const auto descs = describe(model, v, true);
    bool all = descs.size() == arrays.size();
    for (size_t i = 0; i < descs.size() && all; ++i)
      all = arrays[i].shape == std::vector<int64_t>(descs[i].shape, descs[i].shape + descs[i].rank);
    if (all) return v;
  }
  return -1;
}

using inferno::run::type_text;

// States, max_positions, the variants' inputs and whether the model generates.
void print_abi2(const inferno_loaded_model* model) {
  int32_t states = 0;
  check(inferno_model_num_states(model, &states));
  for (int32_t i = 0; i < states; ++i) {
    inferno_state_desc s{};
    uint64_t bytes = 0;
    check(inferno_model_state(model, i, &s, &bytes));
    const std::string init = s.init_offset == INFERNO_STATE_INIT_ZERO
                                 ? "zeros"
                                 : "from the weights at " + std::to_string(s.init_offset);
    std::printf("state  %s: %s, %llu bytes, %s\n", s.tensor.name, type_text(s.tensor).c_str(),
                static_cast<unsigned long long>(bytes), init.c_str());
  }
  int64_t max_positions = 0;
  check(inferno_model_max_positions(model, &max_positions));
  if (max_positions > 0) std::printf("max_positions %lld\n", static_cast<long long>(max_positions));
  int32_t variants = 0;
  check(inferno_model_num_variants(model, &variants));
  for (int32_t v = 1; v < variants; ++v) {
    int32_t inputs = 0;
    check(inferno_model_variant_num_inputs(model, v, &inputs));
    std::string text;
    for (int32_t i = 0; i < inputs; ++i) {
      inferno_tensor_desc d{};
      check(inferno_model_variant_input(model, v, i, &d));
      text += std::string(i > 0 ? ", " : "") + d.name + " " + type_text(d);
    }
    std::printf("variant %d: %s\n", v, text.c_str());
  }
  // The export's dynamic dims: their ranges, where the inputs have them, the sizes compiled.
  int32_t dims = 0, split = -1;
  check(inferno_model_num_dynamic_dims(model, &dims));
  check(inferno_model_split_dim(model, &split));
  for (int32_t d = 0; d < dims; ++d) {
    const char* name = nullptr;
    int64_t min = 0, max = 0;
    int32_t uses = 0;
    check(inferno_model_dynamic_dim(model, d, &name, &min, &max, &uses));
    std::string where, compiled;
    for (int32_t u = 0; u < uses; ++u) {
      int32_t input = 0, axis = 0;
      check(inferno_model_dynamic_dim_use(model, d, u, &input, &axis));
      inferno_tensor_desc desc{};
      check(inferno_model_variant_input(model, 0, input, &desc));
      where += std::string(u > 0 ? ", " : "") + desc.name + " dim " + std::to_string(axis);
      if (u > 0) continue;
      for (int32_t v = 0; v < variants; ++v) {  // each variant's size, once
        check(inferno_model_variant_input(model, v, input, &desc));
        const std::string size = std::to_string(desc.shape[axis]);
        if ((", " + compiled + ",").find(", " + size + ",") == std::string::npos)
          compiled += (compiled.empty() ? "" : ", ") + size;
      }
    }
    std::printf("dynamic dim %s: exported for %lld..%s (%s), compiled for %s%s\n", name,
                static_cast<long long>(min), max < 0 ? "" : std::to_string(max).c_str(),
                where.c_str(), compiled.c_str(),
                d == split ? "; other sizes run as several runs of these" : "");
  }
  int64_t vocab = 0;
  if (inferno_model_vocab_size(model, &vocab) == INFERNO_STATUS_OK) {
    std::printf("generates: vocab %lld\n", static_cast<long long>(vocab));
  }
}

// --check: validate without a GPU and describe the model.
int check_only(const std::string& path, int sm) {
  check(inferno_model_check(path.c_str(), sm));
  Handles h;
  check(inferno_model_load(path.c_str(), INFERNO_DEVICE_NONE, &h.model));
  const inferno_manifest* m = nullptr;
  check(inferno_model_manifest(h.model, &m));
  std::printf("ok: %s (infernoc %s, CUDA %s, archs", path.c_str(), m->compiler_version,
              m->cuda_version);
  for (int32_t i = 0; i < m->num_sm_archs; ++i) std::printf(" sm_%d", m->sm_archs[i]);
  std::printf(")\n");
  for (const auto& d : describe(h.model, 0, true))
    std::printf("input  %s: %s\n", d.name, type_text(d).c_str());
  for (const auto& d : describe(h.model, 0, false))
    std::printf("output %s: %s\n", d.name, type_text(d).c_str());
  print_abi2(h.model);
  return 0;
}

// `micros`: each run's run + sync time; `enqueue`: the run call's own time (the host's cost of a
// call, which the GPU's time does not move: what a binding adds on top of it compares with this).
void print_latency(std::vector<double> micros, std::vector<double> enqueue) {
  std::sort(micros.begin(), micros.end());
  std::sort(enqueue.begin(), enqueue.end());
  const auto at = [&](double q) {
    return micros[static_cast<size_t>(q * static_cast<double>(micros.size() - 1))];
  };
  std::printf(
      "latency over %zu runs (host, run + stream sync): median %.1f us, p90 %.1f us, min %.1f us\n",
      micros.size(), at(0.5), at(0.9), micros.front());
  std::printf("host time of the run call alone (enqueue): median %.2f us\n",
              enqueue[enqueue.size() / 2]);
}

// --count-kernels: captures one run into a CUDA graph of our own and counts its nodes by type.
// This counts what the GPU executes per run (cuBLASLt's kernels included), not what codegen
// intended, so a test asserting it catches an extra launch from any source.
void print_launch_counts(const std::function<void()>& run_on_stream, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
             "cudaStreamBeginCapture");
  run_on_stream();
  check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  size_t count = 0;
  check_cuda(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes");
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) check_cuda(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes");
  int kernels = 0, copies = 0, memsets = 0, other = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    check_cuda(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
    if (type == cudaGraphNodeTypeKernel)
      ++kernels;
    else if (type == cudaGraphNodeTypeMemcpy)
      ++copies;
    else if (type == cudaGraphNodeTypeMemset)
      ++memsets;
    else
      ++other;
  }
  cudaGraphDestroy(graph);
  std::printf("launches per run: %d kernels, %d memcpy, %d memset, %d other\n", kernels, copies,
              memsets, other);
}

struct Options {
  std::string model;
  inferno::run::GenerateArgs generate;
  std::vector<std::string> data;
  std::string save_dir;
  int iters = 0;
  int device = 0;
  bool no_graph = false;
  bool count_kernels = false;
  int check_sm = -1;
  inferno::run::ProfileArgs profile;
};

int run(const Options& opt) {
  if ((!opt.profile.trace.empty() || !opt.profile.roofline.empty()) && !opt.profile.enabled)
    throw Exit{3, "--trace and --roofline are written by --profile"};
  if (opt.check_sm >= 0) return check_only(opt.model, opt.check_sm);
  if (opt.generate.enabled) {
    return inferno::run::generate_command(opt.model, opt.device, !opt.no_graph, opt.generate);
  }

  // The user's files first: a mistyped path fails at once, with or without a GPU.
  std::vector<inferno::npy::Array> arrays;
  for (const std::string& path : opt.data) arrays.push_back(inferno::npy::read(path));
  Handles h;
  check(inferno_model_load(opt.model.c_str(), opt.device, &h.model));
  // The variant the files' shapes pick (a library of several sizes); the model's own otherwise.
  const int32_t picked = arrays.empty() ? 0 : variant_of_data(h.model, arrays);
  auto in_descs = describe(h.model, std::max(picked, 0), true);
  auto out_descs = describe(h.model, std::max(picked, 0), false);
  // No variant has the files' shapes: a model with dynamic dims gets them as they are, so that
  // the run splits along its split dim, or is refused in the dims' terms (outside the range, not
  // compiled, ...).
  int32_t dynamic_dims = 0;
  check(inferno_model_num_dynamic_dims(h.model, &dynamic_dims));
  std::vector<std::vector<int64_t>> split_shapes(out_descs.size());
  if (picked < 0 && dynamic_dims > 0 && arrays.size() == in_descs.size()) {
    std::vector<inferno_tensor> shapes;
    for (size_t i = 0; i < arrays.size(); ++i) {
      in_descs[i].rank = static_cast<int32_t>(arrays[i].shape.size());
      in_descs[i].shape = arrays[i].shape.data();  // the arrays outlive the run
      shapes.push_back({nullptr, in_descs[i].dtype, in_descs[i].rank, in_descs[i].shape});
    }
    // A split run's outputs: their first dim scaled to the files' rows (when the runtime plans
    // none, the run below is refused with its reason).
    for (size_t o = 0; o < out_descs.size(); ++o) {
      std::vector<int64_t>& dims = split_shapes[o];
      dims.resize(static_cast<size_t>(out_descs[o].rank));
      int32_t rank = 0;
      if (inferno_model_output_shape(h.model, shapes.data(), static_cast<int32_t>(shapes.size()),
                                     static_cast<int32_t>(o), dims.data(), out_descs[o].rank,
                                     &rank) == INFERNO_STATUS_OK) {
        out_descs[o].shape = dims.data();
      }
    }
  }
  if (!opt.data.empty() && opt.data.size() != in_descs.size()) {
    throw Exit{3, "the model has " + std::to_string(in_descs.size()) + " inputs, got " +
                      std::to_string(opt.data.size()) + " --data files"};
  }

  // Inputs: read, convert, upload. Outputs: allocate.
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<inferno_tensor> inputs, outputs;
  if (opt.data.empty() && !in_descs.empty()) std::printf("no --data: every input is zeros\n");
  for (size_t i = 0; i < in_descs.size(); ++i) {
    if (opt.data.empty()) {
      const size_t bytes = inferno::run::byte_size(in_descs[i]);
      buffers.push_back(std::make_unique<DeviceBuffer>(bytes));
      check_cuda(cudaMemset(buffers.back()->data, 0, bytes), "cudaMemset of an input");
    } else {
      const auto bytes = inferno::run::input_bytes(arrays[i], in_descs[i], opt.data[i]);
      buffers.push_back(std::make_unique<DeviceBuffer>(bytes.size()));
      check_cuda(
          cudaMemcpy(buffers.back()->data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy of an input");
    }
    const auto& d = in_descs[i];
    inputs.push_back({buffers.back()->data, d.dtype, d.rank, d.shape});
  }
  for (const auto& d : out_descs) {
    buffers.push_back(std::make_unique<DeviceBuffer>(inferno::run::byte_size(d)));
    outputs.push_back({buffers.back()->data, d.dtype, d.rank, d.shape});
  }

  inferno_session_options options{};
  check(inferno_session_options_default(&options));
  options.use_cuda_graph = opt.no_graph ? 0 : 1;
  check(inferno_session_create(h.model, &options, &h.session));
  check_cuda(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const auto enqueue = [&] {
    check(inferno_session_run(h.session, h.stream, inputs.data(),
                              static_cast<int32_t>(inputs.size()), outputs.data(),
                              static_cast<int32_t>(outputs.size())));
  };
  const auto run_once = [&] {
    enqueue();
    check_cuda(cudaStreamSynchronize(h.stream), "cudaStreamSynchronize");
  };
  run_once();
  if (opt.count_kernels) print_launch_counts(enqueue, h.stream);
  if (opt.profile.enabled) {
    inferno::run::profile_command(opt.profile, h.model, h.session, h.stream, opt.device, inputs,
                                  outputs, run_once);
  }

  if (opt.iters > 0) {
    for (int i = 0; i < std::max(3, opt.iters / 10); ++i) run_once();  // warm-up (caches, clocks)
    std::vector<double> micros, enqueue_micros;
    const auto since = [](std::chrono::steady_clock::time_point start) {
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
          .count();
    };
    for (int i = 0; i < opt.iters; ++i) {
      const auto start = std::chrono::steady_clock::now();
      enqueue();
      enqueue_micros.push_back(since(start));
      check_cuda(cudaStreamSynchronize(h.stream), "cudaStreamSynchronize");
      micros.push_back(since(start));
    }
    print_latency(std::move(micros), std::move(enqueue_micros));
  }

  if (!opt.save_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.save_dir, ec);
    if (ec) throw Exit{5, "cannot create '" + opt.save_dir + "': " + ec.message()};
  }
  for (size_t i = 0; i < out_descs.size(); ++i) {
    std::vector<std::byte> bytes(inferno::run::byte_size(out_descs[i]));
    check_cuda(cudaMemcpy(bytes.data(), outputs[i].data, bytes.size(), cudaMemcpyDeviceToHost),
               "cudaMemcpy of an output");
    std::printf("output %zu '%s': %s\n", i, out_descs[i].name, type_text(out_descs[i]).c_str());
    if (opt.save_dir.empty()) continue;
    const auto path = std::filesystem::path(opt.save_dir) / ("out" + std::to_string(i) + ".npy");
    inferno::npy::write(path.string(), inferno::run::output_array(bytes, out_descs[i]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"Run a model.so built by infernoc on .npy inputs", "inferno-run"};
  app.footer(
      "Prints each output's name, dtype and shape; --check prints the model's description "
      "instead.\n"
      "Exit codes: 0 ok, 1 internal or CUDA error, 3 invalid model, input or command line, 4 no "
      "usable\n"
      "GPU (no NVIDIA GPU or driver, or none of the archs the model was built for), 5 I/O error.");
  app.add_option("model", opt.model, "the model.so")->required();
  app.add_option("--data", opt.data,
                 "an input .npy file, one per model input, in order (none: every input is zeros); "
                 "its dtype is the input's, except for 16-bit inputs (--io-precision compute): an "
                 "f16 input takes float16 ('<f2') as it is or float32 ('<f4') rounded to nearest "
                 "even, a bf16 input (NumPy has no bfloat16) takes float32, rounded");
  app.add_option("--save-outputs", opt.save_dir,
                 "write out0.npy, out1.npy, ... to this directory (an f16 output as float16, a "
                 "bf16 output widened exactly to float32)");
  // No description: the option's text says the range, without CLI11's "INT in [0 - 1073741824]".
  const CLI::Validator non_negative = CLI::Range(0, 1 << 30).description("");
  app.add_option("--iters", opt.iters,
                 "after one run, time N more (after a warm-up of max(3, N/10) runs) and print "
                 "the median, p90 and minimum latency in microseconds, as the host sees it (run "
                 "and stream sync; a CUDA graph replay unless --no-graph), then the median "
                 "host time of the run call alone (its enqueue)")
      ->type_name("N")
      ->check(non_negative);
  app.add_option("--device", opt.device, "the CUDA device to run on, by index (default 0)")
      ->type_name("INDEX")
      ->check(non_negative);
  app.add_flag("--no-graph", opt.no_graph, "run without capturing a CUDA graph");
  app.add_flag(
      "--count-kernels", opt.count_kernels,
      "capture one run into a CUDA graph and print how many kernels (and copies) it launches");
  app.add_option("--check", opt.check_sm,
                 "only validate the file and print its inputs and outputs, without a GPU: SM is "
                 "the compute capability it must run on (90 for sm_90; 0: any)")
      ->type_name("SM")
      ->check(non_negative);
  inferno::run::add_generate_options(app, opt.generate);
  inferno::run::add_profile_options(app, opt.profile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "inferno-run: error: %s\nrun 'inferno-run --help' for the options\n",
                 e.what());
    return 3;
  }
  try {
    return run(opt);
  } catch (const Exit& e) {
    std::fprintf(stderr, "inferno-run: error: %s\n", e.message.c_str());
    return e.code;
  } catch (const inferno::npy::Error& e) {
    std::fprintf(stderr, "inferno-run: error: %s\n", e.what());
    return e.io() ? 5 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "inferno-run: error: %s\n", e.what());
    return 1;
  }
}
