// The reference kernel of every elementwise op, from the op's expression in ops.def (the same
// text the CUDA code pastes), and the element access helpers all kernels share (exact integers,
// stores, bulk reads into double).
//
// Floating-point results are computed in double and rounded once, on store, to the output
// dtype (so a cast is the identity expression followed by that store). Integer and bool results
// from integer and bool operands are computed exactly in int64 with two's-complement
// wrap-around (ew::Int), as PyTorch's integer kernels behave (double would lose exactness beyond
// 2^53).
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/scalar_ops.h"
#include "reference/kernels.h"
#include "support/check.h"
#include "support/half.h"

namespace inferno::reference::detail {

using ir::DType;
using ir::OpKind;

int64_t load_int(const Tensor& t, int64_t i) {
  INFERNO_CHECK(i >= 0 && i < t.numel(), "tensor index out of range");
  const std::byte* p = t.data.data() + i * ir::dtype_size(t.type.dtype);
  switch (t.type.dtype) {
    case DType::kI64: {
      int64_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kI32: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kBool:
      return p[0] != std::byte{0} ? 1 : 0;
    default:
      INFERNO_CHECK(false, "load_int on " + std::string(ir::dtype_name(t.type.dtype)));
      return 0;
  }
}

void store_int(Tensor& t, int64_t i, int64_t v) {
  INFERNO_CHECK(i >= 0 && i < t.numel(), "tensor index out of range");
  std::byte* p = t.data.data() + i * ir::dtype_size(t.type.dtype);
  switch (t.type.dtype) {
    case DType::kI64:
      std::memcpy(p, &v, sizeof v);
      return;
    case DType::kI32: {
      const auto w = static_cast<int32_t>(v);
      std::memcpy(p, &w, sizeof w);
      return;
    }  // wraps
    case DType::kBool:
      p[0] = v != 0 ? std::byte{1} : std::byte{0};
      return;
    default:
      INFERNO_CHECK(false, "store_int on " + std::string(ir::dtype_name(t.type.dtype)));
  }
}

int64_t float_to_int(double v, DType dtype) {
  INFERNO_CHECK(ir::is_integral(dtype), "float_to_int to a non-integer dtype");
  if (std::isnan(v)) return 0;
  const bool i32 = dtype == DType::kI32;
  const double lo = i32 ? -2147483648.0 : -9223372036854775808.0;  // exact powers of two
  const double hi = i32 ? 2147483648.0 : 9223372036854775808.0;
  if (v <= lo)
    return i32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  if (v >= hi)
    return i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(v);  // truncates toward zero
}

void store(Tensor& t, int64_t i, double v) {
  if (ir::is_integral(t.type.dtype)) {
    store_int(t, i, float_to_int(v, t.type.dtype));
  } else {
    t.set(i, v);  // rounds to f32/f16/bf16; bool is v != 0
  }
}

namespace {

namespace ew = inferno::ew;
using ew::Int;

constexpr int kMaxOperands = 4;  // the widest elementwise row (elu)

// One struct per elementwise row of ops.def, holding the row's expression as code: apply<T>
// evaluates it on operands x0.. of compute type T.
#define INFERNO_OP(name, text, min_in, max_in, traits, dtypes, schema, backend)
#define INFERNO_ELEMENTWISE(name, text, operands, traits, dtypes, schema, expr) \
  struct Scalar##name {                                                         \
    static constexpr ir::DTypeClass kClass = ir::DTypeClass::dtypes;            \
    static_assert(operands <= kMaxOperands);                                    \
    template <typename T>                                                       \
    static T apply(const T* x) {                                                \
      [[maybe_unused]] const T x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];      \
      return static_cast<T>(expr);                                              \
    }                                                                           \
  };
#include "ir/ops.def"
#undef INFERNO_ELEMENTWISE
#undef INFERNO_OP

struct ScalarFns {
  double (*in_double)(const double*) = nullptr;  ///< null where the op has no floating form
  Int (*in_int)(const Int*) = nullptr;           ///< null where the op has no integer form
};

template <typename S>
constexpr ScalarFns scalar_fns() {
  ScalarFns fns{};
  if constexpr (ir::has_floating_form(S::kClass)) fns.in_double = &S::template apply<double>;
  if constexpr (ir::has_integer_form(S::kClass)) fns.in_int = &S::template apply<Int>;
  return fns;
}

const std::array<ScalarFns, ir::kNumOpKinds>& scalar_table() {
  static const std::array<ScalarFns, ir::kNumOpKinds> table = [] {
    std::array<ScalarFns, ir::kNumOpKinds> t{};
#define INFERNO_OP(name, text, min_in, max_in, traits, dtypes, schema, backend)
#define INFERNO_ELEMENTWISE(name, text, operands, traits, dtypes, schema, expr) \
  t[static_cast<size_t>(ir::OpKind::k##name)] = scalar_fns<Scalar##name>();
#include "ir/ops.def"
#undef INFERNO_ELEMENTWISE
#undef INFERNO_OP
    return t;
  }();
  return table;
}

}  // namespace

ScalarFn elementwise_scalar(OpKind op) {
  INFERNO_CHECK(ir::op_has_trait(op, ir::kElementwise),
                "not an elementwise op: " + std::string(ir::op_name(op)));
  return scalar_table()[static_cast<size_t>(op)].in_double;
}

Tensor elementwise(OpKind op, const std::vector<const Tensor*>& in, const TensorType& out) {
  INFERNO_CHECK(ir::op_has_trait(op, ir::kElementwise) && !in.empty() &&
                    in.size() <= static_cast<size_t>(kMaxOperands),
                "not an elementwise op application: " + std::string(ir::op_name(op)));
  const ScalarFns& fns = scalar_table()[static_cast<size_t>(op)];
  std::vector<StridedIndex> index;
  bool any_floating = ir::is_floating(out.dtype);
  for (const Tensor* t : in) {
    index.push_back(broadcast_index(t->type.shape, out.shape));
    any_floating |= ir::is_floating(t->type.dtype);
  }
  Tensor y = Tensor::zeros(out);
  if (!any_floating) {  // exact: integers and bool in wrapping int64
    INFERNO_CHECK(fns.in_int != nullptr, std::string(ir::op_name(op)) + " has no integer form");
    Int x[kMaxOperands] = {};
    for (int64_t i = 0; i < y.numel(); ++i) {
      for (size_t k = 0; k < in.size(); ++k) x[k] = Int(load_int(*in[k], index[k](i)));
      store_int(y, i, fns.in_int(x).v);
    }
    return y;
  }
  INFERNO_CHECK(fns.in_double != nullptr, std::string(ir::op_name(op)) + " has no floating form");
  double x[kMaxOperands] = {};
  for (int64_t i = 0; i < y.numel(); ++i) {
    for (size_t k = 0; k < in.size(); ++k) x[k] = in[k]->get(index[k](i));
    store(y, i, fns.in_double(x));
  }
  return y;
}

void register_elementwise_kernels(KernelTable& table) {
  for (const OpKind op : ir::all_op_kinds()) {
    if (!ir::op_has_trait(op, ir::kElementwise)) continue;
    table.add(
        op,
        [](const ir::Node& node, const std::vector<const Tensor*>& in,
           const TensorType& out) -> Expected<Tensor> { return elementwise(node.op, in, out); });
  }
}

}  // namespace inferno::reference::detail
