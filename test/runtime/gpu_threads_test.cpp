// The thread contract: sessions on many threads share one model and give identical results; one
// session used from two threads at once answers BUSY instead of racing.
// (Catch2 assertions are not thread-safe: worker threads record results, the test thread checks.)
#include <cuda_runtime_api.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "inferno/runtime.hpp"
#include "runtime/handles.h"
#include "runtime_test_support.h"

using inferno::test::f32_tensor;
using inferno::test::model_path;
using inferno::test::reference_output;
using inferno::test::same_bits;
using inferno::test::sample_input;

namespace {

// One worker's buffers and stream, with plain CUDA calls (no Catch2 inside threads).
struct Worker {
  float* x = nullptr;
  float* y = nullptr;
  cudaStream_t stream = nullptr;
  std::string error;  // first failure, empty when all went well

  Worker() {
    if (cudaMalloc(reinterpret_cast<void**>(&x), 32 * sizeof(float)) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&y), 32 * sizeof(float)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      error = "setup failed";
    }
  }
  ~Worker() {
    cudaFree(x);
    cudaFree(y);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs once with input `seed` and checks the output; returns the run's status.
  inferno_status run_and_check(inferno_session* session, int seed) {
    const std::vector<float> in = sample_input(seed);
    cudaMemcpyAsync(x, in.data(), 32 * sizeof(float), cudaMemcpyHostToDevice, stream);
    const inferno_tensor tx = f32_tensor(x), ty = f32_tensor(y);
    const inferno_status status = inferno_session_run(session, stream, &tx, 1, &ty, 1);
    if (status != INFERNO_STATUS_OK) return status;
    std::vector<float> out(32);
    cudaMemcpyAsync(out.data(), y, 32 * sizeof(float), cudaMemcpyDeviceToHost, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess) {
      if (error.empty()) error = "stream failed";
    } else if (!same_bits(out, reference_output(in)) && error.empty()) {
      error = "wrong output for seed " + std::to_string(seed);
    }
    return status;
  }
};

}  // namespace

TEST_CASE("gpu: 16 threads with their own sessions get bitwise identical, correct outputs",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  reference_output(sample_input(0));  // loads the reference weights before the threads start
  constexpr int kThreads = 16;
  constexpr int kRuns = 50;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        inferno::Session session(model);  // created on the worker thread, as an app would
        Worker worker;
        for (int i = 0; i < kRuns && worker.error.empty(); ++i) {
          const inferno_status status = worker.run_and_check(session.handle(), i % 7);
          if (status != INFERNO_STATUS_OK) worker.error = inferno_last_error();
        }
        errors[t] = worker.error;
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(errors[t] == "");
  }
}

TEST_CASE("gpu: a run on a session that is already running answers BUSY", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  Worker worker;
  REQUIRE(worker.error.empty());
  // Hold the session's busy flag as a run in progress would, then run from another thread.
  std::atomic<bool>& busy = session.handle()->session.busy_flag();
  busy.store(true);
  inferno_status from_thread = INFERNO_STATUS_OK;
  std::string message;
  std::thread([&] {
    from_thread = worker.run_and_check(session.handle(), 1);
    message = inferno_last_error();
  }).join();
  CHECK(from_thread == INFERNO_STATUS_BUSY);
  CHECK(message == "session is running on another thread (use one session per thread)");
  busy.store(false);
  CHECK(worker.run_and_check(session.handle(), 1) == INFERNO_STATUS_OK);
  CHECK(worker.error.empty());
}

TEST_CASE("gpu: two threads sharing one session see BUSY or correct results, never corruption",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  constexpr int kRuns = 300;
  Worker workers[2];
  int ok[2] = {0, 0}, busy[2] = {0, 0}, other[2] = {0, 0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
      for (int i = 0; i < kRuns; ++i) {
        const inferno_status s = workers[t].run_and_check(session.handle(), t * 3 + i % 3);
        (s == INFERNO_STATUS_OK ? ok : s == INFERNO_STATUS_BUSY ? busy : other)[t]++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 2; ++t) {
    INFO("thread " << t << ": " << ok[t] << " ok, " << busy[t] << " busy");
    CHECK(workers[t].error.empty());
    CHECK(other[t] == 0);
    CHECK(ok[t] + busy[t] == kRuns);
  }
  WARN("BUSY answers: " << busy[0] + busy[1] << " of " << 2 * kRuns << " runs");
}
