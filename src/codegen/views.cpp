#include "codegen/views.h"

#include <algorithm>
#include <map>
#include <utility>

#include "support/check.h"

namespace inferno::codegen {
namespace {

bool is_layout(ir::OpKind op) {
  return op == ir::OpKind::kReshape || op == ir::OpKind::kPermute || op == ir::OpKind::kSlice ||
         op == ir::OpKind::kExpand;
}

ValueView contiguous(const ir::Graph& graph, ir::ValueId v) {
  const ir::Shape& shape = graph.type(v).shape;
  return {v, 0, {shape, ir::contiguous_strides(shape)}};
}

}  // namespace

bool view_access_accepts(ViewAccess access, const StridedView& view) {
  for (const int64_t s : view.strides) {
    if (s < 0) return false;
  }
  switch (access) {
    case ViewAccess::kHeadRows:
      return view.rank() == 4 && (view.shape[3] == 1 || view.strides[3] == 1);
    case ViewAccess::kIndexed:
      return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> reshape_strides(const ir::Shape& shape,
                                                    const std::vector<int64_t>& strides,
                                                    const ir::Shape& to) {
  const int64_t numel = ir::shape_numel(shape);
  if (numel == 0 || numel != ir::shape_numel(to)) return std::nullopt;
  if (numel == 1) return ir::contiguous_strides(to);  // one element: any strides read it
  // PyTorch's computeStride: walk `shape` from the last dim in chunks of dims that are contiguous
  // with each other; each chunk must be covered by whole dims of `to`.
  std::vector<int64_t> out(to.size(), 0);
  auto view_d = static_cast<int64_t>(to.size()) - 1;
  int64_t chunk_base_stride = strides.back(), tensor_numel = 1, view_numel = 1;
  for (auto d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    const auto i = static_cast<size_t>(d);
    tensor_numel *= shape[i];
    if (d == 0 || (shape[i - 1] != 1 && strides[i - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || to[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= to[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[i - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

std::optional<ValueView> view_through(const ir::Graph& graph, const ir::Node& node,
                                      const ValueView& input) {
  const ir::Shape& out_shape = graph.type(node.outputs[0]).shape;
  const StridedView& in = input.view;
  ValueView out{input.source, input.offset, {out_shape, {}}};
  switch (node.op) {
    case ir::OpKind::kReshape: {
      auto strides = reshape_strides(in.shape, in.strides, out_shape);
      if (!strides) return std::nullopt;
      out.view.strides = std::move(*strides);
      break;
    }
    case ir::OpKind::kPermute:
      for (const int64_t d : node.attrs.get_ints("dims"))
        out.view.strides.push_back(in.strides.at(static_cast<size_t>(d)));
      break;
    case ir::OpKind::kSlice: {
      const std::vector<int64_t> starts = node.attrs.get_ints("starts");
      const std::vector<int64_t> steps = node.attrs.get_ints("steps");
      INFERNO_CHECK(starts.size() == in.shape.size() && steps.size() == in.shape.size(),
                    "view_through: the slice does not match the rank");
      for (size_t d = 0; d < in.shape.size(); ++d) {
        out.view.strides.push_back(in.strides[d] * steps[d]);
        out.offset += starts[d] * in.strides[d];
      }
      break;
    }
    case ir::OpKind::kExpand: {
      INFERNO_CHECK(in.shape.size() <= out_shape.size(), "view_through: bad expand");
      const size_t lead = out_shape.size() - in.shape.size();
      for (size_t d = 0; d < out_shape.size(); ++d) {
        out.view.strides.push_back(d < lead || in.shape[d - lead] == 1 ? 0 : in.strides[d - lead]);
      }
      break;
    }
    default:
      return std::nullopt;
  }
  return out;
}

std::vector<ViewReaderInput> view_reader_inputs(const ir::Node& node) {
  std::vector<ViewReaderInput> inputs;
  if (node.op == ir::OpKind::kAttention) {
    for (const int32_t i : {0, 1, 2}) inputs.push_back({i, ViewAccess::kHeadRows});
  } else if (ir::op_has_trait(node.op, ir::kElementwise) ||
             node.op == ir::OpKind::kFusedElementwise || node.op == ir::OpKind::kCat) {
    // emit_fused.cpp, emit_join.cpp: each element's offset is literal arithmetic.
    for (size_t i = 0; i < node.inputs.size(); ++i)
      inputs.push_back({static_cast<int32_t>(i), ViewAccess::kIndexed});
  } else if (node.op == ir::OpKind::kRotary) {
    // emit_rotary.cpp: x, cos and sin by literal index arithmetic, as elementwise inputs.
    for (const int32_t i : {0, 1, 2}) inputs.push_back({i, ViewAccess::kIndexed});
  } else if (node.op == ir::OpKind::kIndexCopy) {
    inputs.push_back({2, ViewAccess::kIndexed});  // the source rows (emit_join.cpp)
  } else if (node.op == ir::OpKind::kConstantPad) {
    inputs.push_back({0, ViewAccess::kIndexed});  // x (emit_join.cpp)
  }
  return inputs;
}

ViewPlan plan_views(const ir::Graph& graph) {
  const auto num_nodes = static_cast<int32_t>(graph.nodes().size());
  const auto num_values = static_cast<size_t>(graph.num_values());
  ViewPlan plan;
  plan.lowering.assign(static_cast<size_t>(num_nodes), LayoutLowering::kMaterialized);
  plan.output_view.assign(static_cast<size_t>(num_nodes), ValueView{});

  plan.producer.assign(num_values, -1);
  std::vector<int32_t>& producer = plan.producer;
  std::vector<std::vector<std::pair<int32_t, int32_t>>> uses(num_values);  // (node, position)
  std::vector<bool> graph_output(num_values, false);
  for (int32_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    for (const ir::ValueId out : node.outputs) producer[static_cast<size_t>(out)] = n;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      uses[static_cast<size_t>(node.inputs[i])].emplace_back(n, static_cast<int32_t>(i));
  }
  for (const ir::ValueId v : graph.outputs()) graph_output[static_cast<size_t>(v)] = true;

  // 1. Outputs written through a view: attention's output read only by a permute that keeps the
  //    last dim last is written in the permute's layout.
  for (int32_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    if (node.op != ir::OpKind::kAttention) continue;
    const ir::ValueId a = node.outputs[0];
    const auto& a_uses = uses[static_cast<size_t>(a)];
    if (graph_output[static_cast<size_t>(a)] || a_uses.size() != 1 || graph.type(a).numel() == 0)
      continue;
    const int32_t p = a_uses[0].first;
    const ir::Node& permute = graph.nodes()[static_cast<size_t>(p)];
    if (permute.op != ir::OpKind::kPermute) continue;
    const std::vector<int64_t> dims = permute.attrs.get_ints("dims");
    if (dims.size() != 4 || dims[3] != 3) continue;
    const ir::ValueId written = permute.outputs[0];
    const std::vector<int64_t> written_strides = ir::contiguous_strides(graph.type(written).shape);
    ValueView view{written, 0, {graph.type(a).shape, std::vector<int64_t>(4, 0)}};
    for (size_t j = 0; j < 4; ++j)
      view.view.strides[static_cast<size_t>(dims[j])] = written_strides[j];
    plan.lowering[static_cast<size_t>(p)] = LayoutLowering::kWrittenByProducer;
    plan.output_view[static_cast<size_t>(n)] = std::move(view);
  }

  // 2. For every view-reading input, the values it could read through: back from the input over
  //    layout nodes while the reader accepts the view from the next value behind (as
  //    contiguous bytes), so that any materialized value on the way is a source it accepts.
  std::map<std::pair<int32_t, int32_t>, std::vector<ir::ValueId>> readable;
  for (int32_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    for (const ViewReaderInput& reader : view_reader_inputs(node)) {
      std::vector<ir::ValueId>& path = readable[{n, reader.position}];
      std::vector<int32_t> chain;  // producers from the input back
      ir::ValueId cur = node.inputs[static_cast<size_t>(reader.position)];
      while (true) {
        const int32_t pn = producer[static_cast<size_t>(cur)];
        if (pn < 0 || graph.type(cur).numel() == 0) break;
        const ir::Node& layout = graph.nodes()[static_cast<size_t>(pn)];
        if (!is_layout(layout.op) ||
            plan.lowering[static_cast<size_t>(pn)] == LayoutLowering::kWrittenByProducer)
          break;
        chain.push_back(pn);
        std::optional<ValueView> view = contiguous(graph, layout.inputs[0]);
        for (auto it = chain.rbegin(); view && it != chain.rend(); ++it)
          view = view_through(graph, graph.nodes()[static_cast<size_t>(*it)], *view);
        if (!view || !view_access_accepts(reader.access, view->view)) break;
        path.push_back(cur);
        cur = layout.inputs[0];
      }
    }
  }

  // 3. A layout node is virtual when every reader of its output reads it as a view: a
  //    view-reading input whose path holds it, or a virtual layout node all of whose final
  //    readers' paths hold it too. Readers come later in node order, so one pass from the end
  //    decides.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> final_readers(num_values);
  auto on_path = [&](const std::pair<int32_t, int32_t>& reader, ir::ValueId w) {
    const auto found = readable.find(reader);
    return found != readable.end() &&
           std::find(found->second.begin(), found->second.end(), w) != found->second.end();
  };
  for (int32_t n = num_nodes - 1; n >= 0; --n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    if (!is_layout(node.op) ||
        plan.lowering[static_cast<size_t>(n)] != LayoutLowering::kMaterialized)
      continue;
    const ir::ValueId w = node.outputs[0];
    const auto& w_uses = uses[static_cast<size_t>(w)];
    bool all_views = !graph_output[static_cast<size_t>(w)] && !w_uses.empty();
    std::vector<std::pair<int32_t, int32_t>> finals;
    for (const auto& use : w_uses) {
      if (!all_views) break;
      if (plan.lowering[static_cast<size_t>(use.first)] == LayoutLowering::kVirtual) {
        const ir::ValueId next = graph.nodes()[static_cast<size_t>(use.first)].outputs[0];
        for (const auto& reader : final_readers[static_cast<size_t>(next)]) {
          all_views &= on_path(reader, w);
          finals.push_back(reader);
        }
      } else {
        all_views &= on_path(use, w);
        finals.push_back(use);
      }
    }
    if (all_views) {
      plan.lowering[static_cast<size_t>(n)] = LayoutLowering::kVirtual;
      final_readers[static_cast<size_t>(w)] = std::move(finals);
    } else if (node.op == ir::OpKind::kReshape) {
      plan.lowering[static_cast<size_t>(n)] = LayoutLowering::kAlias;
    }
  }

  // 4. A reshape of a value that is no view holds that value's bytes in order, whoever reads it:
  //    an alias, as always (its readers read the same view either way, and an elementwise reader
  //    may then write over it in place).
  for (int32_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    if (node.op == ir::OpKind::kReshape &&
        plan.lowering[static_cast<size_t>(n)] == LayoutLowering::kVirtual &&
        !plan.is_virtual(node.inputs[0])) {
      plan.lowering[static_cast<size_t>(n)] = LayoutLowering::kAlias;
    }
  }
  return plan;
}

ValueView resolve_view(const ir::Graph& graph, const ViewPlan& views, ir::ValueId value) {
  const int32_t n = views.producer.at(static_cast<size_t>(value));
  if (n < 0 || views.lowering[static_cast<size_t>(n)] != LayoutLowering::kVirtual)
    return contiguous(graph, value);
  const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
  std::optional<ValueView> view =
      view_through(graph, node, resolve_view(graph, views, node.inputs[0]));
  INFERNO_CHECK(view.has_value(), "resolve_view: a virtual node's view does not compose");
  return *view;
}

}  // namespace inferno::codegen
