#include "runtime/profile_table.h"

#include <cmath>
#include <cstring>

#include "runtime/error.h"

namespace inferno::runtime {
namespace {

void check(bool ok, const std::string& path, const std::string& what) {
  if (!ok) fail(INFERNO_STATUS_ABI_MISMATCH, "'" + path + "': malformed profile table: " + what);
}

bool bounded_string(const char* text) {
  return text != nullptr && strnlen(text, kMaxProfileString) < kMaxProfileString;
}

void check_table(const inferno_model_profile& table, const inferno_model* model,
                 const std::string& path, const std::string& where) {
  check(table.version == INFERNO_MODEL_PROFILE_VERSION, path,
        where + "version " + std::to_string(table.version) + ", expected " +
            std::to_string(INFERNO_MODEL_PROFILE_VERSION));
  check(table.struct_size >= sizeof(inferno_model_profile), path, where + "struct too small");
  check(table.model == model, path, where + "describes another entry point");
  check(table.run_profiled != nullptr, path, where + "no run_profiled");
  check(table.num_steps >= 0 && table.num_steps <= kMaxProfileSteps, path,
        where + "bad step count " + std::to_string(table.num_steps));
  check(table.num_steps == 0 || table.steps != nullptr, path, where + "null steps");
  for (int32_t i = 0; i < table.num_steps; ++i) {
    const inferno_kernel_cost& s = table.steps[i];
    const std::string step = where + "step " + std::to_string(i) + ": ";
    check(bounded_string(s.node_name) && bounded_string(s.op) && bounded_string(s.location) &&
              bounded_string(s.kernel),
          path, step + "a null or unterminated string");
    check(s.launches >= 1 && s.node >= -1, path, step + "bad launch count or node");
    check(s.dtype >= INFERNO_DTYPE_F32 && s.dtype <= INFERNO_DTYPE_BOOL, path, step + "bad dtype");
    check(std::isfinite(s.flops) && s.flops >= 0, path, step + "bad FLOP count");
  }
}

}  // namespace

std::vector<const inferno_model_profile*> read_profile_tables(const inferno_model_profile* profile,
                                                              const EntryPoints& entries,
                                                              const std::string& path) {
  if (profile == nullptr) return {};
  check_table(*profile, entries.front(), path, "");
  const auto variants = static_cast<int32_t>(entries.size() - 1);
  check(profile->num_variants == variants && (variants == 0 || profile->variants != nullptr), path,
        "its variants differ from the model's");
  std::vector<const inferno_model_profile*> tables = {profile};
  for (int32_t k = 0; k < variants; ++k) {
    const inferno_model_profile* variant = profile->variants[k];
    const std::string where = "variant " + std::to_string(k + 1) + ": ";
    check(variant != nullptr, path, where + "null");
    check_table(*variant, entries[static_cast<size_t>(k) + 1], path, where);
    check(variant->num_variants == 0, path, where + "has variants itself");
    tables.push_back(variant);
  }
  return tables;
}

}  // namespace inferno::runtime
