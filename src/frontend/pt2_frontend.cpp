// The torch.export (.pt2) frontend. How it reads an archive (format: docs/pt2-format.md):
//   1. header records: archive_format = pt2, archive_version = 0, byteorder = little;
//   2. models/<name>.json (size-bounded, parsed with checked accessors: pt2_json.h);
//   3. the signature's input specs: parameters, buffers and tensor constants become IR constants
//      loaded from data/weights/ or data/constants/ (pt2_weights.cpp); user inputs become graph
//      inputs, typed from tensor_values, with dynamic dims taken from --input specs or hints;
//   4. every node's target is checked against the ATen table first, so all unsupported ops are
//      reported together; then each node is decoded into an AtenCall and lowered, and the IR
//      types of its outputs are cross-checked against the sizes and dtypes the file records;
//   5. user outputs become graph outputs. Buffers the model writes (in place in the default
//      export, as buffer_mutation outputs after run_decompositions()) become graph state: their
//      value at the start of a run is a state input, their final value its update. An in-place op
//      (`index_copy_`, `copy_`, `relu_`) is lowered functionally and its target's name rebound
//      to the result, so later readers see the new value. Higher-order regions that only change
//      autograd's mode (wrap_with_set_grad_enabled) are inlined.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "frontend/aten_table.h"
#include "frontend/frontend.h"
#include "frontend/pt2_json.h"
#include "frontend/pt2_model.h"
#include "ir/shape_rules.h"
#include "ir/verifier.h"

namespace inferno::frontend {
namespace {

using namespace pt2;  // NOLINT
using ir::ValueId;

constexpr uint64_t kMaxModelJsonBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxHeaderBytes = 4096;
// Far beyond any exported model (GPT-2 small is about 2,000 core-ATen nodes); bounds the work and
// memory a hostile graph can demand before anything is built.
constexpr size_t kMaxNodes = 1 << 20;
// Nodes that only assert facts about shapes or metadata: no-ops for a static graph.
constexpr std::string_view kAssertOps[] = {"aten::_assert_tensor_metadata", "aten::_assert_scalar",
                                           "aten::_assert_async", "aten::sym_constrain_range",
                                           "aten::sym_constrain_range_for_size"};

// Higher-order regions the frontend inlines: they only switch autograd (or autocast, honoured
// only when disabled) around their body.
constexpr std::string_view kSetGradRegion = "torch.ops.higher_order.wrap_with_set_grad_enabled";
constexpr std::string_view kAutocastRegion = "torch.ops.higher_order.wrap_with_autocast";
bool is_inlined_region(std::string_view target) {
  return target == kSetGradRegion || target == kAutocastRegion;
}

// The body of a region node: its one as_graph argument's graph.
Expected<JsonRef> region_body(const JsonRef& node) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  for (const JsonRef& input : inputs) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
    if (std::optional<JsonRef> g = arg.find("as_graph")) return g->at("graph");
  }
  return node.error("a higher-order region without a graph argument");
}

// True for an ATen op that writes its first argument ("index_copy_", "__iand__").
bool is_in_place(const Target& t) {
  if (!t.aten || !t.op.starts_with("aten::")) return false;
  const std::string_view base = std::string_view(t.op).substr(6);
  if (base.starts_with("__") && base.ends_with("__")) return base.starts_with("__i");
  return base.ends_with("_");
}

// The value an in-place node writes: the name of its first argument when that is a tensor, else
// "" (also for a node that writes nothing).
Expected<std::string> written_name(const JsonRef& node, const Target& target) {
  if (!is_in_place(target)) return std::string();
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  if (inputs.empty()) return std::string();
  INFERNO_ASSIGN_OR_RETURN(JsonRef arg, inputs.front().at("arg"));
  std::optional<JsonRef> tensor = arg.find("as_tensor");
  if (!tensor) return std::string();
  INFERNO_ASSIGN_OR_RETURN(JsonRef n, tensor->at("name"));
  return n.string();
}

class Loader {
 public:
  Loader(const Pt2Archive& archive, const LoadOptions& options)
      : archive_(archive), options_(options) {}
  Expected<ir::Graph> load();

 private:
  Status check_header() const;
  Expected<std::string> model_record() const;
  Status read_values(const JsonRef& graph);
  Status bind_user_inputs(const std::vector<std::pair<std::string, TensorMeta*>>& inputs,
                          const JsonRef& root);
  Status add_inputs(const JsonRef& signature, const std::string& model, const JsonRef& root);
  Status check_ops(const std::vector<JsonRef>& nodes) const;
  Status collect_unsupported(const std::vector<JsonRef>& nodes, std::vector<Status>& missing) const;
  Status find_mutated_buffers(const JsonRef& signature, const std::vector<JsonRef>& nodes);
  Status lower(const JsonRef& node);
  Status lower_region(const JsonRef& node, const std::vector<std::string>& outs);
  Status lower_sym_int_op(const JsonRef& node, std::string_view target,
                          const std::vector<std::string>& outs, const AtenCall& call);
  Expected<AtenArg> decode(const JsonRef& arg) const;
  Expected<int64_t> sym_value(const JsonRef& sym) const;
  Status note_sizes_read(const JsonRef& node, std::string_view op, std::string& row_index);
  Status check_type(const std::string& name, ValueId v, const std::string& node,
                    const SourceLocation& loc) const;
  Status set_outputs(const JsonRef& signature);
  /// The error for a use of an output that lower_aten_call did not compute (ir::kNoValue).
  Status not_computed(const std::string& name) const {
    return unsupported(record_ + ": value '" + name +
                       "' is used, but infernoc does not compute it (pooling indices, "
                       "batch_norm's saved statistics, attention weights and attention's "
                       "logsumexp and RNG outputs are not supported)");
  }

