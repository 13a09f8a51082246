// The profile table in model.cu (include/inferno/model_profile.h): each variant's steps with
// their costs (kSteps, from profile_plan.h) and its inferno_model_profile (kProfile), whose
// run_profiled is run_steps (emit_abi.h). Internal to src/codegen/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/profile_plan.h"

namespace inferno::codegen {

/// kSteps and kProfile for one variant, after its kModel. `num_variants` > 0 for the model of a
/// library with variants: its kProfile lists kProfileVariants (declared beside kVariants).
std::string emit_profile(const std::vector<KernelCost>& steps, int32_t num_variants);

}  // namespace inferno::codegen
