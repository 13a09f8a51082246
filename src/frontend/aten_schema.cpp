// Binding AtenCall arguments to schemas: positional, then keyword, then defaults, each value
// checked against its kind and normalized (see aten_schema.h).
#include "frontend/aten_schema.h"

#include "support/check.h"

namespace inferno::frontend::aten {
namespace {

template <typename T>
bool holds(const AtenArg& v) {
  return std::holds_alternative<T>(v);
}

bool is_python_number(const AtenArg& v) {
  return holds<int64_t>(v) || holds<double>(v) || holds<bool>(v);
}

std::string_view kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::kTensor:
      return "a tensor";
    case ArgKind::kTensorList:
      return "a list of tensors";
    case ArgKind::kInt:
      return "an int";
    case ArgKind::kFloat:
      return "a float";
    case ArgKind::kBool:
      return "a bool";
    case ArgKind::kInts:
      return "a list of ints";
    case ArgKind::kFloats:
      return "a list of floats";
    case ArgKind::kString:
      return "a string";
    case ArgKind::kDType:
      return "a dtype";
    case ArgKind::kScalar:
      return "a number";
    case ArgKind::kTensorOrScalar:
      return "a tensor or a number";
    case ArgKind::kAny:
      return "anything";
  }
  return "?";
}

// Checks `v` against `def` and normalizes it in place. Returns false when it does not fit;
// `unsupported_dtype` is set when it is a dtype number the IR lacks.
bool normalize(const ArgDef& def, AtenArg& v, std::optional<int64_t>& unsupported_dtype) {
  if (holds<NoneArg>(v)) return def.nullable || def.kind == ArgKind::kAny;
  switch (def.kind) {
    case ArgKind::kTensor:
      return holds<ir::ValueId>(v);
    case ArgKind::kTensorList:
      if (holds<std::vector<int64_t>>(v) && std::get<std::vector<int64_t>>(v).empty()) {
        v = std::vector<ir::ValueId>{};  // an empty list of unknown element type
      }
      return holds<std::vector<ir::ValueId>>(v);
    case ArgKind::kInt:
      return holds<int64_t>(v);
    case ArgKind::kFloat:
      if (holds<int64_t>(v)) v = static_cast<double>(std::get<int64_t>(v));
      return holds<double>(v);
    case ArgKind::kBool:
      return holds<bool>(v);
    case ArgKind::kInts:
      if (holds<int64_t>(v)) v = std::vector<int64_t>{std::get<int64_t>(v)};
      if (holds<std::vector<ir::ValueId>>(v) && std::get<std::vector<ir::ValueId>>(v).empty()) {
        v = std::vector<int64_t>{};
      }
      return holds<std::vector<int64_t>>(v);
    case ArgKind::kFloats:
      if (holds<int64_t>(v)) v = static_cast<double>(std::get<int64_t>(v));
      if (holds<double>(v)) v = std::vector<double>{std::get<double>(v)};
      if (holds<std::vector<int64_t>>(v)) {
        const std::vector<int64_t> ints = std::get<std::vector<int64_t>>(v);
        v = std::vector<double>(ints.begin(), ints.end());
      }
      if (holds<std::vector<ir::ValueId>>(v) && std::get<std::vector<ir::ValueId>>(v).empty()) {
        v = std::vector<double>{};
      }
      return holds<std::vector<double>>(v);
    case ArgKind::kString:
      return holds<std::string>(v);
    case ArgKind::kDType:
      if (holds<int64_t>(v)) {
        const int64_t n = std::get<int64_t>(v);
        std::optional<ir::DType> d = dtype_from_c10(n);
        if (!d) {
          unsupported_dtype = n;
          return false;
        }
        v = *d;
      }
      return holds<ir::DType>(v);
    case ArgKind::kScalar:
      return is_python_number(v);
    case ArgKind::kTensorOrScalar:
      return holds<ir::ValueId>(v) || is_python_number(v);
    case ArgKind::kAny:
      return true;
  }
  return false;
}

}  // namespace

std::string_view arg_type_name(const AtenArg& value) {
  static constexpr std::string_view kNames[] = {"None",  "tensor",    "tensor list", "int",
                                                "float", "bool",      "string",      "int list",
                                                "dtype", "float list"};
  static_assert(std::size(kNames) == std::variant_size_v<AtenArg>);
  return kNames[value.index()];
}

std::optional<ir::DType> dtype_from_c10(int64_t scalar_type) {
  switch (scalar_type) {
    case 3:
      return ir::DType::kI32;
    case 4:
      return ir::DType::kI64;
    case 5:
      return ir::DType::kF16;
    case 6:
      return ir::DType::kF32;
    case 7:
      return ir::DType::kF64;
    case 11:
      return ir::DType::kBool;
    case 15:
      return ir::DType::kBF16;
    default:
      return std::nullopt;
  }
}

