#include "codegen/emit_profile.h"

#include "codegen/emit_abi.h"
#include "codegen/source_writer.h"

namespace inferno::codegen {

std::string emit_profile(const std::vector<KernelCost>& steps, int32_t num_variants) {
  SourceWriter w;
  w.line("// What each step of run_steps() computes, where the model's source made it, and its");
  w.line("// cost (infernoc's formulas: codegen/kernel_cost.h).");
  if (!steps.empty()) {
    w.open("const inferno_kernel_cost kSteps[] =");
    for (const KernelCost& step : steps) {
      // Names and locations come from the model: string literals escape every byte.
      w.line("{" + std::to_string(step.node) + ", " + std::to_string(step.kernels.size()) + ", " +
             c_string_literal(step.node_name) + ", " + c_string_literal(step.op) + ", " +
             c_string_literal(step.loc.to_string()) + ", " + c_string_literal(step.choice) + ", " +
             dtype_enum(step.dtype) + ", 0, " + double_literal(step.work.flops) + ", " +
             std::to_string(step.work.bytes_read) + "u, " +
             std::to_string(step.work.bytes_written) + "u},");
    }
    w.close("};");
  }
  w.open("const inferno_model_profile kProfile =");
  w.line("INFERNO_MODEL_PROFILE_VERSION, sizeof(inferno_model_profile), &kModel,");
  w.line(std::to_string(steps.size()) + ", " + (steps.empty() ? "nullptr" : "kSteps") +
         ", run_steps,");
  w.line(num_variants == 0 ? std::string("0, nullptr,  // variants")
                           : std::to_string(num_variants) + ", kProfileVariants,  // variants");
  w.close("};");
  return w.text();
}

}  // namespace inferno::codegen