  const Pt2Archive& archive_;
  const LoadOptions& options_;
  std::string record_;  ///< "models/model.json"
  ir::Graph graph_;
  std::map<std::string, ValueId, std::less<>> values_;         ///< model value name -> IR value
  std::map<std::string, TensorMeta, std::less<>> metas_;       ///< tensor_values
  std::map<std::string, SymDim, std::less<>> sym_int_values_;  ///< named SymInts of the graph
  std::map<std::string, int64_t, std::less<>> sym_sizes_;      ///< outputs of sym_size nodes
  /// Buffers the model writes, by graph argument name ("b_cache") -> buffer name ("cache").
  std::map<std::string, std::string, std::less<>> mutated_buffers_;
  std::vector<std::string> state_args_;  ///< the states' argument names, in state order
  /// Names that stand for a written buffer (its argument name, and the results of in-place ops
  /// on it) -> the buffer's argument name.
  std::map<std::string, std::string, std::less<>> buffer_alias_;
  /// Names an in-place op may not write: the model's inputs (the caller's tensors), and inside a
  /// region its body's inputs.
  std::set<std::string, std::less<>> unwritable_names_;
  Symbols symbols_;
  RecordCache cache_;
};

Expected<std::string> read_small(const Pt2Archive& archive, const std::string& name) {
  INFERNO_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, archive.read(name, kMaxHeaderBytes));
  std::string s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

Status Loader::check_header() const {
  const std::string& path = archive_.path();
  INFERNO_ASSIGN_OR_RETURN(std::string format, read_small(archive_, "archive_format"));
  if (format != "pt2")
    return invalid_input("'" + path + "': archive_format is '" + format + "', expected 'pt2'");
  if (archive_.has("archive_version")) {
    INFERNO_ASSIGN_OR_RETURN(std::string version, read_small(archive_, "archive_version"));
    if (version != "0")
      return invalid_input("'" + path + "': archive_version " + version +
                           " is not supported (infernoc reads version 0)");
  }
  if (archive_.has("byteorder")) {
    INFERNO_ASSIGN_OR_RETURN(std::string order, read_small(archive_, "byteorder"));
    if (order != "little")
      return unsupported("'" + path + "': byte order '" + order +
                         "' is not supported (only little endian)");
  }
  return Status::ok();
}

// models/model.json, or the only models/*.json.
Expected<std::string> Loader::model_record() const {
  if (archive_.has("models/model.json")) return std::string("models/model.json");
  std::vector<std::string> found;
  for (const std::string& r : archive_.records()) {
    if (r.starts_with("models/") && r.ends_with(".json") && r.find('/', 7) == std::string::npos)
      found.push_back(r);
  }
  if (found.size() == 1) return found.front();
  return invalid_input("'" + archive_.path() + "': " +
                       (found.empty() ? "no models/*.json record"
                                      : "several models; infernoc reads models/model.json"));
}

Status Loader::read_values(const JsonRef& graph) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef tv, graph.at("tensor_values"));
  INFERNO_ASSIGN_OR_RETURN(auto tensors, tv.members());
  for (auto& [name, meta] : tensors) {
    INFERNO_ASSIGN_OR_RETURN(TensorMeta m, parse_tensor_meta(meta));
    metas_.emplace(name, std::move(m));
  }
  if (std::optional<JsonRef> syms = graph.find("sym_int_values")) {
    INFERNO_ASSIGN_OR_RETURN(auto members, syms->members());
    for (auto& [name, sym] : members) {
      INFERNO_ASSIGN_OR_RETURN(SymDim d, parse_sym_int(sym));
      sym_int_values_.emplace(name, std::move(d));
    }
  }
  return Status::ok();
}

