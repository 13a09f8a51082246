// Pieces of the .pt2 format the frontend decodes: tensor metadata, dtype codes, symbolic sizes,
// and the weight/constant payloads. Internal to the .pt2 frontend (see pt2-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/pt2_archive.h"
#include "ir/tensor_type.h"
#include "support/source_location.h"

namespace inferno::frontend::pt2 {

class JsonRef;  // pt2_json.h

/// A SymInt: a static value, or a symbolic expression ("s0", "2*s0") with an optional hint.
struct SymDim {
  std::optional<int64_t> value;
  std::string expr;
  std::optional<int64_t> hint;
};

/// The parts of a TensorMeta the frontend uses.
struct TensorMeta {
  int64_t dtype_code = 0;
  std::vector<SymDim> sizes;
  std::vector<SymDim> strides;
  SymDim storage_offset;
};

/// The largest rank a tensor's metadata may have (PyTorch itself allows 64 dims).
constexpr size_t kMaxRank = 64;

Expected<SymDim> parse_sym_int(const JsonRef& j);
Expected<TensorMeta> parse_tensor_meta(const JsonRef& j);

/// The schema's ScalarType code (FLOAT = 7, ...) as an IR dtype; kUnsupported for dtypes the IR
/// lacks, kInvalidInput for unknown codes. `what` names the value in the message.
Expected<ir::DType> dtype_from_code(int64_t code, const std::string& what);

/// A node's target: "torch.ops.aten.linear.default" -> {"aten::linear", "default", true}; other
/// targets ("torch.ops.higher_order.cond", "_operator.getitem") are kept as written.
struct Target {
  std::string op;
  std::string overload;
  bool aten = false;
};
Target parse_target(const std::string& target);
/// The names of a node's outputs, in order ("" for a None output).
Expected<std::vector<std::string>> output_names(const JsonRef& node);
/// The innermost `File "...", line N` frame of the node's stack_trace that lies outside PyTorch's
/// own package (else the innermost frame), reduced to the file's base name; empty if none.
SourceLocation location_from(const JsonRef& node);

/// Symbol values ("s0" -> 4) of a model with dynamic dims.
using Symbols = std::map<std::string, int64_t, std::less<>>;
/// Evaluates a sympy-printed integer expression: integer literals, symbols, + - * // % and
/// parentheses. nullopt for anything else (functions, unknown symbols, division by zero).
std::optional<int64_t> eval_sym_expr(std::string_view expr, const Symbols& symbols);
/// The symbol an expression is, when it is one ("s0", or sympy's "Symbol('s0', ...)"); else the
/// expression itself. Symbols are keyed by this name.
std::string symbol_name(std::string_view expr);
/// Whether the size expression `expr` names a symbol that the dim named `symbol` names ("s94" and
/// "2*s94" share s94): compared as identifiers, so s9 is not in s94.
bool mentions_symbol(std::string_view expr, std::string_view symbol);
/// Whether `name` is one identifier (letters, digits and '_', not starting with a digit).
bool is_identifier(std::string_view name);
/// True for the SymInt arithmetic nodes of a dynamic export's graph ("_operator.mul", ...: sizes
/// computed from sym_size results, which run_decompositions() writes out as nodes).
bool is_sym_int_op(std::string_view target);
/// Such a node's value for integer arguments, with eval_sym_expr's semantics (floor division,
/// nullopt on overflow, division by zero or the wrong number of arguments).
std::optional<int64_t> eval_sym_int_op(std::string_view target, const std::vector<int64_t>& args);
/// A SymDim's value: static, or its expression evaluated; nullopt when unknown.
std::optional<int64_t> resolve(const SymDim& dim, const Symbols& symbols);
/// The symbol an arange node counts to when it is arange(n) of a symbol n alone (end a SymInt that
/// is the symbol, start 0 and step 1 or absent): the rows' own indices of a dim of that symbol
/// (DynamicDim::row_indices). Else "". `sym_ints`: the graph's named SymInts.
Expected<std::string> arange_of_symbol(const JsonRef& node,
                                       const std::map<std::string, SymDim, std::less<>>& sym_ints);

/// One entry of a payload config (data/weights/<model>_weights_config.json and the constants one).
struct Payload {
  std::string fqn;
  std::string record;  ///< archive record holding the storage bytes
  bool use_pickle = false;
  std::optional<TensorMeta> meta;
};
using PayloadConfig = std::map<std::string, Payload, std::less<>>;

/// Reads a payload config; an absent record gives an empty config. `base_dir` ("data/weights/")
/// prefixes the entries' path_name.
Expected<PayloadConfig> read_payload_config(const Pt2Archive& archive, const std::string& record,
                                            const std::string& base_dir);

/// Storage records already read, shared by the tensors that view them.
using RecordCache =
    std::map<std::string, std::shared_ptr<const std::vector<std::byte>>, std::less<>>;

/// The payload's tensor as a dense row-major ir::Tensor: its storage record viewed through the
/// meta's sizes, strides and storage_offset (a 0-byte record means zeros). Everything is
/// bounds-checked before any byte is copied. `what` ("parameter 'fc1.weight'") names it in errors.
Expected<ir::Tensor> load_payload(const Pt2Archive& archive, const Payload& payload,
                                  const std::string& what, RecordCache& cache);

}  // namespace inferno::frontend::pt2
