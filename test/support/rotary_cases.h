// rotary's applications for the op table's graph (op_table_cases.h: the reference test, nvcc's
// kitchen sink and the GPU against the reference) and its definition, computed here in double
// independently of the reference interpreter.
#pragma once

#include <vector>

#include "ir/tensor_type.h"
#include "support/op_table_cases.h"

namespace inferno::test {

/// rotary on a floating `dtype` (none for other dtypes): random x, cos and sin (graph inputs and
/// constants), full and partial rotary widths, cos and sin broadcast over heads and batches from
/// lower ranks, a minimal width of 2, and a tensor of many blocks.
std::vector<Application> rotary_applications(ir::DType dtype);

/// rotary's value on an application of rotary_applications, by its definition (ops.def),
/// not yet rounded to the output dtype.
std::vector<double> rotary_definition(const Application& application);

}  // namespace inferno::test
