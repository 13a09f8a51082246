// The TorchScript frontend: load a `torch.jit.save` file through LibTorch and lower it to IR.
//
// How it works:
//  1. torch::jit::load, eval, torch::jit::freeze: parameters and buffers become prim::Constant
//     tensors and submodule calls are inlined, so `forward` is one flat graph. Input 0 is `self`.
//  2. Every top-level node is checked against what this file decodes itself (constants, lists,
//     tuples, static size arithmetic) and the shared ATen table; all the others (aten::cumsum,
//     prim::If, prim::Loop, prim::CallMethod, ...) are reported together in one Status.
//  3. TorchScript values carry no shapes, so the graph inputs get the user's input specs and the
//     IR's shape rules type everything downstream.
//  4. The nodes are walked in order. Each jit::Value maps to a Known: an AtenArg (a tensor in
//     the IR graph, or a compile-time None/int/float/bool/string/int list/tensor list/dtype) or
//     a tuple of jit::Values. aten::* nodes become AtenCalls with every argument positional
//     (TorchScript passes defaults explicitly); ScalarType arguments, which arrive as ints, are
//     decoded to ir::DType. Arithmetic whose operands are all compile-time scalars (the size
//     math of traced reshapes) is folded here instead of lowered. An in-place op rebinds the
//     value it writes; written through slices and selects, its result is also scattered back
//     into the tensors they view (write_back), and a write another view would miss is refused.
//  5. The graph outputs become IR outputs; a returned tuple is flattened, and so is a returned
//     dict of string keys (its values, in insertion order).
//
// Tracing turns Python scalars (`x * 2.0`) into 0-dim f64/i64/bool tensor constants. They are
// decoded as scalars, the form torch.export gives the same call, so type promotion treats them
// as a scalar operand (f32 * 2.0 stays f32).
//
// This is the only file that includes LibTorch's TorchScript headers (they are slow to compile).
// It builds against Debian's LibTorch 1.13 (c10::optional) and torch 2.x (std::optional): only
// `auto`, implicit conversions and APIs common to both are used.

#include "frontend/torchscript_frontend.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "frontend/aten_table.h"
#include "frontend/output_names.h"

namespace inferno::frontend {
namespace {

namespace jit = torch::jit;

/// A TorchScript tuple: the values it was built from (all of them already decoded); a dict of
/// string keys is kept as the tuple of its values, with its keys (which name the outputs).
struct TupleValue {
  std::vector<const jit::Value*> elements;
  std::vector<std::string> keys;  ///< one per element for a dict, else empty
};
/// An output lower_aten_call did not compute (ir::kNoValue: pooling indices, batch_norm's saved
/// statistics): refused where the model uses it.
struct NotComputed {
  std::string producer;  ///< the ATen op that returned it
};
using Known = std::variant<AtenArg, TupleValue, NotComputed>;

/// Node kinds this file decodes itself rather than through the ATen table.
bool is_decoded_here(std::string_view kind) {
  static constexpr std::string_view kKinds[] = {
      "prim::Constant",       "prim::ListConstruct", "prim::ListUnpack", "prim::TupleConstruct",
      "prim::TupleUnpack",    "prim::NumToTensor",   "aten::Int",        "aten::Float",
      "aten::ScalarImplicit", "aten::size",          "aten::dim",        "aten::numel",
      "prim::DictConstruct"};
  for (std::string_view k : kKinds) {
    if (k == kind) return true;
  }
  return false;
}

/// Arithmetic folded here when every operand is a compile-time number (static size math).
bool is_foldable_math(std::string_view kind) {
  static constexpr std::string_view kKinds[] = {
      "aten::add",          "aten::sub",       "aten::mul", "aten::div",  "aten::floordiv",
      "aten::floor_divide", "aten::remainder", "aten::neg", "aten::rsub", "aten::pow"};
  for (std::string_view k : kKinds) {
    if (k == kind) return true;
  }
  return false;
}

/// Tracing records a Python scalar operand (`x * 2.0`) as a 0-dim f64, i64 or bool tensor.
bool is_traced_python_scalar(const at::Tensor& tensor) {
  const auto type = tensor.scalar_type();
  return tensor.dim() == 0 && tensor.layout() == c10::kStrided && !tensor.is_quantized() &&
         (type == c10::ScalarType::Double || type == c10::ScalarType::Long ||
          type == c10::ScalarType::Bool);
}

/// True if `value` is a compile-time number before any shape is known: a scalar-typed value, a
/// Python scalar recorded by tracing (0-dim f64/i64/bool constant), prim::NumToTensor, or math
/// on such values (`scalar_math` holds the outputs of the math nodes found so far).
bool is_static_number(const jit::Value* value,
                      const std::unordered_set<const jit::Value*>& scalar_math) {
  const auto type_kind = value->type()->kind();
  if (type_kind == c10::TypeKind::IntType || type_kind == c10::TypeKind::FloatType ||
      type_kind == c10::TypeKind::BoolType || type_kind == c10::TypeKind::NumberType) {
    return true;
  }
  const jit::Node* producer = value->node();
  const std::string kind = producer->kind().toQualString();
  if (kind == "prim::NumToTensor") return true;
  if (kind == "prim::Constant") {
    auto ivalue = jit::toIValue(value);
    return ivalue && ivalue->isTensor() && is_traced_python_scalar(ivalue->toTensor());
  }
  return scalar_math.count(value) > 0;
}

/// True for foldable arithmetic on static numbers (trailing alpha/rounding_mode may be anything
/// but a tensor).
bool is_static_math(const jit::Node* node,
                    const std::unordered_set<const jit::Value*>& scalar_math) {
  const std::string kind = node->kind().toQualString();
  if (!is_foldable_math(kind) || node->outputs().size() != 1) return false;
  const size_t arity = kind == "aten::neg" ? 1 : 2;
  const auto inputs = node->inputs();
  if (inputs.size() < arity) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (is_static_number(inputs[i], scalar_math)) continue;
    if (i < arity || inputs[i]->type()->kind() == c10::TypeKind::TensorType) return false;
  }
  return true;
}

/// `aten::relu_`, `aten::__iand__`: ops that write their result into their first argument.
bool is_in_place(std::string_view kind) {
  if (kind.size() > 2 && kind.back() == '_' && kind[kind.size() - 2] != '_') return true;
  return kind == "aten::__iand__" || kind == "aten::__ior__" || kind == "aten::__ixor__";
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

/// "x.1" -> "x": TorchScript appends ".N" to make debug names unique.
std::string strip_unique_suffix(const std::string& name) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return name;
  for (size_t i = dot + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, dot);
}

std::string node_name(const jit::Node* node) {
  return node->outputs().empty() ? std::string() : node->outputs()[0]->debugName();
}

/// The Python file (base name) and line that created `node`, as the file's debug records tell.
SourceLocation location_of(const jit::Node* node) {
  try {
    auto range = node->sourceRange();
    if (auto original = range.findSourceRangeThatGenerated()) range = *original;
    auto file_line_col = range.file_line_col();
    if (!file_line_col) return {};
    std::string file = std::get<0>(*file_line_col);
    if (size_t slash = file.find_last_of("/\\"); slash != std::string::npos)
      file.erase(0, slash + 1);
    if (file.empty()) return {};
    return SourceLocation{file, static_cast<int64_t>(std::get<1>(*file_line_col))};
  } catch (const std::exception&) {
    return {};  // unreadable debug records cost the location, not the model
  }
}

std::optional<ir::DType> to_ir_dtype(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float:
      return ir::DType::kF32;
    case c10::ScalarType::Half:
      return ir::DType::kF16;
    case c10::ScalarType::BFloat16:
      return ir::DType::kBF16;
    case c10::ScalarType::Double:
      return ir::DType::kF64;
    case c10::ScalarType::Long:
      return ir::DType::kI64;
    case c10::ScalarType::Int:
      return ir::DType::kI32;
    case c10::ScalarType::Bool:
      return ir::DType::kBool;
    default:
      return std::nullopt;
  }
}

