#include "runtime/descriptor.h"

#include "runtime/error.h"

namespace inferno::runtime {
namespace {

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
  fail(INFERNO_STATUS_ABI_MISMATCH, "malformed model '" + path + "': " + what);
}

// Checks one tensor description; `where` names it in messages ("input 0").
void validate_tensor(const std::string& path, const std::string& where,
                     const inferno_tensor_desc& d) {
  if (d.name == nullptr) malformed(path, where + " has no name");
  if (dtype_size(d.dtype) == 0) malformed(path, where + " has unknown " + dtype_name(d.dtype));
  if (d.rank < 0 || d.rank > kMaxRank) {
    malformed(path, where + " has rank " + std::to_string(d.rank));
  }
  if (d.rank > 0 && d.shape == nullptr) malformed(path, where + " has a null shape");
  // Every later size computation (element counts, byte sizes) may then multiply freely.
  int64_t bytes = dtype_size(d.dtype);
  for (int32_t k = 0; k < d.rank; ++k) {
    if (d.shape[k] < 0) malformed(path, where + " has a negative dimension");
    if (__builtin_mul_overflow(bytes, d.shape[k], &bytes)) {
      malformed(path, where + " is larger than 2^63 bytes");
    }
  }
}

void validate_tensors(const std::string& path, const std::string& role, int32_t count,
                      const inferno_tensor_desc* descs) {
  if (count < 0) malformed(path, "negative " + role + " count");
  if (count > 0 && descs == nullptr) malformed(path, role + " descriptors are null");
  for (int32_t i = 0; i < count; ++i)
    validate_tensor(path, role + " " + std::to_string(i), descs[i]);
}

// What a model and each of its variants must have: tensors, arena and functions.
void validate_entry(const inferno_model& model, const std::string& path,
                    const std::string& prefix) {
  validate_tensors(path, prefix + "input", model.num_inputs, model.inputs);
  validate_tensors(path, prefix + "output", model.num_outputs, model.outputs);
  if (model.workspace_bytes > model.arena_bytes) {
    malformed(path, prefix + "workspace larger than arena");
  }
  if (model.session_create == nullptr || model.run == nullptr || model.session_destroy == nullptr) {
    malformed(path, prefix + "null function pointer");
  }
}

void validate_states(const inferno_model& model, const std::string& path) {
  if (model.num_states < 0 || model.num_states > kMaxStates) {
    malformed(path, "state count " + std::to_string(model.num_states) + " outside 0.." +
                        std::to_string(kMaxStates));
  }
  if (model.num_states > 0 && model.states == nullptr)
    malformed(path, "state descriptors are null");
  uint64_t total = 0;
  for (int32_t i = 0; i < model.num_states; ++i) {
    const inferno_state_desc& s = model.states[i];
    const std::string where = "state " + std::to_string(i);
    validate_tensor(path, where, s.tensor);
    const auto bytes = static_cast<uint64_t>(tensor_bytes(s.tensor));
    // The states share one allocation (each 256-byte aligned): their sum must stay countable.
    if (__builtin_add_overflow(total, bytes + 256, &total) || total > (uint64_t{1} << 62)) {
      malformed(path, "states larger than 2^62 bytes");
    }
    if (s.init_offset == INFERNO_STATE_INIT_ZERO) continue;
    if (s.init_offset > model.weights_bytes || bytes > model.weights_bytes - s.init_offset) {
      malformed(path, where + " '" + s.tensor.name + "' initial value at offset " +
                          std::to_string(s.init_offset) + " (" + std::to_string(bytes) +
                          " bytes) lies outside the weights (" +
                          std::to_string(model.weights_bytes) + " bytes)");
    }
  }
  if (model.max_positions < 0) malformed(path, "negative max_positions");
}

bool same_input_types(const inferno_model& a, const inferno_model& b) {
  if (a.num_inputs != b.num_inputs) return false;
  for (int32_t i = 0; i < a.num_inputs; ++i) {
    const inferno_tensor_desc& x = a.inputs[i];
    const inferno_tensor_desc& y = b.inputs[i];
    if (x.dtype != y.dtype || x.rank != y.rank) return false;
    for (int32_t k = 0; k < x.rank; ++k) {
      if (x.shape[k] != y.shape[k]) return false;
    }
  }
  return true;
}

void validate_variants(const inferno_model& model, const std::string& path) {
  if (model.num_variants < 0 || model.num_variants > kMaxVariants) {
    malformed(path, "variant count " + std::to_string(model.num_variants) + " outside 0.." +
                        std::to_string(kMaxVariants));
  }
  if (model.num_variants > 0 && model.variants == nullptr) malformed(path, "variants are null");
  for (int32_t i = 0; i < model.num_variants; ++i) {
    const std::string where = "variant " + std::to_string(i + 1);
    const inferno_model* v = model.variants[i];
    if (v == nullptr) malformed(path, where + " is null");
    if (v->abi_version != model.abi_version || v->struct_size < sizeof(inferno_model)) {
      malformed(path, where + " has another ABI version or struct size");
    }
    if (v->num_variants != 0) malformed(path, where + " has variants of its own");
    validate_entry(*v, path, where + " ");
  }
  // The runtime picks the first entry point whose input types match: a later twin is unreachable.
  for (int32_t i = 0; i <= model.num_variants; ++i) {
    const inferno_model& a = i == 0 ? model : *model.variants[i - 1];
    for (int32_t j = i + 1; j <= model.num_variants; ++j) {
      if (same_input_types(a, *model.variants[j - 1])) {
        malformed(path, "variant " + std::to_string(j) + " takes the same inputs as " +
                            (i == 0 ? std::string("the model") : "variant " + std::to_string(i)));
      }
    }
  }
}

}  // namespace

