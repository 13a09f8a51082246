// One rule per op. Attributes each op takes (all required unless noted):
//   addmm:            alpha: float, beta: float
//   gemm:             trans_b: bool, alpha: float, beta: float, activation: string, one of
//                     "none", "relu", "gelu" (exact, erf) or "gelu_tanh" (gelu needs a floating
//                     dtype). Inputs a, b and the optional addends c (scaled by beta) and d: three
//                     inputs are a, b, c.
//   reshape, expand:  shape: ints (fully resolved, no -1)
//   transpose:        dim0, dim1: int (normalized, 0 <= d < rank)
//   permute:          dims: ints (a permutation of 0..rank-1)
//   gelu:             approximate: string, "none" or "tanh"
//   cast:             dtype: dtype
//   sum, mean:        dims: ints (normalized, sorted, unique; empty = all dims), keepdim: bool
//   softmax, log_softmax: dim: int (normalized)
//   fused_elementwise: expr: string, the body (ir/fused_expr.h); 1 to kMaxFusedInputs inputs
#include "ir/shape_rules.h"

#include <algorithm>
#include <string>

#include "ir/fused_expr.h"
#include "support/check.h"

namespace inferno::ir {
namespace {

Status bad(OpKind op, const std::string& what) {
  return invalid_input(std::string(op_name(op)) + ": " + what);
}

std::string types_str(const std::vector<TensorType>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].to_string();
  return s;
}

Status require_attr_types(OpKind op, const Attributes& attrs) {
  auto need = [&](bool ok, const char* name, const char* type) -> Status {
    if (ok) return Status::ok();
    return bad(op, std::string("needs attribute '") + name + "' of type " + type);
  };
  switch (op) {
    case OpKind::kAddMM:
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<double>("alpha"), "alpha", "float"));
      return need(attrs.has_typed<double>("beta"), "beta", "float");
    case OpKind::kGemm:
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<bool>("trans_b"), "trans_b", "bool"));
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<double>("alpha"), "alpha", "float"));
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<double>("beta"), "beta", "float"));
      return need(attrs.has_typed<std::string>("activation"), "activation", "string");
    case OpKind::kFusedElementwise:
      return need(attrs.has_typed<std::string>("expr"), "expr", "string");
    case OpKind::kReshape:
    case OpKind::kExpand:
      return need(attrs.has_typed<IntList>("shape"), "shape", "ints");
    case OpKind::kTranspose:
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<int64_t>("dim0"), "dim0", "int"));
      return need(attrs.has_typed<int64_t>("dim1"), "dim1", "int");
    case OpKind::kPermute:
      return need(attrs.has_typed<IntList>("dims"), "dims", "ints");
    case OpKind::kGelu:
      return need(attrs.has_typed<std::string>("approximate"), "approximate", "string");
    case OpKind::kCast:
      return need(attrs.has_typed<DType>("dtype"), "dtype", "dtype");
    case OpKind::kSum:
    case OpKind::kMean:
      INFERNO_RETURN_IF_ERROR(need(attrs.has_typed<IntList>("dims"), "dims", "ints"));
      return need(attrs.has_typed<bool>("keepdim"), "keepdim", "bool");
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      return need(attrs.has_typed<int64_t>("dim"), "dim", "int");
    default:
      return Status::ok();
  }
}

Status require_same_dtype(OpKind op, const std::vector<TensorType>& in) {
  for (const TensorType& t : in) {
    if (t.dtype != in[0].dtype) return bad(op, "operand dtypes differ (" + types_str(in) + ")");
  }
  return Status::ok();
}

Status require_floating(OpKind op, const TensorType& t) {
  if (is_floating(t.dtype)) return Status::ok();
  return bad(op, "expects a floating-point input, got " + t.to_string());
}

Expected<std::vector<TensorType>> one(TensorType t) {
  return std::vector<TensorType>{std::move(t)};
}