/// A dense, contiguous host copy of a weight or constant tensor.
Expected<ir::Tensor> to_ir_tensor(const at::Tensor& tensor, const std::string& name,
                                  const SourceLocation& loc) {
  if (tensor.layout() != c10::kStrided || tensor.is_quantized()) {
    return unsupported("constant tensor with a non-dense layout", name, loc);
  }
  auto dtype = to_ir_dtype(tensor.scalar_type());
  if (!dtype) {
    return unsupported(
        std::string("constant tensor of dtype ") + c10::toString(tensor.scalar_type()), name, loc);
  }
  at::Tensor dense = tensor.cpu().contiguous();
  ir::Tensor out;
  out.type = {*dtype, ir::Shape(dense.sizes().begin(), dense.sizes().end())};
  const size_t bytes = static_cast<size_t>(dense.numel()) * dense.element_size();
  if (bytes != static_cast<size_t>(out.type.size_bytes())) {
    return internal_error("constant '" + name +
                          "': element size differs between LibTorch and the IR");
  }
  out.data.resize(bytes);
  if (bytes > 0) std::memcpy(out.data.data(), dense.data_ptr(), bytes);
  return out;
}

/// True for arguments whose schema type is ScalarType or ScalarType? (passed as ints).
bool is_scalar_type_argument(const c10::Argument& argument) {
  c10::TypePtr type = argument.real_type();
  if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
  return type->kind() == c10::TypeKind::ScalarTypeType;
}

bool is_number(const AtenArg& arg) {
  return std::holds_alternative<int64_t>(arg) || std::holds_alternative<double>(arg) ||
         std::holds_alternative<bool>(arg);
}
double as_double(const AtenArg& arg) {
  if (auto* i = std::get_if<int64_t>(&arg)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&arg)) return *b ? 1.0 : 0.0;
  return std::get<double>(arg);
}
bool is_integer(const AtenArg& arg) { return !std::holds_alternative<double>(arg); }
int64_t as_int(const AtenArg& arg) {
  if (const auto* b = std::get_if<bool>(&arg)) return *b ? 1 : 0;
  return std::get<int64_t>(arg);
}

/// Walks one frozen forward graph into `out`.
class Walker {
 public:
  Walker(const jit::Graph& graph, ir::Graph& out) : graph_(graph), out_(out) {}

