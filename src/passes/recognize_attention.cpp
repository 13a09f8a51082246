#include "passes/recognize_attention.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/shape_rules.h"
#include "passes/canonicalize.h"
#include "passes/node_rebuilder.h"
#include "passes/pattern_match.h"
#include "passes/rewrite.h"
#include "target/target.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// How the matched products sit in the attention op's [B, H, S, D] space.
enum class Space {
  kFour,  ///< 4-D operands (or 3-D reshapes of 4-D values, read through them)
  kFlat,  ///< genuinely 3-D [N, S, D]: the op sees [1, N, S, D]
};

/// An operand of the attention op as found: `v`, of rank 4 (or 3 in the flat space).
struct Operand {
  ir::ValueId v = ir::kNoValue;
  double scale = 1;
  ir::IntList permute;  ///< empty, or the permute of v that gives the operand (built on rewrite)
  ir::Shape reshape;    ///< empty, or the 4-D shape the (permuted) 3-D v is viewed as (built too)
};

/// The operand's shape: v's, permuted, reshaped.
ir::Shape operand_shape(const ir::Graph& graph, const Operand& op) {
  if (!op.reshape.empty()) return op.reshape;
  const ir::Shape& s = graph.type(op.v).shape;
  if (op.permute.empty()) return s;
  ir::Shape out;
  for (int64_t d : op.permute) out.push_back(s[static_cast<size_t>(d)]);
  return out;
}

struct Masks {
  ir::ValueId additive = ir::kNoValue;
  ir::ValueId keep = ir::kNoValue;  ///< bool, or the condition to negate when `negate`
  bool negate = false;
  bool scaled_outside_additive = false;  ///< a scale factor was peeled before any mask
};

struct Match {
  Space space = Space::kFour;
  Operand q, k, v;
  int64_t groups = 1;
  double scale = 1;
  Masks masks;
};

class Matcher {
 public:
  Matcher(const NodeRebuilder& rebuilder, const std::vector<int32_t>& uses,
          const std::vector<bool>& is_output)
      : rb_(rebuilder), g_(rebuilder.graph()), uses_(uses), is_output_(is_output) {}

  std::optional<Match> match(const ir::Node& o) const;
  /// The kv value and group count that K (4-D) repeats, or {K, 1}.
  std::pair<ir::ValueId, int64_t> unrepeat(ir::ValueId k) const;

 private:
  bool single_use(ir::ValueId v) const {
    return uses_[static_cast<size_t>(v)] == 1 && !is_output_[static_cast<size_t>(v)];
  }
  /// v with mul/div by scale constants (that keep v's type) peeled off; the factor in `scale`.
  ir::ValueId peel_scale(ir::ValueId v, double& scale) const;
  /// The 4-D value [B, H, a, b] that the 3-D `v` [B * H, a, b] reshapes, if it does.
  std::optional<ir::ValueId> lift(ir::ValueId v) const;
  /// The kv value k [B, Hkv, a, b] and group count n of the 3-D `v` [B * Hkv * n, a, b] that
  /// reshapes expand(reshape(k -> [B, Hkv, 1, a, b]) -> [B, Hkv, n, a, b]) (torch.export's
  /// core-ATen form of repeat_kv followed by bmm's view: the two reshapes merged).
  std::optional<std::pair<ir::ValueId, int64_t>> lift_repeated(ir::ValueId v) const;
  /// Z: masks and scale factors around the scores gemm, down to q and k.
  bool scores(ir::ValueId z, Masks masks, double scale, int depth, Match& out) const;
  bool product(ir::ValueId s, Masks masks, double scale, Match& out) const;
  bool is_masking_fill(ir::ValueId f) const;
  /// s of where(r, 0, s) with s = softmax(Z) and r true exactly where a row of Z is all -inf.
  std::optional<ir::ValueId> unwrap_row_zeroing(ir::ValueId p) const;

  const NodeRebuilder& rb_;
  const ir::Graph& g_;
  const std::vector<int32_t>& uses_;
  const std::vector<bool>& is_output_;
};

