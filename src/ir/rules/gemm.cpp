// Shape rules of the GEMM family: linear, matmul, addmm and the canonical gemm.
#include <cmath>
#include <string>

#include "ir/norm_gemm.h"
#include "ir/rules/rules.h"
#include "ir/shape_rules.h"

namespace inferno::ir::rules {
namespace {

Status require_same_dtype(OpKind op, const Types& in) {
  for (const TensorType& t : in) {
    if (t.dtype != in[0].dtype) return bad(op, "operand dtypes differ (" + types_str(in) + ")");
  }
  return Status::ok();
}

Expected<Types> matmul(OpKind op, const Types& in, const Attributes&) {
  INFERNO_RETURN_IF_ERROR(require_same_dtype(op, in));
  const TensorType &a = in[0], &b = in[1];
  if (a.rank() == 0 || b.rank() == 0) {
    return bad(op, "operands must have rank >= 1 (" + types_str(in) + ")");
  }
  Shape sa = a.shape, sb = b.shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2]) {
    return bad(op, "inner dimensions differ (" + a.to_string() + " @ " + b.to_string() + ")");
  }
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  INFERNO_ASSIGN_OR_RETURN(Shape out, broadcast_shapes(batch_a, batch_b));
  if (!a_vec) out.push_back(sa[sa.size() - 2]);
  if (!b_vec) out.push_back(sb.back());
  return one({a.dtype, out});
}

Expected<Types> linear(OpKind op, const Types& in, const Attributes&) {
  INFERNO_RETURN_IF_ERROR(require_same_dtype(op, in));
  const TensorType &x = in[0], &w = in[1];
  if (x.rank() < 1 || w.rank() != 2 || x.shape.back() != w.shape[1]) {
    return bad(op, "expects x[..., K] and w[N, K], got " + types_str(in));
  }
  Shape out = x.shape;
  out.back() = w.shape[0];
  if (in.size() == 3) {
    const Shape& b = in[2].shape;
    if (!(b.empty() || (b.size() == 1 && (b[0] == w.shape[0] || b[0] == 1)))) {
      return bad(op, "bias " + in[2].to_string() + " does not match " + std::to_string(w.shape[0]) +
                         " output features");
    }
  }
  return one({x.dtype, out});
}

Expected<Types> addmm(OpKind op, const Types& in, const Attributes&) {
  INFERNO_RETURN_IF_ERROR(require_same_dtype(op, in));
  const TensorType &bias = in[0], &a = in[1], &b = in[2];
  if (a.rank() != 2 || b.rank() != 2 || a.shape[1] != b.shape[0]) {
    return bad(op, "expects a[M, K] and b[K, N], got " + a.to_string() + ", " + b.to_string());
  }
  const Shape out = {a.shape[0], b.shape[1]};
  INFERNO_ASSIGN_OR_RETURN(Shape bc, broadcast_shapes(bias.shape, out));
  if (bc != out) {
    return bad(op, "bias " + bias.to_string() + " does not broadcast to " + shape_to_string(out));
  }
  return one({a.dtype, out});
}

// a[..., M, K] @ b[..., K, N] (b[..., N, K] when trans_b), batch dims broadcast, and the addends
// c and d each broadcast to the result (without growing it).
Expected<Types> gemm(OpKind op, const Types& in, const Attributes& attrs) {
  INFERNO_RETURN_IF_ERROR(require_same_dtype(op, in));
  const std::string& activation = attrs.get_string("activation");
  if (activation != "none" && !epilogue_activation(activation, kGemmActivation)) {
    return bad(op, "activation must be " + epilogue_activation_names(kGemmActivation) + ", got \"" +
                       activation + "\"");
  }
  const TensorType &a = in[0], &b = in[1];
  if (a.rank() < 2 || b.rank() < 2) {
    return bad(op, "operands must have rank >= 2 (" + types_str(in) + ")");
  }
  const bool trans_b = attrs.get_bool("trans_b");
  const int64_t rb = b.rank();
  const int64_t k_b = b.shape[rb - (trans_b ? 1 : 2)], n = b.shape[rb - (trans_b ? 2 : 1)];
  if (a.shape.back() != k_b) {
    return bad(op, "inner dimensions differ (" + a.to_string() + " @ " + b.to_string() +
                       (trans_b ? "^T" : "") + ")");
  }
  const Shape batch_a(a.shape.begin(), a.shape.end() - 2);
  const Shape batch_b(b.shape.begin(), b.shape.end() - 2);
  Expected<Shape> out = broadcast_shapes(batch_a, batch_b);
  if (!out) {
    return bad(op,
               "batch dims of " + a.to_string() + " and " + b.to_string() + " do not broadcast");
  }
  out->push_back(a.shape[a.rank() - 2]);
  out->push_back(n);
  for (size_t i = 2; i < in.size(); ++i) {
    const Expected<Shape> bc = broadcast_shapes(in[i].shape, *out);
    if (!bc || *bc != *out) {
      return bad(op, std::string(i == 2 ? "c " : "d ") + in[i].to_string() +
                         " does not broadcast to " + shape_to_string(*out));
    }
  }
  const std::optional<OpKind> applied = epilogue_activation(activation, kGemmActivation);
  if (applied && op_dtype_class(*applied) == DTypeClass::kFloat && !is_floating(a.dtype)) {
    return unsupported(std::string(op_name(op)) + ": activation " + activation +
                       " needs a floating-point dtype, got " + a.to_string());
  }
  return one({a.dtype, *out});
}

// gemm's rule on x, b, c, d, and the norm's parameters: weight and bias [K] of x's dtype, a
// floating x and a finite eps.
Expected<Types> norm_gemm(OpKind op, const Types& in, const Attributes& attrs) {
  const std::optional<NormGemmInputs> p = norm_gemm_inputs(attrs, in.size());
  if (!p) {
    return bad(op,
               "norm must be layer_norm (x, b, weight, bias, c?, d?) or rms_norm (x, b, "
               "weight, c?, d?), got \"" +
                   attrs.get_string("norm") + "\" with " + std::to_string(in.size()) + " inputs");
  }
  const TensorType& x = in[static_cast<size_t>(p->x)];
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (!std::isfinite(attrs.get_float("eps"))) return bad(op, "eps must be finite");
  if (x.rank() < 2) return bad(op, "x must have rank >= 2, got " + x.to_string());
  const Shape k{x.shape.back()};
  for (const int i : {p->weight, p->bias}) {
    if (i < 0) continue;
    const TensorType& t = in[static_cast<size_t>(i)];
    if (t.dtype != x.dtype || t.shape != k) {
      return bad(op, std::string(i == p->weight ? "weight " : "bias ") + t.to_string() +
                         " must be " + std::string(dtype_name(x.dtype)) + shape_to_string(k) +
                         " (x's last dim)");
    }
  }
  Types product = {x, in[static_cast<size_t>(p->b)]};
  for (const int i : {p->c, p->d}) {
    if (i >= 0) product.push_back(in[static_cast<size_t>(i)]);
  }
  return gemm(op, product, attrs);
}

}  // namespace

void register_gemm_rules(ShapeRuleTable& table) {
  table.add(OpKind::kLinear, linear);
  table.add(OpKind::kMatMul, matmul);
  table.add(OpKind::kAddMM, addmm);
  table.add(OpKind::kGemm, gemm);
  table.add(OpKind::kNormGemm, norm_gemm);
}

}  // namespace inferno::ir::rules
