// layer_norm and group_norm against a host computation in double, over shapes that reach every
// path of kernels/norm.cuh: lane groups of each width and values-per-lane count (length 1 ..
// 1024), block rows with the row cached in shared memory and read again, each with and without
// 16-byte packs (lengths that are and are not multiples of the pack, and pointers one element off
// the pack's alignment), without parameters, with a weight, with both; group_norm with and without
// packs, on [N, C] (spatial 1) and one group. Row 0 is shifted by +1000 (its float mean must keep
// its digits). A second run must match the first bit for bit.
#include "kernels/norm.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::group_norm;
using inferno::kernels::layer_norm;

// The norm of `rows` rows of `length` values, the parameters of element j of row r at
// param(r, j) (w and b may be empty); slack: extra absolute tolerance for the float sums, whose
// relative rounding error grows like sqrt(length) * eps and moves each output by that much of
// its normalized value and of its weight.
template <typename T, typename Param>
void expected_norm(const std::vector<double>& x, const std::vector<double>& w,
                   const std::vector<double>& b, int64_t rows, int64_t length, double eps,
                   Param param, std::vector<double>& want, std::vector<double>& slack) {
  const double sum_error = 4 * std::sqrt(static_cast<double>(length)) * accumulator_epsilon<T>();
  want.assign(x.size(), 0);
  slack.assign(x.size(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const auto at = [&](int64_t j) { return static_cast<size_t>(r * length + j); };
    double mean = 0, squares = 0;
    for (int64_t j = 0; j < length; ++j) mean += x[at(j)];
    mean /= static_cast<double>(length);
    for (int64_t j = 0; j < length; ++j) squares += (x[at(j)] - mean) * (x[at(j)] - mean);
    const double inv_std = 1 / std::sqrt(squares / static_cast<double>(length) + eps);
    for (int64_t j = 0; j < length; ++j) {
      const auto p = static_cast<size_t>(param(r, j));
      const double n = (x[at(j)] - mean) * inv_std;
      const double scale = w.empty() ? 1 : w[p];
      want[at(j)] = n * scale + (b.empty() ? 0 : b[p]);
      slack[at(j)] = sum_error * (std::fabs(n) + 1) * std::fabs(scale);
    }
  }
}

// Random values rounded to T, row 0 shifted by 1000; returns what the kernel sees, as doubles.
template <typename T>
std::vector<T> norm_input(size_t numel, int64_t length, std::mt19937_64& rng) {
  std::vector<double> values = to_doubles(random_values<T>(numel, -3, 3, rng));
  for (int64_t j = 0; j < length && j < static_cast<int64_t>(numel); ++j)
    values[static_cast<size_t>(j)] += 1000;
  std::vector<T> out(numel);
  for (size_t k = 0; k < numel; ++k) out[k] = from_double<T>(values[k]);
  return out;
}

// Runs `launch(in, w, b, out)` twice on buffers whose data starts `offset` elements in (1: off the
// packs' alignment), comparing with want and the two runs with each other.
template <typename T, typename Launch>
void run_twice(const std::string& name, const std::vector<T>& input, const std::vector<T>& w,
               const std::vector<T>& b, size_t offset, const std::vector<double>& want,
               const std::vector<double>& slack, Launch launch) {
  auto padded = [&](const std::vector<T>& v) {
    std::vector<T> p(v.size() + offset, from_double<T>(0));
    std::copy(v.begin(), v.end(), p.begin() + static_cast<std::ptrdiff_t>(offset));
    return p;
  };
  DeviceBuffer<T> in(padded(input)), weight(padded(w)), bias(padded(b));
  DeviceBuffer<T> out(input.size() + offset);
  const T* wp = w.empty() ? nullptr : weight.get() + offset;
  const T* bp = b.empty() ? nullptr : bias.get() + offset;
  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    out.poison();
    if (!expect_launch(launch(in.get() + offset, wp, bp, out.get() + offset), name)) return;
    std::vector<T> got = out.download();
    got.erase(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(offset));
    if (run == 0) {
      if (!expect_close(name, got, want, tolerance<T>(), slack)) return;
      first = got;
    } else {
      expect_bitwise_equal(name + " (second run)", got, first);
    }
  }
}

