#include "ir/op.h"

#include <array>

namespace inferno::ir {
namespace {

struct OpInfo {
  std::string_view name;
  int min_inputs;
  int max_inputs;
  uint32_t traits;
};

constexpr std::array<OpInfo, kNumOpKinds> kOpInfo = {{
#define INFERNO_OP(name, text, min_in, max_in, traits) {text, min_in, max_in, traits},
#include "ir/ops.def"
#undef INFERNO_OP
}};

const OpInfo& info(OpKind op) { return kOpInfo[static_cast<size_t>(op)]; }

}  // namespace

std::string_view op_name(OpKind op) { return info(op).name; }

std::optional<OpKind> parse_op_name(std::string_view name) {
  for (size_t i = 0; i < kOpInfo.size(); ++i) {
    if (kOpInfo[i].name == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

int op_min_inputs(OpKind op) { return info(op).min_inputs; }
int op_max_inputs(OpKind op) { return info(op).max_inputs; }
bool op_has_trait(OpKind op, OpTrait trait) { return (info(op).traits & trait) != 0; }

}  // namespace inferno::ir
