#include "runtime/dynamic_dims.h"

#include <algorithm>
#include <cstddef>

#include "runtime/error.h"

namespace inferno::runtime {
namespace {

constexpr int32_t kMaxDims = 64;
constexpr int32_t kMaxDimUses = 1024;

std::string range_text(const DynamicDim& dim) {
  return std::to_string(dim.min) + ".." + (dim.max < 0 ? std::string("") : std::to_string(dim.max));
}

const char* input_name(const EntryPoints& entries, int32_t input) {
  return entries.front()->inputs[input].name;
}

// The caller's size at `use`, or -1 when the tensor cannot be read there.
int64_t given_size(const DimUse& use, const inferno_tensor* inputs, int32_t count) {
  if (inputs == nullptr || use.input >= count) return -1;
  const inferno_tensor& t = inputs[use.input];
  if (t.shape == nullptr || use.axis >= t.rank) return -1;
  return t.shape[use.axis];
}

// The sizes the entry points were compiled for, in entry order, each once.
std::vector<int64_t> compiled_sizes(const DynamicDim& dim, const EntryPoints& entries) {
  std::vector<int64_t> sizes;
  for (const inferno_model* entry : entries) {
    const DimUse& use = dim.uses.front();
    const int64_t size = entry->inputs[use.input].shape[use.axis];
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
  }
  return sizes;
}

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text;
  for (const int64_t size : sizes) text += (text.empty() ? "" : ", ") + std::to_string(size);
  return text;
}

bool printable(const char* name) {
  if (name == nullptr) return false;
  size_t n = 0;
  for (; name[n] != '\0'; ++n) {
    if (n >= INFERNO_MODEL_DIM_NAME_MAX || name[n] < 0x20 || name[n] > 0x7e) return false;
  }
  return n > 0;
}

}  // namespace

DynamicDims read_dynamic_dims(const inferno_model_dims* table, const EntryPoints& entries,
                              const std::string& path) {
  DynamicDims dims;
  if (table == nullptr) return dims;
  const auto bad = [&](const std::string& what) {
    fail(INFERNO_STATUS_ABI_MISMATCH, "'" + path + "': its dynamic dims table " + what);
  };
  if (table->version != INFERNO_MODEL_DIMS_VERSION) bad("has an unknown version");
  // The size before the first appended field; split_dim came later.
  if (table->struct_size < offsetof(inferno_model_dims, split_dim)) bad("is too small");
  const bool has_split =
      table->struct_size >= offsetof(inferno_model_dims, split_dim) + sizeof(table->split_dim);
  const int32_t split = has_split ? table->split_dim : -1;
  if (table->num_dims < 0 || table->num_dims > kMaxDims || table->num_uses < 0 ||
      table->num_uses > kMaxDimUses || (table->num_dims > 0 && table->dims == nullptr) ||
      (table->num_uses > 0 && table->uses == nullptr)) {
    bad("has bad counts or null arrays");
  }
  for (int32_t d = 0; d < table->num_dims; ++d) {
    const inferno_model_dim& dim = table->dims[d];
    if (!printable(dim.name)) bad("has a dim without a printable name");
    if (dim.min < 0 || (dim.max != -1 && dim.max < dim.min))
      bad("gives dim '" + std::string(dim.name) + "' a bad range");
    dims.push_back({dim.name, dim.min, dim.max, {}});
  }
  for (int32_t u = 0; u < table->num_uses; ++u) {
    const inferno_model_dim_use& use = table->uses[u];
    if (use.dim < 0 || use.dim >= table->num_dims) bad("has a use of no dim");
    for (const inferno_model* entry : entries) {
      if (use.input < 0 || use.input >= entry->num_inputs || use.axis < 0 ||
          use.axis >= entry->inputs[use.input].rank) {
        bad("names an input dim that an entry point does not have");
      }
    }
    dims[static_cast<size_t>(use.dim)].uses.push_back({use.input, use.axis});
  }
  if (split < -1 || split >= table->num_dims) bad("names a split dim it does not have");
  if (split >= 0) {
    DynamicDim& dim = dims[static_cast<size_t>(split)];
    dim.split = true;
    if (dim.uses.empty()) bad("names a split dim that no input has");
    for (const inferno_model* entry : entries) {
      const int64_t rows = entry->inputs[dim.uses.front().input].shape[0];
      for (const DimUse& use : dim.uses) {
        if (use.axis != 0 || entry->inputs[use.input].shape[0] != rows || rows < 1)
          bad("has a split dim that is not one size of the inputs' first axes");
      }
      for (int32_t o = 0; o < entry->num_outputs; ++o) {
        const inferno_tensor_desc& out = entry->outputs[o];
        if (out.rank < 1 || out.shape[0] % rows != 0)
          bad("has a split dim that is not in output '" + std::string(out.name) + "'");
      }
    }
  }
  // A dim no input has says nothing about a call.
  dims.erase(std::remove_if(dims.begin(), dims.end(),
                            [](const DynamicDim& dim) { return dim.uses.empty(); }),
             dims.end());
  return dims;
}

std::string dynamic_dims_error(const DynamicDims& dims, const EntryPoints& entries,
                               const inferno_tensor* inputs, int32_t count) {
  for (const DynamicDim& dim : dims) {
    const DimUse* first = nullptr;
    int64_t first_size = -1;
    for (const DimUse& use : dim.uses) {
      const int64_t size = given_size(use, inputs, count);
      if (size < 0) continue;
      const std::string where = "input '" + std::string(input_name(entries, use.input)) + "' dim " +
                                std::to_string(use.axis);
      if (size < dim.min || (dim.max >= 0 && size > dim.max)) {
        return where + " is " + std::to_string(size) + ", outside the range of " + dim.name +
               " the model was exported for (" + range_text(dim) + ")";
      }
      if (first == nullptr) {
        first = &use;
        first_size = size;
      } else if (size != first_size) {
        return where + " is " + std::to_string(size) + " but input '" +
               input_name(entries, first->input) + "' dim " + std::to_string(first->axis) + " is " +
               std::to_string(first_size) + ": both are " + dim.name;
      }
    }
    // A split dim's size in its range runs as runs of compiled sizes; why one cannot is the
    // split plan's to say (runtime/row_split.h).
    if (first == nullptr || dim.split) continue;
    const std::vector<int64_t> sizes = compiled_sizes(dim, entries);
    if (std::find(sizes.begin(), sizes.end(), first_size) == sizes.end()) {
      return dim.name + " = " + std::to_string(first_size) + " (input '" +
             input_name(entries, first->input) + "' dim " + std::to_string(first->axis) +
             ") is in the range the model was exported for (" + range_text(dim) +
             "), but this library was compiled for " + dim.name + " = " + sizes_text(sizes) +
             " only (infernoc --specialize " + dim.name + "=... compiles other sizes)";
    }
  }
  return "";
}

}  // namespace inferno::runtime