  /// Every node that is neither decoded here nor in the ATen table, one Status each.
  std::vector<Status> unsupported_nodes() const {
    std::vector<Status> found;
    std::unordered_set<const jit::Value*> scalar_math;
    for (const jit::Node* node : graph_.nodes()) {
      std::string kind = node->kind().toQualString();
      if (is_decoded_here(kind)) continue;
      if (is_static_math(node, scalar_math)) {
        scalar_math.insert(node->output());
        continue;
      }
      if (kind.rfind("aten::", 0) == 0 && node->blocks().empty() && is_supported_aten_op(kind))
        continue;
      found.push_back(unsupported(kind, node_name(node), location_of(node)));
    }
    return found;
  }

  Status add_inputs(const std::vector<InputSpec>& specs) {
    std::vector<std::string> names;
    const auto inputs = graph_.inputs();
    for (size_t i = 1; i < inputs.size(); ++i)
      names.push_back(strip_unique_suffix(inputs[i]->debugName()));
    if (specs.empty()) {
      std::string list;
      for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
      return invalid_input(
          "TorchScript models carry no input shapes; give one --input NAME:DIMS:DTYPE (or --data "
          "FILE) "
          "per model input: " +
          list);
    }
    INFERNO_RETURN_IF_ERROR(check_input_specs(specs, names));
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i]->type()->kind() != c10::TypeKind::TensorType) {
        return unsupported("model input '" + names[i - 1] + "' of type " +
                           inputs[i]->type()->str() + " (only tensor inputs are supported)");
      }
      values_[inputs[i]] = AtenArg(out_.add_input(names[i - 1], specs[i - 1].type));
    }
    return Status::ok();
  }

  Status walk() {
    for (const jit::Node* node : graph_.nodes()) INFERNO_RETURN_IF_ERROR(visit(node));
    return Status::ok();
  }

  /// Whether the model computes with a tensor's size as a number (LoadOptions::reads_sizes).
  bool reads_sizes() const { return reads_sizes_; }

  /// The IR outputs, named output0, output1, ... or by a returned dict's keys (TorchScript's
  /// own names are numbers); `note` hears which value each name was.
  Status set_outputs(const std::function<void(std::string_view)>& note) {
    std::vector<ir::ValueId> outputs;
    std::vector<std::string> keys;
    for (const jit::Value* value : graph_.outputs())
      INFERNO_RETURN_IF_ERROR(flatten_output(value, "", outputs, keys));
    out_.set_outputs(std::move(outputs));
    std::string names;
    for (const std::string& n : name_outputs(out_, keys)) names += (names.empty() ? "" : ", ") + n;
    if (note && !names.empty()) note("TorchScript outputs named " + names);
    return Status::ok();
  }

 private:
  Status visit(const jit::Node* node) {
    const std::string kind = node->kind().toQualString();
    if (kind == "prim::Constant") return visit_constant(node);
    if (kind == "prim::ListConstruct") return visit_list_construct(node);
    if (kind == "prim::TupleConstruct") {
      TupleValue tuple;
      for (const jit::Value* input : node->inputs()) tuple.elements.push_back(input);
      return bind(node->output(), std::move(tuple));
    }
    if (kind == "prim::TupleUnpack") return visit_tuple_unpack(node);
    if (kind == "prim::DictConstruct") return visit_dict_construct(node);
    if (kind == "prim::ListUnpack") return visit_list_unpack(node);
    if (kind == "aten::size" || kind == "aten::dim" || kind == "aten::numel")
      return visit_size(node, kind);
    if (kind == "prim::NumToTensor" || kind == "aten::Int" || kind == "aten::Float" ||
        kind == "aten::ScalarImplicit") {
      return visit_scalar_cast(node, kind);
    }
    return visit_aten(node, kind);
  }

  Status visit_constant(const jit::Node* node) {
    const jit::Value* output = node->output();
    auto ivalue = jit::toIValue(output);
    if (!ivalue)
      return unsupported("prim::Constant without a value", node_name(node), location_of(node));
    if (ivalue->isNone()) return bind(output, AtenArg(NoneArg{}));
    if (ivalue->isBool()) return bind(output, AtenArg(ivalue->toBool()));
    if (ivalue->isInt()) return bind(output, AtenArg(ivalue->toInt()));
    if (ivalue->isDouble()) return bind(output, AtenArg(ivalue->toDouble()));
    if (ivalue->isString()) return bind(output, AtenArg(ivalue->toStringRef()));
    if (ivalue->isDevice()) return bind(output, AtenArg(ivalue->toDevice().str()));
    if (ivalue->isIntList()) return bind(output, AtenArg(ivalue->toIntVector()));
    if (ivalue->isDoubleList()) return bind(output, AtenArg(ivalue->toDoubleVector()));
    if (ivalue->isTensor()) return bind_tensor_constant(node, ivalue->toTensor());
    if (ivalue->isTensorList()) {
      std::vector<ir::ValueId> ids;
      for (const at::Tensor& tensor : ivalue->toTensorVector()) {
        INFERNO_ASSIGN_OR_RETURN(ir::Tensor data,
                                 to_ir_tensor(tensor, node_name(node), location_of(node)));
        ids.push_back(out_.add_constant(output->debugName(), std::move(data)));
      }
      return bind(output, AtenArg(std::move(ids)));
    }
    if (ivalue->isList()) {  // a frozen Tensor?[] (index's indices): None as ir::kNoValue
      std::vector<ir::ValueId> ids;
      for (const c10::IValue& element : ivalue->toListRef()) {
        if (element.isNone()) {
          ids.push_back(ir::kNoValue);
          continue;
        }
        if (!element.isTensor()) {
          return unsupported("prim::Constant list of " + element.tagKind(), node_name(node),
                             location_of(node));
        }
        INFERNO_ASSIGN_OR_RETURN(
            ir::Tensor data, to_ir_tensor(element.toTensor(), node_name(node), location_of(node)));
        ids.push_back(out_.add_constant(output->debugName(), std::move(data)));
      }
      return bind(output, AtenArg(std::move(ids)));
    }
    return unsupported("prim::Constant of type " + ivalue->tagKind(), node_name(node),
                       location_of(node));
  }

  Status bind_tensor_constant(const jit::Node* node, const at::Tensor& tensor) {
    const jit::Value* output = node->output();
    if (is_traced_python_scalar(tensor)) {
      if (tensor.scalar_type() == c10::ScalarType::Double)
        return bind(output, AtenArg(tensor.item<double>()));
      if (tensor.scalar_type() == c10::ScalarType::Long)
        return bind(output, AtenArg(tensor.item<int64_t>()));
      return bind(output, AtenArg(tensor.item<bool>()));
    }
    INFERNO_ASSIGN_OR_RETURN(ir::Tensor data,
                             to_ir_tensor(tensor, node_name(node), location_of(node)));
    return bind(output, AtenArg(out_.add_constant(output->debugName(), std::move(data))));
  }

  /// Int lists (shapes, dims) and tensor lists (cat, stack); a list of optional tensors (index's
  /// Tensor?[]) is a tensor list holding ir::kNoValue for each None. Other element types are
  /// unsupported.
  Status visit_list_construct(const jit::Node* node) {
    auto list_type = node->output()->type()->cast<c10::ListType>();
    auto element_kind = list_type ? list_type->getElementType()->kind() : c10::TypeKind::AnyType;
    bool optional = false;
    if (element_kind == c10::TypeKind::OptionalType) {
      const auto inner = list_type->getElementType()->cast<c10::OptionalType>()->getElementType();
      if (inner->kind() == c10::TypeKind::TensorType) {
        element_kind = c10::TypeKind::TensorType;
        optional = true;
      }
    }
    if (element_kind != c10::TypeKind::IntType && element_kind != c10::TypeKind::TensorType) {
      return unsupported("prim::ListConstruct of " + node->output()->type()->str(), node_name(node),
                         location_of(node));
    }
    std::vector<int64_t> ints;
    std::vector<ir::ValueId> tensors;
    for (const jit::Value* input : node->inputs()) {
      INFERNO_ASSIGN_OR_RETURN(AtenArg element, arg(input, node));
      auto* i = std::get_if<int64_t>(&element);
      auto* id = std::get_if<ir::ValueId>(&element);
      if (element_kind == c10::TypeKind::IntType && i) {
        ints.push_back(*i);
      } else if (element_kind == c10::TypeKind::TensorType && id) {
        tensors.push_back(*id);
      } else if (optional && std::holds_alternative<NoneArg>(element)) {
        tensors.push_back(ir::kNoValue);
      } else {
        return invalid_input("prim::ListConstruct: element '" + input->debugName() +
                                 "' does not fit " + node->output()->type()->str(),
                             node_name(node), location_of(node));
      }
    }
    if (element_kind == c10::TypeKind::TensorType)
      return bind(node->output(), AtenArg(std::move(tensors)));
    return bind(node->output(), AtenArg(std::move(ints)));
  }

  Status visit_list_unpack(const jit::Node* node) {
    INFERNO_ASSIGN_OR_RETURN(AtenArg list, arg(node->input(), node));
    const size_t count = node->outputs().size();
    auto* ints = std::get_if<std::vector<int64_t>>(&list);
    auto* tensors = std::get_if<std::vector<ir::ValueId>>(&list);
    const size_t size = ints ? ints->size() : tensors ? tensors->size() : 0;
    if ((!ints && !tensors) || size != count) {
      return invalid_input("prim::ListUnpack of a list of " + std::to_string(size) + " into " +
                               std::to_string(count) + " values",
                           node_name(node), location_of(node));
    }
    for (size_t i = 0; i < count; ++i) {
      INFERNO_RETURN_IF_ERROR(
          bind(node->outputs()[i], ints ? AtenArg((*ints)[i]) : AtenArg((*tensors)[i])));
    }
    // The pieces of split, chunk, unbind, ... view the tensor cut (note_view).
    const jit::Node* cut = node->input()->node();
    static constexpr std::string_view kCuts[] = {
        "aten::split", "aten::unsafe_split", "aten::split_with_sizes",
        "aten::chunk", "aten::unsafe_chunk", "aten::unbind"};
    const std::string_view cut_kind = cut->kind().toQualString();
    if (tensors && !cut->inputs().empty() &&
        std::find(std::begin(kCuts), std::end(kCuts), cut_kind) != std::end(kCuts)) {
      for (const jit::Value* piece : node->outputs())
        views_[piece] = {cut->inputs()[0], cut, false};
    }
    return Status::ok();
  }

  /// A dict of string keys (segmentation models return {'out': ..., 'aux': ...}): kept as the
  /// tuple of its values in insertion order, which is how a returned dict becomes outputs.
  Status visit_dict_construct(const jit::Node* node) {
    const auto inputs = node->inputs();
    TupleValue values;
    for (size_t i = 0; i + 1 < inputs.size(); i += 2) {
      INFERNO_ASSIGN_OR_RETURN(AtenArg key, arg(inputs[i], node));
      if (!std::holds_alternative<std::string>(key)) {
        return unsupported("prim::DictConstruct with keys that are not strings", node_name(node),
                           location_of(node));
      }
      values.elements.push_back(inputs[i + 1]);
      values.keys.push_back(std::get<std::string>(key));
    }
    return bind(node->output(), std::move(values));
  }

  Status visit_tuple_unpack(const jit::Node* node) {
    auto found = values_.find(node->input());
    const auto* tuple = found == values_.end() ? nullptr : std::get_if<TupleValue>(&found->second);
    if (!tuple || tuple->elements.size() != node->outputs().size()) {
      return invalid_input("prim::TupleUnpack of a value that is not a tuple of " +
                               std::to_string(node->outputs().size()),
                           node_name(node), location_of(node));
    }
    for (size_t i = 0; i < tuple->elements.size(); ++i) {
      INFERNO_RETURN_IF_ERROR(bind(node->outputs()[i], values_.at(tuple->elements[i])));
    }
    return Status::ok();
  }

  /// aten::size(t), aten::size(t, dim), aten::dim(t), aten::numel(t): shapes are static.
  Status visit_size(const jit::Node* node, const std::string& kind) {
    INFERNO_ASSIGN_OR_RETURN(AtenArg self, arg(node->inputs()[0], node));
    auto* id = std::get_if<ir::ValueId>(&self);
    if (!id)
      return invalid_input(kind + " of a value that is not a tensor", node_name(node),
                           location_of(node));
    const ir::Shape& shape = out_.type(*id).shape;
    if (kind != "aten::dim" && used_as_number(node->output(), 0)) reads_sizes_ = true;
    if (kind == "aten::dim")
      return bind(node->output(), AtenArg(static_cast<int64_t>(shape.size())));
    if (kind == "aten::numel") return bind(node->output(), AtenArg(ir::shape_numel(shape)));
    if (node->inputs().size() == 1) return bind(node->output(), AtenArg(shape));
    INFERNO_ASSIGN_OR_RETURN(AtenArg dim_arg, arg(node->inputs()[1], node));
    auto* dim = std::get_if<int64_t>(&dim_arg);
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (!dim || *dim < -rank || *dim >= rank) {
      return invalid_input(
          "aten::size: dim out of range for a tensor of rank " + std::to_string(rank),
          node_name(node), location_of(node));
    }
    return bind(node->output(), AtenArg(shape[static_cast<size_t>(*dim < 0 ? *dim + rank : *dim)]));
  }

  /// Whether `value`, a size or a number computed from sizes, reaches anything but the shape
  /// argument of a view, through lists, tuples, scalar casts and the arithmetic this file folds
  /// (a traced `c // groups` is a floor_divide of a 0-dim tensor). Arithmetic with a real tensor
  /// is followed too, so `x * x.size(0)` counts once its product is used. Deeper chains than
  /// kMaxDepth count as a number.
  static bool used_as_number(const jit::Value* value, int depth) {
    constexpr int kMaxDepth = 32;
    if (depth > kMaxDepth) return true;
    static constexpr std::string_view kShapeUsers[] = {"aten::view", "aten::reshape",
                                                       "aten::expand", "aten::_unsafe_view"};
    static constexpr std::string_view kPassing[] = {
        "prim::ListConstruct", "prim::ListUnpack", "prim::TupleConstruct", "prim::TupleUnpack",
        "prim::NumToTensor",   "aten::Int",        "aten::ScalarImplicit"};
    const auto listed = [](const auto& kinds, std::string_view kind) {
      return std::find(std::begin(kinds), std::end(kinds), kind) != std::end(kinds);
    };
    for (const jit::Use& use : value->uses()) {
      const std::string_view kind = use.user->kind().toQualString();
      if (use.offset == 1 && listed(kShapeUsers, kind)) continue;
      if (!listed(kPassing, kind) && !is_foldable_math(kind)) return true;
      for (const jit::Value* output : use.user->outputs()) {
        if (used_as_number(output, depth + 1)) return true;
      }
    }
    return false;
  }

  /// prim::NumToTensor, aten::Int, aten::Float, aten::ScalarImplicit of compile-time scalars.
  Status visit_scalar_cast(const jit::Node* node, const std::string& kind) {
    INFERNO_ASSIGN_OR_RETURN(AtenArg value, arg(node->input(), node));
    if (!is_number(value)) {
      return unsupported(kind + " of a computed tensor (data-dependent value)", node_name(node),
                         location_of(node));
    }
    if (kind == "aten::Int")
      return bind(node->output(), AtenArg(static_cast<int64_t>(as_double(value))));
    if (kind == "aten::Float") return bind(node->output(), AtenArg(as_double(value)));
    return bind(node->output(), value);
  }

  /// Folds add/sub/rsub/mul/div/floordiv/neg/remainder/pow whose operands are all compile-time
  /// numbers, with Python's semantics: ints stay exact ints, `/` gives a float, `//` and % floor.
  static std::optional<AtenArg> fold_scalar_math(const std::string& op, std::vector<AtenArg> args) {
    // rsub(self, other, alpha) = sub(other, self, alpha): a traced `7 - size`.
    const std::string kind = op == "aten::rsub" ? "aten::sub" : op;
    if (op == "aten::rsub" && args.size() >= 2) std::swap(args[0], args[1]);
    const size_t arity = kind == "aten::neg" ? 1 : 2;
    if (!is_foldable_math(kind) || args.size() < arity || !is_number(args[0]) ||
        (arity == 2 && !is_number(args[1]))) {
      return std::nullopt;
    }
    if (arity == 1)
      return is_integer(args[0]) ? AtenArg(-as_int(args[0])) : AtenArg(-as_double(args[0]));
    AtenArg rhs = args[1];
    if ((kind == "aten::add" || kind == "aten::sub") && args.size() > 2 && is_number(args[2])) {
      rhs = is_integer(rhs) && is_integer(args[2])
                ? AtenArg(as_int(rhs) * as_int(args[2]))
                : AtenArg(as_double(rhs) * as_double(args[2]));  // alpha
    }
    if (kind == "aten::pow") {  // Python's: an int to a non-negative int power stays an int
      const double power = std::pow(as_double(args[0]), as_double(rhs));
      if (is_integer(args[0]) && is_integer(rhs) && as_int(rhs) >= 0 &&
          std::fabs(power) <= 9007199254740992.0) {
        return AtenArg(static_cast<int64_t>(power));
      }
      return AtenArg(power);
    }
    std::string rounding;
    if (kind == "aten::floordiv" || kind == "aten::floor_divide") rounding = "floor";
    if (kind == "aten::div" && args.size() > 2) {
      if (const auto* mode = std::get_if<std::string>(&args[2])) rounding = *mode;
    }
    const bool divides = kind == "aten::div" || !rounding.empty() || kind == "aten::remainder";
    if (divides && as_double(rhs) == 0) return std::nullopt;  // left to the ATen table to report
    if (is_integer(args[0]) && is_integer(rhs) && (kind != "aten::div" || !rounding.empty())) {
      const int64_t a = as_int(args[0]), b = as_int(rhs);
      const int64_t floor_quotient = a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
      if (kind == "aten::add") return AtenArg(a + b);
      if (kind == "aten::sub") return AtenArg(a - b);
      if (kind == "aten::mul") return AtenArg(a * b);
      if (kind == "aten::remainder") return AtenArg(a - floor_quotient * b);
      return AtenArg(rounding == "trunc" ? a / b : floor_quotient);
    }
    const double a = as_double(args[0]), b = as_double(rhs);
    if (kind == "aten::add") return AtenArg(a + b);
    if (kind == "aten::sub") return AtenArg(a - b);
    if (kind == "aten::mul") return AtenArg(a * b);
    if (kind == "aten::remainder") return AtenArg(a - std::floor(a / b) * b);
    return AtenArg(rounding == "floor"   ? std::floor(a / b)
                   : rounding == "trunc" ? std::trunc(a / b)
                                         : a / b);
  }

  Status visit_aten(const jit::Node* node, const std::string& kind) {
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema)
      return unsupported(kind + " (no matching schema)", node_name(node), location_of(node));
    AtenCall call;
    call.op = kind;
    call.overload = schema->overload_name().empty() ? "default" : schema->overload_name();
    call.node_name = node_name(node);
    call.loc = location_of(node);
    const auto& arguments = schema->arguments();
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      INFERNO_ASSIGN_OR_RETURN(AtenArg value, arg(node->inputs()[i], node));
      if (i < arguments.size() && is_scalar_type_argument(arguments[i])) {
        if (auto* code = std::get_if<int64_t>(&value)) {
          const auto scalar_type = static_cast<c10::ScalarType>(*code);
          auto dtype = *code >= 0 && *code < static_cast<int64_t>(c10::ScalarType::NumOptions)
                           ? to_ir_dtype(scalar_type)
                           : std::nullopt;
          if (!dtype) {
            return unsupported(
                kind + " with dtype " +
                    (*code >= 0 && *code < static_cast<int64_t>(c10::ScalarType::NumOptions)
                         ? std::string(c10::toString(scalar_type))
                         : std::to_string(*code)),
                call.node_name, call.loc);
          }
          value = *dtype;
        }
      }
      call.positional.push_back(std::move(value));
    }
    if (node->outputs().size() == 1) {
      if (auto folded = fold_scalar_math(kind, call.positional))
        return bind(node->output(), *folded);
    }
    INFERNO_ASSIGN_OR_RETURN(std::vector<ir::ValueId> results, lower_aten_call(out_, call));
    const auto outputs = node->outputs();
    if (outputs.size() == 1 && outputs[0]->type()->kind() == c10::TypeKind::ListType) {
      return bind(outputs[0], AtenArg(std::move(results)));  // Tensor[] (split, unbind, ...)
    }
    if (results.size() != outputs.size()) {
      return internal_error("lowering " + kind + " gave " + std::to_string(results.size()) +
                            " values for " + std::to_string(outputs.size()) + " outputs (node '" +
                            call.node_name + "')");
    }
    for (size_t i = 0; i < results.size(); ++i) {
      INFERNO_RETURN_IF_ERROR(results[i] == ir::kNoValue ? bind(outputs[i], NotComputed{kind})
                                                         : bind(outputs[i], AtenArg(results[i])));
    }
    if (results.size() == 1) note_view(node, kind);
    // An in-place op (`h.clamp_(0, 1)`, `x.masked_fill_(m, 0)`) mutates its first input, which
    // later nodes read under the same TorchScript value: from here on it holds the result, and
    // so do the tensors it is a slice of (write_back).
    if (is_in_place(kind) && results.size() == 1 && !node->inputs().empty() &&
        std::holds_alternative<ir::ValueId>(call.positional[0])) {
      return write_back(node, kind, results[0]);
    }
    return Status::ok();
  }

  /// Records that `node`'s output views its first input: a slice or select is written back into
  /// it by an in-place op on the view (write_back); other views (reshapes, transposes, ...) are
  /// not, so an in-place op through one is refused when the viewed tensor is read afterwards.
  void note_view(const jit::Node* node, std::string_view kind) {
    static constexpr std::string_view kOtherViews[] = {
        "aten::view",      "aten::reshape",    "aten::transpose", "aten::permute",
        "aten::unsqueeze", "aten::squeeze",    "aten::expand",    "aten::expand_as",
        "aten::t",         "aten::as_strided", "aten::flatten",   "aten::unflatten",
        "aten::view_as",   "aten::reshape_as", "aten::narrow",    "aten::diagonal",
        "aten::unfold",    "aten::movedim",    "aten::swapaxes",  "aten::alias",
        "aten::detach",    "aten::contiguous"};
    const bool writable = kind == "aten::slice" || kind == "aten::select";
    if (!writable &&
        std::find(std::begin(kOtherViews), std::end(kOtherViews), kind) == std::end(kOtherViews)) {
      return;
    }
    if (!node->inputs().empty()) views_[node->output()] = {node->inputs()[0], node, writable};
  }

  /// The value `view` is a view of, through any number of views, or `view` itself.
  const jit::Value* root_of(const jit::Value* view) const {
    for (auto it = views_.find(view); it != views_.end(); it = views_.find(view))
      view = it->second.base;
    return view;
  }

  /// Whether `view` is, or views, a piece of the cut (split, chunk, unbind) that made `piece`
  /// other than `piece` itself: the pieces do not overlap.
  bool other_piece(const jit::Value* view, const jit::Value* piece) const {
    const auto cut = views_.find(piece);
    if (cut == views_.end() || cut->second.node->outputs().size() != 1 ||
        cut->second.node->output()->type()->kind() != c10::TypeKind::ListType) {
      return false;
    }
    for (auto it = views_.find(view); it != views_.end(); it = views_.find(view)) {
      if (it->second.node == cut->second.node) return view != piece;
      view = it->second.base;
    }
    return false;
  }

  /// Whether some view of `root` (or `root`) other than those in `rebound` is read after `node`:
  /// it would still hold the values from before the write. The other pieces of a cut whose piece
  /// was written do not count.
  bool stale_view_read(const jit::Value* root, const jit::Node* node,
                       const std::vector<const jit::Value*>& rebound) const {
    const auto read_after = [&](const jit::Value* v) {
      if (std::find(rebound.begin(), rebound.end(), v) != rebound.end()) return false;
      if (other_piece(v, rebound.back())) return false;
      for (const jit::Use& use : v->uses()) {
        if (use.user->isAfter(node)) return true;
      }
      return false;
    };
    if (read_after(root)) return true;
    for (const auto& [view, link] : views_) {
      if (root_of(view) == root && read_after(view)) return true;
    }
    return false;
  }

  /// Binds the value in-place op `node` wrote (its first input) to `result`, and writes it back
  /// through the slices and selects it views, up to the tensor they were taken from: each base
  /// becomes a slice_scatter / select_scatter of its slice's new value. Refused (unsupported)
  /// where a view that is read after the write would keep the old values: a view other than a
  /// slice or select between the written value and a tensor read later, or another view of the
  /// same tensor taken before the write and read after it.
  Status write_back(const jit::Node* node, const std::string& kind, ir::ValueId result) {
    std::vector<const jit::Value*> rebound = {node->inputs()[0]};
    std::vector<ir::ValueId> values = {result};
    INFERNO_ASSIGN_OR_RETURN(const AtenArg before, arg(rebound[0], node));
    if (out_.type(std::get<ir::ValueId>(before)).shape != out_.type(result).shape) {
      // unsqueeze_, t_, ...: the same values in another shape, nothing to write back; a write
      // through the reshaped view later is one through a view other than a slice.
      if (auto it = views_.find(rebound[0]); it != views_.end()) it->second.writable = false;
      return bind(rebound[0], AtenArg(result));
    }
    for (auto it = views_.find(rebound.back()); it != views_.end();
         it = views_.find(rebound.back())) {
      const ViewLink& link = it->second;
      if (!link.writable) break;  // stale_view_read refuses if its base is read later
      AtenCall call;
      call.op = link.node->kind() == c10::Symbol::fromQualString("aten::select")
                    ? "aten::select_scatter"
                    : "aten::slice_scatter";
      call.node_name = node_name(node) + "_write_back";
      call.loc = location_of(node);
      INFERNO_ASSIGN_OR_RETURN(AtenArg base, arg(link.base, node));
      call.positional = {base, values.back()};
      const auto link_inputs = link.node->inputs();
      for (size_t i = 1; i < link_inputs.size(); ++i) {  // dim, start, end, step / dim, index
        INFERNO_ASSIGN_OR_RETURN(AtenArg a, arg(link_inputs[i], link.node));
        call.positional.push_back(std::move(a));
      }
      INFERNO_ASSIGN_OR_RETURN(std::vector<ir::ValueId> written, lower_aten_call(out_, call));
      rebound.push_back(link.base);
      values.push_back(written.at(0));
    }
    if (stale_view_read(root_of(rebound.back()), node, rebound)) {
      const auto through = views_.find(rebound.back());
      return unsupported(
          through != views_.end()
              ? kind + " writes through " + through->second.node->kind().toQualString() +
                    " into a tensor that is read after the write: only writes through slices "
                    "and selects (x[a:b] = ..., x[i].relu_()) reach the tensor they view"
              : kind +
                    " writes into a tensor that a view taken before the write reads after "
                    "it (the view would keep the old values)",
          node_name(node), location_of(node));
    }
    for (size_t i = 0; i < rebound.size(); ++i)
      INFERNO_RETURN_IF_ERROR(bind(rebound[i], AtenArg(values[i])));
    return Status::ok();
  }

  static Status not_computed(const jit::Value& value, const NotComputed& missing,
                             const std::string& node, const SourceLocation& loc) {
    return unsupported("'" + value.debugName() + "', an output of " + missing.producer +
                           ", is used, but infernoc does not compute it (pooling indices, "
                           "batch_norm's saved statistics, attention weights and attention's "
                           "logsumexp and RNG outputs are not supported)",
                       node, loc);
  }

  Status bind(const jit::Value* value, Known known) {
    values_[value] = std::move(known);
    return Status::ok();
  }

  /// The decoded value of `value`, an input of `user`. Tuples are not arguments.
  Expected<AtenArg> arg(const jit::Value* value, const jit::Node* user) const {
    auto found = values_.find(value);
    if (found == values_.end()) {
      return invalid_input("value '" + value->debugName() + "' is used before it is defined",
                           node_name(user), location_of(user));
    }
    if (const auto* decoded = std::get_if<AtenArg>(&found->second)) return *decoded;
    if (const auto* missing = std::get_if<NotComputed>(&found->second))
      return not_computed(*value, *missing, node_name(user), location_of(user));
    return unsupported(std::string(user->kind().toQualString()) + " with a tuple argument",
                       node_name(user), location_of(user));
  }

  Status flatten_output(const jit::Value* value, const std::string& key,
                        std::vector<ir::ValueId>& outputs, std::vector<std::string>& keys) {
    auto found = values_.find(value);
    if (found == values_.end()) {
      return invalid_input("model output '" + value->debugName() + "' is not defined by the graph");
    }
    if (const auto* tuple = std::get_if<TupleValue>(&found->second)) {
      for (size_t i = 0; i < tuple->elements.size(); ++i) {
        const std::string& element_key = tuple->keys.empty() ? key : tuple->keys[i];
        INFERNO_RETURN_IF_ERROR(flatten_output(tuple->elements[i], element_key, outputs, keys));
      }
      return Status::ok();
    }
    if (const auto* missing = std::get_if<NotComputed>(&found->second))
      return not_computed(*value, *missing, "", {});
    if (const auto* id = std::get_if<ir::ValueId>(&std::get<AtenArg>(found->second))) {
      outputs.push_back(*id);
      keys.push_back(key);
      return Status::ok();
    }
    return unsupported("model output '" + value->debugName() + "' of type " + value->type()->str() +
                       " (only tensors, and tuples and dicts of them, can be outputs)");
  }

  const jit::Graph& graph_;
  ir::Graph& out_;
  std::unordered_map<const jit::Value*, Known> values_;
  bool reads_sizes_ = false;
  /// How a view was taken: from `base` by `node` (note_view).
  struct ViewLink {
    const jit::Value* base;
    const jit::Node* node;
    bool writable;  ///< a slice or select: write_back writes through it
  };
  std::unordered_map<const jit::Value*, ViewLink> views_;
};