ir::ValueId Matcher::peel_scale(ir::ValueId v, double& scale) const {
  for (int i = 0; i < 4; ++i) {
    const ir::Node* n = rb_.producer(v);
    if (n == nullptr || (n->op != OpKind::kMul && n->op != OpKind::kDiv)) break;
    bool peeled = false;
    for (size_t j = 0; j < 2 && !peeled; ++j) {
      if (n->op == OpKind::kDiv && j == 1) break;
      const ir::ValueId x = n->inputs[j];
      const std::optional<double> c = scale_constant(g_, n->inputs[1 - j]);
      if (!c || g_.type(x) != g_.type(v)) continue;
      scale = n->op == OpKind::kMul ? scale * *c : scale / *c;
      v = x;
      peeled = true;
    }
    if (!peeled) break;
  }
  return v;
}

std::optional<ir::ValueId> Matcher::lift(ir::ValueId v) const {
  const ir::Node* reshape = rb_.producer(v, OpKind::kReshape);
  if (reshape == nullptr) return std::nullopt;
  const ir::Shape& flat = g_.type(v).shape;
  const ir::Shape& four = g_.type(reshape->inputs[0]).shape;
  if (flat.size() != 3 || four.size() != 4 || four[0] * four[1] != flat[0] || four[2] != flat[1] ||
      four[3] != flat[2]) {
    return std::nullopt;
  }
  return reshape->inputs[0];
}

std::optional<std::pair<ir::ValueId, int64_t>> Matcher::lift_repeated(ir::ValueId v) const {
  const ir::Node* merge = rb_.producer(v, OpKind::kReshape);
  if (merge == nullptr) return std::nullopt;
  const ir::Node* expand = rb_.producer(merge->inputs[0], OpKind::kExpand);
  if (expand == nullptr) return std::nullopt;
  const ir::Node* pairs = rb_.producer(expand->inputs[0], OpKind::kReshape);
  if (pairs == nullptr) return std::nullopt;
  const ir::Shape& flat = g_.type(v).shape;
  const ir::Shape& wide = g_.type(merge->inputs[0]).shape;
  const ir::Shape& paired = g_.type(expand->inputs[0]).shape;
  const ir::ValueId base = pairs->inputs[0];
  const ir::Shape& bs = g_.type(base).shape;
  if (flat.size() != 3 || wide.size() != 5 || bs.size() != 4) return std::nullopt;
  const int64_t n = wide[2];
  const bool ok = n >= 1 && flat == ir::Shape{bs[0] * bs[1] * n, bs[2], bs[3]} &&
                  paired == ir::Shape{bs[0], bs[1], 1, bs[2], bs[3]} &&
                  wide == ir::Shape{bs[0], bs[1], n, bs[2], bs[3]};
  if (!ok) return std::nullopt;
  return std::pair<ir::ValueId, int64_t>{base, n};
}

std::pair<ir::ValueId, int64_t> Matcher::unrepeat(ir::ValueId k) const {
  const ir::Shape& ks = g_.type(k).shape;
  const ir::Node* merge = rb_.producer(k, OpKind::kReshape);
  if (ks.size() != 4 || merge == nullptr) return {k, 1};
  const ir::Node* expand = rb_.producer(merge->inputs[0], OpKind::kExpand);
  if (expand == nullptr) return {k, 1};
  const ir::Node* pairs = rb_.producer(expand->inputs[0], OpKind::kReshape);
  if (pairs == nullptr) return {k, 1};
  const ir::Shape& wide = g_.type(merge->inputs[0]).shape;
  const ir::Shape& paired = g_.type(expand->inputs[0]).shape;
  const ir::ValueId base = pairs->inputs[0];
  const ir::Shape& bs = g_.type(base).shape;
  if (wide.size() != 5 || paired.size() != 5 || bs.size() != 4) return {k, 1};
  const int64_t n = wide[2];
  const bool ok = bs[0] == ks[0] && bs[1] * n == ks[1] && bs[2] == ks[2] && bs[3] == ks[3] &&
                  paired == ir::Shape{bs[0], bs[1], 1, bs[2], bs[3]} &&
                  wide == ir::Shape{bs[0], bs[1], n, bs[2], bs[3]};
  if (!ok || n < 1) return {k, 1};
  return {base, n};
}

