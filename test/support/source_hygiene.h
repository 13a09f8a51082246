// Checks on generated CUDA C++ that model-provided text cannot have changed its meaning: the
// oracle of the codegen fuzz target and of the hostile-names CLI test.
#pragma once

#include <string>
#include <string_view>

namespace inferno::test {

/// The first rule `source` breaks, or "" if none: every byte is printable ASCII or '\n'; no `//`
/// comment ends in a backslash or a trigraph (which would splice the next line into it); no
/// string or character literal runs to the end of its line.
std::string source_hygiene_problem(std::string_view source);

}  // namespace inferno::test
