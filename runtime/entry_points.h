// A model's entry points: the model itself, then its variants (model_abi.h), each a complete
// model for other input shapes sharing the family's weights and state. Choosing the one a caller's
// tensors fit is pure host logic, kept here so the CPU tests reach it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferno/runtime.h"

namespace inferno::runtime {

/// {model, variants...}; index 0 is the model itself.
using EntryPoints = std::vector<const inferno_model*>;

/// The entry points of a validated model.
EntryPoints entry_points(const inferno_model& model);

/// Index of the first entry point whose inputs have exactly the count, dtypes, ranks and shapes of
/// `inputs`; -1 when none does. Reads a caller's shape only when its rank is in range and the
/// pointer is set, so any tensors are safe to pass. Allocates nothing.
int32_t select_entry(const EntryPoints& entries, const inferno_tensor* inputs, int32_t count);

/// What each entry point takes, for messages: "(x f32[4,8]) or (x f32[1,8])".
std::string accepted_inputs_text(const EntryPoints& entries);
/// The caller's input types, for messages: "f32[4,7], i64[3]"; "?" for an unreadable tensor.
std::string given_inputs_text(const inferno_tensor* inputs, int32_t count);

}  // namespace inferno::runtime
