// The elementwise functions, run in a kernel the way generated code runs them (load, convert to
// float or double, apply, round on store), against the formulas in double on the host; and cast
// between every pair of the seven dtypes against the reference interpreter's rules, bit for bit.
#include <limits>

#include "kernels/elementwise.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

namespace k = inferno::kernels;

enum class Op { kRelu, kGeluErf, kGeluTanh, kSilu, kSigmoid };
constexpr Op kOps[] = {Op::kRelu, Op::kGeluErf, Op::kGeluTanh, Op::kSilu, Op::kSigmoid};

const char* op_name(Op op) {
  switch (op) {
    case Op::kRelu:
      return "relu";
    case Op::kGeluErf:
      return "gelu_erf";
    case Op::kGeluTanh:
      return "gelu_tanh";
    case Op::kSilu:
      return "silu";
    case Op::kSigmoid:
      return "sigmoid";
  }
  return "?";
}

template <typename A>
__device__ A apply(Op op, A x) {
  switch (op) {
    case Op::kRelu:
      return k::op_relu(x);
    case Op::kGeluErf:
      return k::op_gelu_erf(x);
    case Op::kGeluTanh:
      return k::op_gelu_tanh(x);
    case Op::kSilu:
      return k::op_silu(x);
    case Op::kSigmoid:
      return k::op_sigmoid(x);
  }
  return x;
}

/// As a generated kernel: out[i] = from_acc<T>(op(to_acc(in[i]))).
template <typename T>
__global__ void unary_kernel(const T* in, T* out, int64_t n, Op op) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = k::from_acc<T>(apply(op, k::to_acc(in[i])));
  }
}

