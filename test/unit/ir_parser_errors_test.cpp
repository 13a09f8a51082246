// Parse errors: each malformed text gives an invalid-input Status that starts with the right
// "LINE:COL: " and says what was expected or what is wrong. Plus robustness: thousands of random
// truncations, byte flips, deletions and insertions of a valid text never crash or hang the
// parser, and whatever it accepts round-trips.
#include <cstdint>
#include <string>

#include "ir/parser.h"
#include "ir/printer.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::ir {
namespace {

struct ErrorCase {
  const char* what;
  std::string text;
  const char* position;  ///< expected "LINE:COL"
  const char* message;   ///< expected substring of the message
};

/// A graph header and body around `body`; the body starts on line 2.
std::string in_graph(const std::string& body) {
  return "graph(%x: f32[4,16], %i: i32[4]) {\n" + body + "\n}\n";
}

/// "1,1,...,1" with `n` ones.
std::string ones(int n) {
  std::string out = "1";
  for (int i = 1; i < n; ++i) out += ",1";
  return out;
}

const ErrorCase kErrorCases[] = {
    {"empty input", "", "1:1", "expected 'graph', found end of input"},
    {"not a graph", "grph() {}", "1:1", "expected 'graph', found 'grph'"},
    {"missing return", "graph() {\n}", "2:1", "expected a value definition or 'return', found '}'"},
    {"trailing tokens", "graph() { return } extra", "1:20", "expected end of input, found 'extra'"},
    {"unknown op", in_graph("  %y: f32[4,16] = frobnicate(%x)\n  return %y"), "2:19",
     "unknown op 'frobnicate'"},
    {"unknown value", in_graph("  %y: f32[4,16] = relu(%nope)\n  return %y"), "2:24",
     "unknown value %nope"},
    {"use before definition",
     in_graph("  %y: f32[4,16] = relu(%z)\n  %z: f32[4,16] = relu(%x)\n  return %y"), "2:24",
     "unknown value %z"},
    {"self use", in_graph("  %y: f32[4,16] = relu(%y)\n  return %y"), "2:24", "unknown value %y"},
    {"unknown return value", in_graph("  return %x, %q"), "2:14", "unknown value %q"},
    {"declared type differs from shape rule", in_graph("  %y: f32[4,8] = relu(%x)\n  return %y"),
     "2:3", "%y is declared f32[4,8] but relu produces f32[4,16]"},
    {"declared dtype differs", in_graph("  %y: i32[4] = div(%i, %i)\n  return"), "2:3",
     "%y is declared i32[4] but div produces f32[4]"},
    {"shape rule rejects", in_graph("  %y: f32[4,16] = softmax(%i) {dim=0}\n  return %y"), "2:19",
     "softmax: expects a floating-point input, got i32[4]"},
    {"missing attribute", in_graph("  %y: f32[16,4] = transpose(%x) {dim0=0}\n  return %y"), "2:19",
     "needs attribute 'dim1' of type int"},
    {"attribute of wrong type", in_graph("  %y: f32[4,16] = softmax(%x) {dim=\"1\"}\n  return %y"),
     "2:19", "softmax: attribute 'dim' must be of type int"},
    {"unknown attribute",
     in_graph("  %y: f32[4,16] = gelu(%x) {approximate=\"tanh\"}\n  return %y"), "2:19",
     "gelu: unknown attribute 'approximate'"},
    {"wrong arity", in_graph("  %y: f32[4,16] = relu(%x, %x)\n  return %y"), "2:19",
     "relu: takes 1 inputs, got 2"},
    {"multi-output on a single-output op",
     in_graph("  %a: f32[4,16], %b: f32[4,16] = relu(%x)\n  return %a"), "2:34",
     "relu produces 1 output(s), but 2 are declared"},
    {"duplicate input", "graph(%x: f32[1], %x: f32[1]) { return }", "1:19",
     "duplicate definition of %x (first defined at 1:7)"},
    {"duplicate node output", in_graph("  %x: f32[4,16] = relu(%x)\n  return"), "2:3",
     "duplicate definition of %x"},
    {"duplicate within one statement", in_graph("  %a: f32[1], %a: f32[1] = relu(%x)\n  return"),
     "2:15", "duplicate definition of %a (first defined at 2:3)"},
    {"duplicate later in one statement",
     in_graph("  %a: f32[1], %b: f32[1], %b: f32[1] = relu(%x)\n  return"), "2:27",
     "duplicate definition of %b (first defined at 2:15)"},
    {"duplicate constant",
     in_graph("  %k: f32[] = constant [1]\n  %k: f32[] = constant [2]\n  return"), "3:3",
     "duplicate definition of %k"},
    {"too few elements", in_graph("  %k: f32[2,2] = constant [1, 2, 3]\n  return"), "2:35",
     "constant %k of type f32[2,2] needs 4 elements, found 3"},
    {"too many elements", in_graph("  %k: f32[2] = constant [1, 2, 3]\n  return"), "2:32",
     "constant %k of type f32[2] has 2 elements, found more"},
    {"scalar needs one element", in_graph("  %k: f32[] = constant []\n  return"), "2:25",
     "needs 1 elements, found 0"},
    {"constant defines one value", in_graph("  %a: f32[], %b: f32[] = constant [1]\n  return"),
     "2:14", "a constant defines exactly one value"},
    {"float element in an int constant", in_graph("  %k: i64[1] = constant [1.5]\n  return"),
     "2:26", "expected an integer, found '1.5'"},
    {"i32 element out of range", in_graph("  %k: i32[1] = constant [2147483648]\n  return"), "2:26",
     "2147483648 does not fit in i32"},
    {"i64 element out of range",
     in_graph("  %k: i64[1] = constant [9223372036854775808]\n  return"), "2:26",
     "integer 9223372036854775808 is out of range for int64"},
    {"bool element", in_graph("  %k: bool[1] = constant [1]\n  return"), "2:27",
     "expected true or false, found '1'"},
    {"malformed float", in_graph("  %k: f32[1] = constant [1.2.3]\n  return"), "2:26",
     "invalid f32 number '1.2.3'"},
    {"float out of range", in_graph("  %k: f32[1] = constant [1e39]\n  return"), "2:26",
     "invalid f32 number '1e39'"},
    {"nan payload that is no nan", in_graph("  %k: f16[1] = constant [nan(0x3c00)]\n  return"),
     "2:30", "0x3c00 is not a nan of f16"},
    {"nan payload too wide", in_graph("  %k: f16[1] = constant [nan(0x17e00)]\n  return"), "2:30",
     "is not a nan of f16"},
    {"nan payload not hex", in_graph("  %k: f16[1] = constant [nan(12)]\n  return"), "2:30",
     "expected the bits of a nan"},
    {"unknown dtype", "graph(%x: f8[1]) { return }", "1:11", "unknown dtype 'f8'"},
    {"negative dim", "graph(%x: f32[2,-1]) { return }", "1:17", "negative dimension -1"},
    {"dim overflows int64", "graph(%x: f32[99999999999999999999]) { return }", "1:15",
     "integer 99999999999999999999 is out of range"},
    {"too many elements in a shape", "graph(%x: f32[1048576,1048577]) { return }", "1:23",
     "more than 2^40 elements"},
    {"numel overflow", "graph(%x: f32[4294967296,4294967296,0]) { return }", "1:26",
     "more than 2^40 elements"},
    {"too many dims", "graph(%x: f32[" + ones(65) + "]) { return }", "1:143",
     "more than 64 dimensions"},
    {"missing type", "graph(%x) { return }", "1:9", "expected ':', found ')'"},
    {"bare percent", "graph(% x: f32[1]) { return }", "1:7", "expected a value name after '%'"},
    {"stray character", in_graph("  %y: f32[4,16] = relu(%x) $\n  return %y"), "2:28",
     "unexpected character \"$\""},
    {"unterminated string",
     in_graph("  %y: f32[4,16] = gelu(%x) {approximate=\"tanh}\n  return %y"), "2:41",
     "unterminated string"},
    {"bad escape", in_graph("  %y: f32[4,16] = gelu(%x) {approximate=\"\\q\"}\n  return %y"),
     "2:42", "unknown escape sequence in string"},
    {"control byte in string",
     in_graph("  %y: f32[4,16] = gelu(%x) {approximate=\"\x01\"}\n  return %y"), "2:42",
     "control character in string"},
    {"duplicate attribute", in_graph("  %y: f32[4,16] = softmax(%x) {dim=1, dim=1}\n  return %y"),
     "2:39", "duplicate attribute 'dim'"},
    {"bad attribute value", in_graph("  %y: f32[4,16] = softmax(%x) {dim=one}\n  return %y"),
     "2:36", "expected an attribute value, found 'one'"},
    {"float in an int list", in_graph("  %y: f32[16,4] = permute(%x) {dims=[1.0, 0]}\n  return %y"),
     "2:38", "expected an integer, found '1.0'"},
    {"empty loc file", in_graph("  %y: f32[4,16] = relu(%x) loc(\"\":3)\n  return %y"), "2:32",
     "empty file name in loc"},
    {"zero loc line", in_graph("  %y: f32[4,16] = relu(%x) loc(\"m.py\":0)\n  return %y"), "2:39",
     "line number must be positive, found 0"},
    {"bad fused body",
     in_graph("  %y: f32[4,16] = fused_elementwise(%x) {expr=\"relu($1)\"}\n  return %y"), "2:19",
     "fused_elementwise: step 0 'relu($1)': $1 is out of range: the node has 1 input(s)"},
    {"fused body of the wrong type",
     in_graph("  %y: f32[4,16] = fused_elementwise(%x) {expr=\"cast[f16]($0)\"}\n  return %y"),
     "2:3", "%y is declared f32[4,16] but fused_elementwise produces f16[4,16]"},
    {"gemm shapes",
     in_graph("  %y: f32[4,4] = gemm(%x, %x) {activation=\"none\", alpha=1.0, beta=0.0, "
              "trans_b=false}\n  return %y"),
     "2:18", "gemm: inner dimensions differ (f32[4,16] @ f32[4,16])"},
    {"lone slash", in_graph("  / comment\n  return"), "2:3", "unexpected character \"/\""},
    {"lone minus", in_graph("  %k: f32[1] = constant [- 1]\n  return"), "2:26",
     "expected a number after '-'"},
};

TEST_CASE("parse errors say where and what") {
  for (const ErrorCase& c : kErrorCases) {
    INFO(c.what << "\n" << c.text);
    Expected<Graph> g = parse_graph(c.text);
    REQUIRE_FALSE(g.has_value());
    const std::string& message = g.status().message();
    INFO("message: " << message);
    CHECK(g.status().code() == ErrorCode::kInvalidInput);
    CHECK(message.rfind(std::string(c.position), 0) == 0);
    CHECK(message.find(c.message) != std::string::npos);
  }
}

/// True if `message` starts with "LINE:COL: " and says something after it.
bool starts_with_position(const std::string& message) {
  size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    const size_t digits = i;
    while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
    if (i == digits || i >= message.size() || message[i] != ':') return false;
    ++i;
  }
  return i + 1 < message.size() && message[i] == ' ';
}

