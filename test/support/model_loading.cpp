#include "support/model_loading.h"

#if INFERNO_HAVE_TORCHSCRIPT
#include "frontend/torchscript_frontend.h"
#endif

namespace inferno::test {

bool have_torchscript() { return INFERNO_HAVE_TORCHSCRIPT != 0; }

bool can_load(const std::string& path) { return have_torchscript() || !path.ends_with(".pt"); }

Expected<ir::Graph> load_model(const std::string& path, const frontend::LoadOptions& options) {
#if INFERNO_HAVE_TORCHSCRIPT
  return frontend::load_model(path, options, &frontend::load_torchscript_in_process);
#else
  return frontend::load_model(path, options);
#endif
}

}  // namespace inferno::test
