#include "passes/convert_precision.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/shape_rules.h"
#include "passes/node_rebuilder.h"
#include "support/check.h"

namespace inferno::passes {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

/// The largest finite f16 and bf16 values: constants beyond them saturate (see the header).
constexpr double kHalfMax = 65504.0;
constexpr double kBf16Max = 3.3895313892515355e38;

bool is_f32(const ir::TensorType& t) { return t.dtype == DType::kF32; }

/// Ops whose stored result can exceed f16's range although their operands do not (ops.def).
bool widens_range(OpKind op) { return op_has_trait(op, ir::kWidensF16Range); }

/// Ops whose result is back in range whatever their operand (a wide value stops at them).
bool narrows_range(OpKind op) { return op_has_trait(op, ir::kNarrowsRange); }

/// Ops that read a wide value in f32 (in f16): elementwise ops, reductions and norms, and rotary
/// (the multiply-add that recognize-rotary made of elementwise ops, which would have read it so).
bool follows_wide(OpKind op) {
  return op_has_trait(op, ir::kElementwise) || op_has_trait(op, ir::kReduction) ||
         op_has_trait(op, ir::kNormalization) || op == OpKind::kRotary;
}

bool is_trig(OpKind op) { return op == OpKind::kSin || op == OpKind::kCos; }

/// Ops through which an angle reaches sin or cos: elementwise arithmetic and layout.
bool carries_angle(OpKind op) {
  return op_has_trait(op, ir::kElementwise) || op_has_trait(op, ir::kLayout);
}

/// By value: whether it reaches a sin or cos through carries_angle ops only (a backward walk over
/// the graph's nodes, in order).
std::vector<bool> values_feeding_trig(const std::vector<ir::Node>& nodes, int64_t num_values) {
  std::vector<bool> feeds(static_cast<size_t>(num_values), false);
  for (auto node = nodes.rbegin(); node != nodes.rend(); ++node) {
    bool marks = is_trig(node->op);
    for (ValueId out : node->outputs)
      marks = marks || (carries_angle(node->op) && feeds[static_cast<size_t>(out)]);
    if (!marks) continue;
    for (ValueId in : node->inputs) feeds[static_cast<size_t>(in)] = true;
  }
  return feeds;
}

class Converter {
 public:
  Converter(ir::Graph& graph, DType low, const PassOptions& options)
      : rebuilder_(graph), graph_(graph), low_(low), options_(options) {
    const size_t n = static_cast<size_t>(graph.num_values());
    orig_.assign(n, ir::kNoValue);
    low_form_.assign(n, ir::kNoValue);
    wide_.assign(n, false);
    pinned_.assign(n, false);
    angle_.assign(n, false);
    feeds_trig_ = values_feeding_trig(rebuilder_.old_nodes(), graph.num_values());
    for (ValueId v : graph.inputs()) orig_[static_cast<size_t>(v)] = v;
    for (ValueId v : graph.constants()) orig_[static_cast<size_t>(v)] = v;
    is_output_.assign(n, false);
    for (ValueId v : graph.outputs()) is_output_[static_cast<size_t>(v)] = true;
    was_f32_.assign(n, false);
    for (size_t v = 0; v < n; ++v) was_f32_[v] = is_f32(graph.type(static_cast<ValueId>(v)));
    io_compute_ = options.io_precision == IoPrecision::kCompute;
    // The caller passes the 16-bit data (--io-precision compute), and a state (the caller never
    // sees it; an LLM's KV cache) is always kept in T: an f32 input becomes T itself (its T form);
    // an f32 island reading it gets a cast up.
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      const ValueId v = graph.inputs()[i];
      const bool state = i >= graph.num_user_inputs();
      if (!was_f32_[at(v)] || !(io_compute_ || state)) continue;
      graph.mutable_value(v).type.dtype = low_;
      orig_[at(v)] = ir::kNoValue;
      low_form_[at(v)] = v;
      if (state) {
        std::shared_ptr<const ir::Tensor>& initial =
            graph.mutable_state(i - graph.num_user_inputs()).initial;
        if (initial) {  // rounded to T as the weights are
          ir::Tensor rounded = ir::Tensor::zeros({low_, initial->type.shape});
          for (int64_t k = 0; k < rounded.numel(); ++k) rounded.set(k, initial->get(k));
          initial = std::make_shared<const ir::Tensor>(std::move(rounded));
        }
      }
    }
  }