Expected<std::vector<TensorType>> matmul_rule(OpKind op, const TensorType& a, const TensorType& b) {
  if (a.rank() == 0 || b.rank() == 0)
    return bad(op, "operands must have rank >= 1 (" + a.to_string() + ", " + b.to_string() + ")");
  Shape sa = a.shape, sb = b.shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t k_a = sa.back(), k_b = sb[sb.size() - 2];
  if (k_a != k_b) {
    return bad(op, "inner dimensions differ (" + a.to_string() + " @ " + b.to_string() + ")");
  }
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  INFERNO_ASSIGN_OR_RETURN(Shape out, broadcast_shapes(batch_a, batch_b));
  if (!a_vec) out.push_back(sa[sa.size() - 2]);
  if (!b_vec) out.push_back(sb.back());
  return one({a.dtype, out});
}

// gemm: a[..., M, K] @ b[..., K, N] (b[..., N, K] when trans_b), batch dims broadcast, and the
// addends c and d each broadcast to the result (without growing it).
Expected<std::vector<TensorType>> canonical_gemm_rule(const std::vector<TensorType>& in,
                                                      const Attributes& attrs) {
  constexpr OpKind op = OpKind::kGemm;
  const std::string& activation = attrs.get_string("activation");
  if (activation != "none" && activation != "relu" && activation != "gelu" &&
      activation != "gelu_tanh") {
    return bad(op, "activation must be \"none\", \"relu\", \"gelu\" or \"gelu_tanh\", got \"" +
                       activation + "\"");
  }
  const TensorType &a = in[0], &b = in[1];
  if (a.rank() < 2 || b.rank() < 2)
    return bad(op, "operands must have rank >= 2 (" + a.to_string() + ", " + b.to_string() + ")");
  const bool trans_b = attrs.get_bool("trans_b");
  const int64_t rb = b.rank();
  const int64_t k_b = b.shape[rb - (trans_b ? 1 : 2)], n = b.shape[rb - (trans_b ? 2 : 1)];
  if (a.shape.back() != k_b) {
    return bad(op, "inner dimensions differ (" + a.to_string() + " @ " + b.to_string() +
                       (trans_b ? "^T" : "") + ")");
  }
  const Shape batch_a(a.shape.begin(), a.shape.end() - 2),
      batch_b(b.shape.begin(), b.shape.end() - 2);
  Expected<Shape> out = broadcast_shapes(batch_a, batch_b);
  if (!out)
    return bad(op,
               "batch dims of " + a.to_string() + " and " + b.to_string() + " do not broadcast");
  out->push_back(a.shape[a.rank() - 2]);
  out->push_back(n);
  for (size_t i = 2; i < in.size(); ++i) {
    const Expected<Shape> bc = broadcast_shapes(in[i].shape, *out);
    if (!bc || *bc != *out) {
      return bad(op, std::string(i == 2 ? "c " : "d ") + in[i].to_string() +
                         " does not broadcast to " + shape_to_string(*out));
    }
  }
  if (activation.starts_with("gelu") && !is_floating(a.dtype)) {
    return bad(op,
               "activation " + activation + " needs a floating-point dtype, got " + a.to_string());
  }
  return one({a.dtype, *out});
}

Expected<std::vector<TensorType>> gemm_rule(OpKind op, const std::vector<TensorType>& in,
                                            const Attributes& attrs) {
  INFERNO_RETURN_IF_ERROR(require_same_dtype(op, in));
  switch (op) {
    case OpKind::kGemm:
      return canonical_gemm_rule(in, attrs);
    case OpKind::kMatMul:
      return matmul_rule(op, in[0], in[1]);
    case OpKind::kLinear: {
      const TensorType &x = in[0], &w = in[1];
      if (x.rank() < 1 || w.rank() != 2 || x.shape.back() != w.shape[1]) {
        return bad(op, "expects x[..., K] and w[N, K], got " + types_str(in));
      }
      Shape out = x.shape;
      out.back() = w.shape[0];
      if (in.size() == 3) {
        const Shape& b = in[2].shape;
        if (!(b.empty() || (b.size() == 1 && (b[0] == w.shape[0] || b[0] == 1)))) {
          return bad(op, "bias " + in[2].to_string() + " does not match " +
                             std::to_string(w.shape[0]) + " output features");
        }
      }
      return one({x.dtype, out});
    }
    case OpKind::kAddMM: {
      const TensorType &bias = in[0], &a = in[1], &b = in[2];
      if (a.rank() != 2 || b.rank() != 2 || a.shape[1] != b.shape[0]) {
        return bad(op, "expects a[M, K] and b[K, N], got " + a.to_string() + ", " + b.to_string());
      }
      Shape out = {a.shape[0], b.shape[1]};
      INFERNO_ASSIGN_OR_RETURN(Shape bc, broadcast_shapes(bias.shape, out));
      if (bc != out)
        return bad(op,
                   "bias " + bias.to_string() + " does not broadcast to " + shape_to_string(out));
      return one({a.dtype, out});
    }
    default:
      INFERNO_CHECK(false, "not a gemm");
      return internal_error("unreachable");
  }
}