/// The reference interpreter's formulas (src/reference/elementwise.cpp).
double reference(Op op, double x) {
  switch (op) {
    case Op::kRelu:
      return x < 0 ? 0.0 : x;
    case Op::kGeluErf:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Op::kGeluTanh:
      return 0.5 * x *
             (1.0 +
              std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case Op::kSilu:
      return x / (1.0 + std::exp(-x));
    case Op::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
  }
  return 0;
}

template <typename T>
void unary_cases() {
  std::vector<double> xs = {0.0, -0.0, 1e-30, -1e-30, 1e-6,     -1e-6,     0.5, -0.5, 1,
                            -1,  3,    -3,    5.5,    -5.5,     20,        -20, 88,   -88,
                            100, -100, 1e4,   -1e4,   INFINITY, -INFINITY, NAN};
  for (int step = 0; step <= 20000; ++step) xs.push_back(-12.0 + 24.0 * step / 20000.0);
  std::vector<T> input(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) input[i] = from_double<T>(xs[i]);
  const std::vector<double> values = to_doubles(input);
  const auto n = static_cast<int64_t>(input.size());
  DeviceBuffer<T> in(input);
  DeviceBuffer<T> out(input.size());
  for (Op op : kOps) {
    const std::string what = std::string(op_name(op)) + " " + dtype_name<T>();
    std::vector<double> want(values.size());
    for (size_t i = 0; i < values.size(); ++i) want[i] = reference(op, values[i]);
    out.poison();
    unary_kernel<T>
        <<<inferno::kernels::grid_size(n, 256), 256, 0, g_stream>>>(in.get(), out.get(), n, op);
    if (expect_launch(cudaGetLastError(), what))
      expect_close(what, out.download(), want, tolerance<T>());
  }
}

// --- cast ---

template <typename To, typename From>
__global__ void cast_kernel(const From* in, To* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = k::cast<To>(in[i]);
}

/// Test inputs of each source type: rounding, truncation toward zero, saturation, NaN and
/// infinities, the int32 and int64 limits, and integers whose double rounding matters.
template <typename From>
std::vector<Storage<From>> cast_inputs() {
  if constexpr (std::is_same_v<From, bool>) {
    return {0, 1};
  } else if constexpr (std::is_integral_v<From>) {
    constexpr int64_t kOne = 1;
    // 2^60 + 2^36 + 1 rounds to a different f32 through double than directly.
    // clang-format off
    const std::vector<int64_t> ints = {
        0, 1, -1, 2, 255, 256, 2047, 65519, 65521, 16777217, 2147483647, -2147483647 - 1,
        kOne << 31, (kOne << 53) + 1, -((kOne << 53) + 1), (kOne << 60) + (kOne << 36) + 1,
        std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
    // clang-format on
    std::vector<From> out;
    for (int64_t v : ints) out.push_back(static_cast<From>(v));  // int32 keeps the low bits
    return out;
  } else {
    // clang-format off
    const double xs[] = {
        0.0, -0.0, 0.5, -0.5, 1.5, -2.7, 2.5, 65504, 65520, 1e5, -1e5, 3e9, -3e9,
        2147483647.0, 2147483648.0, -2147483648.0, -2147483904.0, 9.3e18, -9.3e18,
        9223372036854775807.0, 1e-8, 3.0e38, 1.0000001, 1e300, -1e-300, INFINITY, -INFINITY, NAN};
    // clang-format on
    std::vector<From> out;
    for (double x : xs) out.push_back(from_double<From>(x));
    return out;
  }
}

/// The reference interpreter's cast, written out independently of kernels/elementwise.cuh.
template <typename To, typename From>
Storage<To> reference_cast(Storage<From> x) {
  constexpr bool kFromFloat = inferno::kernels::is_float_type_v<From>;
  constexpr bool kToFloat = inferno::kernels::is_float_type_v<To>;
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kFromFloat) {
      return to_double(x) != 0.0 ? 1 : 0;
    } else {
      return x != 0 ? 1 : 0;
    }
  } else if constexpr (kFromFloat && kToFloat) {
    return from_double<To>(to_double(x));  // the reference holds every value as a double
  } else if constexpr (kFromFloat) {
    const double v = to_double(x);
    constexpr double kHigh = std::is_same_v<To, int32_t> ? 2147483648.0 : 9223372036854775808.0;
    if (std::isnan(v)) return 0;
    if (v <= -kHigh) return std::numeric_limits<To>::min();
    if (v >= kHigh) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (kToFloat) {
    return from_double<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(static_cast<int64_t>(x));
  }
}

template <typename T>
bool same_value(T a, T b) {
  if constexpr (inferno::kernels::is_float_type_v<T>) {
    const double x = to_double(a), y = to_double(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  }
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename To, typename From>
void cast_case() {
  const std::vector<Storage<From>> input = cast_inputs<From>();
  const int n = static_cast<int>(input.size());
  DeviceBuffer<Storage<From>> in(input);
  DeviceBuffer<Storage<To>> out(input.size());
  out.poison();
  const std::string what = std::string("cast ") + dtype_name<From>() + " -> " + dtype_name<To>();
  cast_kernel<To, From><<<1, 64, 0, g_stream>>>(reinterpret_cast<const From*>(in.get()),
                                                reinterpret_cast<To*>(out.get()), n);
  if (!expect_launch(cudaGetLastError(), what)) return;
  const std::vector<Storage<To>> got = out.download();
  std::string detail;
  for (int i = 0; i < n; ++i) {
    const Storage<To> want = reference_cast<To, From>(input[static_cast<size_t>(i)]);
    if (!same_value(got[static_cast<size_t>(i)], want)) {
      detail += "\n    input " + std::to_string(to_double(input[static_cast<size_t>(i)])) +
                ": got " + std::to_string(to_double(got[static_cast<size_t>(i)])) + " want " +
                std::to_string(to_double(want));
    }
  }
  expect(detail.empty(), what, detail);
}

template <typename From>
void cast_from() {
  cast_case<float, From>();
  cast_case<double, From>();
  cast_case<__half, From>();
  cast_case<__nv_bfloat16, From>();
  cast_case<int64_t, From>();
  cast_case<int32_t, From>();
  cast_case<bool, From>();
}

}  // namespace

void run_elementwise_tests() {
  unary_cases<float>();
  unary_cases<__half>();
  unary_cases<__nv_bfloat16>();
  unary_cases<double>();
  cast_from<float>();
  cast_from<double>();
  cast_from<__half>();
  cast_from<__nv_bfloat16>();
  cast_from<int64_t>();
  cast_from<int32_t>();
  cast_from<bool>();
}

}  // namespace kernels_test
