// Codegen on hostile strings. The fuzz input supplies value-name hints, source locations (file
// names as exporters record them) and the external weights file name of a small graph (a linear
// layer, an activation, an elementwise chain and a softmax, chosen by the input). The generated
// model.cu must pass source_hygiene_problem, and its code skeleton (comments dropped, literal
// contents blanked) must equal that of the same graph built with harmless strings: model text may
// change comments and the contents of string literals, never the code.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/source_walk.h"
#include "fuzz_target.h"
#include "ir/builder.h"
#include "passes/pipeline.h"
#include "support/source_hygiene.h"

namespace {

using inferno::ir::DType;
using inferno::ir::OpKind;

struct Strings {
  std::vector<std::string> names;  // value-name hints
  std::vector<std::string> files;  // source locations
  std::string weights_file;
  unsigned shape = 0;  // which graph
};

// Splits the input at 0xFF bytes: 6 names, 4 files, the weights file name, then a shape byte.
Strings split(const uint8_t* data, size_t size) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0xFF) {
      parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(data[i]);
    }
  }
  parts.resize(12);
  Strings s;
  s.names.assign(parts.begin(), parts.begin() + 6);
  s.files.assign(parts.begin() + 6, parts.begin() + 10);
  s.weights_file = parts[10];
  s.shape = parts[11].empty() ? 0 : static_cast<unsigned char>(parts[11][0]);
  return s;
}

Strings harmless(const Strings& hostile) {
  Strings s = hostile;
  for (std::string& name : s.names) name = inferno::ir::sanitize_value_name(name);
  for (std::string& file : s.files) file = "model.py";
  return s;  // the same weights file name: codegen refuses some, and it only reaches a literal
}

inferno::ir::ValueId constant(inferno::ir::Graph& graph, const std::string& name,
                              inferno::ir::Shape shape) {
  inferno::ir::TensorType type{DType::kF32, shape};
  inferno::ir::Tensor data = inferno::ir::Tensor::zeros(type);
  for (int64_t i = 0; i < type.numel(); ++i) data.set(i, 0.25 * static_cast<double>(i % 7));
  return graph.add_constant(name, std::move(data));
}

// The graph, or nullopt when `s` gives the builder a reason to refuse it.
std::optional<inferno::ir::Graph> build(const Strings& s) {
  inferno::ir::Graph graph;
  auto loc = [&](int k) { return inferno::SourceLocation{s.files[k], 10 + k}; };
  const auto x = graph.add_input(s.names[0], {DType::kF32, {2, 8}});
  const auto w = constant(graph, s.names[1], {4, 8});
  const auto b = constant(graph, s.names[2], {4});
  auto y = inferno::ir::build_value(graph, OpKind::kLinear, {x, w, b}, {}, s.names[3], loc(0));
  if (!y) return std::nullopt;
  const OpKind activations[] = {OpKind::kRelu, OpKind::kGelu, OpKind::kSigmoid, OpKind::kTanh};
  y = inferno::ir::build_value(graph, activations[s.shape % 4], {*y}, {}, s.names[4], loc(1));
  if (!y) return std::nullopt;
  if (s.shape & 4) {  // an elementwise chain the fuser merges: names reach its comments
    auto sum = inferno::ir::build_value(graph, OpKind::kAdd, {*y, *y}, {}, s.names[5], loc(2));
    if (!sum) return std::nullopt;
    y = inferno::ir::build_value(graph, OpKind::kExp, {*sum}, {}, s.names[5], loc(2));
    if (!y) return std::nullopt;
  }
  if (s.shape & 8) {
    inferno::ir::Attributes attrs;
    attrs.set("dim", int64_t{-1});
    y = inferno::ir::build_value(graph, OpKind::kSoftmax, {*y}, attrs, s.names[3], loc(3));
    if (!y) return std::nullopt;
  }
  graph.set_outputs({*y});
  return graph;
}

std::optional<std::string> generate(const Strings& s) {
  std::optional<inferno::ir::Graph> graph = build(s);
  if (!graph) return std::nullopt;
  if (!inferno::passes::run_default_pipeline(*graph, {}).is_ok()) return std::nullopt;
  inferno::codegen::CodegenOptions options;
  options.external_weights_file = (s.shape & 16) ? s.weights_file : "";
  options.source_model_hash = s.files[0];
  inferno::Expected<inferno::codegen::GeneratedModel> model =
      inferno::codegen::generate(*graph, options);
  if (!model) {
    inferno::fuzz::require_not_internal(model.status(), "codegen");
    return std::nullopt;
  }
  return model->cuda_source;
}

void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_codegen_names: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Strings hostile = split(data, size);
  const std::optional<std::string> source = generate(hostile);
  const std::optional<std::string> reference = generate(harmless(hostile));
  if (source.has_value() != reference.has_value()) {
    fail("hostile and harmless strings differ in whether the model compiles", "");
  }
  if (!source) return 0;
  const std::string problem = inferno::test::source_hygiene_problem(*source);
  if (!problem.empty()) fail("model.cu breaks a hygiene rule", problem);
  if (inferno::codegen::code_skeleton(*source) != inferno::codegen::code_skeleton(*reference)) {
    fail("model strings changed the code of model.cu", *source);
  }
  return 0;
}