// Types the user inputs: --input specs (checked against the model) or the file's sizes, binding
// the symbols of dynamic dims on the way.
Status Loader::bind_user_inputs(const std::vector<std::pair<std::string, TensorMeta*>>& inputs,
                                const JsonRef& root) {
  std::vector<std::string> names;
  for (const auto& [name, meta] : inputs) names.push_back(name);
  const bool given = !options_.inputs.empty();
  if (given) INFERNO_RETURN_IF_ERROR(check_input_specs(options_.inputs, names));
  std::vector<ir::TensorType> types;
  if (options_.dynamic_dims) {  // a map kept over several loads (variants) lists each use once
    for (auto& [symbol, dim] : *options_.dynamic_dims) {
      dim.uses.clear();
      dim.read_as_value = false;
      dim.row_indices.clear();
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& [name, meta] = inputs[i];
    INFERNO_ASSIGN_OR_RETURN(ir::DType dtype,
                             dtype_from_code(meta->dtype_code, "input '" + name + "'"));
    ir::TensorType type{dtype, {}};
    for (const SymDim& d : meta->sizes) type.shape.push_back(d.value.value_or(-1));
    if (given) {
      const ir::TensorType& spec = options_.inputs[i].type;
      const bool dtype_fits =
          spec.dtype == type.dtype || (!options_.inputs[i].exact_dtype &&
                                       ir::is_floating(spec.dtype) && ir::is_floating(type.dtype));
      bool fits = dtype_fits && spec.rank() == type.rank();
      for (size_t k = 0; fits && k < type.shape.size(); ++k)
        fits = type.shape[k] < 0 || type.shape[k] == spec.shape[k];
      if (!fits) {
        std::string expected = std::string(ir::dtype_name(dtype)) + "[";
        for (size_t k = 0; k < meta->sizes.size(); ++k) {
          expected += (k ? "," : "") + (meta->sizes[k].value ? std::to_string(*meta->sizes[k].value)
                                                             : meta->sizes[k].expr);
        }
        const std::string index = std::to_string(i);
        if (!options_.inputs[i].data_file.empty()) {
          return invalid_input("--data '" + options_.inputs[i].data_file + "' is " +
                               spec.to_string() + " but the model's input " + index + " (" + name +
                               ") is " + expected + "]");
        }
        return invalid_input("--input " + index + " (" + name + ") is " + spec.to_string() +
                             " but the model expects " + expected + "]");
      }
      type.shape = spec.shape;
    }
    for (size_t k = 0; k < meta->sizes.size(); ++k) {
      const SymDim& d = meta->sizes[k];
      if (d.value) continue;
      if (!given && !d.hint && !options_.symbols.count(symbol_name(d.expr)) &&
          !eval_sym_expr(d.expr, options_.symbols)) {
        return invalid_input("input " + name + " has a dynamic dim " + symbol_name(d.expr) +
                             "; pass --input");
      }
      const std::string symbol = symbol_name(d.expr);
      if (!given) {
        // A size chosen for the symbol, or for the symbols of a derived dim's expression ("2*s94"
        // when s94 is chosen), else the export's.
        auto chosen = options_.symbols.find(symbol);
        const std::optional<int64_t> derived = eval_sym_expr(d.expr, options_.symbols);
        type.shape[k] =
            chosen != options_.symbols.end() ? chosen->second : derived.value_or(*d.hint);
      }
      if (options_.dynamic_dims) {
        (*options_.dynamic_dims)[symbol].uses.push_back(
            {static_cast<int32_t>(i), static_cast<int32_t>(k)});
      }
      auto [it, fresh] = symbols_.emplace(symbol, type.shape[k]);
      if (!fresh && it->second != type.shape[k]) {
        return invalid_input("input " + name + " dim " + std::to_string(k) + " is " +
                             std::to_string(type.shape[k]) + " but " + symbol + " is " +
                             std::to_string(it->second) + " elsewhere");
      }
    }
    if (!ir::checked_numel(type.shape)) {
      return invalid_input("input " + name + " has an invalid or too large shape " +
                           type.to_string());
    }
    types.push_back(std::move(type));
  }
  // Bound symbols must lie in the ranges the model was exported for.
  if (options_.dynamic_dims) {
    for (const auto& [sym, value] : symbols_) (*options_.dynamic_dims)[sym].value = value;
    for (auto& [symbol, dim] : *options_.dynamic_dims) {
      dim.derived = symbol_name(symbol) != symbol || !is_identifier(symbol);
      for (const auto& [other, unused] : *options_.dynamic_dims)
        dim.derived = dim.derived || (other != symbol && mentions_symbol(other, symbol));
    }
  }
  if (std::optional<JsonRef> ranges = root.find("range_constraints")) {
    INFERNO_ASSIGN_OR_RETURN(auto members, ranges->members());
    for (auto& [sym, range] : members) {
      auto it = symbols_.find(sym);
      if (it == symbols_.end()) continue;
      std::optional<JsonRef> lo = range.find("min_val"), hi = range.find("max_val");
      int64_t low = 0, high = -1;  // -1: unbounded (torch.export's default max, int_oo)
      if (lo && lo->raw().is_number_integer()) low = lo->raw().get<int64_t>();
      if (hi && hi->raw().is_number_integer()) high = hi->raw().get<int64_t>();
      // The user's bounds (--dim) narrow the export's range, never widen it.
      if (auto bound = options_.dim_ranges.find(sym); bound != options_.dim_ranges.end()) {
        const auto [user_low, user_high] = bound->second;
        if (user_low < low || (high >= 0 && user_high > high)) {
          return invalid_input(
              "--dim " + sym + "=" + std::to_string(user_low) + ".." + std::to_string(user_high) +
              " is not within the range the model was exported for (" + std::to_string(low) + ".." +
              (high < 0 ? std::string() : std::to_string(high)) + ")");
        }
        low = user_low;
        high = user_high;
      }
      if (options_.dynamic_dims) {
        DynamicDim& dim = (*options_.dynamic_dims)[sym];
        dim.min = low;
        dim.max = high;
      }
      if (it->second < low || (high >= 0 && it->second > high)) {
        return invalid_input(
            "dynamic dim " + sym + " = " + std::to_string(it->second) + " is outside the range " +
            (options_.dim_ranges.count(sym) ? "--dim gives it" : "the model was exported for"));
      }
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (values_.count(inputs[i].first))
      return invalid_input(record_ + ": input '" + inputs[i].first + "' is listed twice");
    values_[inputs[i].first] = graph_.add_input(inputs[i].first, types[i]);
  }
  return Status::ok();
}

Status Loader::add_inputs(const JsonRef& signature, const std::string& model, const JsonRef& root) {
  INFERNO_ASSIGN_OR_RETURN(
      PayloadConfig weights,
      read_payload_config(archive_, "data/weights/" + model + "_weights_config.json",
                          "data/weights/"));
  INFERNO_ASSIGN_OR_RETURN(
      PayloadConfig constants,
      read_payload_config(archive_, "data/constants/" + model + "_constants_config.json",
                          "data/constants/"));
  if (archive_.has("data/weights/" + model + ".pt")) {
    return invalid_input("'" + archive_.path() +
                         "': the weights are stored as a pickle (data/weights/" + model +
                         ".pt, a legacy layout), which infernoc does not read");
  }
  INFERNO_ASSIGN_OR_RETURN(JsonRef specs_json, signature.at("input_specs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> specs, specs_json.items());
  std::vector<std::pair<std::string, TensorMeta*>> user_inputs;
  for (const JsonRef& spec : specs) {
    INFERNO_ASSIGN_OR_RETURN(auto member, spec.one_of());
    auto& [kind, body] = member;
    if (kind == "constant_input") continue;  // a Python constant argument: baked into the graph
    if (kind == "custom_obj")
      return body.error(
          "a custom object input is stored as a pickle, which infernoc does not read");
    if (kind == "token")
      return unsupported(record_ + ": effect tokens (side-effecting ops) are not supported");
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, body.at("arg"));
    if (kind == "user_input") {
      INFERNO_ASSIGN_OR_RETURN(auto a, arg.one_of());
      if (a.first != "as_tensor")
        return unsupported(record_ + ": non-tensor user input (" + a.first + ") is not supported");
      INFERNO_ASSIGN_OR_RETURN(JsonRef n, a.second.at("name"));
      INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
      auto meta = metas_.find(name);
      if (meta == metas_.end()) return arg.error("input '" + name + "' has no tensor_values entry");
      user_inputs.emplace_back(name, &meta->second);
      continue;
    }
    const char* fqn_key = kind == "parameter"         ? "parameter_name"
                          : kind == "buffer"          ? "buffer_name"
                          : kind == "tensor_constant" ? "tensor_constant_name"
                                                      : nullptr;
    if (!fqn_key) return body.error("unknown input spec kind '" + kind + "'");
    INFERNO_ASSIGN_OR_RETURN(JsonRef n, arg.at("name"));
    INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
    INFERNO_ASSIGN_OR_RETURN(JsonRef f, body.at(fqn_key));
    INFERNO_ASSIGN_OR_RETURN(std::string fqn, f.string());
    const std::string what =
        (kind == "tensor_constant" ? "tensor constant" : kind) + " '" + fqn + "'";
    const Payload* payload = nullptr;
    if (auto w = weights.find(fqn); w != weights.end())
      payload = &w->second;
    else if (auto c = constants.find(fqn); c != constants.end())
      payload = &c->second;
    if (!payload)
      return invalid_input(record_ + ": " + what +
                           " has no entry in the weights or constants config");
    INFERNO_ASSIGN_OR_RETURN(ir::Tensor tensor, load_payload(archive_, *payload, what, cache_));
    auto meta = metas_.find(name);
    if (meta != metas_.end()) {
      INFERNO_ASSIGN_OR_RETURN(ir::DType dtype, dtype_from_code(meta->second.dtype_code, what));
      ir::Shape shape;
      for (const SymDim& d : meta->second.sizes) shape.push_back(d.value.value_or(-1));
      if (ir::TensorType{dtype, shape} != tensor.type) {
        return invalid_input(what + " is " + tensor.type.to_string() + " in the payload but " +
                             ir::TensorType{dtype, shape}.to_string() + " in the graph");
      }
    }
    if (values_.count(name)) return arg.error("value '" + name + "' is defined twice");
    if (kind == "buffer" && mutated_buffers_.count(name)) {
      const bool zeros = std::all_of(tensor.data.begin(), tensor.data.end(),
                                     [](std::byte b) { return b == std::byte{0}; });
      const ir::TensorType type = tensor.type;
      values_[name] = graph_.add_state(
          fqn, type, zeros ? nullptr : std::make_shared<const ir::Tensor>(std::move(tensor)));
      state_args_.push_back(name);
      continue;
    }
    values_[name] = graph_.add_constant(fqn, std::move(tensor));
  }
  for (const auto& [name, meta] : user_inputs) unwritable_names_.insert(name);
  return bind_user_inputs(user_inputs, root);
}

// Every node whose target has no lowering, listed together.
Status Loader::check_ops(const std::vector<JsonRef>& nodes) const {
  std::vector<Status> missing;
  INFERNO_RETURN_IF_ERROR(collect_unsupported(nodes, missing));
  return missing.empty() ? Status::ok() : unsupported_ops_error(missing);
}

Status Loader::collect_unsupported(const std::vector<JsonRef>& nodes,
                                   std::vector<Status>& missing) const {
  for (const JsonRef& node : nodes) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef t, node.at("target"));
    INFERNO_ASSIGN_OR_RETURN(std::string target, t.string());
    const Target parsed = parse_target(target);
    if (is_inlined_region(target)) {  // the body's ops are checked like the graph's
      INFERNO_ASSIGN_OR_RETURN(JsonRef body, region_body(node));
      INFERNO_ASSIGN_OR_RETURN(JsonRef body_nodes, body.at("nodes"));
      INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inner, body_nodes.items());
      INFERNO_RETURN_IF_ERROR(collect_unsupported(inner, missing));
      continue;
    }
    const bool known =
        is_sym_int_op(target) ||
        (parsed.aten && (is_supported_aten_op(parsed.op) || parsed.op == "aten::sym_size" ||
                         std::find(std::begin(kAssertOps), std::end(kAssertOps), parsed.op) !=
                             std::end(kAssertOps)));
    if (known) continue;
    INFERNO_ASSIGN_OR_RETURN(std::vector<std::string> outs, output_names(node));
    missing.push_back(
        unsupported(parsed.op, outs.empty() ? std::string() : outs.front(), location_from(node)));
  }
  return Status::ok();
}

