// Helpers shared by the kernel tests (test/gpu/kernels_*_test.cu): device buffers that are
// poisoned with NaN bytes before every launch, random inputs, per-dtype tolerances, and checks
// that count failures and print the first few mismatches.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common.cuh"

namespace kernels_test {

using inferno::kernels::from_double;
using inferno::kernels::to_double;

/// Any failing CUDA call outside a launcher under test ends the program.
#define KT_CUDA(expr)                                                    \
  do {                                                                   \
    const cudaError_t kt_error_ = (expr);                                \
    if (kt_error_ != cudaSuccess) {                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, \
                   cudaGetErrorString(kt_error_));                       \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

inline int g_checks = 0;
inline int g_failures = 0;
inline cudaStream_t g_stream = nullptr;  ///< a non-blocking stream every test launches on
inline bool g_skip_large = false;        ///< leave out the cases that need GiBs of device memory

/// Records one check; prints `what` (and `detail`) when it failed.
inline bool expect(bool ok, const std::string& what, const std::string& detail = "") {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    std::printf("FAIL: %s%s%s\n", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  }
  return ok;
}

/// Launcher status, then the kernel's own errors (synchronizes the test stream).
inline bool expect_launch(cudaError_t launched, const std::string& what) {
  if (!expect(launched == cudaSuccess, what,
              std::string("launcher returned ") + cudaGetErrorString(launched)))
    return false;
  const cudaError_t ran = cudaStreamSynchronize(g_stream);
  return expect(ran == cudaSuccess, what, std::string("kernel failed: ") + cudaGetErrorString(ran));
}

/// Host storage of T: uint8_t for bool (std::vector<bool> packs bits).
template <typename T>
using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    KT_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), bytes() > 0 ? bytes() : 1));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  size_t bytes() const { return count_ * sizeof(T); }
  void upload(const std::vector<T>& host) {
    KT_CUDA(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    KT_CUDA(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  /// All bytes 0xFF: NaN for every floating type, so unwritten elements fail the comparison.
  void poison() const {
    KT_CUDA(cudaMemset(data_, 0xFF, bytes()));
    KT_CUDA(cudaDeviceSynchronize());
  }

 private:
  T* data_ = nullptr;
  size_t count_;
};

template <typename T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, double>) return "f64";
  if constexpr (std::is_same_v<T, __half>) return "f16";
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
  if constexpr (std::is_same_v<T, int64_t>) return "i64";
  if constexpr (std::is_same_v<T, int32_t>) return "i32";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  return "?";
}

struct Tolerance {
  double rtol;
  double atol;
};

/// torch.testing's defaults for each dtype.
template <typename T>
Tolerance tolerance() {
  if constexpr (std::is_same_v<T, double>) return {1e-7, 1e-7};
  if constexpr (std::is_same_v<T, __half>) return {1e-3, 1e-5};
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return {1.6e-2, 1e-5};
  return {1.3e-6, 1e-5};
}

/// Unit roundoff of the accumulator type the kernels use for T.
template <typename T>
double accumulator_epsilon() {
  return std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
}

/// |got - want| <= atol + rtol |want|; NaN matches NaN, an infinity only itself.
inline bool is_close(double got, double want, Tolerance tol, double slack = 0) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want) + slack;
}

/// Compares got[i] with want[i] (plus slack[i] of extra absolute tolerance when given).
template <typename T>
bool expect_close(const std::string& what, const std::vector<T>& got,
                  const std::vector<double>& want, Tolerance tol,
                  const std::vector<double>& slack = {}) {
  if (!expect(got.size() == want.size(), what, "size mismatch")) return false;
  size_t bad = 0;
  std::string detail;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = to_double(got[i]);
    if (is_close(g, want[i], tol, slack.empty() ? 0.0 : slack[i])) continue;
    if (++bad <= 5) {
      char line[160];
      std::snprintf(line, sizeof line, "\n    [%zu] got %.9g want %.9g", i, g, want[i]);
      detail += line;
    }
  }
  if (bad > 5)
    detail += "\n    ... " + std::to_string(bad) + " mismatches of " + std::to_string(got.size());
  return expect(bad == 0, what, detail);
}

/// Bitwise equality of two downloads (determinism, graph replay, exact copies).
template <typename T>
bool expect_bitwise_equal(const std::string& what, const std::vector<T>& a,
                          const std::vector<T>& b) {
  const bool same =
      a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
  return expect(same, what, "not bitwise equal");
}

/// n values uniform in [lo, hi), rounded to T; integers get random bits instead.
template <typename T>
std::vector<T> random_values(size_t n, double lo, double hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> values(n);
  for (auto& v : values) {
    if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(rng());
    } else {
      v = from_double<T>(dist(rng));
    }
  }
  return values;
}

template <typename T>
std::vector<double> to_doubles(const std::vector<T>& values) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = to_double(values[i]);
  return out;
}

inline std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// One entry point per kernel family (kernels_<family>_test.cu).
void run_copy_tests();
void run_reduction_tests();
void run_softmax_tests();
void run_norm_tests();
void run_elementwise_tests();
void run_conv_tests();
void run_attention_tests();
void run_attention_step_tests();
void run_gemv_tests();
void run_gemv_norm_tests();
void run_gemv_pairs_tests();
void run_dependent_launch_tests();
void run_graph_capture_tests();

}  // namespace kernels_test
