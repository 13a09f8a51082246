#include "runtime/descriptor.h"

#include "runtime/error.h"

namespace inferno::runtime {
namespace {

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
  fail(INFERNO_STATUS_ABI_MISMATCH, "malformed model '" + path + "': " + what);
}

void validate_tensors(const std::string& path, const char* role, int32_t count,
                      const inferno_tensor_desc* descs) {
  if (count < 0) malformed(path, std::string("negative ") + role + " count");
  if (count > 0 && descs == nullptr) malformed(path, std::string(role) + " descriptors are null");
  for (int32_t i = 0; i < count; ++i) {
    const inferno_tensor_desc& d = descs[i];
    const std::string where = std::string(role) + " " + std::to_string(i);
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
    fail(INFERNO_STATUS_ABI_MISMATCH,
         "'" + path + "' has model ABI version " + std::to_string(model.abi_version) +
             ", this runtime reads version " + std::to_string(INFERNO_MODEL_ABI_VERSION) +
             " (rebuild the model with a matching infernoc)");
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
  validate_tensors(path, "input", model.num_inputs, model.inputs);
  validate_tensors(path, "output", model.num_outputs, model.outputs);
  if (model.workspace_bytes > model.arena_bytes) malformed(path, "workspace larger than arena");
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
  if (model.session_create == nullptr || model.run == nullptr || model.session_destroy == nullptr) {
    malformed(path, "null function pointer");
  }
}

}  // namespace inferno::runtime
