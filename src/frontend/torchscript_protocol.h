// What infernoc and its TorchScript loader (infernoc-torchscript, docs/architecture.md) pass each
// other. infernoc does not link LibTorch: it runs the loader as a child process with the model's
// path, a result file and the input specs (one argument), and the loader writes the result file:
// the load's Status and the notes it made for the user, then, when the load succeeded, the graph
// in the IR text form with its constants elided (names and source locations included), then each
// constant's bytes, in the graph's constant order (bit-exact, and quick: printing and parsing
// weights as decimals took ~25 s for 100 MB of weights).
// Strings travel as netstrings ("5:hello,"): byte-exact whatever a model's names hold, and
// every length is checked against what is left before it is used.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/input_spec.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::frontend::torchscript_protocol {

/// The input specs as the loader's third argument.
std::string encode_input_specs(const std::vector<InputSpec>& specs);
/// Inverse of encode_input_specs; a malformed argument is an invalid-input Status.
Expected<std::vector<InputSpec>> decode_input_specs(std::string_view text);

/// The result file's contents for a load that ended with `status` (and `graph` when it is ok);
/// `reads_sizes` as LoadOptions::reads_sizes says.
std::string encode_result(const Status& status, const std::vector<std::string>& notes,
                          const ir::Graph* graph, bool reads_sizes = false);

struct Result {
  Status status;  ///< the load's outcome as the loader reported it
  std::vector<std::string> notes;
  bool reads_sizes = false;  ///< LoadOptions::reads_sizes
  ir::Graph graph;           ///< empty unless status is ok
};
/// Inverse of encode_result. A result file that does not parse is an internal-error Status
/// describing what is wrong with it (the caller words it as a failure of the loader).
Expected<Result> decode_result(std::string_view text);

}  // namespace inferno::frontend::torchscript_protocol
