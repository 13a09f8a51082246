// The op table (src/ir/ops.def) is complete: every op has a shape rule, a reference kernel, and a
// lowering or a backend note saying why codegen never sees it; every schema and expression is
// well formed; and docs/ir.md's op table is generated from it (INFERNO_UPDATE_GOLDEN=1 rewrites
// the section between its markers).
#include <fstream>
#include <string>

#include "codegen/codegen.h"
#include "codegen/elementwise_table.h"
#include "ir/attr_schema.h"
#include "ir/op.h"
#include "ir/shape_rules.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::ir {
namespace {

std::string_view family(OpKind op) {
  if (op_has_trait(op, kGemm)) return "gemm";
  if (op_has_trait(op, kLayout)) return "layout";
  if (op_has_trait(op, kReduction)) return "reduction";
  if (op_has_trait(op, kFusion)) return "fusion";
  if (op_has_trait(op, kWindow)) return "window";
  if (op_has_trait(op, kElementwise)) return "elementwise";
  if (op == OpKind::kConv2d || op == OpKind::kConvTranspose2d) return "convolution";
  if (op_has_trait(op, kNormalization)) return "normalization";
  if (op == OpKind::kAttention) return "attention";
  if (op == OpKind::kRotary) return "position embedding";
  return "?";
}

std::string_view dtype_class_text(DTypeClass c) {
  switch (c) {
    case DTypeClass::kFamily:
      return "(its family's rule)";
    case DTypeClass::kFloat:
      return "floating; result promoted";
    case DTypeClass::kNumeric:
      return "any; result promoted";
    case DTypeClass::kTrueDiv:
      return "any; result promoted, f32 if not floating";
    case DTypeClass::kCompare:
      return "any, compared promoted; result bool";
    case DTypeClass::kLogical:
      return "any, tested against zero; result bool";
    case DTypeClass::kSelect:
      return "operand 0 tested against zero; result: the others promoted";
    case DTypeClass::kCast:
      return "any; result `dtype`";
    case DTypeClass::kInteger:
      return "i32, i64; result promoted";
  }
  return "?";
}

/// Markdown table cells may not hold a bare '|'.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string generated_op_table() {
  std::string out =
      "| Op | Family | Inputs | Attributes | Dtypes | Computes (elementwise: x0.. in type T) or "
      "backend note |\n|---|---|---|---|---|---|\n";
  for (const OpKind op : all_op_kinds()) {
    const int lo = op_min_inputs(op), hi = op_max_inputs(op);
    std::string attrs;
    for (const AttrSpec& spec : op_attr_schema(op)) {
      attrs += (attrs.empty() ? "" : ", ") + ("`" + spec.name + "`: ") +
               std::string(attr_type_name(spec.type));
    }
    std::string computes = op_has_trait(op, kElementwise) ? "`" + cell(op_expression(op)) + "`"
                                                          : std::string(op_backend_note(op));
    if (op_has_trait(op, kCommutative)) computes += " (commutative)";
    out += "| `" + std::string(op_name(op)) + "` | " + std::string(family(op)) + " | " +
           (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
           " | " + attrs + " | " + std::string(dtype_class_text(op_dtype_class(op))) + " | " +
           computes + " |\n";
  }
  return out;
}

constexpr std::string_view kBegin = "<!-- op table: generated from src/ir/ops.def -->\n";
constexpr std::string_view kEnd = "<!-- end of the generated op table -->\n";

TEST_CASE("every op has a shape rule, a reference kernel and a lowering or a backend note") {
  for (const OpKind op : all_op_kinds()) {
    INFO(op_name(op));
    CHECK(parse_op_name(op_name(op)) == op);
    CHECK(has_shape_rule(op));
    CHECK(reference::has_reference_kernel(op));
    // Exactly one: a lowering, or a note saying why codegen never sees the op.
    CHECK(codegen::has_lowering(op) == op_backend_note(op).empty());
    CHECK_NOTHROW(op_attr_schema(op));
    if (op_has_trait(op, kElementwise)) {
      CHECK(op_min_inputs(op) == op_max_inputs(op));
      CHECK(op_dtype_class(op) != DTypeClass::kFamily);
      // The expression reads each operand, and pastes into CUDA for float compute (for integer
      // compute where the op has no floating form).
      const std::vector<std::string> operands = {"a0", "a1", "a2", "a3"};
      const auto pasted = codegen::elementwise_expression(op, operands,
                                                          has_floating_form(op_dtype_class(op))
                                                              ? codegen::ComputeType::kFloat
                                                              : codegen::ComputeType::kInt);
      REQUIRE(pasted.has_value());
      for (int k = 0; k < op_min_inputs(op); ++k) {
        CHECK(pasted->find(operands[static_cast<size_t>(k)]) != std::string::npos);
      }
    } else {
      CHECK(op_dtype_class(op) == DTypeClass::kFamily);
      CHECK(op_expression(op).empty());
    }
  }
}

TEST_CASE("docs/ir.md's op table is generated from ops.def") {
  const std::string path = std::string(INFERNO_SOURCE_DIR) + "/docs/ir.md";
  std::string doc = test::read_text_file(path);
  const size_t begin = doc.find(kBegin), end = doc.find(kEnd);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const size_t from = begin + kBegin.size();
  const std::string want = generated_op_table();
  if (std::getenv("INFERNO_UPDATE_GOLDEN") != nullptr) {
    doc.replace(from, end - from, want);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  INFO("INFERNO_UPDATE_GOLDEN=1 ./test/test_ir rewrites it");
  CHECK(doc.substr(from, end - from) == want);
}

}  // namespace
}  // namespace inferno::ir
