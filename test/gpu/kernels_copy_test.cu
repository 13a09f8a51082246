// strided_copy against a host gather: contiguous copies (aligned, misaligned, odd tails), tiled
// transposes (partial tiles, batches), rank-5 and rank-8 permutes, expands with stride-0 dims,
// scalars, empty tensors, the 64-bit index path, and refused arguments; copy_spans' batches of
// contiguous copies (aligned, misaligned, empty, many blocks). Copies are exact, so results are
// compared bit for bit.
#include <array>
#include <numeric>
#include <random>

#include "kernels/copy.cuh"
#include "kernels/copy_spans.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::strided_copy;

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

/// A view of a source tensor: the output shape and the source strides.
struct View {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

View permute_view(const std::vector<int64_t>& shape, const std::vector<int>& perm) {
  const std::vector<int64_t> in_strides = contiguous_strides(shape);
  View view;
  for (int d : perm) {
    view.shape.push_back(shape[static_cast<size_t>(d)]);
    view.strides.push_back(in_strides[static_cast<size_t>(d)]);
  }
  return view;
}

/// NumPy broadcasting of `from` to `to`: stride 0 on new and size-1 dims.
View expand_view(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  const std::vector<int64_t> from_strides = contiguous_strides(from);
  View view{to, std::vector<int64_t>(to.size(), 0)};
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1) view.strides[lead + d] = from_strides[d];
  }
  return view;
}

/// Copies the view of a random source of `source_numel` elements placed `offset` elements into
/// its buffer (an offset makes the pointer misaligned for wide words), checks it against the
/// host gather, and checks that a second run is bitwise identical.
template <typename T>
void check_copy(const std::string& name, const View& view, int64_t source_numel, int64_t offset,
                std::mt19937_64& rng) {
  const std::string what =
      std::string("copy ") + dtype_name<T>() + " " + name + " " + shape_string(view.shape);
  const int64_t numel = numel_of(view.shape);
  const std::vector<T> source =
      random_values<T>(static_cast<size_t>(source_numel + offset), -100, 100, rng);
  DeviceBuffer<T> in(source);
  DeviceBuffer<T> out(static_cast<size_t>(numel + offset));
  const int rank = static_cast<int>(view.shape.size());

  std::vector<T> want(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) {
    int64_t rem = i, at = offset;
    for (int d = rank - 1; d >= 0; --d) {
      at += (rem % view.shape[static_cast<size_t>(d)]) * view.strides[static_cast<size_t>(d)];
      rem /= view.shape[static_cast<size_t>(d)];
    }
    want[static_cast<size_t>(i)] = source[static_cast<size_t>(at)];
  }

  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    out.poison();
    if (!expect_launch(strided_copy<T>(in.get() + offset, out.get() + offset, rank,
                                       view.shape.data(), view.strides.data(), numel, g_stream),
                       what)) {
      return;
    }
    std::vector<T> got = out.download();
    got.erase(got.begin(), got.begin() + offset);
    if (run == 0) {
      if (!expect_bitwise_equal(what, got, want)) return;
      first = got;
    } else {
      expect_bitwise_equal(what + " (second run)", got, first);
    }
  }
}