  Status run() {
    std::vector<ir::Node>& old_nodes = rebuilder_.old_nodes();
    for (ir::Node& node : old_nodes) {
      cast_loc_ = node.loc;
      INFERNO_RETURN_IF_ERROR(visit(std::move(node)));
    }
    cast_loc_ = {};
    std::vector<ValueId> outputs;
    std::vector<bool> renamed(static_cast<size_t>(graph_.num_values()), false);
    for (size_t j = 0; j < graph_.outputs().size(); ++j) {
      const ValueId v = graph_.outputs()[j];
      const bool state = j >= graph_.num_user_outputs();  // kept in T, as the state input
      if (!(io_compute_ || state) || !f32(v)) {
        INFERNO_ASSIGN_OR_RETURN(ValueId out, original_form(v));
        outputs.push_back(out);
        continue;
      }
      // --io-precision compute: the output is the T value. One computed in f32 (an island) is
      // cast down, and the cast takes the output's name (the f32 value becomes <name>_f32).
      INFERNO_ASSIGN_OR_RETURN(ValueId out, low_form(v));
      if (out != v && !renamed[at(v)]) {
        renamed[at(v)] = true;
        graph_.take_name(out, v, graph_.name(v) + "_f32");
      }
      outputs.push_back(out);
    }
    graph_.set_outputs(std::move(outputs));
    return rebuilder_.finish();
  }

 private:
  size_t at(ValueId v) const { return static_cast<size_t>(v); }
  const ir::TensorType& type(ValueId v) const { return graph_.type(v); }
  /// Whether value `v` of the graph as it came was f32 (converted values have their T type).
  bool f32(ValueId v) const { return was_f32_[at(v)]; }

  /// The value of `v`'s original type (for an f32 value: its f32 form).
  Expected<ValueId> original_form(ValueId v) {
    if (orig_[at(v)] != ir::kNoValue) return orig_[at(v)];
    const ValueId low = low_form_[at(v)];
    INFERNO_CHECK(low != ir::kNoValue, "%" + graph_.name(v) + " has no form yet");
    ir::Attributes attrs;
    attrs.set("dtype", DType::kF32);
    INFERNO_ASSIGN_OR_RETURN(ValueId up, rebuilder_.build(OpKind::kCast, {low}, std::move(attrs),
                                                          graph_.name(v) + "_f32", cast_loc_));
    grow();
    orig_[at(v)] = up;
    return up;
  }

  /// The 16-bit form of f32 value `v`.
  Expected<ValueId> low_form(ValueId v) {
    if (low_form_[at(v)] != ir::kNoValue) return low_form_[at(v)];
    INFERNO_ASSIGN_OR_RETURN(ValueId orig, original_form(v));
    const std::string hint = graph_.name(v) + "_" + std::string(ir::dtype_name(low_));
    ValueId low = ir::kNoValue;
    const ir::Value& value = graph_.value(orig);
    if (value.kind == ir::ValueKind::kConstant && value.constant != nullptr) {
      // Converted once, here: the weights blob holds the 16-bit data.
      const ir::Tensor& from = *value.constant;
      ir::Tensor to = ir::Tensor::zeros({low_, from.type.shape});
      const double max = low_ == DType::kF16 ? kHalfMax : kBf16Max;
      for (int64_t i = 0; i < from.numel(); ++i) {
        double x = from.get(i);
        if (std::isfinite(x)) x = std::fmax(-max, std::fmin(max, x));
        to.set(i, x);
      }
      low = graph_.add_constant(hint, std::move(to));
    } else {
      ir::Attributes attrs;
      attrs.set("dtype", low_);
      INFERNO_ASSIGN_OR_RETURN(
          low, rebuilder_.build(OpKind::kCast, {orig}, std::move(attrs), hint, cast_loc_));
    }
    grow();
    low_form_[at(v)] = low;
    return low;
  }

  /// Keeps the per-value tables as large as the graph's value count.
  void grow() {
    const size_t n = static_cast<size_t>(graph_.num_values());
    if (orig_.size() >= n) return;
    orig_.resize(n, ir::kNoValue);
    low_form_.resize(n, ir::kNoValue);
    wide_.resize(n, false);
    pinned_.resize(n, false);
    angle_.resize(n, false);
    feeds_trig_.resize(n, false);
    is_output_.resize(n, false);
    was_f32_.resize(n, false);
  }

