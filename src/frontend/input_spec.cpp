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
      if (field.empty() || ec != std::errc() || end != field.data() + field.size() || d < 0) {
        return fail("dim '" + std::string(field) + "' is not a non-negative integer");
      }
      if (d > kMaxDim) return fail("dim " + std::to_string(d) + " is larger than 2^31");
      if (spec.type.shape.size() == kMaxRank)
        return fail("more than " + std::to_string(kMaxRank) + " dims");
      spec.type.shape.push_back(d);
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
