#include "passes/assign_layout.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "passes/canonicalize.h"
#include "passes/layout_forms.h"
#include "passes/layout_regions.h"
#include "passes/node_rebuilder.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// The Status of a conversion whose result is in place already (it defines the node's output).
Status status_of(const Expected<ir::ValueId>& defined) {
  return defined ? Status::ok() : defined.status();
}

/// Where NCHW dim `d` is in NHWC.
int64_t nhwc_dim(int64_t d) { return kToNchw[static_cast<size_t>(d)]; }

class LayoutAssigner {
 public:
  LayoutAssigner(NodeRebuilder& rebuilder, ConvLayout mode)
      : rebuilder_(rebuilder),
        graph_(rebuilder.graph()),
        forms_(rebuilder),
        mode_(mode),
        worth_(regions_worth_nhwc(graph_, rebuilder.old_nodes())) {}

  Status run() {
    std::vector<ir::Node>& nodes = rebuilder_.old_nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      rebuilder_.rename_inputs(nodes[i]);
      INFERNO_RETURN_IF_ERROR(visit(std::move(nodes[i]), worth_[i]));
    }
    INFERNO_RETURN_IF_ERROR(forms_.define_outputs());
    return rebuilder_.finish();
  }

 private:
  bool is_4d(ir::ValueId v) const { return graph_.type(v).rank() == 4; }
  bool is_constant(ir::ValueId v) const { return graph_.value(v).kind == ir::ValueKind::kConstant; }
  /// A 4-D activation that exists in NHWC already.
  bool in_nhwc(ir::ValueId v) const { return is_4d(v) && !is_constant(v) && forms_.has_nhwc(v); }

  /// `worth`: the node is in a region that goes NHWC under auto (layout_regions.h).
  Status visit(ir::Node node, bool worth) {
    INFERNO_ASSIGN_OR_RETURN(const bool done, try_nhwc(node, worth));
    if (done) return Status::ok();
    return keep(std::move(node));
  }

  /// Converts `node` to NHWC (or folds it into a conversion) if it should; false to keep it.
  Expected<bool> try_nhwc(const ir::Node& node, bool worth) {
    if (node.outputs.size() != 1) return false;
    switch (node.op) {
      case OpKind::kConv2d:
        if (!conv_goes_nhwc(node, worth)) return false;
        return convert(node, conv_nhwc(node), kept_inputs(node));
      case OpKind::kPermute:
        return fold_permute(node);
      case OpKind::kReshape:
        return fold_reshape(node);
      case OpKind::kSum:
      case OpKind::kMean:
        return reduction(node);
      case OpKind::kSoftmax:
      case OpKind::kLogSoftmax: {
        if (!follows_nhwc(node, worth)) return false;
        ir::Attributes attrs = node.attrs;
        attrs.set("dim", nhwc_dim(node.attrs.get_int("dim")));
        return convert(node, std::move(attrs), kept_inputs(node));
      }
      case OpKind::kMaxPool2d:
      case OpKind::kAvgPool2d:
      case OpKind::kAdaptiveAvgPool2d:
      case OpKind::kAdaptiveMaxPool2d: {
        if (node.attrs.get_string("layout") != "nchw" || !follows_nhwc(node, worth)) return false;
        ir::Attributes attrs = node.attrs;
        attrs.set("layout", std::string("nhwc"));
        return convert(node, std::move(attrs), kept_inputs(node));
      }
      case OpKind::kCat: {
        if (!follows_nhwc(node, worth)) return false;
        ir::Attributes attrs = node.attrs;
        attrs.set("dim", nhwc_dim(node.attrs.get_int("dim")));
        return convert(node, std::move(attrs), kept_inputs(node));
      }
      default:
        if (!ir::op_has_trait(node.op, ir::kElementwise) || !follows_nhwc(node, worth))
          return false;
        return convert(node, node.attrs, kept_inputs(node));
    }
  }

  /// The conv policy (assign_layout.h): with auto, a conv2d preferring NHWC goes NHWC when its
  /// region is worth it; a grouped one when its input is NHWC already.
  bool conv_goes_nhwc(const ir::Node& node, bool worth) const {
    if (node.attrs.get_string("layout") != "nchw" || !all_convertible(node)) return false;
    if (mode_ == ConvLayout::kNhwc) return true;
    return prefers_nhwc(graph_, node) ? worth : in_nhwc(node.inputs[0]);
  }

  static ir::Attributes conv_nhwc(const ir::Node& node) {
    ir::Attributes attrs = node.attrs;
    attrs.set("layout", std::string("nhwc"));
    return attrs;
  }

  /// The bias stays as it is; every other conv2d operand is read in NHWC.
  static std::vector<bool> kept_inputs(const ir::Node& node) {
    std::vector<bool> kept(node.inputs.size(), false);
    if (node.op == OpKind::kConv2d && kept.size() > 2) kept[2] = true;
    return kept;
  }

  bool all_convertible(const ir::Node& node) const {
    return std::all_of(node.inputs.begin(), node.inputs.end(), [&](ir::ValueId v) {
      return graph_.type(v).rank() <= 4 && forms_.convertible(v);
    });
  }

  /// The rule for ops that follow their operands (elementwise, cat, softmax): a 4-D result, an
  /// operand in NHWC already, and, outside a region going NHWC (`in_region`), no more elements
  /// copied into NHWC than back into NCHW.
  bool follows_nhwc(const ir::Node& node, bool in_region) const {
    if (!is_4d(node.outputs[0]) || !all_convertible(node)) return false;
    if (std::none_of(node.inputs.begin(), node.inputs.end(),
                     [&](ir::ValueId v) { return in_nhwc(v); }))
      return false;
    if (in_region) return true;
    int64_t to_nhwc = 0, to_nchw = 0;
    for (const ir::ValueId v : node.inputs) {
      to_nhwc += forms_.nhwc_copy_cost(v);
      to_nchw += forms_.nchw_copy_cost(v);
    }
    return to_nhwc <= to_nchw;
  }

  /// `node` computed on NHWC operands with `attrs`: a new node whose output is the NHWC form of
  /// node's (now pending) output. `kept[i]`: operand i is read as it is.
  Expected<bool> convert(const ir::Node& node, ir::Attributes attrs,
                         const std::vector<bool>& kept) {
    std::vector<ir::ValueId> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      ir::ValueId v = node.inputs[i];
      if (kept[i]) {
        INFERNO_ASSIGN_OR_RETURN(v, forms_.nchw(v));
      } else {
        INFERNO_ASSIGN_OR_RETURN(v, forms_.nhwc(v, node.loc));
      }
      inputs.push_back(v);
    }
    const ir::ValueId out = node.outputs[0];
    INFERNO_ASSIGN_OR_RETURN(const ir::ValueId nhwc,
                             rebuilder_.build(node.op, std::move(inputs), std::move(attrs),
                                              graph_.name(out) + "_nhwc", node.loc));
    if (graph_.type(nhwc).shape != permuted_shape(graph_.type(out).shape, kToNhwc)) {
      return internal_error("assign-layout: %" + graph_.name(nhwc) + " is " +
                            graph_.type(nhwc).to_string() + ", not %" + graph_.name(out) + " (" +
                            graph_.type(out).to_string() + ") in NHWC");
    }
    forms_.set_pending(out, nhwc, node.loc);
    return true;
  }

  /// sum and mean: dims renumbered. A keepdim result is 4-D (its NHWC form is the new node's);
  /// otherwise the new node computes the same value when the kept dims keep their order.
  Expected<bool> reduction(const ir::Node& node) {
    const ir::ValueId x = node.inputs[0];
    if (!in_nhwc(x)) return false;
    const ir::IntList& dims = node.attrs.get_ints("dims");
    ir::IntList moved;
    for (const int64_t d : dims) moved.push_back(nhwc_dim(d));
    std::sort(moved.begin(), moved.end());
    ir::Attributes attrs = node.attrs;
    attrs.set("dims", moved);
    if (node.attrs.get_bool("keepdim")) return convert(node, std::move(attrs), {false});
    auto reduced = [&](int64_t d) {
      return dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    };
    ir::IntList kept_nchw, kept_nhwc;  // the NCHW dims left, in NCHW and in NHWC order
    for (size_t i = 0; i < 4; ++i) {
      if (!reduced(static_cast<int64_t>(i))) kept_nchw.push_back(static_cast<int64_t>(i));
      if (!reduced(kToNhwc[i])) kept_nhwc.push_back(kToNhwc[i]);
    }
    if (kept_nchw != kept_nhwc) return false;
    INFERNO_ASSIGN_OR_RETURN(ir::Node same, redefine(graph_, node.op, {forms_.nhwc_form(x)},
                                                     std::move(attrs), node.outputs, node.loc));
    rebuilder_.append(std::move(same));
    return true;
  }

  /// permute(v, [0, 2, 3, 1]) is v's NHWC form when there is one, and becomes it otherwise;
  /// permute(t, [0, 3, 1, 2]) makes a pending value whose NHWC form is t; any other permute of a
  /// pending value is composed with the value's conversion.
  Expected<bool> fold_permute(const ir::Node& node) {
    const ir::ValueId v = node.inputs[0], out = node.outputs[0];
    if (!is_4d(v)) return false;
    const ir::IntList& dims = node.attrs.get_ints("dims");
    if (forms_.has_nhwc(v) && (forms_.is_pending(v) || dims == kToNhwc)) {
      ir::IntList composed;  // out[i] = v[dims[i]] = nhwc[kToNchw[dims[i]]]
      for (const int64_t d : dims) composed.push_back(nhwc_dim(d));
      INFERNO_RETURN_IF_ERROR(status_of(
          forms_.permute(forms_.nhwc_form(v), composed, graph_.name(out), node.loc, out)));
      return true;
    }
    if (dims == kToNhwc && !is_constant(v)) {
      rebuilder_.append(node);
      forms_.set_nhwc(v, out);
      return true;
    }
    if (dims == kToNchw && !is_constant(v)) {
      forms_.set_pending(out, v, node.loc);
      return true;
    }
    return false;
  }

  /// A reshape of a pending value whose conversion would be a reshape reads the NHWC form.
  Expected<bool> fold_reshape(const ir::Node& node) {
    const ir::ValueId v = node.inputs[0];
    if (!forms_.is_pending(v) || forms_.nchw_copy_cost(v) != 0) return false;
    const ir::ValueId out = node.outputs[0];
    INFERNO_RETURN_IF_ERROR(status_of(forms_.reshape(forms_.nhwc_form(v), graph_.type(out).shape,
                                                     graph_.name(out), node.loc, out)));
    return true;
  }

  /// The node as it is, reading its operands in NCHW.
  Status keep(ir::Node node) {
    for (ir::ValueId& v : node.inputs) {
      INFERNO_ASSIGN_OR_RETURN(v, forms_.nchw(v));
    }
    rebuilder_.append(std::move(node));
    return Status::ok();
  }

  NodeRebuilder& rebuilder_;
  ir::Graph& graph_;
  LayoutForms forms_;
  ConvLayout mode_;
  std::vector<bool> worth_;  ///< by old node: in a region that goes NHWC under auto
};

}  // namespace

Status assign_layout(ir::Graph& graph, const PassOptions& options) {
  if (options.conv_layout == ConvLayout::kNchw) return Status::ok();
  {
    NodeRebuilder rebuilder(graph);
    INFERNO_RETURN_IF_ERROR(LayoutAssigner(rebuilder, options.conv_layout).run());
  }
  // What moved to NHWC can meet canonicalize's rules anew: a flatten of an NHWC [N, 1, 1, C]
  // mean feeding a gemm is a reshape merging leading dims, which moves past the gemm.
  return rewrite_nodes(graph, &canonicalize_node);
}

}  // namespace inferno::passes
