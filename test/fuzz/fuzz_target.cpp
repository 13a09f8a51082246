#include "fuzz_target.h"

#include <cstdio>
#include <cstdlib>

namespace inferno::fuzz {

void require_not_internal(const Status& status, const char* stage) {
  if (status.code() != ErrorCode::kInternal) return;
  std::fprintf(stderr, "fuzz: %s ended in an internal error: %s\n", stage,
               status.to_string().c_str());
  std::abort();
}

}  // namespace inferno::fuzz