Expected<std::vector<TensorType>> layout_rule(OpKind op, const TensorType& x,
                                              const Attributes& attrs) {
  switch (op) {
    case OpKind::kReshape: {
      const IntList& shape = attrs.get_ints("shape");
      for (int64_t d : shape) {
        if (d < 0) return bad(op, "target shape " + shape_to_string(shape) + " has a negative dim");
      }
      int64_t numel = 1;
      bool overflow = false;  // an untrusted shape attribute may overflow int64
      for (int64_t d : shape) overflow |= __builtin_mul_overflow(numel, d, &numel);
      if (overflow || numel != x.numel()) {
        return bad(op, "cannot reshape " + x.to_string() + " to " + shape_to_string(shape));
      }
      return one({x.dtype, shape});
    }
    case OpKind::kTranspose: {
      const int64_t d0 = attrs.get_int("dim0"), d1 = attrs.get_int("dim1");
      if (d0 < 0 || d1 < 0 || d0 >= x.rank() || d1 >= x.rank()) {
        return bad(op, "dims " + std::to_string(d0) + ", " + std::to_string(d1) +
                           " out of range for " + x.to_string());
      }
      Shape out = x.shape;
      std::swap(out[d0], out[d1]);
      return one({x.dtype, out});
    }
    case OpKind::kPermute: {
      const IntList& dims = attrs.get_ints("dims");
      IntList sorted = dims;
      std::sort(sorted.begin(), sorted.end());
      bool is_perm = static_cast<int64_t>(dims.size()) == x.rank();
      for (size_t i = 0; is_perm && i < sorted.size(); ++i)
        is_perm = sorted[i] == static_cast<int64_t>(i);
      if (!is_perm)
        return bad(op,
                   "dims " + shape_to_string(dims) + " are not a permutation for " + x.to_string());
      Shape out;
      for (int64_t d : dims) out.push_back(x.shape[d]);
      return one({x.dtype, out});
    }
    case OpKind::kExpand: {
      const IntList& shape = attrs.get_ints("shape");
      if (static_cast<int64_t>(shape.size()) < x.rank()) {
        return bad(op,
                   "cannot expand " + x.to_string() + " to fewer dims " + shape_to_string(shape));
      }
      if (!checked_numel(shape))
        return bad(op, "target shape " + shape_to_string(shape) + " is invalid or too large");
      const size_t lead = shape.size() - x.shape.size();
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] < 0)
          return bad(op, "target shape " + shape_to_string(shape) + " has a negative dim");
        if (i >= lead && x.shape[i - lead] != 1 && x.shape[i - lead] != shape[i]) {
          return bad(op, "cannot expand " + x.to_string() + " to " + shape_to_string(shape));
        }
      }
      return one({x.dtype, shape});
    }
    default:
      INFERNO_CHECK(false, "not a layout op");
      return internal_error("unreachable");
  }
}

Expected<std::vector<TensorType>> reduction_rule(OpKind op, const TensorType& x,
                                                 const Attributes& attrs) {
  if (op == OpKind::kSoftmax || op == OpKind::kLogSoftmax) {
    INFERNO_RETURN_IF_ERROR(require_floating(op, x));
    const int64_t dim = attrs.get_int("dim");
    if (dim < 0 || dim >= std::max<int64_t>(x.rank(), 1))
      return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
    return one(x);
  }
  const IntList& dims = attrs.get_ints("dims");
  const bool keepdim = attrs.get_bool("keepdim");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= x.rank() || (i > 0 && dims[i] <= dims[i - 1])) {
      return bad(op, "dims " + shape_to_string(dims) + " must be sorted, unique and within " +
                         x.to_string());
    }
  }
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      out.push_back(x.shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  DType dtype = x.dtype;
  if (op == OpKind::kMean) INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (op == OpKind::kSum && !is_floating(x.dtype)) dtype = DType::kI64;  // as torch.sum
  return one({dtype, out});
}

