// The blocked product: the result is cut into work items (a batch, a chunk of rows, a group of
// column panels), split over workers in contiguous ranges. A worker converts its chunk of a's
// rows to double once (rows contiguous in k) and packs each panel of kPanelColumns columns of
// op(b) to double, k-major, so that a block of kBlockRows x kPanelColumns sums advances one k
// at a time over contiguous memory, with independent accumulators. Memory: per worker one row
// chunk (about kChunkElements doubles) and one panel (K x kPanelColumns doubles), never a whole
// operand in double (a 50257 x 768 LM head would be 309 MB).
#include "reference/gemm_core.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "ir/shape_rules.h"
#include "reference/kernels.h"
#include "reference/parallel.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

constexpr int64_t kBlockRows = 4;
constexpr int64_t kPanelColumns = 4;
/// Panels per work item: enough work per item to amortize its a-chunk lookup, few enough items
/// per product to balance the workers.
constexpr int64_t kPanelsPerItem = 16;
/// About how many doubles of a's rows a worker holds at once.
constexpr int64_t kChunkElements = int64_t{1} << 18;
/// Multiply-adds below which another worker is not worth a thread.
constexpr double kWorkPerWorker = 1 << 22;

struct ProductLayout {
  int64_t batches = 0, m = 0, n = 0, k = 0;
  bool trans_b = false;
  StridedIndex a_batch, b_batch;
  int64_t chunk_rows = 0, chunks = 0, panels = 0, groups = 0;

  int64_t items() const { return batches * chunks * groups; }
};

/// One worker's buffers: a's current row chunk (padded with zero rows to whole blocks), the
/// current panel and one column of op(b) on its way into the panel.
struct WorkerState {
  std::vector<double> rows, panel, column;
  int64_t batch = -1, chunk = -1;
};

void load_chunk(const ir::Tensor& a, const ProductLayout& p, int64_t bi, int64_t chunk,
                WorkerState& s) {
  const int64_t first = chunk * p.chunk_rows, count = std::min(p.chunk_rows, p.m - first);
  s.rows.assign(static_cast<size_t>(p.chunk_rows * p.k), 0.0);
  a.read_doubles((p.a_batch(bi) * p.m + first) * p.k, count * p.k, s.rows.data());
  s.batch = bi;
  s.chunk = chunk;
}

/// Packs columns [n0, n0 + kPanelColumns) of op(b) (zeros past N): panel[k * kPanelColumns + j].
void pack_panel(const ir::Tensor& b, const ProductLayout& p, int64_t bi, int64_t n0,
                WorkerState& s) {
  const int64_t width = std::min(kPanelColumns, p.n - n0), base = p.b_batch(bi) * p.k * p.n;
  s.panel.assign(static_cast<size_t>(p.k * kPanelColumns), 0.0);
  if (p.trans_b) {  // column n of op(b) is row n of b: contiguous in k
    s.column.resize(static_cast<size_t>(p.k));
    for (int64_t j = 0; j < width; ++j) {
      b.read_doubles(base + (n0 + j) * p.k, p.k, s.column.data());
      for (int64_t kk = 0; kk < p.k; ++kk)
        s.panel[static_cast<size_t>(kk * kPanelColumns + j)] = s.column[static_cast<size_t>(kk)];
    }
    return;
  }
  for (int64_t kk = 0; kk < p.k; ++kk)
    b.read_doubles(base + kk * p.n + n0, width, s.panel.data() + kk * kPanelColumns);
}

/// Two doubles, multiplied and added lane by lane (the GCC and Clang vector extension): IEEE
/// operations per lane, so each lane's sum has the bits of the scalar loop, two at a time.
using Pair = double __attribute__((vector_size(2 * sizeof(double))));
constexpr int64_t kPairs = kPanelColumns / 2;
static_assert(kPanelColumns % 2 == 0);

/// The Rows x kPanelColumns dot products of the rows at `a` (k apart) with the panel, each summed
/// in k order from +0.0, into sums[row * kPanelColumns + column]. The accumulators stay in
/// registers: Rows x kPairs independent chains, so a sum's bits do not depend on Rows.
template <int64_t Rows>
void multiply_block(const double* a, int64_t k, const double* panel, double* sums) {
  Pair acc[Rows][kPairs] = {};
  for (int64_t kk = 0; kk < k; ++kk) {
    Pair column[kPairs];
    std::memcpy(column, panel + kk * kPanelColumns, sizeof column);
#pragma GCC unroll 8
    for (int64_t i = 0; i < Rows; ++i) {
      const double ai = a[i * k + kk];
      const Pair both = {ai, ai};
#pragma GCC unroll 8
      for (int64_t j = 0; j < kPairs; ++j) acc[i][j] += both * column[j];
    }
  }
  std::memcpy(sums, acc, sizeof acc);
}

