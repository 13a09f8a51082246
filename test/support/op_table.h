// The op x dtype test table (in the spirit of ggml's test-backend-ops): one row per elementwise op
// of ir/ops.def, each with an independent double-precision definition written from PyTorch's
// documented semantics (not a copy of the ops.def expression), the role of each operand, and the
// values the tests feed it: edge values (±0, ±inf, NaN, denormals, extremes) and random ones.
//
// test/unit/reference_op_table_test.cpp checks the reference interpreter against the definitions
// on every dtype each op accepts; test/gpu/op_table_gpu_test.cpp checks the generated CUDA code
// against the reference on the same values (op_table_graph.h). A new elementwise op needs a row
// here: the table test fails for an elementwise op without one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/test_support.h"

namespace inferno::test {

/// How a table row's operand is fed.
enum class OperandRole : uint8_t {
  kValue,      ///< the op's data, of the row's dtype: edge and random values
  kCondition,  ///< a bool condition (where's operand 0), whatever the row's dtype
  kParameter,  ///< a scalar parameter of the row's dtype (a slope, a bound): rank-0 constants in
               ///< real graphs; the values come from the row's parameter sets
};

struct OpRow {
  ir::OpKind op;
  std::vector<OperandRole> operands;  ///< one per operand, in order
  /// The op on operand values already rounded to their dtypes, computed in double; the caller
  /// rounds the result to the output dtype (round_result).
  double (*definition)(const double* x);
  /// Rows with parameters: the sets to try, one value per kParameter operand, in order.
  std::vector<std::vector<double>> parameter_sets;
  /// Where the op's integer form differs from `definition` on integer operands (a rounding
  /// division by zero gives 0, not inf): the definition used when every operand is an integer.
  double (*integer_definition)(const double* x) = nullptr;
};

/// Every row, in ops.def order.
const std::vector<OpRow>& op_table();
/// The row of `op`, or null when the table has none.
const OpRow* find_row(ir::OpKind op);

/// Edge values exactly representable in `dtype`. Floating: ±0, ±inf, NaN, ±1, the breakpoints of
/// hardswish and friends, large and small values, the smallest and largest denormals, the smallest
/// normal and ±the largest finite. Integers: 0, ±1, ±2 and magnitudes (46341, 2^26 + 1) whose
/// sums and products are exact in double (< 2^53) but wrap in i32. Bool: false, true.
std::vector<double> edge_values(ir::DType dtype);
/// The edge values and `random_count` pseudo-random ones (uniform in [-4, 4) and wide magnitudes
/// for floating dtypes, [-1000, 1000] for integers), all representable in `dtype`.
std::vector<double> table_values(ir::DType dtype, int random_count, uint64_t seed);

/// `v` rounded to nearest-even in a floating `dtype` with its denormals, overflowing to ±inf; NaN
/// stays NaN. Written here from the formats' parameters, independently of ir::Tensor::set.
double round_to_float_dtype(double v, ir::DType dtype);
/// The definition's result `v` as a value of `dtype`. `exact_integer`: it was computed from
/// integer and bool operands only, so it is an exact integer that wraps modulo 2^bits as PyTorch's
/// integer kernels do; otherwise floating -> integer truncates toward zero, saturates and maps NaN
/// to 0 (PyTorch leaves out-of-range conversions undefined; this is infernoc's documented
/// choice, codegen/elementwise_table.h). Bool is v != 0 (NaN is true).
double round_result(double v, ir::DType dtype, bool exact_integer);

/// A tensor of `type` holding `values` (repeated cyclically), each of which must be exactly
/// representable in the dtype (fails the current test otherwise).
ir::Tensor tensor_of(const ir::TensorType& type, const std::vector<double>& values);

/// "" when `got` matches `expected`: |got - expected| <= atol + rtol |expected|, NaN where and only
/// where expected is NaN, infinities exactly; otherwise what differs.
std::string mismatch(double got, double expected, Tolerance tolerance);

}  // namespace inferno::test
