#include "fake_models.h"

namespace inferno::test {
namespace {

int32_t fake_create(const void*, void**, char*, size_t) { return 0; }
int32_t fake_run(void*, const inferno_model_run_args*, char*, size_t) { return 0; }
void fake_destroy(void*) {}

}  // namespace

FakeLlm::FakeLlm(const std::vector<int64_t>& lengths, int64_t vocab, int64_t max_positions)
    : cache_shape_{max_positions, 4} {
  states = {{{"cache", INFERNO_DTYPE_F32, 2, cache_shape_}, INFERNO_STATE_INIT_ZERO},
            {{"counter", INFERNO_DTYPE_I64, 1, counter_shape_}, 8}};
  for (const int64_t s : lengths) {
    Shapes& sh = shapes_.emplace_back();
    sh.ids[0] = 1;
    sh.ids[1] = s;
    sh.positions[0] = s;
    sh.logits[0] = 1;
    sh.logits[1] = s;
    sh.logits[2] = vocab;
    sh.inputs[0] = {"input_ids", INFERNO_DTYPE_I64, 2, sh.ids};
    sh.inputs[1] = {"cache_position", INFERNO_DTYPE_I64, 1, sh.positions};
    sh.outputs[0] = {"logits", INFERNO_DTYPE_F32, 3, sh.logits};
    inferno_model& m = entries_.emplace_back();
    m = inferno_model{};
    m.abi_version = INFERNO_MODEL_ABI_VERSION;
    m.struct_size = sizeof(inferno_model);
    m.num_inputs = 2;
    m.inputs = sh.inputs;
    m.num_outputs = 1;
    m.outputs = sh.outputs;
    m.arena_bytes = 256 * static_cast<uint64_t>(s);
    m.session_create = fake_create;
    m.run = fake_run;
    m.session_destroy = fake_destroy;
  }
  for (size_t i = 1; i < entries_.size(); ++i) variant_pointers_.push_back(&entries_[i]);
  inferno_model& m = entries_.front();
  m.weights_bytes = weights.size();
  m.weights = weights.data();
  m.manifest.weights_checksum = inferno_weights_checksum(weights.data(), weights.size());
  m.num_states = static_cast<int32_t>(states.size());
  m.states = states.data();
  m.max_positions = max_positions;
  m.num_variants = static_cast<int32_t>(variant_pointers_.size());
  m.variants = variant_pointers_.data();
}

std::vector<const inferno_model*> FakeLlm::entries() const {
  std::vector<const inferno_model*> out;
  for (const inferno_model& m : entries_) out.push_back(&m);
  return out;
}

}  // namespace inferno::test
