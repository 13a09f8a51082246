// Reference kernel of attention: per batch, query head and query row, the scaled scores against
// every key in double, the causal and explicit masks applied, a softmax in double (max
// subtracted) and the weighted sum of v's rows, rounded once. A row left with no key (every
// score masked or -inf) gives zeros, as the attention op defines. The (batch, head) pairs are
// split over threads (reference/parallel.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/kernels.h"
#include "reference/parallel.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

enum class MaskKind { kNone, kBool, kAdditive };

MaskKind mask_kind(const std::string& s) {
  if (s == "bool") return MaskKind::kBool;
  if (s == "additive") return MaskKind::kAdditive;
  return MaskKind::kNone;
}

}  // namespace

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                 const ir::Attributes& attrs, const TensorType& out) {
  const Shape &qs = q.type.shape, &ks = k.type.shape, &vs = v.type.shape;
  const int64_t batch = qs[0], heads = qs[1], sq = qs[2], d = qs[3];
  const int64_t kv_heads = ks[1], skv = ks[2], dv = vs[3];
  const int64_t groups = attrs.get_int("kv_groups");
  INFERNO_CHECK(groups >= 1 && kv_heads * groups == heads, "attention: bad kv_groups");
  const double scale = attrs.get_float("scale");
  const bool causal = attrs.get_bool("causal");
  const MaskKind kind = mask_kind(attrs.get_string("mask"));
  const Shape scores_shape = {batch, heads, sq, skv};
  StridedIndex mask_at;
  if (mask) mask_at = broadcast_index(mask->type.shape, scores_shape);
  const double neg_inf = -std::numeric_limits<double>::infinity();

  Tensor y = Tensor::zeros(out);
  // One work item per (batch, query head): its output rows are its own, so the items split over
  // workers give the same bits for any split. Each reads its q rows and its kv head's k and v
  // into double once.
  const int64_t items = batch * heads;
  const double work_per_item = static_cast<double>(sq * skv * (d + dv));
  const int workers = choose_workers(items, work_per_item, 1 << 22);
  parallel_ranges(items, workers, [&](int64_t begin, int64_t end) {
    std::vector<double> scores(static_cast<size_t>(skv)), acc(static_cast<size_t>(dv));
    std::vector<double> qd(static_cast<size_t>(sq * d)), kd(static_cast<size_t>(skv * d)),
        vd(static_cast<size_t>(skv * dv));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / heads, h = item % heads, kvh = h / groups;
      q.read_doubles(item * sq * d, sq * d, qd.data());
      k.read_doubles((b * kv_heads + kvh) * skv * d, skv * d, kd.data());
      v.read_doubles((b * kv_heads + kvh) * skv * dv, skv * dv, vd.data());
      for (int64_t i = 0; i < sq; ++i) {
        const double* q_row = qd.data() + i * d;
        double max = neg_inf;
        for (int64_t j = 0; j < skv; ++j) {
          double s = neg_inf;
          const int64_t flat = (item * sq + i) * skv + j;
          const bool kept = (!causal || j <= i) &&
                            (kind != MaskKind::kBool || load_int(*mask, mask_at(flat)) != 0);
          if (kept) {
            const double* k_row = kd.data() + j * d;
            double dot = 0;
            for (int64_t e = 0; e < d; ++e) dot += q_row[e] * k_row[e];
            s = dot * scale;
            if (kind == MaskKind::kAdditive) s += mask->get(mask_at(flat));
          }
          scores[static_cast<size_t>(j)] = s;
          if (s > max) max = s;
        }
        const int64_t y_row = (item * sq + i) * dv;
        if (max == neg_inf) continue;  // no key seen: zeros (a NaN score makes the row NaN below)
        double total = 0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t j = 0; j < skv; ++j) {
          const double p = std::exp(scores[static_cast<size_t>(j)] - max);
          if (p == 0) continue;
          total += p;
          const double* v_row = vd.data() + j * dv;
          for (int64_t e = 0; e < dv; ++e) acc[static_cast<size_t>(e)] += p * v_row[e];
        }
        for (int64_t e = 0; e < dv; ++e) store(y, y_row + e, acc[static_cast<size_t>(e)] / total);
      }
    }
  });
  return y;
}

void register_attention_kernels(KernelTable& table) {
  table.add(ir::OpKind::kAttention,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return attention(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr, node.attrs,
                               out);
            });
}

}  // namespace inferno::reference::detail
