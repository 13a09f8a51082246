// The ATen-name -> IR table shared by both frontends.
//
// A frontend decodes each model node into an AtenCall (op name, decoded arguments, where it came
// from) and hands it to lower_aten_call, which binds the arguments to the op's schema (positional
// and keyword, filling omitted defaults), then builds IR nodes. In-place variants (`relu_`) and
// overloads (`add.Tensor`, `add.Scalar`) are aliases of one entry. Ops that are identities at
// inference time (dropout, contiguous, clone, detach, alias) return their input unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::frontend {

struct NoneArg {
  bool operator==(const NoneArg&) const = default;
};
/// A decoded argument: None, a tensor value already in the graph, a list of tensors, int, float,
/// bool, string, int list, a dtype or a float list (upsampling's scale factors). Frontends decode
/// PyTorch scalar types to ir::DType. In a list of optional tensors (index's Tensor?[]), a None is
/// ir::kNoValue.
using AtenArg = std::variant<NoneArg, ir::ValueId, std::vector<ir::ValueId>, int64_t, double, bool,
                             std::string, std::vector<int64_t>, ir::DType, std::vector<double>>;

struct AtenCall {
  std::string op;        ///< "aten::linear" (namespace + base name, no overload)
  std::string overload;  ///< "default", "Tensor", "Scalar", "int", ... ("" when unknown)
  std::vector<AtenArg> positional;
  std::vector<std::pair<std::string, AtenArg>> keyword;
  std::string node_name;  ///< the model's name for the node's (first) output
  SourceLocation loc;
};

/// True if `op` ("aten::relu_", "aten::linear") has an entry, in-place aliases included.
bool is_supported_aten_op(std::string_view op);

/// Lowers one call into IR nodes appended to `graph`; returns one value per ATen output, or
/// ir::kNoValue for an output infernoc does not compute (pooling indices, batch_norm's saved
/// statistics), which the frontend refuses (unsupported) where the model uses it.
/// Errors: unsupported op or argument combination (kUnsupported, naming the op, node and
/// location), arguments that do not fit the schema or shapes that do not fit (kInvalidInput).
Expected<std::vector<ir::ValueId>> lower_aten_call(ir::Graph& graph, const AtenCall& call);

/// The message of the Status a frontend returns when a model has unsupported ops: one line per
/// op instance, "aten::cumsum (node 'cumsum' at model.py:12)", under a header with the count.
Status unsupported_ops_error(const std::vector<Status>& each);

}  // namespace inferno::frontend