Expected<int64_t> Loader::sym_value(const JsonRef& sym) const {
  INFERNO_ASSIGN_OR_RETURN(auto member, sym.one_of());
  if (member.first == "as_int") return member.second.integer();
  if (member.first != "as_name")
    return sym.error("unknown SymInt argument kind '" + member.first + "'");
  INFERNO_ASSIGN_OR_RETURN(std::string name, member.second.string());
  if (auto it = sym_sizes_.find(name); it != sym_sizes_.end()) return it->second;
  if (auto it = sym_int_values_.find(name); it != sym_int_values_.end()) {
    if (std::optional<int64_t> v = resolve(it->second, symbols_)) return *v;
  }
  return sym.error("cannot resolve symbolic value '" + name + "'");
}

Expected<AtenArg> Loader::decode(const JsonRef& arg) const {
  INFERNO_ASSIGN_OR_RETURN(auto member, arg.one_of());
  auto& [kind, v] = member;
  auto tensor = [&](const JsonRef& t) -> Expected<ValueId> {
    INFERNO_ASSIGN_OR_RETURN(JsonRef n, t.at("name"));
    INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
    auto it = values_.find(name);
    if (it == values_.end()) return t.error("value '" + name + "' is used before it is defined");
    if (it->second == ir::kNoValue) return not_computed(name);
    return it->second;
  };
  if (kind == "as_none" || kind == "as_memory_format" || kind == "as_layout")
    return AtenArg{NoneArg{}};
  if (kind == "as_tensor") {
    INFERNO_ASSIGN_OR_RETURN(ValueId t, tensor(v));
    return AtenArg{t};
  }
  if (kind == "as_int") {
    INFERNO_ASSIGN_OR_RETURN(int64_t i, v.integer());
    return AtenArg{i};
  }
  if (kind == "as_ints") {
    INFERNO_ASSIGN_OR_RETURN(std::vector<int64_t> is, v.integers());
    return AtenArg{std::move(is)};
  }
  if (kind == "as_floats") {
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> list, v.items());
    std::vector<double> ds;
    for (const JsonRef& e : list) {
      INFERNO_ASSIGN_OR_RETURN(ds.emplace_back(), e.number());
    }
    return AtenArg{std::move(ds)};
  }
  if (kind == "as_float") {
    INFERNO_ASSIGN_OR_RETURN(double d, v.number());
    return AtenArg{d};
  }
  if (kind == "as_bool") {
    INFERNO_ASSIGN_OR_RETURN(bool b, v.boolean());
    return AtenArg{b};
  }
  if (kind == "as_string") {
    INFERNO_ASSIGN_OR_RETURN(std::string s, v.string());
    return AtenArg{std::move(s)};
  }
  if (kind == "as_scalar_type") {
    INFERNO_ASSIGN_OR_RETURN(int64_t code, v.integer());
    INFERNO_ASSIGN_OR_RETURN(ir::DType d, dtype_from_code(code, "a dtype argument"));
    return AtenArg{d};
  }
  if (kind == "as_device") {
    std::optional<JsonRef> type = v.find("type");
    return AtenArg{type && type->raw().is_string() ? type->raw().get<std::string>()
                                                   : std::string("cpu")};
  }
  if (kind == "as_sym_int") {
    INFERNO_ASSIGN_OR_RETURN(int64_t i, sym_value(v));
    return AtenArg{i};
  }
  if (kind == "as_optional_tensors") {  // index's Tensor?[]: None as ir::kNoValue
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> list, v.items());
    std::vector<ValueId> ts;
    for (const JsonRef& e : list) {
      INFERNO_ASSIGN_OR_RETURN(auto element, e.one_of());
      if (element.first == "as_none") {
        ts.push_back(ir::kNoValue);
      } else if (element.first == "as_tensor") {
        INFERNO_ASSIGN_OR_RETURN(ts.emplace_back(), tensor(element.second));
      } else {
        return e.error("unknown optional tensor kind '" + element.first + "'");
      }
    }
    return AtenArg{std::move(ts)};
  }
  if (kind == "as_tensors" || kind == "as_sym_ints") {
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> list, v.items());
    std::vector<ValueId> ts;
    std::vector<int64_t> is;
    for (const JsonRef& e : list) {
      if (kind == "as_tensors") {
        INFERNO_ASSIGN_OR_RETURN(ts.emplace_back(), tensor(e));
      } else {
        INFERNO_ASSIGN_OR_RETURN(is.emplace_back(), sym_value(e));
      }
    }
    return kind == "as_tensors" ? AtenArg{std::move(ts)} : AtenArg{std::move(is)};
  }
  return unsupported(record_ + ": argument kind '" + kind + "' is not supported (at " + arg.path() +
                     ")");
}

