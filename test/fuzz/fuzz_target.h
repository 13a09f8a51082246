// What every fuzz target under test/fuzz shares: libFuzzer's entry point, and the one rule they
// all check besides the sanitizers: hostile input may be refused (exit 2, 3, 5), never reach an
// internal error (exit 1).
#pragma once

#include <cstddef>
#include <cstdint>

#include "support/status.h"

/// libFuzzer's entry point; each fuzz_<target>.cpp defines it. The replay driver (replay_main.cpp)
/// calls it for every file of a corpus, so CI replays the seeds and regressions without libFuzzer.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace inferno::fuzz {

/// Aborts (a crash libFuzzer records with its input) when `status` is an internal error: a
/// malformed input must be reported as the input's problem, never as a compiler bug.
void require_not_internal(const Status& status, const char* stage);

}  // namespace inferno::fuzz