/// multiply_block for 1 to kBlockRows rows, by the count.
constexpr void (*kMultiplyBlock[])(const double*, int64_t, const double*, double*) = {
    nullptr, multiply_block<1>, multiply_block<2>, multiply_block<3>, multiply_block<4>};
static_assert(std::size(kMultiplyBlock) == kBlockRows + 1);

void run_item(const ir::Tensor& a, const ir::Tensor& b, const ProductLayout& p, int64_t item,
              const EmitFn& emit, WorkerState& s) {
  const int64_t group = item % p.groups, chunk = item / p.groups % p.chunks;
  const int64_t bi = item / (p.groups * p.chunks);
  if (s.batch != bi || s.chunk != chunk) load_chunk(a, p, bi, chunk, s);
  const int64_t first_row = chunk * p.chunk_rows, rows = std::min(p.chunk_rows, p.m - first_row);
  std::array<double, kBlockRows * kPanelColumns> sums{};
  const int64_t last_panel = std::min(p.panels, (group + 1) * kPanelsPerItem);
  for (int64_t panel = group * kPanelsPerItem; panel < last_panel; ++panel) {
    const int64_t n0 = panel * kPanelColumns, width = std::min(kPanelColumns, p.n - n0);
    pack_panel(b, p, bi, n0, s);
    for (int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
      // A last block of 1-3 rows (a decode step's single row) computes only those.
      const int64_t block_rows = std::min(kBlockRows, rows - r0);
      kMultiplyBlock[block_rows](s.rows.data() + r0 * p.k, p.k, s.panel.data(), sums.data());
      for (int64_t i = 0; i < block_rows; ++i) {
        const int64_t out_row = (bi * p.m + first_row + r0 + i) * p.n + n0;
        for (int64_t j = 0; j < width; ++j)
          emit(out_row + j, sums[static_cast<size_t>(i * kPanelColumns + j)]);
      }
    }
  }
}

int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }

}  // namespace

void batched_product(const ir::Tensor& a, const ir::Shape& sa, const ir::Tensor& b,
                     const ir::Shape& sb, bool trans_b, int64_t out_numel, const EmitFn& emit,
                     int workers) {
  INFERNO_CHECK(sa.size() >= 2 && sb.size() >= 2, "gemm operands need rank 2");
  INFERNO_CHECK(ir::shape_numel(sa) == a.numel() && ir::shape_numel(sb) == b.numel(),
                "gemm operand shapes do not match their tensors");
  ProductLayout p;
  p.m = sa[sa.size() - 2];
  p.k = sa.back();
  p.n = trans_b ? sb[sb.size() - 2] : sb.back();
  p.trans_b = trans_b;
  INFERNO_CHECK((trans_b ? sb.back() : sb[sb.size() - 2]) == p.k, "gemm inner dimensions differ");
  const ir::Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Expected<ir::Shape> batch = ir::broadcast_shapes(batch_a, batch_b);
  INFERNO_CHECK(batch.has_value(), "gemm batch dims do not broadcast");
  p.a_batch = broadcast_index(batch_a, *batch);
  p.b_batch = broadcast_index(batch_b, *batch);
  p.batches = ir::shape_numel(*batch);
  INFERNO_CHECK(p.batches * p.m * p.n == out_numel, "gemm output size does not match");
  if (out_numel == 0) return;
  const int64_t chunk_blocks =
      std::max<int64_t>(1, kChunkElements / std::max<int64_t>(p.k, 1) / kBlockRows);
  p.chunk_rows = std::min(chunk_blocks, ceil_div(p.m, kBlockRows)) * kBlockRows;
  p.chunks = ceil_div(p.m, p.chunk_rows);
  p.panels = ceil_div(p.n, kPanelColumns);
  p.groups = ceil_div(p.panels, kPanelsPerItem);
  const double work_per_item = static_cast<double>(p.chunk_rows) *
                               static_cast<double>(kPanelsPerItem * kPanelColumns) *
                               static_cast<double>(std::max<int64_t>(p.k, 1));
  if (workers <= 0) workers = choose_workers(p.items(), work_per_item, kWorkPerWorker);
  parallel_ranges(p.items(), workers, [&](int64_t begin, int64_t end) {
    WorkerState state;
    for (int64_t item = begin; item < end; ++item) run_item(a, b, p, item, emit, state);
  });
}

}  // namespace inferno::reference::detail
