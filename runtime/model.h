// A loaded model: the dlopen'ed model.so, its validated self-description, and its weights uploaded
// once to one device. Immutable after load, so sessions on many threads share it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "inferno/model_abi.h"
#include "inferno/model_profile.h"
#include "runtime/dynamic_dims.h"
#include "runtime/entry_points.h"
#include "runtime/generation_layout.h"
#include "runtime/shared_library.h"

namespace inferno::runtime {

class Model {
 public:
  /// Loads `path` (see inferno_model_load for the checks and their statuses). `device` is an index,
  /// INFERNO_DEVICE_CURRENT, or INFERNO_DEVICE_NONE to inspect without a GPU.
  static std::shared_ptr<const Model> load(const std::string& path, int device);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const inferno_model& abi() const { return *abi_; }
  /// {the model, its variants...}: what a session can run.
  const EntryPoints& entries() const { return entries_; }
  /// The arena a session needs: the largest over the entry points (they run one at a time).
  uint64_t arena_bytes() const;
  /// How the model generates tokens (an LLM's entry points), or why it cannot.
  const GenerationLayout& generation() const { return generation_; }
  const std::string& path() const { return path_; }
  /// The device the weights live on; INFERNO_DEVICE_NONE for an inspection-only load.
  int device() const { return device_; }
  const void* device_weights() const { return device_weights_; }

  /// The profile table of entry point `entry` (inferno/model_profile.h), checked; null when the
  /// library has none (written before the table existed).
  const inferno_model_profile* profile(size_t entry) const {
    return entry < profiles_.size() ? profiles_[entry] : nullptr;
  }
  /// The dims that were dynamic in the model's export (inferno/model_dims.h), checked; empty for
  /// a model without them.
  const DynamicDims& dynamic_dims() const { return dims_; }
  /// Whether the model has machine code for compute capability `sm` (e.g. 90).
  bool has_arch(int sm) const;
  /// The model's archs as text: "sm_90, sm_80".
  std::string archs_text() const;

 private:
  explicit Model(const std::string& path);
  void upload_weights(int device, const void* data, uint64_t size);

  std::string path_;
  SharedLibrary library_;  // declared first: closed last, after the weights are freed
  const inferno_model* abi_ = nullptr;
  EntryPoints entries_;
  std::vector<const inferno_model_profile*> profiles_;  // per entry point; empty: none
  DynamicDims dims_;
  GenerationLayout generation_;
  int device_;
  void* device_weights_ = nullptr;
};

}  // namespace inferno::runtime