Expected<ir::Graph> load_frozen(const std::string& path, const LoadOptions& options) {
  if (!std::ifstream(path, std::ios::binary)) return io_error("cannot read '" + path + "'");
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, c10::Device(c10::kCPU));
  } catch (const c10::Error& e) {
    return invalid_input("cannot load TorchScript model '" + path +
                         "': " + first_line(e.what_without_backtrace()));
  }
  module.eval();
  torch::jit::Module frozen = torch::jit::freeze(module);
  std::shared_ptr<jit::Graph> graph = frozen.get_method("forward").graph();

  ir::Graph out;
  Walker walker(*graph, out);
  if (std::vector<Status> unsupported_ops = walker.unsupported_nodes(); !unsupported_ops.empty()) {
    return unsupported_ops_error(unsupported_ops);
  }
  INFERNO_RETURN_IF_ERROR(walker.add_inputs(options.inputs));
  INFERNO_RETURN_IF_ERROR(walker.walk());
  INFERNO_RETURN_IF_ERROR(walker.set_outputs(options.note));
  if (options.reads_sizes) *options.reads_sizes = walker.reads_sizes();
  return out;
}

}  // namespace

Expected<ir::Graph> load_torchscript_in_process(const std::string& path,
                                                const LoadOptions& options) {
  try {
    return load_frozen(path, options);
  } catch (const c10::Error& e) {
    return invalid_input("TorchScript model '" + path +
                         "': " + first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return invalid_input("TorchScript model '" + path + "': " + first_line(e.what()));
  }
}

}  // namespace inferno::frontend
