#include "support/test_support.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/parser.h"
#include "support/catch.h"

namespace inferno::test {

std::string fixture_path(const std::string& relative) {
  return std::string(INFERNO_FIXTURES_DIR) + "/" + relative;
}
std::string golden_path(const std::string& relative) {
  return std::string(INFERNO_GOLDEN_DIR) + "/" + relative;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ir::Tensor random_tensor(const ir::TensorType& type, uint64_t seed) {
  ir::Tensor t = ir::Tensor::zeros(type);
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double unit = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
    t.set(i, ir::is_floating(type.dtype) ? unit * 4.0 - 2.0 : std::floor(unit * 8.0) - 4.0);
  }
  return t;
}

std::string compare_close(const ir::Tensor& actual, const ir::Tensor& expected, double rtol,
                          double atol) {
  if (actual.type != expected.type) {
    return "type " + actual.type.to_string() + " != expected " + expected.type.to_string();
  }
  int64_t mismatches = 0, worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.get(i), e = expected.get(i);
    const double allowed = atol + rtol * std::fabs(e);
    const double diff = std::fabs(a - e);
    if (a != e && !(diff <= allowed) &&
        !(std::isnan(a) && std::isnan(e))) {  // a == e: equal infinities
      ++mismatches;
      if (worst < 0 || diff - allowed > worst_excess) {
        worst = i;
        worst_excess = diff - allowed;
      }
    }
  }
  if (mismatches == 0) return {};
  std::ostringstream out;
  out << mismatches << " of " << actual.numel() << " elements differ; worst at flat index " << worst
      << ": got " << actual.get(worst) << ", expected " << expected.get(worst);
  return out.str();
}

ir::Graph parse(const std::string& text) {
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(*graph);
}

std::string gpt2_attention_layer(const std::string& before, const std::string& after,
                                 const std::string& outputs) {
  return R"(graph(%x: f32[1,8,48]) {
  %qkv: f32[1,8,48] = relu(%x)
  %qs: f32[1,8,16] = slice(%qkv) {starts=[0, 0, 0], ends=[1, 8, 16], steps=[1, 1, 1]}
  %ks: f32[1,8,16] = slice(%qkv) {starts=[0, 0, 16], ends=[1, 8, 32], steps=[1, 1, 1]}
  %vs: f32[1,8,16] = slice(%qkv) {starts=[0, 0, 32], ends=[1, 8, 48], steps=[1, 1, 1]}
  %qr: f32[1,8,2,8] = reshape(%qs) {shape=[1, 8, 2, 8]}
  %kr: f32[1,8,2,8] = reshape(%ks) {shape=[1, 8, 2, 8]}
  %vr: f32[1,8,2,8] = reshape(%vs) {shape=[1, 8, 2, 8]}
  %q: f32[1,2,8,8] = permute(%qr) {dims=[0, 2, 1, 3]}
  %k: f32[1,2,8,8] = permute(%kr) {dims=[0, 2, 1, 3]}
  %v: f32[1,2,8,8] = permute(%vr) {dims=[0, 2, 1, 3]}
)" + before +
         R"(  %a: f32[1,2,8,8] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.25}
  %ap: f32[1,8,2,8] = permute(%a) {dims=[0, 2, 1, 3]}
  %y: f32[8,16] = reshape(%ap) {shape=[8, 16]}
  %z: f32[8,16] = neg(%y)
)" + after +
         "  return %z" + outputs + "\n}";
}

}  // namespace inferno::test
