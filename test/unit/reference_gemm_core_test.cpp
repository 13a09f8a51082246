// The blocked, threaded product behind the reference's GEMMs (reference/gemm_core.h) against the
// straight triple loop it replaces, bit for bit: row and column tails of its 4 x 4 blocks, several
// row chunks and column groups, more workers than work, broadcast batches, transposed b, K = 0,
// integers summed exactly, every dtype read as Tensor::get reads it, and an error in one
// worker reaching the caller. Then the split itself (reference/parallel.h): ranges that tile the
// items for any worker count, and workers chosen by the work.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "reference/gemm_core.h"
#include "reference/kernels.h"
#include "reference/parallel.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;

/// Row-major flat index of `index` in `shape`, the leading dims of `index` beyond `shape`'s rank
/// dropped and size-1 dims of `shape` read at 0 (broadcasting).
int64_t broadcast_flat(const Shape& shape, const std::vector<int64_t>& index) {
  int64_t flat = 0;
  const size_t lead = index.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : index[lead + d]);
  return flat;
}

/// The straight loop, element by element through Tensor::get: the bits the product must give.
std::vector<double> straight_product(const Tensor& a, const Tensor& b, bool trans_b,
                                     const Shape& batch) {
  const Shape& sa = a.type.shape;
  const Shape& sb = b.type.shape;
  const int64_t m_size = sa[sa.size() - 2], k_size = sa.back();
  const int64_t n_size = trans_b ? sb[sb.size() - 2] : sb.back();
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  std::vector<double> out;
  const int64_t batches = ir::shape_numel(batch);
  for (int64_t bi = 0; bi < batches; ++bi) {
    std::vector<int64_t> index(batch.size());
    for (int64_t rest = bi, d = static_cast<int64_t>(batch.size()); d-- > 0;) {
      index[static_cast<size_t>(d)] = rest % batch[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
    }
    const int64_t a_off = broadcast_flat(batch_a, index) * m_size * k_size;
    const int64_t b_off = broadcast_flat(batch_b, index) * k_size * n_size;
    for (int64_t m = 0; m < m_size; ++m) {
      for (int64_t n = 0; n < n_size; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < k_size; ++k) {
          const int64_t bk = trans_b ? n * k_size + k : k * n_size + n;
          acc += a.get(a_off + m * k_size + k) * b.get(b_off + bk);
        }
        out.push_back(acc);
      }
    }
  }
  return out;
}

/// The product's dots in a plain vector (each index written once: counted).
std::vector<double> blocked_product(const Tensor& a, const Tensor& b, bool trans_b,
                                    int64_t out_numel, int workers) {
  std::vector<double> out(static_cast<size_t>(out_numel), std::numeric_limits<double>::quiet_NaN());
  std::vector<int> writes(static_cast<size_t>(out_numel), 0);
  reference::detail::batched_product(
      a, a.type.shape, b, b.type.shape, trans_b, out_numel,
      [&](int64_t i, double dot) {
        out[static_cast<size_t>(i)] = dot;
        ++writes[static_cast<size_t>(i)];
      },
      workers);
  for (const int w : writes) REQUIRE(w == 1);
  return out;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::bit_cast<uint64_t>(x[i]) != std::bit_cast<uint64_t>(y[i])) return false;
  }
  return true;
}

struct ProductCase {
  Shape a, b;
  bool trans_b;
  Shape batch;
};

}  // namespace

TEST_CASE("the blocked product gives the straight loop's bits for every worker count") {
  const std::vector<ProductCase> cases = {
      {{5, 7}, {7, 11}, false, {}},              // a row tail of 1, a column tail of 3
      {{5, 7}, {11, 7}, true, {}},               // transposed b
      {{1, 3}, {3, 1}, false, {}},               // one element: more workers than items
      {{6, 7}, {7, 9}, false, {}},               // a row tail of 2
      {{3, 9}, {6, 9}, true, {}},                // three rows: one block of 3
      {{8, 16}, {16, 300}, false, {}},           // 75 panels of 4: five column groups of 16
      {{9, 70000}, {3, 70000}, true, {}},        // K this long: chunks of 4 rows, three of them
      {{2, 1, 5, 6}, {3, 6, 4}, false, {2, 3}},  // batches broadcast from both sides
      {{3, 5, 6}, {9, 6}, true, {3}},            // one b for every batch of a, transposed
      {{4, 0}, {0, 5}, false, {}},               // K = 0: every dot is +0.0
  };
  for (const DType dtype : {DType::kF16, DType::kBF16, DType::kF32, DType::kF64}) {
    for (const ProductCase& c : cases) {
      INFO(ir::dtype_name(dtype) << " " << ir::shape_to_string(c.a) << " @ "
                                 << ir::shape_to_string(c.b) << (c.trans_b ? "^T" : ""));
      const Tensor a = test::random_tensor({dtype, c.a}, 1),
                   b = test::random_tensor({dtype, c.b}, 2);
      const std::vector<double> want = straight_product(a, b, c.trans_b, c.batch);
      for (const int workers : {1, 2, 3, 64, 0}) {
        INFO("workers " << workers);
        CHECK(same_bits(
            blocked_product(a, b, c.trans_b, static_cast<int64_t>(want.size()), workers), want));
      }
    }
  }
}