bool Matcher::is_masking_fill(ir::ValueId f) const {
  const std::optional<double> value = splat_constant(g_, f);
  if (!value) return false;
  if (*value == -std::numeric_limits<double>::infinity() || *value <= -1e9) return true;
  return g_.type(f).dtype == ir::DType::kF16 && *value <= -65504.0;
}

std::optional<ir::ValueId> Matcher::unwrap_row_zeroing(ir::ValueId p) const {
  // where(not(ne(sum(cast(ne(not(eq(Z, -inf)), false), i64), [last], keepdim), 0)), 0,
  //       softmax(Z)): torch 2's _scaled_dot_product_attention_math, `any` decomposed.
  const ir::Node* where = rb_.producer(p, OpKind::kWhere);
  if (where == nullptr) return std::nullopt;
  const ir::ValueId s = where->inputs[2];
  const std::optional<double> fill = splat_constant(g_, where->inputs[1]);
  const ir::Node* softmax = rb_.producer(s, OpKind::kSoftmax);
  if (!fill || *fill != 0 || std::signbit(*fill) || softmax == nullptr ||
      g_.type(s) != g_.type(p) || !single_use(s)) {
    return std::nullopt;
  }
  const ir::ValueId z = softmax->inputs[0];
  const ir::Node* none = rb_.producer(where->inputs[0], OpKind::kLogicalNot);
  const ir::Node* any = none ? rb_.producer(none->inputs[0], OpKind::kNe) : nullptr;
  if (any == nullptr || splat_constant(g_, any->inputs[1]) != 0.0) return std::nullopt;
  const ir::Node* total = rb_.producer(any->inputs[0], OpKind::kSum);
  const int64_t rank = g_.type(z).rank();
  if (total == nullptr || !total->attrs.get_bool("keepdim") ||
      total->attrs.get_ints("dims") != ir::IntList{rank - 1}) {
    return std::nullopt;
  }
  ir::ValueId hit = total->inputs[0];
  if (const ir::Node* count = rb_.producer(hit, OpKind::kCast)) hit = count->inputs[0];
  if (const ir::Node* ne = rb_.producer(hit, OpKind::kNe);
      ne != nullptr && splat_constant(g_, ne->inputs[1]) == 0.0) {
    hit = ne->inputs[0];
  }
  const ir::Node* finite = rb_.producer(hit, OpKind::kLogicalNot);
  const ir::Node* eq = finite ? rb_.producer(finite->inputs[0], OpKind::kEq) : nullptr;
  if (eq == nullptr || g_.type(hit).shape != g_.type(z).shape) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    if (eq->inputs[i] == z &&
        splat_constant(g_, eq->inputs[1 - i]) == -std::numeric_limits<double>::infinity()) {
      return s;
    }
  }
  return std::nullopt;
}

bool Matcher::scores(ir::ValueId z, Masks masks, double scale, int depth, Match& out) const {
  if (depth > 6) return false;
  const ir::TensorType& type = g_.type(z);
  const ir::Node* n = rb_.producer(z);
  if (n == nullptr) return false;
  switch (n->op) {
    case OpKind::kAdd: {
      if (masks.additive != ir::kNoValue || masks.scaled_outside_additive) break;
      for (size_t i = 0; i < 2; ++i) {
        const ir::ValueId s = n->inputs[i], m = n->inputs[1 - i];
        if (g_.type(s) != type || g_.type(m).dtype != type.dtype) continue;
        Masks inner = masks;
        inner.additive = m;
        if (scores(s, inner, scale, depth + 1, out)) return true;
      }
      return false;
    }
    case OpKind::kWhere: {
      if (masks.keep != ir::kNoValue || scale < 0) break;
      const ir::ValueId c = n->inputs[0];
      if (g_.type(c).dtype != ir::DType::kBool) return false;
      for (size_t i = 1; i <= 2; ++i) {
        const ir::ValueId s = n->inputs[i], f = n->inputs[3 - i];
        if (g_.type(s) != type || !is_masking_fill(f)) continue;
        Masks inner = masks;
        inner.keep = c;
        inner.negate = i == 2;  // where(c, f, S): c marks what is masked out
        if (scores(s, inner, scale, depth + 1, out)) return true;
      }
      return false;
    }
    case OpKind::kMul:
    case OpKind::kDiv: {
      double factor = 1;
      const ir::ValueId inner = peel_scale(z, factor);
      if (inner == z) return false;
      Masks m = masks;
      if (m.additive == ir::kNoValue) m.scaled_outside_additive = true;
      return scores(inner, m, scale * factor, depth + 1, out);
    }
    default:
      break;
  }
  return product(z, masks, scale, out);
}

