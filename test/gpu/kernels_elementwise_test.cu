// cast between every pair of the seven dtypes against the reference interpreter's rules, bit for
// bit. (The op expressions themselves are checked through generated code by the op x dtype table,
// test/gpu/op_table_gpu_test.cpp.)
#include <limits>

#include "kernels/elementwise.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

namespace k = inferno::kernels;

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
  cast_from<float>();
  cast_from<double>();
  cast_from<__half>();
  cast_from<__nv_bfloat16>();
  cast_from<int64_t>();
  cast_from<int32_t>();
  cast_from<bool>();
}

}  // namespace kernels_test
