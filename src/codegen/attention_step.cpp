#include "codegen/attention_step.h"

#include "codegen/strided_view.h"
#include "target/target.h"

namespace inferno::codegen {
namespace {

// The (node, input position) pairs that read `value`.
std::vector<std::pair<int32_t, size_t>> readers(const ir::Graph& graph, ir::ValueId value) {
  std::vector<std::pair<int32_t, size_t>> out;
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const ir::Node& node = graph.nodes()[n];
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (node.inputs[k] == value) out.emplace_back(static_cast<int32_t>(n), k);
  }
  return out;
}

// Whether `value` is read by node `node` at input `position` and by nothing else.
bool read_only_by(const ir::Graph& graph, ir::ValueId value, int32_t node, size_t position) {
  const auto r = readers(graph, value);
  return r.size() == 1 && r.front().first == node && r.front().second == position;
}

bool is_user_output(const ir::Graph& graph, ir::ValueId value) {
  for (size_t j = 0; j < graph.num_user_outputs(); ++j)
    if (graph.outputs()[j] == value) return true;
  return false;
}

bool is_output(const ir::Graph& graph, ir::ValueId value) {
  for (const ir::ValueId out : graph.outputs())
    if (out == value) return true;
  return false;
}

// Whether the kernel can read `value` as [B, H, S, E] rows with a contiguous last dim.
bool head_rows(const ir::Graph& graph, const ViewPlan& views, ir::ValueId value) {
  const StridedView view = resolve_view(graph, views, value).view;
  return view.rank() == 4 && (view.shape[3] == 1 || view.strides[3] == 1);
}

// The producer of `value` if it is a rotary of `value`'s shape that `reader` alone reads (at
// `position`), with a rotary dim the kernel takes and cosine and sine rows it can read; else -1.
int32_t rotary_feeding(const ir::Graph& graph, const ViewPlan& views, ir::ValueId value,
                       int32_t reader, size_t position) {
  const int32_t producer = views.producer.at(static_cast<size_t>(value));
  if (producer < 0) return -1;
  const ir::Node& rotary = graph.nodes()[static_cast<size_t>(producer)];
  if (rotary.op != ir::OpKind::kRotary || is_output(graph, value) ||
      !read_only_by(graph, value, reader, position))
    return -1;
  const ir::TensorType& out = graph.type(value);
  const int64_t r = rotary.attrs.get_int("rotary_dim");
  if (r <= 0 || r % 2 != 0 || r > out.shape.back() || !head_rows(graph, views, rotary.inputs[0]))
    return -1;
  // One row of r contiguous values for every head, cosine and sine a batch apart alike.
  ir::Shape rotated = out.shape;
  rotated.back() = r;
  const StridedView cosine =
      broadcast_view(resolve_view(graph, views, rotary.inputs[1]).view, rotated);
  const StridedView sine =
      broadcast_view(resolve_view(graph, views, rotary.inputs[2]).view, rotated);
  for (const StridedView& view : {cosine, sine}) {
    if ((view.strides[1] != 0 && rotated[1] != 1) || view.strides[3] != 1) return -1;
  }
  if (rotated[0] != 1 && cosine.strides[0] != sine.strides[0]) return -1;
  return producer;
}

// The in-place index_copy writing `value` (a KV cache the attention `reader` reads at `position`)
// that the attention can do, or -1.
int32_t cache_write(const ir::Graph& graph, const ViewPlan& views, const MemoryPlan& plan,
                    ir::ValueId value, int32_t reader, size_t position) {
  const int32_t producer = views.producer.at(static_cast<size_t>(value));
  if (producer < 0) return -1;
  const ir::Node& copy = graph.nodes()[static_cast<size_t>(producer)];
  if (copy.op != ir::OpKind::kIndexCopy || copy.attrs.get_int("dim") != 2) return -1;
  const ir::ValueId cache = copy.inputs[0], index = copy.inputs[1], source = copy.inputs[2];
  const ir::TensorType& ids = graph.type(index);
  if (plan.of(cache).kind != StorageKind::kState || !same_bytes(plan, cache, value) ||
      !read_only_by(graph, cache, producer, 0) || !read_only_by(graph, value, reader, position) ||
      is_user_output(graph, value) || ids.dtype != ir::DType::kI64 || ids.numel() != 1)
    return -1;
  const ir::Shape& rows = graph.type(source).shape;
  const ir::Shape& whole = graph.type(value).shape;
  if (rows.size() != 4 || whole.size() != 4 || rows[2] != 1 || rows[0] != whole[0] ||
      rows[1] != whole[1] || rows[3] != whole[3])
    return -1;
  return producer;
}

// The step attention node `index` can take over, or none.
AttentionStep step_of(const ir::Graph& graph, const ViewPlan& views, const MemoryPlan& plan,
                      int32_t index) {
  const ir::Node& node = graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& q = graph.type(node.inputs[0]);
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const target::AttentionLimits& limits = target::kAttentionLimits;
  if (node.op != ir::OpKind::kAttention || node.attrs.get_bool("causal") || q.rank() != 4 ||
      q.shape[2] != 1 || out.numel() == 0 || q.shape[3] == 0 || !ir::is_floating(q.dtype) ||
      q.shape[0] > limits.max_grid || q.shape[1] > limits.max_grid)
    return {};
  AttentionStep step;
  step.k_write = cache_write(graph, views, plan, node.inputs[1], index, 1);
  step.v_write = cache_write(graph, views, plan, node.inputs[2], index, 2);
  if (step.k_write < 0 || step.v_write < 0) return {};
  const ir::Node& k_copy = graph.nodes()[static_cast<size_t>(step.k_write)];
  const ir::Node& v_copy = graph.nodes()[static_cast<size_t>(step.v_write)];
  if (k_copy.inputs[1] != v_copy.inputs[1] || k_copy.inputs[0] == v_copy.inputs[0]) return {};
  step.k_rotary = rotary_feeding(graph, views, k_copy.inputs[2], step.k_write, 2);
  step.q_rotary = rotary_feeding(graph, views, node.inputs[0], index, 0);
  const ir::ValueId k_rows = step.k_rotary >= 0
                                 ? graph.nodes()[static_cast<size_t>(step.k_rotary)].inputs[0]
                                 : k_copy.inputs[2];
  const ir::ValueId q_rows = step.q_rotary >= 0
                                 ? graph.nodes()[static_cast<size_t>(step.q_rotary)].inputs[0]
                                 : node.inputs[0];
  if (!head_rows(graph, views, k_rows) || !head_rows(graph, views, v_copy.inputs[2]) ||
      !head_rows(graph, views, q_rows))
    return {};
  if (step.q_rotary >= 0 && step.k_rotary >= 0) {  // one cosine and sine for both
    const ir::Node& a = graph.nodes()[static_cast<size_t>(step.q_rotary)];
    const ir::Node& b = graph.nodes()[static_cast<size_t>(step.k_rotary)];
    if (a.inputs[1] != b.inputs[1] || a.inputs[2] != b.inputs[2]) return {};
    // The batch stride of both views must agree (the same values broadcast alike).
    if (graph.type(a.outputs[0]).shape[0] != graph.type(b.outputs[0]).shape[0]) return {};
  }
  for (const ir::ValueId v : {k_copy.inputs[2], v_copy.inputs[2], q_rows, k_rows}) {
    if (graph.type(v).dtype != q.dtype) return {};
  }
  return step;
}

}  // namespace