bool Matcher::product(ir::ValueId s, Masks masks, double scale, Match& out) const {
  // S itself, or (in the 4-D space) a reshape of the 3-D product over [B * H, Sq, Skv].
  const ir::ValueId scores4 = s;
  bool inner = false;
  if (out.space == Space::kFour && g_.type(s).rank() == 4) {
    if (const ir::Node* reshape = rb_.producer(s, OpKind::kReshape)) {
      const ir::ValueId g3 = reshape->inputs[0];
      const ir::Shape &four = g_.type(s).shape, &flat = g_.type(g3).shape;
      if (flat.size() != 3 || flat[0] != four[0] * four[1] || flat[1] != four[2] ||
          flat[2] != four[3]) {
        return false;
      }
      inner = true;
      s = peel_scale(g3, scale);
    }
  }
  const ir::Node* gemm = rb_.producer(s, OpKind::kGemm);
  if (gemm == nullptr || gemm->inputs.size() > 3 || gemm->attrs.get_string("activation") != "none")
    return false;
  if (gemm->inputs.size() == 3) {
    // baddbmm(M, q, k^T): alpha q k^T + beta M, M an additive mask when beta is 1 and nothing
    // scales the sum afterwards.
    const ir::ValueId m = gemm->inputs[2];
    if (inner || masks.additive != ir::kNoValue || masks.scaled_outside_additive ||
        gemm->attrs.get_float("beta") != 1.0 || g_.type(m).dtype != g_.type(s).dtype) {
      return false;
    }
    masks.additive = m;
  }
  scale *= gemm->attrs.get_float("alpha");
  // q: scaled, read through the reshape (inner), scaled again.
  Operand q{gemm->inputs[0], 1, {}, {}};
  q.v = peel_scale(q.v, q.scale);
  // [B, H] of the 4-D scores, for 3-D operands that no reshape of a 4-D value gives.
  const ir::Shape& four = g_.type(scores4).shape;
  auto view4 = [&](const ir::Shape& flat) { return ir::Shape{four[0], four[1], flat[1], flat[2]}; };
  if (inner) {
    if (const std::optional<ir::ValueId> lifted = lift(q.v)) {
      q.v = peel_scale(*lifted, q.scale);
    } else {
      q.reshape = view4(g_.type(q.v).shape);
    }
  }
  // k: as q, through the permute when the gemm does not transpose it.
  Operand k{gemm->inputs[1], 1, {}, {}};
  k.v = peel_scale(k.v, k.scale);
  bool k_flat = false;
  if (inner) {
    if (const std::optional<ir::ValueId> lifted = lift(k.v)) {
      k.v = peel_scale(*lifted, k.scale);
    } else {
      k_flat = true;
    }
  }
  if (!gemm->attrs.get_bool("trans_b")) {
    // b = permute(x, dims) is k^T: k = permute(x, dims with its last two swapped), which is x
    // itself when that is the identity (a transpose) and else a permute the rewrite builds (GPT-2
    // permutes [B, S, H, D] to [B, H, D, S] in one step).
    const ir::Node* permute = rb_.producer(k.v, OpKind::kPermute);
    const int64_t rank = g_.type(k.v).rank();
    if (permute == nullptr || rank < 2) return false;
    ir::IntList dims = permute->attrs.get_ints("dims");
    std::swap(dims[static_cast<size_t>(rank - 2)], dims[static_cast<size_t>(rank - 1)]);
    bool identity = true;
    for (int64_t d = 0; d < rank; ++d) identity = identity && dims[static_cast<size_t>(d)] == d;
    k.v = permute->inputs[0];
    if (!identity) k.permute = std::move(dims);
  }
  k.v = peel_scale(k.v, k.scale);
  if (k_flat) k.reshape = view4(operand_shape(g_, k));
  out.q = q;
  out.k = k;
  out.scale = scale * q.scale * k.scale;
  out.masks = masks;
  return true;
}

