// Running the test model on a GPU: results against the host, validation before launch, CUDA graph
// replay and its address cache, runs inside a caller's capture, and arch checks on a real device.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "inferno/runtime.hpp"
#include "runtime/handles.h"
#include "runtime_test_support.h"

using inferno::test::contains;
using inferno::test::DeviceFloats;
using inferno::test::f32_tensor;
using inferno::test::model_path;
using inferno::test::reference_output;
using inferno::test::same_bits;
using inferno::test::sample_input;
using inferno::test::Stream;

namespace {

int64_t captures(const inferno::Session& session) {
  return session.handle()->session.graph_captures();
}

inferno_status run_c(inferno::Session& session, cudaStream_t stream, const inferno_tensor* inputs,
                     int32_t n_in, const inferno_tensor* outputs, int32_t n_out) {
  return inferno_session_run(session.handle(), stream, inputs, n_in, outputs, n_out);
}

}  // namespace

TEST_CASE("gpu: the model's output matches the host computation", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  DeviceFloats x(32), y(32);
  for (bool graph : {true, false}) {
    INFO("use_cuda_graph " << graph);
    inferno::Session session(model, graph);
    Stream stream;
    for (int seed = 0; seed < 3; ++seed) {
      x.upload(sample_input(seed));
      y.poison();
      session.run(stream.get(), {f32_tensor(x.get())}, {f32_tensor(y.get())});
      stream.sync();
      CHECK(same_bits(y.download(), reference_output(sample_input(seed))));
    }
    // The legacy default stream too: the graph captured above is keyed by addresses, not stream.
    y.poison();
    session.run(nullptr, {f32_tensor(x.get())}, {f32_tensor(y.get())});
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(same_bits(y.download(), reference_output(sample_input(2))));
    CHECK(captures(session) == (graph ? 1 : 0));
  }
}

TEST_CASE("gpu: runs on the legacy default stream are ordered with the caller's work",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);  // graph runs go to the session's side stream, forked and joined
  DeviceFloats x(32), y(32);
  for (int seed = 0; seed < 20; ++seed) {
    const std::vector<float> in = sample_input(seed);
    CUDA_REQUIRE(
        cudaMemcpyAsync(x.get(), in.data(), 32 * sizeof(float), cudaMemcpyHostToDevice, nullptr));
    session.run(nullptr, {f32_tensor(x.get())}, {f32_tensor(y.get())});
    std::vector<float> out(32);  // no synchronization in between: stream order only
    CUDA_REQUIRE(
        cudaMemcpyAsync(out.data(), y.get(), 32 * sizeof(float), cudaMemcpyDeviceToHost, nullptr));
    CUDA_REQUIRE(cudaStreamSynchronize(nullptr));
    INFO("seed " << seed);
    CHECK(same_bits(out, reference_output(in)));
  }
  CHECK(captures(session) == 1);
}

TEST_CASE("gpu: bad tensors are refused before any launch, naming the tensor", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  Stream stream;
  DeviceFloats x(32), y(32);
  x.upload(sample_input(1));
  y.poison();
  const std::vector<float> untouched = y.download();
  const inferno_tensor out = f32_tensor(y.get());

  const auto refused = [&](const inferno_tensor& in, const inferno_tensor& o,
                           const std::string& message) {
    INFO(message);
    CHECK(run_c(session, stream.get(), &in, 1, &o, 1) == INFERNO_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(inferno_last_error()) == message);
  };
  const int64_t short_shape[] = {4, 7};
  refused({x.get(), INFERNO_DTYPE_F32, 2, short_shape}, out,
          "input 'x': expected f32[4,8], got f32[4,7]");
  refused({x.get(), INFERNO_DTYPE_F16, 2, inferno::test::kShape}, out,
          "input 'x': expected f32[4,8], got f16[4,8]");
  refused({x.get(), INFERNO_DTYPE_F32, 1, inferno::test::kShape}, out,
          "input 'x': expected f32[4,8], got f32[4]");
  refused({x.get(), INFERNO_DTYPE_F32, 2, nullptr}, out, "input 'x': shape is null");
  refused(f32_tensor(nullptr), out, "input 'x': data is null");
  refused(f32_tensor(x.get()), {y.get(), INFERNO_DTYPE_F32, 2, short_shape},
          "output 'y': expected f32[4,8], got f32[4,7]");
  std::vector<float> host(32);
  refused(f32_tensor(host.data()), out, "input 'x': data is host memory, not device memory");

  const inferno_tensor two[] = {f32_tensor(x.get()), f32_tensor(x.get())};
  CHECK(run_c(session, stream.get(), two, 2, &out, 1) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(inferno_last_error()) == "expected 1 input, got 2");
  CHECK(run_c(session, stream.get(), nullptr, 1, &out, 1) == INFERNO_STATUS_INVALID_ARGUMENT);

  // Nothing ran: no graph was captured and the output still holds its poison.
  stream.sync();
  CHECK(captures(session) == 0);
  CHECK(same_bits(y.download(), untouched));
}

TEST_CASE("gpu: graph replay gives what a plain run gives", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session graphed(model, true), plain(model, false);
  Stream stream;
  DeviceFloats x(32), y_graph(32), y_plain(32);
  for (int seed = 0; seed < 5; ++seed) {
    x.upload(sample_input(seed));  // new values, same address: the graph reads them on replay
    graphed.run(stream.get(), {f32_tensor(x.get())}, {f32_tensor(y_graph.get())});
    plain.run(stream.get(), {f32_tensor(x.get())}, {f32_tensor(y_plain.get())});
    stream.sync();
    CHECK(same_bits(y_graph.download(), y_plain.download()));
    CHECK(same_bits(y_graph.download(), reference_output(sample_input(seed))));
  }
  CHECK(captures(graphed) == 1);
  CHECK(captures(plain) == 0);
}

