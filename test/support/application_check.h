// One op application (op_table_cases.h) on the reference interpreter, checked against an
// independent double-precision definition: what the per-op reference tests share.
#pragma once

#include <vector>

#include "ir/tensor_type.h"
#include "support/op_table_cases.h"

namespace inferno::test {

/// The reference interpreter's result of `application` (fails the current test when it does not
/// evaluate).
ir::Tensor evaluate_application(const Application& application);

/// Checks every element of `got` against `want` rounded once to `dtype`, within torch.testing's
/// default tolerance for the dtype; reports the first four mismatches.
void check_against_definition(const ir::Tensor& got, const std::vector<double>& want,
                              ir::DType dtype);

}  // namespace inferno::test
