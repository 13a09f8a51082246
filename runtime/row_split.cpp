#include "runtime/row_split.h"

#include <algorithm>
#include <map>

#include "runtime/descriptor.h"

namespace inferno::runtime {
namespace {

constexpr size_t kMaxChunks = 64;  // the rule needs about log2(rows) runs; a bound, not a target
const DynamicDim* split_dim(const DynamicDims& dims) {
  for (const DynamicDim& dim : dims) {
    if (dim.split) return &dim;
  }
  return nullptr;
}

bool has_dim(const DynamicDim& dim, int32_t input) {
  return std::any_of(dim.uses.begin(), dim.uses.end(),
                     [&](const DimUse& use) { return use.input == input; });
}

// Whether entry `m` takes `inputs` once its split dim's size is changed to the call's.
bool fits_but_rows(const inferno_model& m, const DynamicDim& dim, const inferno_tensor* inputs,
                   int32_t count) {
  if (m.num_inputs != count) return false;
  for (int32_t i = 0; i < count; ++i) {
    const inferno_tensor_desc& d = m.inputs[i];
    const inferno_tensor& t = inputs[i];
    if (t.dtype != d.dtype || t.rank != d.rank || (t.rank > 0 && t.shape == nullptr)) return false;
    for (int32_t k = has_dim(dim, i) ? 1 : 0; k < t.rank; ++k) {
      if (t.shape[k] != d.shape[k]) return false;
    }
  }
  return true;
}

int64_t row_bytes(const inferno_tensor_desc& desc, int64_t rows) {
  return tensor_bytes(desc) / rows;  // the first dim is a multiple of rows (read_dynamic_dims)
}

}  // namespace

std::string plan_row_split(const DynamicDims& dims, const EntryPoints& entries,
                           const inferno_tensor* inputs, int32_t count, RowSplitPlan& plan) {
  const DynamicDim* dim = split_dim(dims);
  if (dim == nullptr) return "the model has no dim to split a run along";
  if (count <= 0 || inputs == nullptr) return "no inputs";
  int64_t n = -1;
  for (const DimUse& use : dim->uses) {
    if (use.input >= count) return "too few inputs";
    const inferno_tensor& t = inputs[use.input];
    if (t.rank < 1 || t.shape == nullptr) return "an input without the dim";
    if (n >= 0 && t.shape[0] != n) return "inputs disagree on " + dim->name;
    n = t.shape[0];
  }
  if (n < dim->min || (dim->max >= 0 && n > dim->max) || n < 1)
    return dim->name + " = " + std::to_string(n) + " is outside its range";
  // The compiled sizes the call's other sizes allow, each with its first entry point.
  std::map<int64_t, int32_t> sizes;
  for (size_t e = 0; e < entries.size(); ++e) {
    const inferno_model& m = *entries[e];
    if (!fits_but_rows(m, *dim, inputs, count)) continue;
    sizes.emplace(m.inputs[dim->uses.front().input].shape[0], static_cast<int32_t>(e));
  }
  if (sizes.empty()) return "no compiled variant takes the other dims' sizes";
  const int64_t lo = sizes.begin()->first;
  plan = RowSplitPlan{};
  plan.rows = n;
  for (int64_t row = 0; row < n;) {
    const int64_t left = n - row;
    auto it = sizes.find(left);
    if (it == sizes.end()) {  // the largest size that leaves at least the smallest
      it = sizes.upper_bound(left - lo);
      if (it == sizes.begin()) {
        return std::to_string(left) + " rows of " + dim->name + " = " + std::to_string(n) +
               " are no sum of its compiled sizes";
      }
      --it;
    }
    if (plan.chunks.size() == kMaxChunks) return "too many runs";
    plan.chunks.push_back({it->second, row, it->first});
    row += it->first;
  }
  // Bytes per row, and the shapes the call's tensors must have; every entry point used agrees.
  const inferno_model& first = *entries[plan.chunks.front().entry];
  const int64_t first_rows = plan.chunks.front().rows;
  for (int32_t i = 0; i < count; ++i) {
    plan.input_row_bytes.push_back(has_dim(*dim, i) ? row_bytes(first.inputs[i], first_rows) : 0);
    plan.input_shapes.emplace_back(inputs[i].shape, inputs[i].shape + inputs[i].rank);
  }
  for (int32_t o = 0; o < first.num_outputs; ++o) {
    const inferno_tensor_desc& out = first.outputs[o];
    plan.output_row_bytes.push_back(row_bytes(out, first_rows));
    std::vector<int64_t>& shape = plan.output_shapes.emplace_back(out.shape, out.shape + out.rank);
    shape[0] = out.shape[0] / first_rows * n;
  }
  for (RowChunk& chunk : plan.chunks) {
    const inferno_model& m = *entries[chunk.entry];
    if (m.num_outputs != first.num_outputs) return "variants with different outputs";
    for (int32_t o = 0; o < m.num_outputs; ++o) {
      const inferno_tensor_desc& out = m.outputs[o];
      const std::vector<int64_t>& shape = plan.output_shapes[static_cast<size_t>(o)];
      bool same = out.dtype == first.outputs[o].dtype && out.rank == first.outputs[o].rank &&
                  out.shape[0] / chunk.rows * n == shape[0];
      for (int32_t k = 1; same && k < out.rank; ++k) same = out.shape[k] == shape[k];
      if (!same) return "variants whose outputs do not scale with the rows";
    }
    bool aligned = true;
    for (const int64_t bytes : plan.input_row_bytes)
      aligned = aligned && chunk.first_row * bytes % kRowAlignment == 0;
    for (const int64_t bytes : plan.output_row_bytes)
      aligned = aligned && chunk.first_row * bytes % kRowAlignment == 0;
    chunk.staged = !aligned;
    if (!aligned && chunk.rows >= kMaxStagedRows) {
      return "a run of " + std::to_string(chunk.rows) + " rows would start at row " +
             std::to_string(chunk.first_row) + ", which is not 16-byte aligned";
    }
  }
  return "";
}

std::string refusal_text(const DynamicDims& dims, const EntryPoints& entries,
                         const std::string& path, const inferno_tensor* inputs, int32_t count,
                         const std::string& split_why) {
  if (std::string why = dynamic_dims_error(dims, entries, inputs, count); !why.empty()) return why;
  const std::string given = "inputs (" + given_inputs_text(inputs, count) + ")";
  if (has_split_dim(dims)) {
    return given + " cannot run as runs of the sizes model '" + path +
           "' was compiled for: " + split_why + "; it takes " + accepted_inputs_text(entries);
  }
  return given + " match no variant of model '" + path + "', which takes " +
         accepted_inputs_text(entries);
}

bool has_split_dim(const DynamicDims& dims) { return split_dim(dims) != nullptr; }

uint64_t row_staging_bytes(const DynamicDims& dims, const EntryPoints& entries) {
  const DynamicDim* dim = split_dim(dims);
  if (dim == nullptr) return 0;
  uint64_t most = 0;
  for (const inferno_model* m : entries) {
    const int64_t rows = m->inputs[dim->uses.front().input].shape[0];
    if (rows >= kMaxStagedRows) continue;
    uint64_t bytes = 0;
    for (int32_t i = 0; i < m->num_inputs; ++i) {
      if (has_dim(*dim, i)) bytes += staging_slot_bytes(tensor_bytes(m->inputs[i]));
    }
    for (int32_t o = 0; o < m->num_outputs; ++o)
      bytes += staging_slot_bytes(tensor_bytes(m->outputs[o]));
    most = std::max(most, bytes);
  }
  return most;
}

}  // namespace inferno::runtime
