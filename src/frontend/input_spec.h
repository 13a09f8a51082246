// Input specifications: what the user says about the model's inputs (`--input NAME:DIMS:DTYPE`,
// or the shapes and dtypes of `--data` files).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::frontend {

/// One graph input as the user specified it. Specs are positional (graph input order); a
/// non-empty name must match the model's name for that input.
struct InputSpec {
  std::string name;  ///< empty when the spec came from a --data file
  ir::TensorType type;
  /// False for a spec taken from a --data file: a floating-point file may then stand for a
  /// floating-point input of another width (the CLI converts it), and a .pt2 input keeps the
  /// model's dtype. TorchScript records no input dtypes, so there the spec's dtype is used as is.
  bool exact_dtype = true;
  /// The --data file the spec was taken from, empty for --input: errors name what the user gave.
  std::string data_file = {};
  /// A named dim's symbol per dim ("B" for x:Bx3x224x224:f32, "" for a fixed size); empty when
  /// every dim is fixed. A named dim's size in `type` is 0 until bind_named_dims gives it one.
  std::vector<std::string> dim_symbols = {};
};

/// Parses "x:1x512:f32". DIMS is 'x'-separated sizes: non-negative integers, or names (a letter
/// or '_' first, then letters, digits and '_'; no 'x', the separator) that make the dim dynamic
/// (TorchScript models: --dim NAME=LO..HI gives the range). "scalar" (or an empty DIMS field)
/// means rank 0. DTYPE is an IR dtype name. Errors are invalid-input Statuses.
Expected<InputSpec> parse_input_spec(std::string_view text);

/// Whether some spec has a named dim.
bool has_named_dims(const std::vector<InputSpec>& specs);

/// Where a dynamic dim appears: dim `axis` of user input `input`.
struct DimUse {
  int32_t input = 0;
  int32_t axis = 0;
};

/// A dynamic dim of a model's inputs: its export range (max: -1 when unbounded), the value it
/// was bound to by this load, and the input dims that have it.
struct DynamicDim {
  int64_t min = 0;
  int64_t max = -1;
  int64_t value = 0;
  std::vector<DimUse> uses = {};
  /// The model computes with the dim's size as a number (x * x.shape[0], arange(1, n), zeros(n)),
  /// not only to shape a view (view, reshape, expand): the graph's constants depend on it.
  bool read_as_value = false;
  /// The constants this load made of arange(n) for the dim's size n (start 0, step 1, an i32 or
  /// i64 dtype): 0..n-1, each row's own index. Such an arange does not set read_as_value; the row
  /// split analysis (passes/row_split.h) checks every use of it instead.
  std::vector<ir::ValueId> row_indices = {};
  /// The dim is an expression ("2*s94") or shares a symbol with one: its size is tied to
  /// another's.
  bool derived = false;
};

/// What a frontend needs besides the model file.
struct LoadOptions {
  std::vector<InputSpec> inputs;  ///< empty: take shapes from the model where it has them
  /// Values for the model's dynamic dims by symbol ("s0" -> 16), where no --input gives them;
  /// a symbol not listed takes the size the model was exported with.
  std::map<std::string, int64_t, std::less<>> symbols{};
  /// Ranges the user bounds dynamic dims to (--dim SYMBOL=LO..HI), by symbol: each must lie
  /// within the export's range, and replaces it.
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> dim_ranges{};
  /// When set, the loader records each dynamic dim of the model's inputs here: the range the
  /// model was exported for and the value it was bound to.
  std::map<std::string, DynamicDim, std::less<>>* dynamic_dims = nullptr;
  /// Hears what the frontend decided for the user (which TorchScript value an output name was);
  /// may be empty.
  std::function<void(std::string_view)> note = {};
  /// When set, the TorchScript frontend sets it to whether the model computes with a tensor's
  /// size as a number (aten::size or aten::numel reaching anything but a view's shape): such a
  /// size is a constant of the loaded graph, so its named dims must not be split.
  bool* reads_sizes = nullptr;
};

/// Binds the named dims of `options.inputs` (--input x:Bx16:f32 for a TorchScript model): each
/// takes `options.symbols`' value for its name, else the low end of its --dim range, which it
/// must have; the specs become fixed-size. Records each name in `options.dynamic_dims` (when set)
/// with its range, value and uses. Errors (a name without a range, a value outside it) are
/// invalid-input Statuses.
Status bind_named_dims(LoadOptions& options);

/// Matches `specs` against the model's input names (`model_names`, in order): the counts must be
/// equal and every named spec must match. TorchScript's ".N" suffixes are ignored on both sides.
Status check_input_specs(const std::vector<InputSpec>& specs,
                         const std::vector<std::string>& model_names);

}  // namespace inferno::frontend