// A lowered value's IR type must equal what the file records. A mismatch is the file's problem
// (exit 3): torch.export records what PyTorch computed, so only an edited or damaged file
// disagrees, unless a shape rule of infernoc's is wrong, which the message invites a report of.
Status Loader::check_type(const std::string& name, ValueId v, const std::string& node,
                          const SourceLocation& loc) const {
  auto it = metas_.find(name);
  if (it == metas_.end())
    return invalid_input(record_ + ": value '" + name + "' has no tensor_values entry", node, loc);
  const ir::TensorType& actual = graph_.type(v);
  Expected<ir::DType> dtype = dtype_from_code(it->second.dtype_code, "value '" + name + "'");
  if (!dtype) return Status(dtype.status().code(), dtype.status().message(), node, loc);
  bool same = *dtype == actual.dtype && it->second.sizes.size() == actual.shape.size();
  std::string recorded = std::string(ir::dtype_name(*dtype)) + "[";
  for (size_t k = 0; k < it->second.sizes.size(); ++k) {
    const std::optional<int64_t> d = resolve(it->second.sizes[k], symbols_);
    recorded += (k ? "," : "") + (d ? std::to_string(*d) : it->second.sizes[k].expr);
    same = same && (!d || (k < actual.shape.size() &&
                           *d == actual.shape[k]));  // unknown exprs are not checked
  }
  if (same) return Status::ok();
  return invalid_input("value '" + name + "' is " + recorded +
                           "] in the model but infernoc computed " + actual.to_string() +
                           " (a damaged model, or, if torch.export wrote it as it is, an infernoc "
                           "bug to report)",
                       node, loc);
}

// Marks the dynamic dims whose sizes `node` (an ATen op) reads as numbers (DynamicDim::
// read_as_value): every symbol in the expression of each named SymInt argument, or every dim when
// the name has no expression. Views mark nothing, but an expand to a size after its first axis
// (x[:, None].expand(-1, B, -1) repeats a row B times). An arange of a dim's size alone marks
// nothing: `row_index` names the dim, and the caller records the constant as a row index.
Status Loader::note_sizes_read(const JsonRef& node, std::string_view op, std::string& row_index) {
  static constexpr std::string_view kViews[] = {"aten::view", "aten::reshape", "aten::_unsafe_view",
                                                "aten::view_copy"};
  const bool expand = op == "aten::expand" || op == "aten::expand_copy";
  if (options_.dynamic_dims == nullptr ||
      std::find(std::begin(kViews), std::end(kViews), op) != std::end(kViews)) {
    return Status::ok();
  }
  if (op == "aten::arange") {
    INFERNO_ASSIGN_OR_RETURN(row_index, arange_of_symbol(node, sym_int_values_));
    if (options_.dynamic_dims->count(row_index)) return Status::ok();
    row_index.clear();
  }
  const auto mark = [&](const std::string& name) {
    auto it = sym_int_values_.find(name);
    for (auto& [symbol, dim] : *options_.dynamic_dims) {
      if (it == sym_int_values_.end() || mentions_symbol(it->second.expr, symbol))
        dim.read_as_value = true;
    }
  };
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  for (const JsonRef& input : inputs) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
    INFERNO_ASSIGN_OR_RETURN(auto member, arg.one_of());
    std::vector<JsonRef> syms;
    if (member.first == "as_sym_int") syms.push_back(member.second);
    if (member.first == "as_sym_ints") {
      INFERNO_ASSIGN_OR_RETURN(syms, member.second.items());
      if (expand && !syms.empty()) syms.erase(syms.begin());  // the first axis only shapes
    }
    for (const JsonRef& sym : syms) {
      INFERNO_ASSIGN_OR_RETURN(auto kind, sym.one_of());
      if (kind.first != "as_name") continue;
      INFERNO_ASSIGN_OR_RETURN(std::string name, kind.second.string());
      mark(name);
    }
  }
  return Status::ok();
}