TEST_CASE("the blocked product sums integers exactly and keeps a zero's sign rule") {
  // Products of about 2^40 whose sum stays below 2^53: exact in double, as in int64.
  Tensor a = Tensor::zeros({DType::kI64, {6, 9}}), b = Tensor::zeros({DType::kI64, {9, 10}});
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, (i % 2 ? -1 : 1) * ((int64_t{1} << 20) + i));
  for (int64_t i = 0; i < b.numel(); ++i) b.set(i, (int64_t{1} << 20) - 7 * i);
  const std::vector<double> got = blocked_product(a, b, false, 60, 3);
  for (int64_t m = 0; m < 6; ++m) {
    for (int64_t n = 0; n < 10; ++n) {
      int64_t acc = 0;
      for (int64_t k = 0; k < 9; ++k)
        acc += static_cast<int64_t>(a.get(m * 9 + k)) * static_cast<int64_t>(b.get(k * 10 + n));
      CHECK(got[static_cast<size_t>(m * 10 + n)] == static_cast<double>(acc));
    }
  }
  // Every product -0.0: the sum starts from +0.0, so it is +0.0 (as the straight loop's).
  const Tensor zeros = Tensor::zeros({DType::kF32, {2, 3}});
  Tensor negative = Tensor::zeros({DType::kF32, {3, 2}});
  for (int64_t i = 0; i < negative.numel(); ++i) negative.set(i, -1.0);
  for (const double v : blocked_product(zeros, negative, false, 4, 2)) {
    CHECK(v == 0.0);
    CHECK_FALSE(std::signbit(v));
  }
}

TEST_CASE("the blocked product passes a worker's error to its caller") {
  const Tensor a = test::random_tensor({DType::kF32, {64, 8}}, 4),
               b = test::random_tensor({DType::kF32, {8, 64}}, 5);
  auto fail_once = [](int64_t i, double) {
    if (i == 64 * 64 - 1) throw std::runtime_error("last element");
  };
  CHECK_THROWS_WITH(reference::detail::batched_product(a, a.type.shape, b, b.type.shape, false,
                                                       64 * 64, fail_once, 4),
                    "last element");
}

TEST_CASE("parallel ranges cover every item once and workers follow the work") {
  for (const int64_t count : {0, 1, 5, 64}) {
    for (const int workers : {1, 2, 3, 7, 100}) {
      INFO(count << " items, " << workers << " workers");
      std::mutex mutex;  // Catch2's assertions are not thread-safe: collect, check afterwards
      std::vector<std::pair<int64_t, int64_t>> ranges;
      reference::detail::parallel_ranges(count, workers, [&](int64_t begin, int64_t end) {
        const std::lock_guard<std::mutex> lock(mutex);
        ranges.emplace_back(begin, end);
      });
      std::sort(ranges.begin(), ranges.end());
      CHECK(static_cast<int64_t>(ranges.size()) ==
            std::max<int64_t>(1, std::min<int64_t>(workers, count)));
      int64_t next = 0;  // sorted, the ranges tile [0, count)
      for (const auto& [begin, end] : ranges) {
        CHECK(begin == next);
        CHECK(end >= begin);
        next = end;
      }
      CHECK(next == count);
    }
  }
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CHECK(reference::detail::choose_workers(1000, 1, 1e6) == 1);  // too little work to share
  CHECK(reference::detail::choose_workers(3, 1e9, 1e6) == std::min(3, hardware));
  CHECK(reference::detail::choose_workers(1000, 1e9, 1e6) == hardware);
}

}  // namespace inferno