std::string dtype_name(int32_t dtype) {
  switch (dtype) {
    case INFERNO_DTYPE_F32:
      return "f32";
    case INFERNO_DTYPE_F16:
      return "f16";
    case INFERNO_DTYPE_BF16:
      return "bf16";
    case INFERNO_DTYPE_F64:
      return "f64";
    case INFERNO_DTYPE_I64:
      return "i64";
    case INFERNO_DTYPE_I32:
      return "i32";
    case INFERNO_DTYPE_BOOL:
      return "bool";
    default:
      return "dtype(" + std::to_string(dtype) + ")";
  }
}

int64_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case INFERNO_DTYPE_F32:
    case INFERNO_DTYPE_I32:
      return 4;
    case INFERNO_DTYPE_F16:
    case INFERNO_DTYPE_BF16:
      return 2;
    case INFERNO_DTYPE_F64:
    case INFERNO_DTYPE_I64:
      return 8;
    case INFERNO_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

int64_t tensor_bytes(const inferno_tensor_desc& desc) {
  int64_t bytes = dtype_size(desc.dtype);
  for (int32_t k = 0; k < desc.rank; ++k) bytes *= desc.shape[k];
  return bytes;
}

std::string type_text(int32_t dtype, int32_t rank, const int64_t* shape) {
  std::string text = dtype_name(dtype) + "[";
  for (int32_t k = 0; k < rank; ++k) {
    if (k > 0) text += ",";
    text += std::to_string(shape[k]);
  }
  return text + "]";
}

void validate_descriptor(const inferno_model& model, const std::string& path) {
  if (model.abi_version != INFERNO_MODEL_ABI_VERSION) {
    // Version 1 models (before state and variants) are not read: their struct is shorter.
    const char* fix = model.abi_version < INFERNO_MODEL_ABI_VERSION
                          ? " (rebuild the model with a matching infernoc)"
                          : " (use the runtime of the infernoc that built it)";
    fail(INFERNO_STATUS_ABI_MISMATCH,
         "'" + path + "' has model ABI version " + std::to_string(model.abi_version) +
             ", this runtime reads version " + std::to_string(INFERNO_MODEL_ABI_VERSION) + fix);
  }
  if (model.struct_size < sizeof(inferno_model)) {
    fail(INFERNO_STATUS_ABI_MISMATCH,
         "'" + path + "' describes itself in " + std::to_string(model.struct_size) +
             " bytes, this runtime needs " + std::to_string(sizeof(inferno_model)));
  }
  const inferno_manifest& m = model.manifest;
  if (m.num_sm_archs < 0 || (m.num_sm_archs > 0 && m.sm_archs == nullptr)) {
    malformed(path, "bad sm_archs list");
  }
  validate_entry(model, path, "");
  if (model.weights_bytes > 0 && (model.weights == nullptr) == (model.weights_file == nullptr)) {
    malformed(path, "weights must be either embedded or in a file");
  }
  if (model.weights_file != nullptr) {
    const std::string file = model.weights_file;
    // "Beside the .so": a plain file name, never a path that could point elsewhere.
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..") {
      malformed(path, "weights_file '" + file + "' is not a plain file name");
    }
  }
  validate_states(model, path);
  validate_variants(model, path);
}

}  // namespace inferno::runtime