TEST_CASE("gpu: changing buffer addresses between runs stays correct", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno_session_options options{};
  REQUIRE(inferno_session_options_default(&options) == INFERNO_STATUS_OK);
  options.graph_cache_size = 2;  // three buffer pairs below: evictions and recaptures
  inferno_session* raw = nullptr;
  REQUIRE(inferno_session_create(model.handle(), &options, &raw) == INFERNO_STATUS_OK);
  Stream stream;
  DeviceFloats xs[3] = {DeviceFloats(32), DeviceFloats(32), DeviceFloats(32)};
  DeviceFloats ys[3] = {DeviceFloats(32), DeviceFloats(32), DeviceFloats(32)};
  for (int i = 0; i < 3; ++i) xs[i].upload(sample_input(10 + i));

  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        INFO("round " << round << " x" << i << " y" << j);
        ys[j].poison();
        const inferno_tensor in = f32_tensor(xs[i].get()), out = f32_tensor(ys[j].get());
        REQUIRE(inferno_session_run(raw, stream.get(), &in, 1, &out, 1) == INFERNO_STATUS_OK);
        stream.sync();
        CHECK(same_bits(ys[j].download(), reference_output(sample_input(10 + i))));
      }
    }
  }
  // Nine address pairs cycling through a cache of two: every run was a miss.
  CHECK(raw->session.graph_captures() == 4 * 9);
  CHECK(inferno_session_destroy(raw) == INFERNO_STATUS_OK);
}

TEST_CASE("gpu: a repeated address pair replays without capturing again", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  Stream stream;
  DeviceFloats a(32), b(32), y(32);
  a.upload(sample_input(1));
  b.upload(sample_input(2));
  for (int i = 0; i < 6; ++i) {
    const DeviceFloats& x = i % 2 == 0 ? a : b;
    session.run(stream.get(), {f32_tensor(x.get())}, {f32_tensor(y.get())});
    stream.sync();
    CHECK(same_bits(y.download(), reference_output(sample_input(i % 2 == 0 ? 1 : 2))));
  }
  CHECK(captures(session) == 2);
}

TEST_CASE("gpu: a run inside the caller's own graph capture becomes part of that graph",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  Stream stream;
  DeviceFloats x(32), y(32);
  x.upload(sample_input(4));
  y.poison();
  CUDA_REQUIRE(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  const inferno_status status = run_c(session, stream.get(), nullptr, 0, nullptr, 0);  // refused,
  CHECK(status == INFERNO_STATUS_INVALID_ARGUMENT);  // capture intact
  session.run(stream.get(), {f32_tensor(x.get())}, {f32_tensor(y.get())});
  cudaGraph_t graph = nullptr;
  CUDA_REQUIRE(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_REQUIRE(cudaGraphLaunch(exec, stream.get()));
  stream.sync();
  CHECK(same_bits(y.download(), reference_output(sample_input(4))));
  CHECK(captures(session) == 0);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_CASE("gpu: a model without machine code for the device is ARCH_MISMATCH", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  int major = 0, minor = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_REQUIRE(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  const std::string device_sm = "sm_" + std::to_string(major * 10 + minor);
  if (device_sm == "sm_75") return;  // the variant would fit this device
  inferno_loaded_model* model = nullptr;
  CHECK(inferno_model_load(model_path("sm75").c_str(), 0, &model) == INFERNO_STATUS_ARCH_MISMATCH);
  CHECK(model == nullptr);
  CHECK(contains(inferno_last_error(), "sm_75"));
  CHECK(contains(inferno_last_error(), device_sm));
  CHECK(inferno_model_load(model_path("good").c_str(), 99, &model) == INFERNO_STATUS_NO_DEVICE);
}

TEST_CASE("gpu: a session keeps its model alive after unload", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno_loaded_model* model = nullptr;
  REQUIRE(inferno_model_load(model_path("good").c_str(), 0, &model) == INFERNO_STATUS_OK);
  inferno_session* session = nullptr;
  REQUIRE(inferno_session_create(model, nullptr, &session) == INFERNO_STATUS_OK);
  REQUIRE(inferno_model_unload(model) == INFERNO_STATUS_OK);
  Stream stream;
  DeviceFloats x(32), y(32);
  x.upload(sample_input(5));
  const inferno_tensor in = f32_tensor(x.get()), out = f32_tensor(y.get());
  REQUIRE(inferno_session_run(session, stream.get(), &in, 1, &out, 1) == INFERNO_STATUS_OK);
  stream.sync();
  CHECK(same_bits(y.download(), reference_output(sample_input(5))));
  CHECK(inferno_session_destroy(session) == INFERNO_STATUS_OK);
}

TEST_CASE("gpu: the C++ wrapper throws the runtime's status and message", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  DeviceFloats y(32);
  try {
    session.run(nullptr, {f32_tensor(nullptr)}, {f32_tensor(y.get())});
    FAIL("run did not throw");
  } catch (const inferno::Error& e) {
    CHECK(e.status() == INFERNO_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(e.what()) == "invalid_argument: input 'x': data is null");
  }
}