std::optional<Match> Matcher::match(const ir::Node& o) const {
  if (o.op != OpKind::kGemm || o.inputs.size() != 2 || o.attrs.get_bool("trans_b") ||
      o.attrs.get_float("alpha") != 1.0 || o.attrs.get_string("activation") != "none") {
    return std::nullopt;
  }
  const ir::TensorType& out_type = g_.type(o.outputs.front());
  if (!ir::is_floating(out_type.dtype)) return std::nullopt;
  Match m;
  ir::ValueId p = o.inputs[0], v = o.inputs[1];
  std::optional<std::pair<ir::ValueId, int64_t>> v_repeated;  // v read through GQA's merge
  ir::Shape v_reshape;
  if (!single_use(p)) return std::nullopt;
  if (out_type.rank() == 3) {
    const std::optional<ir::ValueId> p4 = lift(p), v4 = lift(v);
    if (!v4) v_repeated = lift_repeated(v);
    if (p4) {
      if (!single_use(*p4)) return std::nullopt;
      p = *p4;
      const ir::Shape& ps = g_.type(p).shape;
      const ir::Shape& flat = g_.type(v).shape;
      if (v4 || v_repeated) {
        v = v4 ? *v4 : v_repeated->first;
      } else if (flat[0] == ps[0] * ps[1]) {
        v_reshape = {ps[0], ps[1], flat[1], flat[2]};  // a 3-D v [B * H, S, Dv] viewed as 4-D
      } else {
        return std::nullopt;
      }
    } else {
      m.space = Space::kFlat;
    }
  } else if (out_type.rank() != 4) {
    return std::nullopt;
  }
  // torch's SDPA math decomposition zeroes the rows that see no key: the op's own behaviour.
  if (const std::optional<ir::ValueId> inner = unwrap_row_zeroing(p)) p = *inner;
  // P = softmax(Z) over the last dim, or its f32 form cast back.
  const ir::TensorType& p_type = g_.type(p);
  const ir::Node* softmax = rb_.producer(p, OpKind::kSoftmax);
  ir::ValueId z = ir::kNoValue;
  if (softmax == nullptr) {
    const ir::Node* narrow = rb_.producer(p, OpKind::kCast);
    if (narrow == nullptr || !single_use(narrow->inputs[0])) return std::nullopt;
    softmax = rb_.producer(narrow->inputs[0], OpKind::kSoftmax);
    if (softmax == nullptr || g_.type(narrow->inputs[0]).dtype != ir::DType::kF32)
      return std::nullopt;
    const ir::Node* widen = rb_.producer(softmax->inputs[0], OpKind::kCast);
    if (widen == nullptr || g_.type(widen->inputs[0]) != p_type) return std::nullopt;
    z = widen->inputs[0];
  } else {
    z = softmax->inputs[0];
  }
  if (softmax->attrs.get_int("dim") != p_type.rank() - 1) return std::nullopt;
  if (!scores(z, Masks{}, 1.0, 0, m)) return std::nullopt;
  if (!std::isfinite(m.scale) || m.scale == 0) return std::nullopt;
  // v, and GQA's repeated k and v (4-D only).
  m.v = Operand{v, 1, {}, v_reshape};
  auto rank = [&](const Operand& x) { return operand_shape(g_, x).size(); };
  auto as_is = [&](const Operand& x) {
    return x.permute.empty() && x.reshape.empty() ? unrepeat(x.v)
                                                  : std::pair<ir::ValueId, int64_t>{x.v, 1};
  };
  if (m.space == Space::kFour) {
    if (rank(m.q) != 4 || rank(m.k) != 4 || rank(m.v) != 4) return std::nullopt;
    const auto [k_base, k_groups] = as_is(m.k);
    const auto [v_base, v_groups] = v_repeated ? *v_repeated : as_is(m.v);
    if (k_groups == v_groups) {
      m.k.v = k_base;
      m.v.v = v_base;
      m.groups = k_groups;
    }
  } else if (rank(m.q) != 3 || rank(m.k) != 3) {
    return std::nullopt;
  }
  // Shapes: exactly attention's (no batch broadcasting), one dtype.
  auto shape4 = [&](const Operand& x) {
    ir::Shape s = operand_shape(g_, x);
    if (m.space == Space::kFlat) s.insert(s.begin(), 1);
    return s;
  };
  const ir::Shape qs = shape4(m.q), ks = shape4(m.k), vs = shape4(m.v);
  const ir::DType dtype = g_.type(m.q.v).dtype;
  if (g_.type(m.k.v).dtype != dtype || g_.type(m.v.v).dtype != dtype || dtype != out_type.dtype ||
      g_.type(z).dtype != dtype || qs.size() != 4 || ks.size() != 4 || vs.size() != 4 ||
      ks[0] != qs[0] || vs[0] != qs[0] || ks[1] * m.groups != qs[1] || vs[1] != ks[1] ||
      ks[3] != qs[3] || vs[2] != ks[2] || g_.type(z).shape.back() != ks[2] ||
      g_.type(z).shape[g_.type(z).shape.size() - 2] != qs[2]) {
    return std::nullopt;
  }
  // Only what codegen's attention runs (target/target.h); otherwise the written-out form, which
  // it runs, stays.
  if (!target::attention_fits(qs[3], vs[3], qs[0], qs[1])) return std::nullopt;
  return m;
}

