// The reference interpreter: evaluates any IR graph on the CPU. It is the numeric oracle for
// CI (no GPU there) and the engine behind constant folding. Simple and obviously correct beats
// fast here: tensors keep their IR dtype in memory (f16/bf16 round on every store, as on the
// GPU), elementwise math runs in double, and reductions and GEMMs accumulate in double.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::reference {

/// Runs `graph` on `inputs` (one per graph input, in order, each exactly of the input's type) and
/// returns one tensor per graph output. Errors: wrong input count/type (invalid input), an elided
/// constant (invalid input: no data to evaluate).
Expected<std::vector<ir::Tensor>> evaluate(const ir::Graph& graph,
                                           const std::vector<ir::Tensor>& inputs);

/// The states' initial values (ir::StateInfo), in state order: what a session starts with. To
/// run a stateful graph, pass the user inputs followed by these (or by the previous run's state
/// updates, the last num_states() outputs).
std::vector<ir::Tensor> initial_states(const ir::Graph& graph);

/// Evaluates one node on host tensors (one per node input), returning one tensor per output,
/// typed as the node's outputs in `graph`.
Expected<std::vector<ir::Tensor>> evaluate_node(const ir::Graph& graph, const ir::Node& node,
                                                const std::vector<const ir::Tensor*>& inputs);

/// Whether some op family registered a reference kernel for `op` (the op table test holds
/// every op to it).
bool has_reference_kernel(ir::OpKind op);

}  // namespace inferno::reference