// A SymInt arithmetic node (pt2_model.h): every size is static by now, so its value is computed
// here and read by later nodes' SymInt arguments, like a sym_size's.
Status Loader::lower_sym_int_op(const JsonRef& node, std::string_view target,
                                const std::vector<std::string>& outs, const AtenCall& call) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  std::vector<int64_t> args;
  for (const JsonRef& input : inputs) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
    INFERNO_ASSIGN_OR_RETURN(auto member, arg.one_of());
    if (member.first == "as_int") {
      INFERNO_ASSIGN_OR_RETURN(args.emplace_back(), member.second.integer());
    } else if (member.first == "as_sym_int") {
      INFERNO_ASSIGN_OR_RETURN(args.emplace_back(), sym_value(member.second));
    } else {
      return invalid_input(
          record_ + ": " + std::string(target) + " takes integers, not '" + member.first + "'",
          call.node_name, call.loc);
    }
  }
  const std::optional<int64_t> value = eval_sym_int_op(target, args);
  if (!value || outs.size() != 1 || outs[0].empty()) {
    return invalid_input(
        record_ + ": " + std::string(target) + " has malformed arguments or outputs, or overflows",
        call.node_name, call.loc);
  }
  sym_sizes_[outs[0]] = *value;
  return Status::ok();
}

Status Loader::lower(const JsonRef& node) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef t, node.at("target"));
  INFERNO_ASSIGN_OR_RETURN(std::string target, t.string());
  const Target parsed = parse_target(target);
  INFERNO_ASSIGN_OR_RETURN(std::vector<std::string> outs, output_names(node));
  AtenCall call{
      parsed.op,          parsed.overload, {}, {}, outs.empty() ? std::string() : outs.front(),
      location_from(node)};
  if (call.node_name.empty()) {
    if (std::optional<JsonRef> n = node.find("name"); n && n->raw().is_string())
      call.node_name = n->raw().get<std::string>();
  }
  if (std::find(std::begin(kAssertOps), std::end(kAssertOps), call.op) != std::end(kAssertOps))
    return Status::ok();
  if (is_sym_int_op(target)) return lower_sym_int_op(node, target, outs, call);
  if (is_inlined_region(target)) {
    const Status s = lower_region(node, outs);
    if (s.is_ok() || !s.node().empty()) return s;
    return Status(s.code(), s.message(), call.node_name, call.loc);
  }
  // An in-place op's target. A model input, or a region's (whose write would not reach the
  // buffer outside it), cannot be written.
  INFERNO_ASSIGN_OR_RETURN(const std::string written, written_name(node, parsed));
  if (unwritable_names_.count(written)) {
    return unsupported(call.op + " writes its input '" + written +
                           "' in place, which infernoc does not support (clone it first)",
                       call.node_name, call.loc);
  }
  // Errors from here on are about this node: name it where the error does not already.
  auto lower_call = [&]() -> Status {
    std::string row_index;  // the dim an arange of its size alone counts the rows of
    if (call.op != "aten::sym_size")
      INFERNO_RETURN_IF_ERROR(note_sizes_read(node, call.op, row_index));
    INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
    for (const JsonRef& input : inputs) {
      INFERNO_ASSIGN_OR_RETURN(JsonRef name_json, input.at("name"));
      INFERNO_ASSIGN_OR_RETURN(std::string name, name_json.string());
      INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
      Expected<AtenArg> value = decode(arg);
      if (!value) return value.status();
      int64_t kind = 1;
      if (std::optional<JsonRef> k = input.find("kind")) {
        INFERNO_ASSIGN_OR_RETURN(kind, k->integer());
      }
      if (kind == 2)
        call.keyword.emplace_back(std::move(name), std::move(*value));
      else
        call.positional.push_back(std::move(*value));
    }
    if (call.op == "aten::sym_size") {  // sym_size.int(self, dim): a static size by now
      const auto* self =
          call.positional.empty() ? nullptr : std::get_if<ValueId>(&call.positional[0]);
      const auto* dim =
          call.positional.size() < 2 ? nullptr : std::get_if<int64_t>(&call.positional[1]);
      if (!self || !dim || outs.size() != 1)
        return invalid_input(record_ + ": malformed sym_size node");
      Expected<int64_t> d = ir::normalize_dim(*dim, graph_.type(*self).rank());
      if (!d) return d.status();
      if (graph_.type(*self).rank() == 0) return invalid_input(record_ + ": sym_size of a scalar");
      sym_sizes_[outs[0]] = graph_.type(*self).shape[*d];
      return Status::ok();
    }
    INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> results, lower_aten_call(graph_, call));
    if (results.size() != outs.size()) {
      return invalid_input(call.op + " has " + std::to_string(results.size()) +
                               " outputs, the model lists " + std::to_string(outs.size()),
                           call.node_name, call.loc);
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].empty()) continue;
      if (values_.count(outs[i])) {
        return invalid_input(record_ + ": value '" + outs[i] + "' is defined twice", call.node_name,
                             call.loc);
      }
      values_[outs[i]] = results[i];
      if (results[i] == ir::kNoValue) continue;  // refused where it is used
      INFERNO_RETURN_IF_ERROR(check_type(outs[i], results[i], call.node_name, call.loc));
    }
    if (!row_index.empty()) {  // 0..n-1 exactly: a narrower or floating dtype could not hold it
      DynamicDim& dim = options_.dynamic_dims->at(row_index);
      const ValueId r = results.empty() ? ir::kNoValue : results[0];
      const ir::DType dt = r == ir::kNoValue ? ir::DType::kF32 : graph_.type(r).dtype;
      if ((dt == ir::DType::kI64 || dt == ir::DType::kI32) && graph_.value(r).constant &&
          graph_.type(r).shape == ir::Shape{dim.value}) {
        dim.row_indices.push_back(results[0]);
      } else {
        dim.read_as_value = true;
      }
    }
    if (!written.empty() && !results.empty() && results[0] != ir::kNoValue) {
      // Later readers of the written name (and of the buffer it is, or aliases) see the result.
      values_[written] = results[0];
      auto buffer = buffer_alias_.find(written);
      if (buffer != buffer_alias_.end()) {
        values_[buffer->second] = results[0];
        if (!outs.empty()) buffer_alias_[outs[0]] = buffer->second;
      }
    }
    return Status::ok();
  };
  const Status s = lower_call();
  if (s.is_ok() || !s.node().empty()) return s;
  return Status(s.code(), s.message(), call.node_name, call.loc);
}

