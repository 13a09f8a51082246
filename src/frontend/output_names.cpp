#include "frontend/output_names.h"

#include <set>

namespace inferno::frontend {

std::vector<std::string> name_outputs(ir::Graph& graph, const std::vector<std::string>& keys) {
  std::vector<std::string> notes;
  std::set<ir::ValueId> named;
  const std::vector<ir::ValueId> outputs = graph.outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ir::ValueId id = outputs[i];
    if (graph.value(id).kind != ir::ValueKind::kNodeOutput || !named.insert(id).second) continue;
    const std::string old_name = graph.name(id);
    const bool keyed = i < keys.size() && !keys[i].empty();
    graph.rename(id, keyed ? keys[i] : "output" + std::to_string(i));
    notes.push_back(graph.name(id) + " (was %" + old_name + ")");
  }
  return notes;
}

}  // namespace inferno::frontend