std::string c10_dtype_name(int64_t scalar_type) {
  static constexpr std::string_view kNames[] = {
      "uint8",     "int8",      "int16",      "int32", "int64", "float16", "float32", "float64",
      "complex32", "complex64", "complex128", "bool",  "qint8", "quint8",  "qint32",  "bfloat16"};
  if (scalar_type >= 0 && scalar_type < static_cast<int64_t>(std::size(kNames))) {
    return std::string(kNames[scalar_type]);
  }
  return "dtype #" + std::to_string(scalar_type);
}

Expected<BoundArgs> bind_arguments(const Schema& schema, const AtenCall& call) {
  auto fail = [&](const std::string& what) {
    return invalid_input(call.op + ": " + what, call.node_name, call.loc);
  };
  if (call.positional.size() > schema.size()) {
    return fail("takes at most " + std::to_string(schema.size()) + " arguments, got " +
                std::to_string(call.positional.size()) + " positional");
  }
  std::vector<std::optional<AtenArg>> slots(schema.size());
  for (size_t i = 0; i < call.positional.size(); ++i) slots[i] = call.positional[i];
  for (const auto& [name, value] : call.keyword) {
    size_t i = 0;
    while (i < schema.size() && schema[i].name != name) ++i;
    if (i == schema.size()) return fail("unknown keyword argument '" + name + "'");
    if (slots[i]) return fail("argument '" + name + "' given twice");
    slots[i] = value;
  }
  std::vector<AtenArg> values;
  values.reserve(schema.size());
  for (size_t i = 0; i < schema.size(); ++i) {
    const ArgDef& def = schema[i];
    if (!slots[i]) {
      if (!def.default_value)
        return fail("missing required argument '" + std::string(def.name) + "'");
      slots[i] = def.default_value;
    }
    AtenArg v = std::move(*slots[i]);
    std::optional<int64_t> bad_dtype;
    if (!normalize(def, v, bad_dtype)) {
      if (bad_dtype) {
        return unsupported(call.op + ": dtype " + c10_dtype_name(*bad_dtype) + " is not supported",
                           call.node_name, call.loc);
      }
      return fail("argument '" + std::string(def.name) + "' must be " +
                  std::string(kind_name(def.kind)) + (def.nullable ? " or None" : "") + ", got " +
                  std::string(arg_type_name(v)));
    }
    values.push_back(std::move(v));
  }
  return BoundArgs(&schema, std::move(values));
}

int BoundArgs::index(std::string_view name) const {
  for (size_t i = 0; i < schema_->size(); ++i) {
    if ((*schema_)[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const AtenArg& BoundArgs::get(std::string_view name) const {
  const int i = index(name);
  INFERNO_CHECK(i >= 0, "no argument named " + std::string(name) + " in the schema");
  return values_[i];
}

bool BoundArgs::is_none(std::string_view name) const { return holds<NoneArg>(get(name)); }

namespace {
template <typename T>
const T& checked(const AtenArg& v, std::string_view name) {
  INFERNO_CHECK(std::holds_alternative<T>(v),
                "argument " + std::string(name) + " has kind " + std::string(arg_type_name(v)));
  return std::get<T>(v);
}
}  // namespace

ir::ValueId BoundArgs::tensor(std::string_view name) const {
  return checked<ir::ValueId>(get(name), name);
}
std::optional<ir::ValueId> BoundArgs::opt_tensor(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return tensor(name);
}
std::vector<ir::ValueId> BoundArgs::tensors(std::string_view name) const {
  return checked<std::vector<ir::ValueId>>(get(name), name);
}
int64_t BoundArgs::get_int(std::string_view name) const {
  return checked<int64_t>(get(name), name);
}
double BoundArgs::get_float(std::string_view name) const {
  const AtenArg& v = get(name);
  if (holds<int64_t>(v)) return static_cast<double>(std::get<int64_t>(v));
  if (holds<bool>(v)) return std::get<bool>(v) ? 1.0 : 0.0;
  return checked<double>(v, name);
}
bool BoundArgs::get_bool(std::string_view name) const { return checked<bool>(get(name), name); }
std::optional<bool> BoundArgs::opt_bool(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return get_bool(name);
}
std::vector<int64_t> BoundArgs::get_ints(std::string_view name) const {
  return checked<std::vector<int64_t>>(get(name), name);
}
std::optional<std::vector<int64_t>> BoundArgs::opt_ints(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return get_ints(name);
}
std::optional<std::vector<double>> BoundArgs::opt_floats(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return checked<std::vector<double>>(get(name), name);
}
const std::string& BoundArgs::get_string(std::string_view name) const {
  return checked<std::string>(get(name), name);
}
std::optional<std::string> BoundArgs::opt_string(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return get_string(name);
}
std::optional<ir::DType> BoundArgs::opt_dtype(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return checked<ir::DType>(get(name), name);
}

}  // namespace inferno::frontend::aten
