// Names for a model's outputs where the format gives none a user would recognize: TorchScript
// numbers its values (%829), so its outputs become output0, output1, ... or a returned dict's keys.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace inferno::frontend {

/// Renames the graph's outputs: output `i` becomes `keys[i]` when that is not empty, else
/// "output<i>" (made unique). Graph inputs and constants returned as outputs keep their names, and
/// a value returned twice is named once. Returns one note per renamed output, "output0 (was %829)",
/// so the name can still be found in the model's own graph.
std::vector<std::string> name_outputs(ir::Graph& graph, const std::vector<std::string>& keys);

}  // namespace inferno::frontend
