#include "runtime/entry_points.h"

#include "runtime/descriptor.h"

namespace inferno::runtime {
namespace {

bool matches(const inferno_tensor_desc& desc, const inferno_tensor& t) {
  if (t.dtype != desc.dtype || t.rank != desc.rank) return false;
  if (t.rank > 0 && t.shape == nullptr) return false;
  for (int32_t k = 0; k < t.rank; ++k) {
    if (t.shape[k] != desc.shape[k]) return false;
  }
  return true;
}

}  // namespace

EntryPoints entry_points(const inferno_model& model) {
  EntryPoints entries{&model};
  for (int32_t i = 0; i < model.num_variants; ++i) entries.push_back(model.variants[i]);
  return entries;
}

int32_t select_entry(const EntryPoints& entries, const inferno_tensor* inputs, int32_t count) {
  if (count > 0 && inputs == nullptr) return -1;
  for (size_t e = 0; e < entries.size(); ++e) {
    const inferno_model& m = *entries[e];
    if (m.num_inputs != count) continue;
    bool all = true;
    for (int32_t i = 0; i < count && all; ++i) all = matches(m.inputs[i], inputs[i]);
    if (all) return static_cast<int32_t>(e);
  }
  return -1;
}

std::string accepted_inputs_text(const EntryPoints& entries) {
  std::string text;
  for (size_t e = 0; e < entries.size(); ++e) {
    if (e > 0) text += " or ";
    text += "(";
    const inferno_model& m = *entries[e];
    for (int32_t i = 0; i < m.num_inputs; ++i) {
      const inferno_tensor_desc& d = m.inputs[i];
      if (i > 0) text += ", ";
      text += std::string(d.name) + " " + type_text(d.dtype, d.rank, d.shape);
    }
    text += ")";
  }
  return text;
}

std::string given_inputs_text(const inferno_tensor* inputs, int32_t count) {
  if (count <= 0) return "no inputs";
  if (inputs == nullptr) return "a null inputs array";
  constexpr int32_t kShown = 16;  // a message, not a dump
  std::string text;
  for (int32_t i = 0; i < count && i < kShown; ++i) {
    const inferno_tensor& t = inputs[i];
    if (i > 0) text += ", ";
    const bool readable = t.rank >= 0 && t.rank <= kMaxRank && (t.rank == 0 || t.shape != nullptr);
    text += readable ? type_text(t.dtype, t.rank, t.shape) : "?";
  }
  if (count > kShown) text += ", ...";
  return text;
}

}  // namespace inferno::runtime