// The buffers the model writes: buffer_mutation outputs (core ATen form) and the targets of
// in-place ops on a buffer or on an earlier in-place result of one (default form).
Status Loader::find_mutated_buffers(const JsonRef& signature, const std::vector<JsonRef>& nodes) {
  std::map<std::string, std::string, std::less<>> buffers;  // argument name -> buffer name
  INFERNO_ASSIGN_OR_RETURN(JsonRef in_json, signature.at("input_specs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> in_specs, in_json.items());
  for (const JsonRef& spec : in_specs) {
    INFERNO_ASSIGN_OR_RETURN(auto member, spec.one_of());
    if (member.first != "buffer") continue;
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, member.second.at("arg"));
    INFERNO_ASSIGN_OR_RETURN(JsonRef n, arg.at("name"));
    INFERNO_ASSIGN_OR_RETURN(JsonRef f, member.second.at("buffer_name"));
    INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
    INFERNO_ASSIGN_OR_RETURN(buffers[name], f.string());
  }
  INFERNO_ASSIGN_OR_RETURN(JsonRef out_json, signature.at("output_specs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> out_specs, out_json.items());
  for (const JsonRef& spec : out_specs) {
    INFERNO_ASSIGN_OR_RETURN(auto member, spec.one_of());
    if (member.first != "buffer_mutation") continue;
    INFERNO_ASSIGN_OR_RETURN(JsonRef f, member.second.at("buffer_name"));
    INFERNO_ASSIGN_OR_RETURN(std::string fqn, f.string());
    bool found = false;
    for (const auto& [name, buffer] : buffers) {
      if (buffer != fqn) continue;
      mutated_buffers_[name] = fqn;
      found = true;
    }
    if (!found) return spec.error("a mutation of '" + fqn + "', which is no buffer input");
  }
  for (const auto& [name, buffer] : buffers) buffer_alias_[name] = name;
  std::map<std::string, std::string, std::less<>> alias = buffer_alias_;
  for (const JsonRef& node : nodes) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef t, node.at("target"));
    INFERNO_ASSIGN_OR_RETURN(std::string target, t.string());
    INFERNO_ASSIGN_OR_RETURN(const std::string written, written_name(node, parse_target(target)));
    auto it = alias.find(written);
    if (it == alias.end()) continue;
    mutated_buffers_[it->second] = buffers[it->second];
    INFERNO_ASSIGN_OR_RETURN(std::vector<std::string> outs, output_names(node));
    if (!outs.empty() && !outs[0].empty()) alias[outs[0]] = it->second;
  }
  return Status::ok();
}

// A region that only switches autograd (or a disabled autocast) around its body: the body's
// nodes are lowered in a scope of their own (its names and tensor_values), bound to the region's
// tensor arguments, and its outputs become the region node's.
Status Loader::lower_region(const JsonRef& node, const std::vector<std::string>& outs) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef t, node.at("target"));
  INFERNO_ASSIGN_OR_RETURN(std::string target, t.string());
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  std::vector<AtenArg> leading;  // the arguments before the body
  std::vector<ValueId> args;     // the body's inputs
  bool after_body = false;
  for (const JsonRef& input : inputs) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
    if (arg.find("as_graph")) {
      after_body = true;
      continue;
    }
    INFERNO_ASSIGN_OR_RETURN(AtenArg value, decode(arg));
    if (!after_body) {
      leading.push_back(std::move(value));
    } else if (const auto* v = std::get_if<ValueId>(&value)) {
      args.push_back(*v);
    } else {
      return node.error("a region argument that is not a tensor");
    }
  }
  if (target == kAutocastRegion) {  // (device_type, dtype, enabled, cache_enabled, body, args...)
    const bool* enabled = leading.size() > 2 ? std::get_if<bool>(&leading[2]) : nullptr;
    if (!enabled) return node.error("a wrap_with_autocast region without its 'enabled' flag");
    if (*enabled) {
      return unsupported(
          "an enabled torch.autocast region is not supported; export the model without autocast "
          "and choose the precision with --precision");
    }
  }
  INFERNO_ASSIGN_OR_RETURN(JsonRef body, region_body(node));
  INFERNO_ASSIGN_OR_RETURN(JsonRef body_inputs_json, body.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> body_inputs, body_inputs_json.items());
  if (body_inputs.size() != args.size()) {
    return node.error("the region passes " + std::to_string(args.size()) +
                      " tensors to a body of " + std::to_string(body_inputs.size()) + " inputs");
  }
  // The body's scope replaces the graph's while it is lowered.
  auto outer_values = std::move(values_);
  auto outer_metas = std::move(metas_);
  auto outer_unwritable = std::move(unwritable_names_);
  values_.clear();
  metas_.clear();
  unwritable_names_.clear();
  auto lower_body = [&]() -> Expected<std::vector<ValueId>> {
    INFERNO_ASSIGN_OR_RETURN(JsonRef tv, body.at("tensor_values"));
    INFERNO_ASSIGN_OR_RETURN(auto tensors, tv.members());
    for (auto& [name, meta] : tensors) {
      INFERNO_ASSIGN_OR_RETURN(TensorMeta m, parse_tensor_meta(meta));
      metas_.emplace(name, std::move(m));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      INFERNO_ASSIGN_OR_RETURN(auto member, body_inputs[i].one_of());
      INFERNO_ASSIGN_OR_RETURN(JsonRef n, member.second.at("name"));
      INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
      values_[name] = args[i];
      unwritable_names_.insert(name);
    }
    INFERNO_ASSIGN_OR_RETURN(JsonRef nodes_json, body.at("nodes"));
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> nodes, nodes_json.items());
    for (const JsonRef& inner : nodes) INFERNO_RETURN_IF_ERROR(lower(inner));
    INFERNO_ASSIGN_OR_RETURN(JsonRef outputs_json, body.at("outputs"));
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> outputs, outputs_json.items());
    std::vector<ValueId> results;
    for (const JsonRef& out : outputs) {
      INFERNO_ASSIGN_OR_RETURN(AtenArg value, decode(out));
      const auto* v = std::get_if<ValueId>(&value);
      if (!v) return out.error("a region output that is not a tensor");
      results.push_back(*v);
    }
    return results;
  };
  Expected<std::vector<ValueId>> results = lower_body();
  values_ = std::move(outer_values);
  metas_ = std::move(outer_metas);
  unwritable_names_ = std::move(outer_unwritable);
  if (!results) return results.status();
  if (results->size() != outs.size()) {
    return node.error("the region's body returns " + std::to_string(results->size()) +
                      " values, the node lists " + std::to_string(outs.size()));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].empty()) continue;
    if (values_.count(outs[i])) return node.error("value '" + outs[i] + "' is defined twice");
    values_[outs[i]] = (*results)[i];
    INFERNO_RETURN_IF_ERROR(check_type(outs[i], (*results)[i], outs[i], location_from(node)));
  }
  return Status::ok();
}

