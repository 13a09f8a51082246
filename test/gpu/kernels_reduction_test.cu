// reduce_sum against a host sum in double, over shapes that reach every path: inner == 1 with
// lane groups of every width and block rows (512 and 1024 threads), with and without 16-byte
// packs; inner > 1 with narrow and wide tiles and a thread per column (many columns); reduce of 0
// and 1, outer of 1, rows of 1000, 5000 and 100000; sum and mean. A second run must match the
// first bit for bit.
#include <limits>

#include "kernels/reduction.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::reduce_sum;

struct ReduceShape {
  int64_t outer, reduce, inner;
};

template <typename T>
void check_reduce(const ReduceShape& s, bool mean, std::mt19937_64& rng) {
  char name[160];
  std::snprintf(name, sizeof name, "reduce_sum %s %s outer %lld reduce %lld inner %lld",
                dtype_name<T>(), mean ? "mean" : "sum", static_cast<long long>(s.outer),
                static_cast<long long>(s.reduce), static_cast<long long>(s.inner));
  const std::vector<T> input =
      random_values<T>(static_cast<size_t>(s.outer * s.reduce * s.inner), -1, 1, rng);
  const float scale = mean ? 1.0f / static_cast<float>(s.reduce) : 1.0f;

  // Host reference in double (the mean divides exactly, as the reference interpreter does), and
  // a per-output slack: the kernel adds in float, whose rounding errors grow with the number of
  // terms; sqrt(reduce) * eps * sum|x| bounds the random-walk growth of those errors while a
  // dropped or doubled element still shows up orders of magnitude above it.
  const auto outputs = static_cast<size_t>(s.outer * s.inner);
  std::vector<double> want(outputs), slack(outputs);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      double sum = 0, magnitude = 0;
      for (int64_t r = 0; r < s.reduce; ++r) {
        const double x = to_double(input[static_cast<size_t>((o * s.reduce + r) * s.inner + i)]);
        sum += x;
        magnitude += std::fabs(x);
      }
      const double divisor = mean ? static_cast<double>(s.reduce) : 1.0;
      const auto at = static_cast<size_t>(o * s.inner + i);
      want[at] = sum / divisor;
      slack[at] =
          std::sqrt(static_cast<double>(s.reduce)) * accumulator_epsilon<T>() * magnitude / divisor;
    }
  }

  DeviceBuffer<T> in(input);
  DeviceBuffer<T> out(outputs);
  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    out.poison();
    if (!expect_launch(
            reduce_sum<T>(in.get(), out.get(), s.outer, s.reduce, s.inner, scale, g_stream), name))
      return;
    const std::vector<T> got = out.download();
    if (run == 0) {
      if (!expect_close(name, got, want, tolerance<T>(), slack)) return;
      first = got;
    } else {
      expect_bitwise_equal(std::string(name) + " (second run)", got, first);
    }
  }
}

template <typename T>
void reduction_cases() {
  std::mt19937_64 rng(42);
  const ReduceShape shapes[] = {
      {1, 1, 1},      {7, 1, 1},     {300, 3, 1},  {1000, 17, 1},   {50, 31, 1},   {64, 1000, 1},
      {1, 1000, 1},   {5, 1024, 1},  {3, 1025, 1}, {33, 5000, 1},   {1, 5000, 1},  {300, 2000, 1},
      {1, 100000, 1}, {4, 1000, 33}, {2, 5000, 2}, {1, 1000, 4096}, {5, 3, 7},     {3, 1, 100},
      {64, 50, 1000}, {1, 7, 2},     {1000, 2, 3}, {2, 300, 129},   {1, 3, 70000}, {2, 40, 40000},
  };
  bool mean = false;
  for (const ReduceShape& s : shapes) {
    check_reduce<T>(s, mean, rng);
    mean = !mean;
  }
  check_reduce<T>({1, 1000, 1}, true, rng);

  // reduce == 0: the sum of nothing is 0, its mean 0 * (1 / 0) = NaN (as torch.mean gives).
  DeviceBuffer<T> out(15);
  out.poison();
  if (expect_launch(reduce_sum<T>(nullptr, out.get(), 3, 0, 5, 1.0f, g_stream),
                    "reduce_sum empty rows")) {
    expect_close(std::string("reduce_sum ") + dtype_name<T>() + " sum of nothing", out.download(),
                 std::vector<double>(15, 0.0), tolerance<T>());
  }
  out.poison();
  if (expect_launch(reduce_sum<T>(nullptr, out.get(), 15, 0, 1,
                                  std::numeric_limits<float>::infinity(), g_stream),
                    "reduce_sum empty mean")) {
    expect_close(std::string("reduce_sum ") + dtype_name<T>() + " mean of nothing", out.download(),
                 std::vector<double>(15, std::nan("")), tolerance<T>());
  }
  // No outputs: nothing to launch.
  expect(reduce_sum<T>(nullptr, nullptr, 0, 5, 5, 1.0f, g_stream) == cudaSuccess,
         "reduce_sum no outputs");
  expect(reduce_sum<T>(nullptr, nullptr, -1, 5, 5, 1.0f, g_stream) == cudaErrorInvalidValue,
         "reduce_sum refuses -1");
}

}  // namespace

void run_reduction_tests() {
  reduction_cases<float>();
  reduction_cases<__half>();
  reduction_cases<__nv_bfloat16>();
  reduction_cases<double>();
}

}  // namespace kernels_test
