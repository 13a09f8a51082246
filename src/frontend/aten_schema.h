// Argument schemas of ATen ops, written as C++ data, and binding an AtenCall's arguments to them.
// Internal to the frontend (aten_table.cpp and its tests).
//
// A schema is the op's argument list: name, kind, whether None is allowed, and a default. Binding
// takes the positional arguments in order (TorchScript passes even keyword-only arguments
// positionally), then the keyword arguments by name, then fills defaults; every value is checked
// against its kind and normalized (an int where a float is expected becomes a double, a single int
// where an int list is expected becomes a one-element list, a c10 ScalarType number where a dtype
// is expected becomes an ir::DType), so builders read arguments without re-checking them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten_table.h"

namespace inferno::frontend::aten {

enum class ArgKind : uint8_t {
  kTensor,
  kTensorList,
  kInt,
  kFloat,  ///< an int is accepted
  kBool,
  kInts,    ///< a single int is accepted
  kFloats,  ///< a single number, or ints, are accepted
  kString,
  kDType,           ///< ir::DType, or a c10::ScalarType number
  kScalar,          ///< a Python number: int, float or bool
  kTensorOrScalar,  ///< `other` of add.Tensor / add.Scalar and friends
  kAny,             ///< accepted and ignored: device, layout, memory_format, pin_memory, ...
};

struct ArgDef {
  std::string_view name;
  ArgKind kind;
  bool nullable = false;                 ///< None is accepted
  std::optional<AtenArg> default_value;  ///< nullopt: required
};
using Schema = std::vector<ArgDef>;

/// A required argument.
inline ArgDef arg(std::string_view name, ArgKind kind) { return {name, kind, false, std::nullopt}; }
/// An argument with a default. Beware: write int defaults as int64_t{n} (a plain int literal
/// would select the variant's ir::ValueId member, i.e. a tensor).
inline ArgDef arg(std::string_view name, ArgKind kind, AtenArg default_value) {
  return {name, kind, false, std::move(default_value)};
}
/// An optional argument: None allowed, None by default.
inline ArgDef opt(std::string_view name, ArgKind kind) {
  return {name, kind, true, AtenArg{NoneArg{}}};
}

/// The arguments of one call, bound to its schema. Getters are checked (internal errors): the
/// binder already verified every value against its kind.
class BoundArgs {
 public:
  BoundArgs(const Schema* schema, std::vector<AtenArg> values)
      : schema_(schema), values_(std::move(values)) {}

  bool has(std::string_view name) const { return index(name) >= 0; }
  const AtenArg& get(std::string_view name) const;
  bool is_none(std::string_view name) const;

  ir::ValueId tensor(std::string_view name) const;
  std::optional<ir::ValueId> opt_tensor(std::string_view name) const;
  std::vector<ir::ValueId> tensors(std::string_view name) const;
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  std::optional<bool> opt_bool(std::string_view name) const;
  std::vector<int64_t> get_ints(std::string_view name) const;
  std::optional<std::vector<int64_t>> opt_ints(std::string_view name) const;
  std::optional<std::vector<double>> opt_floats(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  std::optional<std::string> opt_string(std::string_view name) const;
  std::optional<ir::DType> opt_dtype(std::string_view name) const;

 private:
  int index(std::string_view name) const;

  const Schema* schema_;
  std::vector<AtenArg> values_;
};

/// Binds `call`'s arguments to `schema`. Errors (invalid input, naming the op and node): too many
/// positional arguments, unknown or duplicate keyword, missing required argument, a value of the
/// wrong kind; an unsupported dtype number is kUnsupported.
Expected<BoundArgs> bind_arguments(const Schema& schema, const AtenCall& call);

/// "None", "tensor", "int", "float", ... for messages.
std::string_view arg_type_name(const AtenArg& value);

/// A c10::ScalarType number (TorchScript's dtype constants) as an IR dtype; nullopt for dtypes
/// the IR lacks (uint8, int8, complex, ...).
std::optional<ir::DType> dtype_from_c10(int64_t scalar_type);
/// The name PyTorch gives a c10::ScalarType number ("uint8", "complex64", ...), for messages.
std::string c10_dtype_name(int64_t scalar_type);

}  // namespace inferno::frontend::aten