template <typename T>
void copy_cases() {
  std::mt19937_64 rng(1234);
  // Contiguous: the word path with an odd tail, and a misaligned one element at a time.
  check_copy<T>("contiguous", View{{1000003}, {1}}, 1000003, 0, rng);
  check_copy<T>("contiguous 3d", View{{7, 13, 5}, {65, 5, 1}}, 455, 0, rng);
  check_copy<T>("contiguous misaligned", View{{7, 13, 5}, {65, 5, 1}}, 455, 1, rng);
  check_copy<T>("contiguous one", View{{1}, {1}}, 1, 0, rng);
  check_copy<T>("scalar (rank 0)", View{{}, {}}, 1, 0, rng);
  // Transposes and permutes.
  check_copy<T>("transpose", permute_view({513, 257}, {1, 0}), 513 * 257, 0, rng);
  check_copy<T>("transpose batched", permute_view({4, 64, 96}, {0, 2, 1}), 4 * 64 * 96, 0, rng);
  check_copy<T>("permute 5d (4,2,0,3,1)", permute_view({3, 4, 5, 6, 7}, {4, 2, 0, 3, 1}), 2520, 0,
                rng);
  check_copy<T>("permute 5d (0,1,2,4,3)", permute_view({3, 4, 5, 6, 7}, {0, 1, 2, 4, 3}), 2520, 0,
                rng);
  check_copy<T>("permute 5d (1,0,2,3,4) inner contiguous",
                permute_view({3, 4, 5, 6, 8}, {1, 0, 2, 3, 4}), 2880, 0, rng);
  check_copy<T>("permute 5d (0,2,1,3,4) words", permute_view({2, 3, 4, 5, 16}, {0, 2, 1, 3, 4}),
                1920, 0, rng);
  check_copy<T>("permute 5d words misaligned", permute_view({2, 3, 4, 5, 16}, {0, 2, 1, 3, 4}),
                1920, 1, rng);
  check_copy<T>("permute heads (b,s,h,d)->(b,h,s,d)", permute_view({2, 128, 8, 64}, {0, 2, 1, 3}),
                2 * 128 * 8 * 64, 0, rng);
  check_copy<T>("permute tiles with a batch dim between",
                permute_view({2, 40, 3, 50}, {0, 3, 2, 1}), 12000, 0, rng);
  check_copy<T>("permute NCHW -> NHWC", permute_view({2, 64, 17, 19}, {0, 2, 3, 1}),
                2 * 64 * 17 * 19, 0, rng);
  check_copy<T>("permute NHWC -> NCHW misaligned", permute_view({2, 17, 19, 64}, {0, 3, 1, 2}),
                2 * 64 * 17 * 19, 1, rng);
  check_copy<T>("permute with size-1 dims", permute_view({1, 5, 1, 7, 3}, {3, 2, 0, 4, 1}), 105, 0,
                rng);
  check_copy<T>("permute 8d", permute_view({2, 1, 3, 1, 2, 3, 2, 2}, {7, 0, 5, 2, 4, 1, 6, 3}), 144,
                0, rng);
  // Expands (stride 0).
  check_copy<T>("expand rows", expand_view({1, 64}, {128, 64}), 64, 0, rng);
  check_copy<T>("expand columns", expand_view({37, 1}, {37, 129}), 37, 0, rng);
  check_copy<T>("expand new leading dim", expand_view({3, 1, 5}, {2, 3, 4, 5}), 15, 0, rng);
  check_copy<T>("expand scalar", expand_view({}, {4, 5}), 1, 0, rng);
  check_copy<T>("expand 5d", expand_view({1, 3, 1, 4, 1}, {2, 3, 5, 4, 6}), 12, 0, rng);
  // Expand then permute (a stride-0 dim moved inward).
  View mixed = expand_view({6, 1, 8}, {6, 5, 8});
  std::swap(mixed.shape[0], mixed.shape[2]);
  std::swap(mixed.strides[0], mixed.strides[2]);
  check_copy<T>("expand and permute", mixed, 48, 0, rng);

  // Empty output: nothing to do, and nothing written.
  DeviceBuffer<T> empty(1);
  const int64_t zero_shape[] = {3, 0, 4}, zero_strides[] = {0, 4, 1};
  expect(strided_copy<T>(empty.get(), empty.get(), 3, zero_shape, zero_strides, 0, g_stream) ==
             cudaSuccess,
         std::string("copy ") + dtype_name<T>() + " empty");
}

/// Offsets past 2^31 elements take the 64-bit index path. One-byte elements keep it to 2 GiB.
void large_offset_case() {
  const int64_t big = (int64_t{1} << 31) + 4096;
  DeviceBuffer<uint8_t> in(static_cast<size_t>(big));
  KT_CUDA(cudaMemset(in.get(), 0x5A, in.bytes()));
  const int64_t shape[] = {3, 4};
  const int64_t strides[] = {int64_t{1} << 30, 1001};  // the last element sits at 2^31 + 3003
  std::vector<uint8_t> want;
  for (int64_t a = 0; a < 3; ++a) {
    for (int64_t b = 0; b < 4; ++b) {
      const auto value = static_cast<uint8_t>(1 + a * 4 + b);
      KT_CUDA(cudaMemcpy(in.get() + a * strides[0] + b * strides[1], &value, 1,
                         cudaMemcpyHostToDevice));
      want.push_back(value);
    }
  }
  DeviceBuffer<uint8_t> out(12);
  out.poison();
  if (expect_launch(strided_copy<uint8_t>(in.get(), out.get(), 2, shape, strides, 12, g_stream),
                    "copy 64-bit offsets")) {
    expect_bitwise_equal("copy 64-bit offsets", out.download(), want);
  }

  // More than 2^31 output elements: 3 bytes expanded to [750000000, 3] through stride 0.
  const int64_t rows = 750000000;
  const int64_t expand_shape[] = {rows, 3}, expand_strides[] = {0, 1};
  const std::vector<uint8_t> row = {7, 8, 9};
  DeviceBuffer<uint8_t> small(row);
  DeviceBuffer<uint8_t> wide(static_cast<size_t>(rows * 3));
  wide.poison();
  if (expect_launch(strided_copy<uint8_t>(small.get(), wide.get(), 2, expand_shape, expand_strides,
                                          rows * 3, g_stream),
                    "copy 64-bit count")) {
    const std::vector<uint8_t> got = wide.download();
    bool ok = true;
    for (size_t i = 0; i < got.size() && ok; ++i) ok = got[i] == row[i % 3];
    expect(ok, "copy 64-bit count", "wrong element");
  }
}