std::vector<AttentionStep> plan_attention_steps(const ir::Graph& graph, const ViewPlan& views,
                                                const MemoryPlan& plan, bool enabled) {
  std::vector<AttentionStep> steps(graph.nodes().size());
  if (!enabled) return steps;
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n) {
    if (graph.nodes()[static_cast<size_t>(n)].op == ir::OpKind::kAttention)
      steps[static_cast<size_t>(n)] = step_of(graph, views, plan, n);
  }
  return steps;
}

std::vector<std::vector<ir::ValueId>> attention_step_reads(
    const ir::Graph& graph, const std::vector<AttentionStep>& steps) {
  std::vector<std::vector<ir::ValueId>> reads(graph.nodes().size());
  for (size_t n = 0; n < steps.size(); ++n) {
    const AttentionStep& step = steps[n];
    if (step.k_write < 0) continue;
    const auto& nodes = graph.nodes();
    for (const int32_t rotary : {step.q_rotary, step.k_rotary}) {
      if (rotary < 0) continue;
      for (const ir::ValueId in : nodes[static_cast<size_t>(rotary)].inputs) reads[n].push_back(in);
    }
    const ir::Node& k_copy = nodes[static_cast<size_t>(step.k_write)];
    const ir::Node& v_copy = nodes[static_cast<size_t>(step.v_write)];
    reads[n].push_back(k_copy.inputs[1]);                         // the index
    if (step.k_rotary < 0) reads[n].push_back(k_copy.inputs[2]);  // else the rotary's input
    reads[n].push_back(v_copy.inputs[2]);
  }
  return reads;
}

std::vector<int32_t> attention_step_owners(const std::vector<AttentionStep>& steps) {
  std::vector<int32_t> owner(steps.size(), -1);
  for (size_t n = 0; n < steps.size(); ++n) {
    const AttentionStep& step = steps[n];
    if (step.k_write < 0) continue;
    for (const int32_t done : {step.q_rotary, step.k_rotary, step.k_write, step.v_write})
      if (done >= 0) owner[static_cast<size_t>(done)] = static_cast<int32_t>(n);
  }
  return owner;
}

}  // namespace inferno::codegen