template <typename T>
void check_layer_norm(int64_t rows, int64_t length, int params, size_t offset,
                      std::mt19937_64& rng) {
  char name[160];
  std::snprintf(name, sizeof name, "layer_norm %s rows %lld length %lld, %d parameters, offset %zu",
                dtype_name<T>(), static_cast<long long>(rows), static_cast<long long>(length),
                params, offset);
  const auto numel = static_cast<size_t>(rows * length);
  const std::vector<T> input = norm_input<T>(numel, length, rng);
  std::vector<T> w, b;
  if (params > 0) w = random_values<T>(static_cast<size_t>(length), -2, 2, rng);
  if (params > 1) b = random_values<T>(static_cast<size_t>(length), -2, 2, rng);
  std::vector<double> want, slack;
  expected_norm<T>(
      to_doubles(input), to_doubles(w), to_doubles(b), rows, length, 1e-5,
      [](int64_t, int64_t j) { return j; }, want, slack);
  run_twice<T>(name, input, w, b, offset, want, slack,
               [&](const T* in, const T* wp, const T* bp, T* out) {
                 return layer_norm<T>(in, wp, bp, out, rows, length, 1e-5, g_stream);
               });
}

template <typename T>
void check_group_norm(int64_t batch, int64_t channels, int64_t spatial, int64_t groups, bool params,
                      size_t offset, std::mt19937_64& rng) {
  char name[192];
  std::snprintf(name, sizeof name, "group_norm %s [%lld, %lld, %lld] in %lld groups%s, offset %zu",
                dtype_name<T>(), static_cast<long long>(batch), static_cast<long long>(channels),
                static_cast<long long>(spatial), static_cast<long long>(groups),
                params ? ", parameters" : "", offset);
  const int64_t per_group = channels / groups, length = per_group * spatial;
  const auto numel = static_cast<size_t>(batch * channels * spatial);
  const std::vector<T> input = norm_input<T>(numel, length, rng);
  std::vector<T> w, b;
  if (params) {
    w = random_values<T>(static_cast<size_t>(channels), -2, 2, rng);
    b = random_values<T>(static_cast<size_t>(channels), -2, 2, rng);
  }
  std::vector<double> want, slack;
  expected_norm<T>(
      to_doubles(input), to_doubles(w), to_doubles(b), batch * groups, length, 1e-5,
      [&](int64_t r, int64_t j) { return (r % groups) * per_group + j / spatial; }, want, slack);
  run_twice<T>(
      name, input, w, b, offset, want, slack, [&](const T* in, const T* wp, const T* bp, T* out) {
        return group_norm<T>(in, wp, bp, out, batch, channels, spatial, groups, 1e-5, g_stream);
      });
}

template <typename T>
void norm_cases() {
  std::mt19937_64 rng(11);
  const int64_t lengths[][2] = {{1, 1},    {5, 1},     {17, 2},    {5, 3},    {100, 7},  {3, 16},
                                {9, 32},   {4, 33},    {8, 64},    {2, 100},  {9, 200},  {4, 500},
                                {64, 768}, {3, 1000},  {7, 1024},  {3, 1025}, {5, 4096}, {3, 5000},
                                {2, 5632}, {2, 11264}, {2, 11265}, {2, 20001}};
  int k = 0;
  for (const auto& s : lengths) {
    check_layer_norm<T>(s[0], s[1], k++ % 3, 0, rng);
    check_layer_norm<T>(s[0], s[1], 2, 1, rng);  // every pointer off the packs' alignment
  }
  const int64_t groups[][4] = {{2, 6, 20, 3},   {2, 8, 64, 4},     {3, 4, 1, 2},    {1, 4, 3000, 1},
                               {2, 32, 49, 32}, {1, 64, 4096, 32}, {1, 8, 9000, 2}, {2, 12, 7, 3}};
  for (const auto& s : groups) {
    check_group_norm<T>(s[0], s[1], s[2], s[3], k++ % 2 == 0, 0, rng);
    check_group_norm<T>(s[0], s[1], s[2], s[3], true, 1, rng);
  }
  expect(layer_norm<T>(nullptr, nullptr, nullptr, nullptr, 4, 0, 1e-5, g_stream) == cudaSuccess,
         "layer_norm of empty rows");
  expect(layer_norm<T>(nullptr, nullptr, nullptr, nullptr, -1, 4, 1e-5, g_stream) ==
             cudaErrorInvalidValue,
         "layer_norm refuses rows -1");
  expect(group_norm<T>(nullptr, nullptr, nullptr, nullptr, 2, 6, 4, 4, 1e-5, g_stream) ==
             cudaErrorInvalidValue,
         "group_norm refuses groups not dividing the channels");
  expect(
      group_norm<T>(nullptr, nullptr, nullptr, nullptr, 2, 6, 0, 3, 1e-5, g_stream) == cudaSuccess,
      "group_norm of an empty spatial extent");
}

}  // namespace

void run_norm_tests() {
  norm_cases<float>();
  norm_cases<__half>();
  norm_cases<__nv_bfloat16>();
  norm_cases<double>();
}

}  // namespace kernels_test