void refused_arguments() {
  DeviceBuffer<float> buffer(16);
  const int64_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, strides[9] = {};
  expect(strided_copy<float>(buffer.get(), buffer.get(), 9, shape, strides, 1, g_stream) ==
             cudaErrorInvalidValue,
         "copy refuses rank 9");
  const int64_t two[] = {2, 3}, two_strides[] = {3, 1};
  expect(strided_copy<float>(buffer.get(), buffer.get(), 2, two, two_strides, 7, g_stream) ==
             cudaErrorInvalidValue,
         "copy refuses a wrong numel");
  const int64_t negative[] = {2, -3};
  expect(strided_copy<float>(buffer.get(), buffer.get(), 2, negative, two_strides, -6, g_stream) ==
             cudaErrorInvalidValue,
         "copy refuses a negative dim");
  expect(strided_copy<float>(buffer.get(), buffer.get(), -1, nullptr, nullptr, 1, g_stream) ==
             cudaErrorInvalidValue,
         "copy refuses a negative rank");
}

/// copy_spans: spans of several sizes and alignments in one launch, each landing in its own
/// output region with the bytes around it untouched; refused arguments.
void copy_spans_cases() {
  using inferno::kernels::copy_spans;
  using inferno::kernels::CopySpan;
  // (source offset, destination offset, bytes): aligned word copies, a tail, misaligned
  // pointers (byte path), an empty span, one larger than a block's stride.
  const std::vector<std::array<int64_t, 3>> spans = {
      {0, 0, 8}, {16, 64, 48}, {35, 131, 21}, {64, 256, 0}, {128, 512, 16 * 256 * 3 + 5}};
  constexpr int64_t kBytes = 16 * 1024;
  std::mt19937_64 rng(7);
  std::vector<uint8_t> in_host(kBytes), out_host(kBytes, 0xA5);
  for (uint8_t& b : in_host) b = static_cast<uint8_t>(rng());
  DeviceBuffer<uint8_t> in(in_host), out(out_host);
  std::vector<CopySpan> list;
  std::vector<uint8_t> expected = out_host;
  for (const auto& [from, to, bytes] : spans) {
    list.push_back({in.get() + from, out.get() + to, bytes});
    std::copy(in_host.begin() + from, in_host.begin() + from + bytes, expected.begin() + to);
  }
  if (!expect_launch(copy_spans(list.data(), static_cast<int>(list.size()), g_stream),
                     "copy_spans"))
    return;
  expect_bitwise_equal("copy_spans", out.download(), expected);
  expect(copy_spans(list.data(), inferno::kernels::kMaxCopySpans + 1, g_stream) ==
             cudaErrorInvalidValue,
         "copy_spans refuses more spans than a launch holds");
  const CopySpan negative{in.get(), out.get(), -1};
  expect(copy_spans(&negative, 1, g_stream) == cudaErrorInvalidValue,
         "copy_spans refuses a negative size");
  expect(copy_spans(nullptr, 0, g_stream) == cudaSuccess, "copy_spans with no spans");
}

}  // namespace

void run_copy_tests() {
  copy_cases<float>();
  copy_cases<__half>();
  copy_cases<__nv_bfloat16>();
  copy_cases<double>();
  copy_cases<int64_t>();
  copy_cases<int32_t>();
  copy_cases<uint8_t>();  // bool's storage
  if (!g_skip_large) large_offset_case();
  refused_arguments();
  copy_spans_cases();
}

}  // namespace kernels_test
