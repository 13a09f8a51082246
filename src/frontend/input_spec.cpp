// --input NAME:DIMS:DTYPE parsing and matching specs against a model's inputs.
#include "frontend/input_spec.h"

#include <charconv>

namespace inferno::frontend {
namespace {

constexpr size_t kMaxRank = 16;
constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr int64_t kMaxElements = int64_t{1} << 48;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

// "x.1" -> "x": TorchScript's unique-name suffix.
std::string_view strip_dot_number(std::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == name.size()) return name;
  for (char c : name.substr(dot + 1)) {
    if (c < '0' || c > '9') return name;
  }
  return name.substr(0, dot);
}

// A named dim: a letter or '_', then letters, digits or '_' ('x' separates dims).
bool is_dim_name(std::string_view field) {
  if (field.empty() || field.size() > 64) return false;
  const auto letter = [](char c) {
    return (c >= 'a' && c <= 'z' && c != 'x') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!letter(field.front())) return false;
  for (char c : field) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace

Expected<InputSpec> parse_input_spec(std::string_view text) {
  const std::string quoted = "--input '" + std::string(text) + "'";
  auto fail = [&](const std::string& what) {
    return invalid_input(quoted + ": " + what + " (expected NAME:DIMS:DTYPE, e.g. x:1x512:f32)");
  };
  const size_t c1 = text.find(':');
  const size_t c2 = c1 == std::string_view::npos ? c1 : text.find(':', c1 + 1);
  if (c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos) {
    return fail("needs exactly three ':'-separated fields");
  }
  InputSpec spec;
  spec.name = std::string(text.substr(0, c1));
  for (char c : spec.name) {
    if (!is_name_char(c)) return fail("name may only contain letters, digits, '_' and '.'");
  }
  const std::string_view dims = text.substr(c1 + 1, c2 - c1 - 1);
  if (!dims.empty() && dims != "scalar") {
    size_t pos = 0;
    int64_t numel = 1;
    while (true) {
      const size_t x = std::min(dims.find('x', pos), dims.size());
      const std::string_view field = dims.substr(pos, x - pos);
      int64_t d = -1;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), d);
      if (is_dim_name(field)) {
        spec.dim_symbols.resize(spec.type.shape.size());
        spec.dim_symbols.emplace_back(field);
        d = 0;  // bound later (bind_named_dims)
      } else if (field.empty() || ec != std::errc() || end != field.data() + field.size() ||
                 d < 0) {
        return fail("dim '" + std::string(field) +
                    "' is neither a non-negative integer nor a name");
      }
      if (d > kMaxDim) return fail("dim " + std::to_string(d) + " is larger than 2^31");
      if (spec.type.shape.size() == kMaxRank)
        return fail("more than " + std::to_string(kMaxRank) + " dims");
      spec.type.shape.push_back(d);
      if (!spec.dim_symbols.empty()) spec.dim_symbols.resize(spec.type.shape.size());
      if (__builtin_mul_overflow(numel, d, &numel) || numel > kMaxElements) {
        return fail("more than 2^48 elements");
      }
      if (x == dims.size()) break;
      pos = x + 1;
    }
  }
  const std::string_view dtype = text.substr(c2 + 1);
  std::optional<ir::DType> parsed = ir::parse_dtype(dtype);
  if (!parsed) {
    std::string names;
    for (ir::DType d : ir::kAllDTypes)
      names += (names.empty() ? "" : ", ") + std::string(ir::dtype_name(d));
    return fail("unknown dtype '" + std::string(dtype) + "' (one of " + names + ")");
  }
  spec.type.dtype = *parsed;
  return spec;
}

bool has_named_dims(const std::vector<InputSpec>& specs) {
  for (const InputSpec& spec : specs) {
    if (!spec.dim_symbols.empty()) return true;
  }
  return false;
}

Status bind_named_dims(LoadOptions& options) {
  if (options.dynamic_dims) {  // a map kept over several loads lists each use once
    for (auto& [symbol, dim] : *options.dynamic_dims) dim.uses.clear();
  }
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    InputSpec& spec = options.inputs[i];
    for (size_t axis = 0; axis < spec.dim_symbols.size(); ++axis) {
      const std::string& symbol = spec.dim_symbols[axis];
      if (symbol.empty()) continue;
      const std::string where = "--input " + std::to_string(i) + " names dim " +
                                std::to_string(axis) + " '" + symbol + "'";
      const auto range = options.dim_ranges.find(symbol);
      if (range == options.dim_ranges.end()) {
        return invalid_input(where + ", which has no range: give it one with --dim " + symbol +
                             "=LO..HI");
      }
      const auto [lo, hi] = range->second;
      const auto given = options.symbols.find(symbol);
      const int64_t value = given == options.symbols.end() ? lo : given->second;
      if (value < lo || value > hi) {
        return invalid_input(where + " with the size " + std::to_string(value) +
                             ", outside its range " + std::to_string(lo) + ".." +
                             std::to_string(hi));
      }
      if (value > kMaxDim) return invalid_input(where + " with a size larger than 2^31");
      spec.type.shape[axis] = value;
      if (options.dynamic_dims) {
        DynamicDim& dim = (*options.dynamic_dims)[symbol];
        dim.min = lo;
        dim.max = hi;
        dim.value = value;
        dim.uses.push_back({static_cast<int32_t>(i), static_cast<int32_t>(axis)});
      }
    }
    spec.dim_symbols.clear();
    int64_t numel = 1;
    for (const int64_t d : spec.type.shape) {
      if (__builtin_mul_overflow(numel, d, &numel) || numel > kMaxElements)
        return invalid_input("--input " + std::to_string(i) + " has more than 2^48 elements");
    }
  }
  return Status::ok();
}

Status check_input_specs(const std::vector<InputSpec>& specs,
                         const std::vector<std::string>& model_names) {
  if (specs.size() != model_names.size()) {
    const bool data = !specs.empty() && !specs.front().data_file.empty();
    const std::string given = data ? (specs.size() == 1 ? " --data file was" : " --data files were")
                                   : (specs.size() == 1 ? " --input was" : " --inputs were");
    return invalid_input("model has " + std::to_string(model_names.size()) + " input" +
                         (model_names.size() == 1 ? "" : "s") + " (" + join(model_names) +
                         ") but " + std::to_string(specs.size()) + given + " given");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name.empty()) continue;
    if (strip_dot_number(specs[i].name) != strip_dot_number(model_names[i])) {
      return invalid_input("--input " + std::to_string(i) + " is named '" + specs[i].name +
                           "' but the model's input " + std::to_string(i) + " is '" +
                           model_names[i] + "'");
    }
  }
  return Status::ok();
}

}  // namespace inferno::frontend