Expected<std::vector<TensorType>> elementwise_rule(OpKind op, const std::vector<TensorType>& in,
                                                   const Attributes& attrs) {
  const TensorType& x = in[0];
  switch (op) {
    case OpKind::kRelu:
    case OpKind::kAbs:
    case OpKind::kNeg:
      return one(x);
    case OpKind::kGelu: {
      const std::string& approx = attrs.get_string("approximate");
      if (approx != "none" && approx != "tanh")
        return bad(op, "approximate must be \"none\" or \"tanh\", got \"" + approx + "\"");
      INFERNO_RETURN_IF_ERROR(require_floating(op, x));
      return one(x);
    }
    case OpKind::kSilu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kExp:
      INFERNO_RETURN_IF_ERROR(require_floating(op, x));
      return one(x);
    case OpKind::kCast:
      return one({attrs.get_dtype("dtype"), x.shape});
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: {
      INFERNO_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(in[0].shape, in[1].shape));
      return one({binary_result_dtype(op, in[0], in[1]), shape});
    }
    default:
      INFERNO_CHECK(false, "not elementwise");
      return internal_error("unreachable");
  }
}

}  // namespace

Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return invalid_input("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                           " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<int64_t> normalize_dim(int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    return invalid_input("dim " + std::to_string(dim) + " out of range for rank " +
                         std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

DType binary_result_dtype(OpKind op, const TensorType& a, const TensorType& b) {
  auto category = [](DType d) { return d == DType::kBool ? 0 : is_integral(d) ? 1 : 2; };
  DType dtype;
  if (a.rank() == 0 && b.rank() > 0 && category(a.dtype) <= category(b.dtype))
    dtype = b.dtype;
  else if (b.rank() == 0 && a.rank() > 0 && category(b.dtype) <= category(a.dtype))
    dtype = a.dtype;
  else
    dtype = promote_types(a.dtype, b.dtype);
  if (op == OpKind::kDiv && !is_floating(dtype)) dtype = DType::kF32;  // true division
  return dtype;
}

Expected<std::vector<TensorType>> infer_output_types(OpKind op,
                                                     const std::vector<TensorType>& inputs,
                                                     const Attributes& attrs) {
  const int n = static_cast<int>(inputs.size());
  if (n < op_min_inputs(op) || n > op_max_inputs(op)) {
    return bad(op, "takes " + std::to_string(op_min_inputs(op)) +
                       (op_min_inputs(op) == op_max_inputs(op)
                            ? ""
                            : " to " + std::to_string(op_max_inputs(op))) +
                       " inputs, got " + std::to_string(n));
  }
  for (const TensorType& t : inputs) {
    if (!checked_numel(t.shape))
      return bad(op, "input shape " + t.to_string() + " is invalid or too large");
  }
  INFERNO_RETURN_IF_ERROR(require_attr_types(op, attrs));
  if (op_has_trait(op, kGemm)) return gemm_rule(op, inputs, attrs);
  if (op_has_trait(op, kLayout)) return layout_rule(op, inputs[0], attrs);
  if (op_has_trait(op, kReduction)) return reduction_rule(op, inputs[0], attrs);
  if (op_has_trait(op, kElementwise)) return elementwise_rule(op, inputs, attrs);
  if (op == OpKind::kFusedElementwise) {
    Expected<FusedExpr> expr = parse_fused_expr(attrs.get_string("expr"), inputs);
    if (!expr) return bad(op, expr.status().message());
    return one(expr->result());
  }
  INFERNO_CHECK(false, "op without a shape rule: " + std::string(op_name(op)));
  return internal_error("unreachable");
}

}  // namespace inferno::ir