  /// The node as it is, reading the original forms of its operands.
  Status keep(ir::Node node) {
    for (ValueId& in : node.inputs) {
      INFERNO_ASSIGN_OR_RETURN(in, original_form(in));
    }
    for (ValueId out : node.outputs) orig_[at(out)] = out;
    rebuilder_.append(std::move(node));
    return Status::ok();
  }

  void note(const ir::Node& node, const std::string& why) const {
    if (!options_.note) return;
    std::string where;
    if (!node.loc.empty()) where = " at " + node.loc.to_string();
    options_.note("convert-precision: " + std::string(ir::op_name(node.op)) + " '" +
                  graph_.node_name(node) + "'" + where + " stays f32: " + why);
  }

  /// Whether the node runs in f32 (its operands' f32 forms, its results f32).
  bool stays_f32(const ir::Node& node, bool& wide_result, bool& pinned_result,
                 bool& angle_result) const {
    wide_result = false;
    pinned_result = false;
    angle_result = false;
    for (ValueId in : node.inputs) pinned_result = pinned_result || pinned_[at(in)];
    if (pinned_result) return true;
    bool reads_angle = false;
    for (ValueId in : node.inputs) reads_angle = reads_angle || angle_[at(in)];
    if (reads_angle && is_trig(node.op)) return true;  // its result, in [-1, 1], goes to T
    if (reads_angle && carries_angle(node.op)) {
      for (ValueId out : node.outputs) angle_result = angle_result || feeds_trig_[at(out)];
      if (angle_result) return true;
    }
    if (op_has_trait(node.op, ir::kStaysF32) || node.op == OpKind::kFusedElementwise) return true;
    if (low_ != DType::kF16) return false;
    bool reads_wide = false;
    for (ValueId in : node.inputs) reads_wide = reads_wide || wide_[at(in)];
    if (widens_range(node.op)) {
      wide_result = true;
      return true;
    }
    if (reads_wide && follows_wide(node.op)) {
      wide_result = !narrows_range(node.op);
      return true;
    }
    return false;
  }

  Status visit(ir::Node node) {
    bool touches_f32 = false;
    for (ValueId v : node.inputs) touches_f32 = touches_f32 || f32(v);
    for (ValueId v : node.outputs) touches_f32 = touches_f32 || f32(v);
    if (!touches_f32) return keep(std::move(node));

    if (node.op == OpKind::kCast) {
      const ValueId in = node.inputs[0];
      const ValueId out = node.outputs[0];
      const DType from = type(in).dtype;
      if ((from == DType::kF16 || from == DType::kBF16) && f32(out)) {
        // The model's own up-cast: what reads it stays f32 up to its cast back down.
        pinned_[at(out)] = true;
        return keep(std::move(node));
      }
      if (ir::is_integral(from) && f32(out) && feeds_trig_[at(out)]) {
        // Positions on their way to a sin or cos (a rotary or sinusoidal embedding's angles):
        // exact in f32, and the angles computed from them stay f32 (see the header).
        angle_[at(out)] = true;
        return keep(std::move(node));
      }
      if (!ir::is_floating(from) && f32(out)) {
        // An integer or bool (a mask, positions) converted straight to T: one rounding.
        node.attrs.set("dtype", low_);
        Expected<bool> converted = try_low(node);
        if (!converted) return converted.status();
        if (*converted) return Status::ok();
        node.attrs.set("dtype", DType::kF32);
        return keep(std::move(node));
      }
      if (f32(in) && !f32(out)) {
        // A cast from f32 to the dtype the value has in T already is that value.
        if (type(out).dtype == low_ && low_form_[at(in)] != ir::kNoValue && !is_output_[at(out)]) {
          orig_[at(out)] = low_form_[at(in)];
          return Status::ok();
        }
        if (orig_[at(in)] == ir::kNoValue) {
          node.inputs[0] = low_form_[at(in)];
          orig_[at(out)] = out;
          rebuilder_.append(std::move(node));
          return Status::ok();
        }
        return keep(std::move(node));
      }
    }

    bool wide = false, pinned = false, angle = false;
    if (node.op == OpKind::kFusedElementwise)
      note(node, "a fused body is converted before fusion (run convert-precision before it)");
    if (!stays_f32(node, wide, pinned, angle)) {
      Expected<bool> converted = try_low(node);
      if (!converted) return converted.status();
      if (*converted) return Status::ok();
    }
    for (ValueId out : node.outputs) {
      if (!f32(out)) continue;
      wide_[at(out)] = wide;
      pinned_[at(out)] = pinned;
      angle_[at(out)] = angle;
    }
    return keep(std::move(node));
  }

