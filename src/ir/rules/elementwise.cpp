// The one shape rule of every elementwise op: operands broadcast to the result's shape, and the
// op's dtype class (ops.def) decides which dtypes it accepts and its result dtype. No op is named
// here: a new elementwise row needs nothing in this file.
#include <string>

#include "ir/rules/rules.h"
#include "ir/shape_rules.h"

namespace inferno::ir::rules {
namespace {

/// A dtype the op's class refuses: the op is not supported for it (exit 2). The frontends cast
/// first wherever PyTorch promotes (an integer tensor into sqrt becomes f32), so this is reached
/// only where PyTorch itself would compute in another dtype (pow of integers) or refuse.
Status refuse(OpKind op, const Types& in, const std::string& what) {
  return unsupported(std::string(op_name(op)) + ": " + what + ", got " + types_str(in));
}

Expected<Types> elementwise(OpKind op, const Types& in, const Attributes& attrs) {
  Shape shape;
  for (const TensorType& t : in) {
    Expected<Shape> b = broadcast_shapes(shape, t.shape);
    if (!b) return bad(op, "operand shapes do not broadcast (" + types_str(in) + ")");
    shape = std::move(*b);
  }
  switch (op_dtype_class(op)) {
    case DTypeClass::kFloat:
      for (const TensorType& t : in) {
        if (!is_floating(t.dtype)) return refuse(op, in, "expects floating-point operands");
      }
      return one({promote_operands(in), shape});
    case DTypeClass::kNumeric:
      return one({promote_operands(in), shape});
    case DTypeClass::kInteger:
      for (const TensorType& t : in) {
        if (!is_integral(t.dtype))
          return refuse(op, in, "expects integer operands (not floating-point or bool)");
      }
      return one({promote_operands(in), shape});
    case DTypeClass::kTrueDiv: {
      const DType d = promote_operands(in);
      return one({is_floating(d) ? d : DType::kF32, shape});
    }
    case DTypeClass::kCompare:
    case DTypeClass::kLogical:
      return one({DType::kBool, shape});
    case DTypeClass::kSelect:
      return one({promote_operands(Types(in.begin() + 1, in.end())), shape});
    case DTypeClass::kCast:
      return one({attrs.get_dtype("dtype"), shape});
    case DTypeClass::kFamily:
      break;
  }
  return internal_error(std::string(op_name(op)) + " is elementwise without a dtype class");
}

}  // namespace

void register_elementwise_rules(ShapeRuleTable& table) {
  for (const OpKind op : all_op_kinds()) {
    if (op_has_trait(op, kElementwise)) table.add(op, elementwise);
  }
}

}  // namespace inferno::ir::rules
