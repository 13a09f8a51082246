// A model's profile tables (inferno/model_profile.h): read from the optional symbol the library
// exports, checked like the descriptor (a table is model data: every count bounded, every pointer
// and string checked before a caller reads it), one per entry point.
#pragma once

#include <string>
#include <vector>

#include "inferno/model_profile.h"
#include "runtime/entry_points.h"

namespace inferno::runtime {

/// Steps per entry point the runtime accepts; a larger count is a malformed table.
inline constexpr int32_t kMaxProfileSteps = 1 << 20;
/// The longest string a step may hold (names, locations, kernel choices).
inline constexpr size_t kMaxProfileString = 4096;

/// The tables of `profile` (the library's, or null when it exports none) for {model,
/// variants...}, in the order of `entries`; empty when `profile` is null. A table that does not
/// match the entry points, or holds a bad count, pointer, string or number, fails with
/// INFERNO_STATUS_ABI_MISMATCH naming `path`.
std::vector<const inferno_model_profile*> read_profile_tables(const inferno_model_profile* profile,
                                                              const EntryPoints& entries,
                                                              const std::string& path);

}  // namespace inferno::runtime
