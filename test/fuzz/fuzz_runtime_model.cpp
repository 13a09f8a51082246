// The runtime's model checks, which run before anything touches a GPU: validate_descriptor (the
// self-description every model.so exports: counts, dtypes, ranks, shapes, sizes, the weights'
// placement) and HostWeights::read (the weights blob, embedded or in an external file, refused by
// size and checksum before any upload). The fuzz input is decoded into a descriptor whose arrays
// and strings live here, and into the bytes of an external weights file. Whatever the checks
// accept must be safe to use: sizes that fit in int64_t, weights of exactly the declared size
// whose checksum matches the manifest, states initialized from inside the weights, complete
// variants.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "runtime/descriptor.h"
#include "runtime/error.h"
#include "runtime/weights.h"

namespace {

// Takes values from the front of the fuzz input; zeros once it runs out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t next(int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes && at_ < size_; ++i) value |= uint64_t{data_[at_++]} << (8 * i);
    return value;
  }
  // Small integers with their edges: mostly `lo`..`hi`, sometimes anything.
  int32_t small(int32_t lo, int32_t hi) {
    const uint64_t raw = next(1);
    if (raw == 0xFF) return static_cast<int32_t>(next(4));
    return lo + static_cast<int32_t>(raw % static_cast<uint64_t>(hi - lo + 1));
  }
  std::string text() {
    const uint64_t wanted = next(1);  // before size_ - at_: next() moves at_
    const size_t length = std::min<size_t>(wanted, size_ - at_);
    std::string s(reinterpret_cast<const char*>(data_ + at_), length);
    at_ += length;
    return s;
  }
  std::vector<std::byte> rest() {
    std::vector<std::byte> out(reinterpret_cast<const std::byte*>(data_ + at_),
                               reinterpret_cast<const std::byte*>(data_ + size_));
    at_ = size_;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// Storage for one decoded descriptor: every pointer in `model` points in here.
struct DecodedModel {
  inferno_model model{};
  std::vector<int32_t> archs;
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<inferno_tensor_desc> inputs, outputs;
  std::string weights_file;
  std::vector<std::byte> weights;
  std::vector<inferno_state_desc> states;
  std::vector<inferno_tensor_desc> state_tensors;
  std::vector<inferno_model> variants;
  std::vector<const inferno_model*> variant_pointers;
};

int32_t stub_create(const void*, void**, char*, size_t) { return 0; }
int32_t stub_run(void*, const inferno_model_run_args*, char*, size_t) { return 0; }
void stub_destroy(void*) {}

void decode_tensors(Bytes& in, DecodedModel& out, std::vector<inferno_tensor_desc>& descs,
                    int32_t& count, const inferno_tensor_desc*& pointer) {
  // A real model's arrays hold as many entries as its counts say (nothing can check a pointer
  // against a count), so a count may be negative but never exceeds the entries stored here.
  count = std::min(in.small(-1, 4), 4);
  descs.resize(static_cast<size_t>(std::max(count, 0)));
  for (inferno_tensor_desc& d : descs) {
    const uint64_t flags = in.next(1);
    out.names.push_back(in.text());
    d.name = (flags & 1) ? nullptr : out.names.back().c_str();
    d.dtype = in.small(-1, 7);
    d.rank = in.small(-1, 17);
    out.shapes.emplace_back();
    for (int32_t k = 0; k < std::clamp(d.rank, 0, 17); ++k) {
      out.shapes.back().push_back(static_cast<int64_t>(in.next(flags & 2 ? 8 : 1)));
    }
    d.shape = (flags & 4) ? nullptr : out.shapes.back().data();
  }
  pointer = (count > 0 && in.next(1) == 7) ? nullptr : descs.data();
}

// States (ABI 2): tensors like inputs', each with an initial value at an offset or zeros.
void decode_states(Bytes& in, DecodedModel& out) {
  inferno_model& m = out.model;
  const inferno_tensor_desc* descs = nullptr;
  decode_tensors(in, out, out.state_tensors, m.num_states, descs);
  for (const inferno_tensor_desc& d : out.state_tensors) {
    const uint64_t init = in.next(1);
    out.states.push_back({d, init == 0xFF ? in.next(8)
                             : init < 128 ? INFERNO_STATE_INIT_ZERO
                                          : init});
  }
  m.states = descs == nullptr ? nullptr : out.states.data();
  m.max_positions = static_cast<int64_t>(in.next(in.next(1) == 0xAB ? 8 : 1)) - 1;
}

// Variants (ABI 2): copies of the finished model (itself valid or not), some with a field
// broken. `spec`: 2 bits of count - 1, a bit for a null array, then 4 flag bits per variant.
void build_variants(DecodedModel& out, uint64_t spec) {
  inferno_model& m = out.model;
  m.num_variants = static_cast<int32_t>(spec & 3) - 1;
  for (int32_t i = 0; i < std::max(m.num_variants, 0); ++i) {
    inferno_model v = m;
    v.num_variants = 0;
    const uint64_t flags = spec >> (3 + 4 * i);
    if (flags & 1) v.abi_version += 1;
    if (flags & 2) v.num_variants = 1;
    if (flags & 4) v.num_inputs = std::min(v.num_inputs, 0);  // another input count
    if (flags & 8) v.run = nullptr;
    out.variants.push_back(v);
  }
  for (const inferno_model& v : out.variants) out.variant_pointers.push_back(&v);
  m.variants = (spec & 4) != 0 ? nullptr : out.variant_pointers.data();
}

void decode(Bytes& in, DecodedModel& out) {
  inferno_model& m = out.model;
  m.abi_version =
      in.next(1) == 0xAB ? static_cast<uint32_t>(in.next(4)) : INFERNO_MODEL_ABI_VERSION;
  m.struct_size = in.next(1) == 0xAB ? static_cast<uint32_t>(in.next(4)) : sizeof(inferno_model);
  m.manifest.num_sm_archs = std::min(in.small(-1, 3), 3);
  out.archs.assign(3, 90);
  m.manifest.sm_archs = in.next(1) == 7 ? nullptr : out.archs.data();
  out.names.reserve(16);  // names[] must not move: descriptors point into it (12 at most)
  out.shapes.reserve(16);
  out.variants.reserve(2);  // variant_pointers point into it
  decode_tensors(in, out, out.inputs, m.num_inputs, m.inputs);
  decode_tensors(in, out, out.outputs, m.num_outputs, m.outputs);
  decode_states(in, out);
  const uint64_t variants = in.next(2);
  m.arena_bytes = in.next(in.next(1) == 0xAB ? 8 : 2);
  m.workspace_bytes = in.next(in.next(1) == 0xAB ? 8 : 2);
  const uint64_t placement = in.next(1);
  out.weights_file = (placement & 8) ? in.text() : "model.weights";
  const bool checksum_right = (placement & 16) == 0;
  const uint64_t declared_delta = (placement & 32) ? in.next(2) : 0;
  out.weights = in.rest();
  // Embedded weights are the model's own data, as long as it says; only an external file can
  // disagree with the declared size.
  m.weights = (placement & 1) ? out.weights.data() : nullptr;
  m.weights_bytes = out.weights.size() + (m.weights != nullptr ? 0 : declared_delta);
  m.weights_file = (placement & 2) ? out.weights_file.c_str() : nullptr;
  m.manifest.weights_checksum =
      checksum_right ? inferno_weights_checksum(out.weights.data(), out.weights.size())
                     : in.next(8);
  m.session_create = (placement & 64) ? nullptr : stub_create;
  m.run = stub_run;
  m.session_destroy = stub_destroy;
  build_variants(out, variants);
}

// A directory of this process for the external weights files, removed when it ends normally.
struct ScratchDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("inferno_fuzz_runtime_" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

void check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_runtime_model: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inferno::runtime;
  Bytes in(data, size);
  DecodedModel decoded;
  decode(in, decoded);
  const inferno_model& model = decoded.model;
  const std::string so_path = (scratch_dir() / "model.so").string();
  try {
    validate_descriptor(model, so_path);
  } catch (const Error& e) {
    check(e.status() == INFERNO_STATUS_ABI_MISMATCH, "validate_descriptor threw another status");
    return 0;
  }
  for (const auto* descs : {model.inputs, model.outputs}) {
    const int32_t count = descs == model.inputs ? model.num_inputs : model.num_outputs;
    for (int32_t i = 0; i < count; ++i) {
      int64_t bytes = dtype_size(descs[i].dtype);
      for (int32_t k = 0; k < descs[i].rank; ++k) {
        check(!__builtin_mul_overflow(bytes, descs[i].shape[k], &bytes),
              "an accepted descriptor's size overflows int64_t");
      }
      (void)type_text(descs[i].dtype, descs[i].rank, descs[i].shape);
    }
  }
  for (int32_t i = 0; i < model.num_states; ++i) {
    const inferno_state_desc& st = model.states[i];
    const auto bytes = static_cast<uint64_t>(tensor_bytes(st.tensor));
    check(st.init_offset == INFERNO_STATE_INIT_ZERO ||
              (st.init_offset <= model.weights_bytes &&
               bytes <= model.weights_bytes - st.init_offset),
          "an accepted state's initial value lies outside the weights");
  }
  for (int32_t i = 0; i < model.num_variants; ++i) {
    check(model.variants[i]->num_variants == 0 && model.variants[i]->run != nullptr,
          "an accepted variant is incomplete");
  }
  // The external file holds the decoded bytes whatever the descriptor declares.
  std::filesystem::path file;
  if (model.weights_file != nullptr) {
    file = scratch_dir() / model.weights_file;
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(decoded.weights.data()),
               static_cast<std::streamsize>(decoded.weights.size()));
  }
  try {
    const HostWeights weights = HostWeights::read(model, so_path);
    check(weights.size() == model.weights_bytes, "weights of another size than declared");
    check(
        inferno_weights_checksum(weights.data(), weights.size()) == model.manifest.weights_checksum,
        "weights accepted against a wrong checksum");
  } catch (const Error& e) {
    check(e.status() == INFERNO_STATUS_WEIGHTS_CORRUPT || e.status() == INFERNO_STATUS_IO,
          "HostWeights::read threw another status");
  }
  if (!file.empty()) std::filesystem::remove(file);
  return 0;
}