Status Loader::set_outputs(const JsonRef& signature) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef specs_json, signature.at("output_specs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> specs, specs_json.items());
  std::vector<ValueId> outputs;
  std::map<std::string, std::string, std::less<>> mutation_values;  // buffer name -> value name
  for (size_t i = 0; i < specs.size(); ++i) {
    INFERNO_ASSIGN_OR_RETURN(auto member, specs[i].one_of());
    auto& [kind, body] = member;
    if (kind == "buffer_mutation") {
      INFERNO_ASSIGN_OR_RETURN(JsonRef arg, body.at("arg"));
      INFERNO_ASSIGN_OR_RETURN(JsonRef n, arg.at("name"));
      INFERNO_ASSIGN_OR_RETURN(JsonRef f, body.at("buffer_name"));
      INFERNO_ASSIGN_OR_RETURN(std::string fqn, f.string());
      INFERNO_ASSIGN_OR_RETURN(mutation_values[fqn], n.string());
      continue;
    }
    if (kind != "user_output") {
      std::string what = kind;
      if (std::optional<JsonRef> b = body.find("buffer_name"); b && b->raw().is_string())
        what += " of '" + b->raw().get<std::string>() + "'";
      return unsupported("the model's output " + std::to_string(i) + " is a " + what +
                         " (the model mutates state), which infernoc does not support");
    }
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, body.at("arg"));
    INFERNO_ASSIGN_OR_RETURN(auto a, arg.one_of());
    if (a.first != "as_tensor")
      return unsupported("the model's output " + std::to_string(i) + " is not a tensor (" +
                         a.first + ")");
    INFERNO_ASSIGN_OR_RETURN(JsonRef n, a.second.at("name"));
    INFERNO_ASSIGN_OR_RETURN(std::string name, n.string());
    auto it = values_.find(name);
    if (it == values_.end()) return arg.error("output '" + name + "' is not defined");
    if (it->second == ir::kNoValue) return not_computed(name);
    outputs.push_back(it->second);
  }
  // Each state's update: the value its buffer_mutation output names, or the buffer's binding
  // after the in-place ops that wrote it.
  for (const std::string& arg : state_args_) {
    auto value = mutation_values.find(mutated_buffers_.at(arg));
    const std::string& name = value != mutation_values.end() ? value->second : arg;
    auto it = values_.find(name);
    if (it == values_.end() || it->second == ir::kNoValue)
      return invalid_input(record_ + ": the new value of buffer '" + mutated_buffers_.at(arg) +
                           "' is not defined");
    outputs.push_back(it->second);
  }
  graph_.set_outputs(std::move(outputs));
  return Status::ok();
}

Expected<ir::Graph> Loader::load() {
  INFERNO_RETURN_IF_ERROR(check_header());
  INFERNO_ASSIGN_OR_RETURN(record_, model_record());
  const std::string& record = record_;
  const std::string model = record.substr(7, record.size() - 12);  // models/<model>.json
  INFERNO_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, archive_.read(record, kMaxModelJsonBytes));
  INFERNO_ASSIGN_OR_RETURN(nlohmann::json json, parse_json(bytes, record));
  bytes = {};
  const JsonRef root(json, record);
  if (std::optional<JsonRef> version = root.find("schema_version")) {
    std::optional<JsonRef> major = version->find("major");
    if (major && major->raw().is_number_integer() && major->raw().get<int64_t>() != 8) {
      return unsupported(record + ": schema version " + major->raw().dump() +
                         " is not supported (infernoc reads version 8, torch 2.8 to 2.11)");
    }
  }
  INFERNO_ASSIGN_OR_RETURN(JsonRef module, root.at("graph_module"));
  INFERNO_ASSIGN_OR_RETURN(JsonRef graph, module.at("graph"));
  INFERNO_ASSIGN_OR_RETURN(JsonRef signature, module.at("signature"));
  INFERNO_ASSIGN_OR_RETURN(JsonRef nodes_json, graph.at("nodes"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> nodes, nodes_json.items());
  if (nodes.size() > kMaxNodes) {
    return nodes_json.error(std::to_string(nodes.size()) +
                            " nodes, more than infernoc's limit of " + std::to_string(kMaxNodes));
  }
  INFERNO_RETURN_IF_ERROR(check_ops(nodes));
  INFERNO_RETURN_IF_ERROR(read_values(graph));
  INFERNO_RETURN_IF_ERROR(find_mutated_buffers(signature, nodes));
  INFERNO_RETURN_IF_ERROR(add_inputs(signature, model, root));
  cache_.clear();
  for (const JsonRef& node : nodes) INFERNO_RETURN_IF_ERROR(lower(node));
  INFERNO_RETURN_IF_ERROR(set_outputs(signature));
  const Status verified = ir::verify(graph_);
  if (!verified)
    return Status(ErrorCode::kInternal,
                  "the .pt2 frontend built an invalid graph: " + verified.message(),
                  verified.node(), verified.location());
  return std::move(graph_);
}

}  // namespace

Expected<ir::Graph> load_pt2(const std::string& path, const LoadOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(ModelFormat format, detect_format(path));
  if (format != ModelFormat::kPt2)
    return invalid_input("'" + path + "' is a TorchScript file, not a torch.export archive");
  INFERNO_ASSIGN_OR_RETURN(Pt2Archive archive, Pt2Archive::open(path));
  return Loader(archive, options).load();
}

}  // namespace inferno::frontend
