#include "cli/variants.h"

#include <charconv>
#include <utility>

#include "cli/row_split_dim.h"

namespace inferno::cli {

namespace {

// Bounded: each variant is a full compile of the model.
constexpr size_t kMaxVariants = 16;

// One --specialize text, SYMBOL=V1,V2,...: its symbol and sizes (distinct, in order).
Expected<std::pair<std::string, std::vector<int64_t>>> parse_specialize(const std::string& text) {
  const size_t eq = text.find('=');
  const std::string symbol = text.substr(0, eq);
  if (eq == std::string::npos || symbol.empty() || eq + 1 == text.size()) {
    return invalid_input("--specialize '" + text +
                         "': expected SYMBOL=V1,V2,... (e.g. s0=1,16,64)");
  }
  std::vector<int64_t> values;
  for (size_t begin = eq + 1; begin <= text.size();) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    int64_t value = 0;
    const char* first = text.data() + begin;
    const char* last = text.data() + end;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || value < 0) {
      return invalid_input("--specialize '" + text + "': '" + text.substr(begin, end - begin) +
                           "' is not a size");
    }
    for (const int64_t seen : values) {
      if (seen == value)
        return invalid_input("--specialize '" + text + "' lists " + std::to_string(value) +
                             " twice");
    }
    values.push_back(value);
    if (values.size() > kMaxVariants)
      return invalid_input("--specialize: at most " + std::to_string(kMaxVariants) + " variants");
    begin = end + 1;
  }
  return std::pair{symbol, std::move(values)};
}

}  // namespace

Expected<std::vector<Specialization>> specializations(const CliOptions& options) {
  std::vector<Specialization> variants;
  if (options.specialize.empty()) return variants;
  variants.emplace_back();
  for (const std::string& text : options.specialize) {
    INFERNO_ASSIGN_OR_RETURN(auto parsed, parse_specialize(text));
    const auto& [symbol, values] = parsed;
    if (variants.front().count(symbol) != 0)
      return invalid_input("--specialize names dim '" + symbol + "' twice");
    if (variants.size() * values.size() > kMaxVariants) {
      return invalid_input("--specialize: at most " + std::to_string(kMaxVariants) +
                           " variants (every combination of the sizes is one)");
    }
    // Every combination, the earlier dims' sizes varying slowest: the first variant (the
    // library's own interface) takes each dim's first size.
    std::vector<Specialization> combined;
    for (const Specialization& variant : variants) {
      for (const int64_t value : values) {
        combined.push_back(variant);
        combined.back()[symbol] = value;
      }
    }
    variants = std::move(combined);
  }
  return variants;
}

std::vector<Specialization> default_specializations(
    const ir::Graph& graph, const std::map<std::string, frontend::DynamicDim, std::less<>>& dims,
    const std::string& split) {
  std::vector<Specialization> variants;
  if (!split.empty()) {
    for (const int64_t size : row_split_sizes(dims.at(split), kMaxVariants))
      variants.push_back({{split, size}});
    return variants;
  }
  if (graph.num_states() == 0 || dims.size() != 1) return variants;
  const auto& [symbol, dim] = *dims.begin();
  for (const int64_t length : kDefaultLengths) {
    if (length >= dim.min && (dim.max < 0 || length <= dim.max))
      variants.push_back({{symbol, length}});
  }
  if (variants.size() == 1 && dim.max > 1) variants.push_back({{symbol, dim.max}});
  return variants;
}

std::vector<Specialization> with_split_sizes(std::vector<Specialization> variants,
                                             const std::string& split,
                                             const frontend::DynamicDim& dim) {
  if (variants.empty() || variants.front().count(split) != 0) return variants;
  const std::vector<int64_t> sizes = row_split_sizes(dim, kMaxVariants / variants.size());
  if (sizes.empty()) return variants;
  std::vector<Specialization> combined;
  for (const Specialization& variant : variants) {
    for (const int64_t size : sizes) {
      combined.push_back(variant);
      combined.back()[split] = size;
    }
  }
  return combined;
}

Expected<std::map<std::string, std::pair<int64_t, int64_t>, std::less<>>> dim_ranges(
    const CliOptions& options) {
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> ranges;
  for (const std::string& text : options.dim_ranges) {
    const size_t eq = text.find('=');
    const size_t dots = text.find("..", eq == std::string::npos ? 0 : eq);
    const auto bad = [&] {
      return invalid_input("--dim '" + text + "': expected SYMBOL=LO..HI (e.g. s77=1..64)");
    };
    if (eq == std::string::npos || eq == 0 || dots == std::string::npos) return bad();
    int64_t bounds[2] = {0, 0};
    const std::string parts[2] = {text.substr(eq + 1, dots - eq - 1), text.substr(dots + 2)};
    for (int k = 0; k < 2; ++k) {
      const char* first = parts[k].data();
      const char* last = first + parts[k].size();
      const auto [ptr, ec] = std::from_chars(first, last, bounds[k]);
      if (parts[k].empty() || ec != std::errc() || ptr != last || bounds[k] < 0) return bad();
    }
    if (bounds[0] > bounds[1]) return bad();
    if (!ranges.emplace(text.substr(0, eq), std::pair{bounds[0], bounds[1]}).second)
      return invalid_input("--dim names dim '" + text.substr(0, eq) + "' twice");
  }
  return ranges;
}

Status check_dim_bounds(const std::map<std::string, frontend::DynamicDim, std::less<>>& dims,
                        const CliOptions& options, bool sizes_given) {
  INFERNO_ASSIGN_OR_RETURN(const auto ranges, dim_ranges(options));
  std::string names;
  for (const auto& [symbol, dim] : dims) names += (names.empty() ? "" : ", ") + symbol;
  for (const auto& [symbol, range] : ranges) {
    if (dims.count(symbol) == 0) {
      return invalid_input(
          "--dim names '" + symbol + "', which is no dynamic dim of the model" +
          (names.empty() ? std::string(" (it has none)") : " (its dims: " + names + ")"));
    }
  }
  if (sizes_given) return Status::ok();
  for (const auto& [symbol, dim] : dims) {
    // A derived dim ("2*s94") is bounded through its symbols, which are dims of their own.
    if (dim.uses.empty() || dim.max >= 0 || dim.derived) continue;
    return invalid_input(
        "dynamic dim " + symbol + " (input " + std::to_string(dim.uses.front().input) + " dim " +
        std::to_string(dim.uses.front().axis) +
        ") has no upper bound in the export (torch.export's default): bound it "
        "with --dim " +
        symbol + "=" + std::to_string(dim.min) + "..MAX, or export it with Dim(..., max=MAX)");
  }
  return Status::ok();
}

std::string describe_variants(const std::vector<Specialization>& variants) {
  std::string text;
  for (const Specialization& variant : variants) {
    std::string one;
    for (const auto& [symbol, value] : variant)
      one += (one.empty() ? "" : " ") + symbol + "=" + std::to_string(value);
    text += (text.empty() ? "" : ", ") + one;
  }
  return text;
}

}  // namespace inferno::cli
