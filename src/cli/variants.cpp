#include "cli/variants.h"

#include <charconv>

namespace inferno::cli {

Expected<std::vector<Specialization>> specializations(const CliOptions& options) {
  std::vector<Specialization> variants;
  if (options.specialize.empty()) return variants;
  if (options.specialize.size() > 1)
    return invalid_input("--specialize names one dynamic dim (SYMBOL=V1,V2,...)");
  const std::string& text = options.specialize.front();
  const size_t eq = text.find('=');
  const std::string symbol = text.substr(0, eq);
  if (eq == std::string::npos || symbol.empty() || eq + 1 == text.size()) {
    return invalid_input("--specialize '" + text +
                         "': expected SYMBOL=V1,V2,... (e.g. s0=1,16,64)");
  }
  // Bounded: each variant is a full compile of the model.
  constexpr size_t kMaxVariants = 16;
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
    for (const Specialization& seen : variants) {
      if (seen.at(symbol) == value)
        return invalid_input("--specialize '" + text + "' lists " + std::to_string(value) +
                             " twice");
    }
    variants.push_back({{symbol, value}});
    if (variants.size() > kMaxVariants)
      return invalid_input("--specialize: at most " + std::to_string(kMaxVariants) + " variants");
    begin = end + 1;
  }
  return variants;
}

std::vector<Specialization> default_specializations(
    const ir::Graph& graph, const std::map<std::string, frontend::DynamicDim, std::less<>>& dims) {
  std::vector<Specialization> variants;
  if (graph.num_states() == 0 || dims.size() != 1) return variants;
  const auto& [symbol, dim] = *dims.begin();
  for (const int64_t length : kDefaultLengths) {
    if (length >= dim.min && (dim.max < 0 || length <= dim.max))
      variants.push_back({{symbol, length}});
  }
  if (variants.size() == 1 && dim.max > 1) variants.push_back({{symbol, dim.max}});
  return variants;
}

std::string describe_variants(const std::vector<Specialization>& variants) {
  std::string text;
  for (const Specialization& variant : variants) {
    for (const auto& [symbol, value] : variant)
      text += (text.empty() ? "" : ", ") + symbol + "=" + std::to_string(value);
  }
  return text;
}

}  // namespace inferno::cli