  /// Appends the node computing in T; false (nothing appended) when its shape rule does not give
  /// its f32 results as T with the T operands.
  Expected<bool> try_low(ir::Node& node) {
    std::vector<ir::TensorType> in_types;
    for (ValueId in : node.inputs) {
      ir::TensorType t = type(in);
      if (f32(in)) t.dtype = low_;
      in_types.push_back(std::move(t));
    }
    Expected<std::vector<ir::TensorType>> out_types =
        ir::infer_output_types(node.op, in_types, node.attrs);
    bool same = out_types && out_types->size() == node.outputs.size();
    for (size_t i = 0; same && i < node.outputs.size(); ++i) {
      ir::TensorType expected = type(node.outputs[i]);
      if (f32(node.outputs[i])) expected.dtype = low_;
      same = (*out_types)[i] == expected;
    }
    if (!same) {
      note(node, "its shape rule gives other types for " + std::string(ir::dtype_name(low_)) +
                     " operands" + (out_types ? "" : ": " + out_types.status().message()));
      return false;
    }

    for (ValueId& in : node.inputs) {
      if (f32(in)) {
        INFERNO_ASSIGN_OR_RETURN(in, low_form(in));
      } else {
        INFERNO_ASSIGN_OR_RETURN(in, original_form(in));
      }
    }
    // Results that are graph outputs keep their value (and name) as f32, defined by a cast
    // right after the node; the others become T in place.
    std::vector<std::pair<ValueId, ValueId>> casts_back;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const ValueId out = node.outputs[i];
      if (!f32(out)) {
        orig_[at(out)] = out;
        continue;
      }
      if (is_output_[at(out)] && !io_compute_) {
        const ValueId low = graph_.add_node_output(
            graph_.name(out) + "_" + std::string(ir::dtype_name(low_)), (*out_types)[i]);
        grow();
        node.outputs[i] = low;
        low_form_[at(out)] = low;
        casts_back.emplace_back(low, out);
      } else {
        graph_.mutable_value(out).type = (*out_types)[i];
        low_form_[at(out)] = out;
      }
    }
    const SourceLocation loc = node.loc;
    rebuilder_.append(std::move(node));
    for (const auto& [low, out] : casts_back) {
      ir::Node cast;
      cast.op = OpKind::kCast;
      cast.inputs = {low};
      cast.outputs = {out};
      cast.attrs.set("dtype", DType::kF32);
      cast.loc = loc;
      rebuilder_.append(std::move(cast));
      orig_[at(out)] = out;
    }
    return true;
  }

  NodeRebuilder rebuilder_;
  ir::Graph& graph_;
  DType low_;
  const PassOptions& options_;
  bool io_compute_ = false;        ///< --io-precision compute: f32 inputs and outputs become T
  std::vector<ValueId> orig_;      ///< value -> the value of its original type, or kNoValue
  std::vector<ValueId> low_form_;  ///< f32 value -> its T form, or kNoValue
  /// Where the casts the pass adds come from: the node that needs them (its model source line,
  /// which profiles and errors then name), none for the outputs' casts.
  SourceLocation cast_loc_;
  std::vector<bool> wide_;        ///< f32 values that may exceed f16's range
  std::vector<bool> pinned_;      ///< f32 values the model computes in f32 on purpose
  std::vector<bool> angle_;       ///< f32 angles computed from integer positions
  std::vector<bool> feeds_trig_;  ///< values that reach a sin or cos (values_feeding_trig)
  std::vector<bool> is_output_;
  std::vector<bool> was_f32_;
};

}  // namespace

Status convert_precision(ir::Graph& graph, const PassOptions& options) {
  const std::optional<DType> low = options.target.compute_dtype();
  if (!low) return Status::ok();
  Converter converter(graph, *low, options);
  return converter.run();
}

}  // namespace inferno::passes