/// splitmix64: a small deterministic generator, so failures reproduce.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

/// One random corruption of `text`: a truncation, byte flips, a deletion or an insertion.
std::string mutate(const std::string& text, Rng& rng) {
  static const std::string kInteresting = "%[](){},:=<>\"\\-.e0123456789 \n/x";
  std::string out = text;
  switch (rng.below(5)) {
    case 0:
      out.resize(rng.below(out.size() + 1));
      break;
    case 1:
      for (size_t n = 1 + rng.below(3); n > 0; --n)
        out[rng.below(out.size())] = static_cast<char>(rng.below(256));
      break;
    case 2:
      out[rng.below(out.size())] = kInteresting[rng.below(kInteresting.size())];
      break;
    case 3:
      out.erase(rng.below(out.size()), 1 + rng.below(8));
      break;
    default:
      out.insert(rng.below(out.size() + 1), 1, kInteresting[rng.below(kInteresting.size())]);
      break;
  }
  return out;
}

TEST_CASE("random corruptions of a valid text never crash the parser") {
  const std::string valid = test::read_text_file(test::golden_path("ir/kitchen_sink.ir"));
  REQUIRE(parse_graph(valid).has_value());
  Rng rng{20240611};
  int rejected = 0, accepted = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::string text = mutate(valid, rng);
    Expected<Graph> g = parse_graph(text);
    if (!g.has_value()) {
      ++rejected;
      INFO("iteration " << iteration << ": " << g.status().message());
      CHECK(starts_with_position(g.status().message()));
      continue;
    }
    ++accepted;
    const std::string printed = print_graph(*g);
    Expected<Graph> again = parse_graph(printed);
    INFO("iteration " << iteration << "\n" << text);
    REQUIRE(again.has_value());
    CHECK(print_graph(*again) == printed);
  }
  INFO(rejected << " rejected, " << accepted << " accepted");
  CHECK(rejected > 800);
  CHECK(accepted > 10);  // e.g. flips inside constant digits or comments still parse
}

}  // namespace
}  // namespace inferno::ir