/// Whether the constant `c` has the shape [1, ..., 1, Sq, Skv] and, as a keep mask (negated
/// when `negate`), keeps exactly j <= i.
bool is_causal_keep(const ir::Graph& graph, ir::ValueId c, bool negate, int64_t sq, int64_t skv) {
  const ir::Value& value = graph.value(c);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr) return false;
  const ir::Shape& s = value.type.shape;
  if (s.size() < 2 || s[s.size() - 2] != sq || s.back() != skv || value.type.numel() != sq * skv)
    return false;
  for (int64_t i = 0; i < sq; ++i) {
    for (int64_t j = 0; j < skv; ++j) {
      const bool keep = (value.constant->get(i * skv + j) != 0) != negate;
      if (keep != (j <= i)) return false;
    }
  }
  return true;
}

/// Whether the additive constant `c` [1, ..., 1, Sq, Skv] is 0 for j <= i and masking above.
bool is_causal_additive(const ir::Graph& graph, ir::ValueId c, int64_t sq, int64_t skv) {
  const ir::Value& value = graph.value(c);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr) return false;
  const ir::Shape& s = value.type.shape;
  if (s.size() < 2 || s[s.size() - 2] != sq || s.back() != skv || value.type.numel() != sq * skv)
    return false;
  for (int64_t i = 0; i < sq; ++i) {
    for (int64_t j = 0; j < skv; ++j) {
      const double x = value.constant->get(i * skv + j);
      if (j <= i ? x != 0 : !(x == -std::numeric_limits<double>::infinity() || x <= -1e9))
        return false;
    }
  }
  return true;
}

