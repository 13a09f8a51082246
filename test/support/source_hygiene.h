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

/// `source` with its comments removed and the contents of its string and character literals
/// blanked: what the compiler parses, less the text that may carry model strings. Two sources
/// generated from graphs that differ only in names and source locations must give the same.
std::string code_skeleton(std::string_view source);

}  // namespace inferno::test
