// Elementwise fusion: each chain or tree of elementwise ops becomes one fused_elementwise node,
// one kernel that never writes the intermediate values to memory.
//
// Requires: a verified graph; run after fuse-epilogues, which folds what a gemm can take.
// Guarantees: groups grow greedily from consumers backwards. A node with the kElementwise trait,
// or a fused_elementwise node (its body is inlined), joins the group of the node reading it when
// all its uses are inside that group, it is not a graph output, and the group stays within
// ir::kMaxFusedSteps steps and ir::kMaxFusedInputs inputs. This repeats until no group of two
// or more nodes forms, so a second run changes nothing. A group of two or more nodes becomes one
// fused_elementwise node that defines the group's last (root) node's output, at its position and
// with its location; its inputs are the values the group reads from outside (rank-0 constants
// included: codegen inlines them as literals), numbered in the order the steps first read them.
// A group of one node stays as it is.
// Numerics: bit-identical on the reference interpreter (every step rounds to its dtype, as the
// node it came from did).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_elementwise(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