/// Whether a constant mask (as a keep mask, negated when `negate`; or additive) leaves some query
/// row without a key: the written-out form gives NaN or a mean there, the op zeros, so the rewrite
/// would not be exact. Masks computed at run time cannot be checked (see the header).
bool masks_a_whole_row(const ir::Graph& graph, ir::ValueId c, bool negate, bool additive) {
  const ir::Value& value = graph.value(c);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr) return false;
  const int64_t numel = value.type.numel();
  const int64_t row = value.type.rank() == 0 ? 1 : value.type.shape.back();
  if (row == 0) return false;
  for (int64_t begin = 0; begin < numel; begin += row) {
    bool any_kept = false;
    for (int64_t j = 0; j < row && !any_kept; ++j) {
      const double x = value.constant->get(begin + j);
      any_kept = additive ? x != -std::numeric_limits<double>::infinity() : (x != 0) != negate;
    }
    if (!any_kept) return true;
  }
  return false;
}

struct Rewriter {
  NodeRebuilder& rb;
  const std::vector<int32_t>& uses;
  const std::vector<bool>& is_output;
  bool changed = false;

  Expected<ir::ValueId> reshaped(ir::ValueId v, ir::Shape shape, const ir::Node& at) {
    ir::Attributes attrs;
    attrs.set("shape", std::move(shape));
    return rb.build(OpKind::kReshape, {v}, std::move(attrs), rb.graph().name(v) + "_4d", at.loc);
  }

  // An attention node already (torch's sdpa, from the frontend) over GQA's repeated k and v
  // (transformers' repeat_kv: unsqueeze, expand, reshape) reads the kv heads in place instead,
  // its kv_groups multiplied by the repeat: no copy of the cache per query head.
  bool lift_repeats(ir::Node& node) {
    const Matcher matcher(rb, uses, is_output);
    const auto [k, k_groups] = matcher.unrepeat(node.inputs[1]);
    const auto [v, v_groups] = matcher.unrepeat(node.inputs[2]);
    if (k_groups == 1 || k_groups != v_groups) return false;
    node.inputs[1] = k;
    node.inputs[2] = v;
    node.attrs.set("kv_groups", node.attrs.get_int("kv_groups") * k_groups);
    changed = true;
    return true;
  }

