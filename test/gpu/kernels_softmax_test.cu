// softmax and log_softmax against a host computation in double, over shapes that reach every
// path: lane groups of each width and values-per-lane count (dim 1 .. 1024), block rows with the
// row cached in shared memory and online (dim 1025 .. 20001), columns (inner > 1), each with and
// without 16-byte packs (dims that are and are not multiples of the pack). Row 0 is shifted by
// +1000 (only the max subtraction keeps it finite), row 1 holds one -inf (a masked position) and
// row 2 is all -inf (NaN out). A second run must match the first bit for bit.
#include "kernels/softmax.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::softmax;

struct SoftmaxShape {
  int64_t outer, dim, inner;
};

template <typename T>
void check_softmax(const SoftmaxShape& s, bool log, std::mt19937_64& rng) {
  char name[160];
  std::snprintf(name, sizeof name, "%s %s outer %lld dim %lld inner %lld",
                log ? "log_softmax" : "softmax", dtype_name<T>(), static_cast<long long>(s.outer),
                static_cast<long long>(s.dim), static_cast<long long>(s.inner));
  const auto numel = static_cast<size_t>(s.outer * s.dim * s.inner);
  std::vector<double> values = to_doubles(random_values<T>(numel, -8, 8, rng));
  for (int64_t j = 0; j < s.dim * s.inner; ++j) values[static_cast<size_t>(j)] += 1000;  // o = 0
  if (s.outer > 1 && s.dim > 1)
    values[static_cast<size_t>(s.dim * s.inner)] = -INFINITY;  // o = 1, j = 0, i = 0
  if (s.outer > 2) {  // o = 2 all -inf: NaN, as in the reference and PyTorch
    for (int64_t j = 0; j < s.dim * s.inner; ++j)
      values[static_cast<size_t>(2 * s.dim * s.inner + j)] = -INFINITY;
  }
  std::vector<T> input(numel);
  for (size_t k = 0; k < numel; ++k) input[k] = from_double<T>(values[k]);
  values = to_doubles(input);  // what the kernel sees

  // Reference, with slack for the float sum of dim terms: its relative rounding error grows like
  // sqrt(dim) * eps, which moves softmax by that much relative and log_softmax by that much
  // absolute.
  std::vector<double> want(numel), slack(numel);
  const double sum_error = std::sqrt(static_cast<double>(s.dim)) * accumulator_epsilon<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      const auto at = [&](int64_t j) { return static_cast<size_t>((o * s.dim + j) * s.inner + i); };
      double m = -INFINITY;
      for (int64_t j = 0; j < s.dim; ++j) {
        const double v = values[at(j)];
        if (v > m || std::isnan(v)) m = std::isnan(m) ? m : v;
      }
      double sum = 0;
      for (int64_t j = 0; j < s.dim; ++j) sum += std::exp(values[at(j)] - m);
      for (int64_t j = 0; j < s.dim; ++j) {
        const double shifted = values[at(j)] - m;
        want[at(j)] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
        slack[at(j)] = sum_error * (log ? 1.0 : std::fabs(want[at(j)]));
      }
    }
  }

  DeviceBuffer<T> in(input);
  DeviceBuffer<T> out(numel);
  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    out.poison();
    if (!expect_launch(softmax<T>(in.get(), out.get(), s.outer, s.dim, s.inner, log, g_stream),
                       name))
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
void softmax_cases() {
  std::mt19937_64 rng(7);
  const SoftmaxShape shapes[] = {
      {1, 1, 1},    {5, 1, 1},    {17, 2, 1},   {5, 3, 1},    {1000, 10, 1}, {3, 7, 1},
      {100, 32, 1}, {2, 100, 1},  {9, 200, 1},  {4, 500, 1},  {64, 1000, 1}, {1, 1000, 1},
      {7, 1024, 1}, {3, 1025, 1}, {9, 5000, 1}, {3, 6000, 1}, {3, 20000, 1}, {3, 20001, 1},
      {4, 1000, 3}, {2, 5000, 2}, {3, 1, 5},    {2, 33, 64},  {1, 64, 4096}, {3, 21, 30000},
  };
  for (const SoftmaxShape& s : shapes) {
    check_softmax<T>(s, false, rng);
    check_softmax<T>(s, true, rng);
  }
  expect(softmax<T>(nullptr, nullptr, 4, 0, 1, false, g_stream) == cudaSuccess,
         "softmax of an empty dim");
  expect(softmax<T>(nullptr, nullptr, 4, -2, 1, false, g_stream) == cudaErrorInvalidValue,
         "softmax refuses dim -2");
}

}  // namespace

void run_softmax_tests() {
  softmax_cases<float>();
  softmax_cases<__half>();
  softmax_cases<__nv_bfloat16>();
  softmax_cases<double>();
}

}  // namespace kernels_test