  Expected<bool> rewrite(ir::Node& node) {
    if (node.op == OpKind::kAttention) return lift_repeats(node);
    const Matcher matcher(rb, uses, is_output);
    std::optional<Match> m = matcher.match(node);
    if (!m) return false;
    ir::Graph& graph = rb.graph();
    const int64_t sq = graph.type(m->q.v).shape[graph.type(m->q.v).rank() - 2];
    const ir::Shape k_shape = operand_shape(graph, m->k);
    const int64_t skv = k_shape[k_shape.size() - 2];
    bool causal = false;
    ir::ValueId mask = ir::kNoValue;
    std::string kind = "none";
    if (m->masks.keep != ir::kNoValue &&
        is_causal_keep(graph, m->masks.keep, m->masks.negate, sq, skv)) {
      causal = true;
      m->masks.keep = ir::kNoValue;
    }
    if (m->masks.additive != ir::kNoValue && !causal &&
        is_causal_additive(graph, m->masks.additive, sq, skv)) {
      causal = true;
      m->masks.additive = ir::kNoValue;
    }
    if (m->masks.keep != ir::kNoValue && m->masks.additive != ir::kNoValue) return false;
    if ((m->masks.keep != ir::kNoValue &&
         masks_a_whole_row(graph, m->masks.keep, m->masks.negate, false)) ||
        (m->masks.additive != ir::kNoValue &&
         masks_a_whole_row(graph, m->masks.additive, false, true))) {
      return false;
    }
    // Masks must broadcast to the op's scores [B, Hq, Sq, Skv] (rank 4 at most).
    const ir::ValueId given = m->masks.keep != ir::kNoValue ? m->masks.keep : m->masks.additive;
    if (given != ir::kNoValue) {
      const ir::Shape& qs = graph.type(m->q.v).shape;
      const ir::Shape scores = {m->space == Space::kFlat ? 1 : qs[0], qs[qs.size() - 3], sq, skv};
      const Expected<ir::Shape> joined = ir::broadcast_shapes(graph.type(given).shape, scores);
      if (graph.type(given).rank() > 4 || !joined || *joined != scores) return false;
    }
    // Build: operands in 4-D, the mask, the op.
    std::vector<ir::ValueId> inputs;
    for (Operand* op : {&m->q, &m->k, &m->v}) {
      ir::ValueId x = op->v;
      if (!op->permute.empty()) {
        ir::Attributes dims;
        dims.set("dims", op->permute);
        INFERNO_ASSIGN_OR_RETURN(
            x, rb.build(OpKind::kPermute, {x}, std::move(dims), graph.name(x) + "_k", node.loc));
      }
      if (!op->reshape.empty()) {
        INFERNO_ASSIGN_OR_RETURN(x, reshaped(x, op->reshape, node));
      }
      if (m->space == Space::kFlat) {
        ir::Shape s = graph.type(x).shape;
        s.insert(s.begin(), 1);
        INFERNO_ASSIGN_OR_RETURN(x, reshaped(x, std::move(s), node));
      }
      inputs.push_back(x);
    }
    if (m->masks.keep != ir::kNoValue) {
      kind = "bool";
      mask = m->masks.keep;
      if (m->masks.negate) {
        const ir::Value& value = graph.value(mask);
        if (value.kind == ir::ValueKind::kConstant && value.constant != nullptr) {
          ir::Tensor kept = ir::Tensor::zeros(value.type);
          for (int64_t i = 0; i < kept.numel(); ++i)
            kept.set(i, value.constant->get(i) != 0 ? 0.0 : 1.0);
          mask = graph.add_constant(graph.name(mask) + "_keep", std::move(kept));
        } else {
          INFERNO_ASSIGN_OR_RETURN(mask, rb.build(OpKind::kLogicalNot, {mask}, {},
                                                  graph.name(mask) + "_keep", node.loc));
        }
      }
    } else if (m->masks.additive != ir::kNoValue) {
      kind = "additive";
      mask = m->masks.additive;
    }
    if (mask != ir::kNoValue) inputs.push_back(mask);
    ir::Attributes attrs;
    attrs.set("scale", m->scale);
    attrs.set("causal", causal);
    attrs.set("mask", kind);
    attrs.set("kv_groups", m->groups);
    const ir::TensorType out = graph.type(node.outputs.front());
    if (out.rank() == 4) {
      INFERNO_ASSIGN_OR_RETURN(Rewrite r, redefine_node(graph, node, OpKind::kAttention,
                                                        std::move(inputs), std::move(attrs)));
      static_cast<void>(r);
    } else {
      INFERNO_ASSIGN_OR_RETURN(const ir::ValueId att,
                               rb.build(OpKind::kAttention, std::move(inputs), std::move(attrs),
                                        graph.name(node.outputs.front()) + "_attention", node.loc));
      ir::Attributes shape;
      shape.set("shape", out.shape);
      INFERNO_ASSIGN_OR_RETURN(
          Rewrite r, redefine_node(graph, node, OpKind::kReshape, {att}, std::move(shape)));
      static_cast<void>(r);
    }
    changed = true;
    return true;
  }
};

}  // namespace

Status recognize_attention(ir::Graph& graph, const PassOptions& /*options*/) {
  // Use counts stay valid: a rewritten gemm keeps its value, and what it read keeps its uses
  // until dce.
  const std::vector<int32_t> uses = count_node_uses(graph);
  const std::vector<bool> is_output = graph_output_mask(graph);
  bool changed = false;
  {
    NodeRebuilder rebuilder(graph);
    Rewriter rewriter{rebuilder, uses, is_output};
    for (ir::Node& node : rebuilder.old_nodes()) {
      rebuilder.rename_inputs(node);
      INFERNO_ASSIGN_OR_RETURN(const bool rewritten, rewriter.rewrite(node));
      static_cast<void>(rewritten);
      rebuilder.append(std::move(node));
    }
    changed = rewriter.changed;
    INFERNO_RETURN_IF_ERROR(rebuilder.finish());
  }
  // The reshapes added for 3-D forms merge with the model's reshapes around them.
  if (changed) return rewrite_nodes(graph, &canonicalize_node);
  return Status::ok();
}

}  // namespace inferno::passes
