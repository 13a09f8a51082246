// Every fixture model, in every form it was exported in, loads, verifies, survives the default
// pipeline, and the reference interpreter reproduces PyTorch's outputs. The TorchScript and
// plain torch.export forms of one model optimize to the same IR.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "integration_helpers.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/model_loading.h"
#include "support/test_support.h"

namespace inferno {
namespace {

const std::vector<std::string> kModels = {
    "mm_relu",      "mlp2",     "mlp_gelu_silu_softmax", "elementwise_chain", "bmm_matmul",
    "activations2", "math_ops", "compare_logic"};
// Convolutional fixtures: TorchScript's freezing folds BatchNorm into the conv where torch.export
// keeps it, so their two forms agree only once the pipeline folds BatchNorm too.
const std::vector<std::string> kCnnModels = {"cnn_block", "cnn_mixed", "cnn_norms_lists"};
// Transformer fixtures (tools/transformer_fixture_models.py): scaled_dot_product_attention in
// its variants, tiny GPT-2 (int64 token ids) and Llama blocks, encoder layers with a bool padding
// mask. transformer_sdpa has no TorchScript form (LibTorch 1.13 predates the op).
const std::vector<std::string> kTransformerModels = {"transformer_sdpa", "transformer_gpt2",
                                                     "transformer_llama", "transformer_encoder"};
const std::vector<std::string> kForms = {"model.pt2", "model_decomposed.pt2", "model.pt"};

frontend::LoadOptions specs_from(const std::vector<ir::Tensor>& inputs) {
  frontend::LoadOptions options;
  for (const ir::Tensor& t : inputs) options.inputs.push_back({"", t.type});
  return options;
}

ir::Graph load(const std::string& model, const std::string& form,
               const std::vector<ir::Tensor>& inputs) {
  auto graph = test::load_model(test::fixture_path(model + "/" + form), specs_from(inputs));
  INFO(model << "/" << form << ": " << (graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  REQUIRE(ir::verify(*graph).is_ok());
  return std::move(*graph);
}

/// The IR text with locations dropped and value names replaced, so that graphs from different
/// frontends compare by structure, types and constant data: constants are named after their
/// contents (the frontends meet weights in different orders) and their lines sorted; every other
/// value is named by its order of definition.
std::string structural_text(ir::Graph graph) {
  for (ir::ValueId c : graph.constants()) {
    const ir::Value& value = graph.value(c);
    std::string bytes(reinterpret_cast<const char*>(value.constant->data.data()),
                      value.constant->data.size());
    graph.mutable_value(c).name =
        "c" + std::to_string(std::hash<std::string>{}(value.type.to_string() + bytes));
  }
  int32_t next = 0;
  auto rename = [&](ir::ValueId v) { graph.mutable_value(v).name = "v" + std::to_string(next++); };
  for (ir::ValueId v : graph.inputs()) rename(v);
  for (ir::Node& node : graph.mutable_nodes()) {
    for (ir::ValueId v : node.outputs) rename(v);
    node.loc = {};
  }
  std::vector<std::string> constant_lines;
  std::string text;
  std::istringstream lines(ir::print_graph(graph));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" = constant ") != std::string::npos) {
      constant_lines.push_back(line);
    } else {
      text += line + "\n";
    }
  }
  std::sort(constant_lines.begin(), constant_lines.end());
  for (const std::string& line : constant_lines) text += line + "\n";
  return text;
}

/// Every exported form of `model` (a form not exported is skipped), as loaded and after the
/// default pipeline, runs on the reference and reproduces PyTorch's outputs; the optimized graph
/// also generates CUDA (every op left has a lowering; nvcc itself runs in the zoo and GPU tests).
void check_forms_on_reference(const std::string& model) {
  const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(model, "input");
  const std::vector<ir::Tensor> expected = test::read_fixture_tensors(model, "output");
  REQUIRE(!inputs.empty());
  REQUIRE(!expected.empty());
  for (const std::string& form : kForms) {
    const std::string path = test::fixture_path(model + "/" + form);
    if (!std::filesystem::exists(path) || !test::can_load(path)) continue;
    for (bool optimized : {false, true}) {
      INFO(model << "/" << form << (optimized ? " after the default pipeline" : " as loaded"));
      ir::Graph graph = load(model, form, inputs);
      if (optimized) {
        REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
        const auto generated = codegen::generate(graph, {});
        INFO((generated ? "" : generated.status().to_string()));
        CHECK(generated.has_value());
      }
      auto outputs = reference::evaluate(graph, inputs);
      INFO((outputs ? "" : outputs.status().to_string()));
      REQUIRE(outputs.has_value());
      REQUIRE(outputs->size() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        // fp32 tolerances of torch.testing; the reference accumulates in fp64, PyTorch's CPU
        // kernels in fp32, and these fixtures' reductions are short (<= 32 terms, but for the
        // cnn fixtures' convolutions: up to 392 terms of small weights, measured max error
        // 4.8e-7, and the transformers' attention and projections: a few hundred terms, width
        // 32, sequences <= 37; inside the 1e-5 absolute bound).
        const std::string mismatch = test::compare_close((*outputs)[i], expected[i], 1.3e-6, 1e-5);
        INFO("output " << i << ": " << mismatch);
        CHECK(mismatch.empty());
      }
    }
  }
}

TEST_CASE("every fixture form matches PyTorch on the reference interpreter") {
  std::vector<std::string> models = kModels;
  models.insert(models.end(), kCnnModels.begin(), kCnnModels.end());
  for (const std::string& model : models) check_forms_on_reference(model);
}

TEST_CASE("every transformer fixture form matches PyTorch on the reference interpreter") {
  for (const std::string& model : kTransformerModels) check_forms_on_reference(model);
}

// TorchScript's freezing already folds constant subexpressions (`self.scale + 1.0`) that
// torch.export keeps as nodes, so the forms are compared after the default pipeline, which folds
// constants too.
TEST_CASE("TorchScript and torch.export forms of a model give the same optimized IR",
          "[torchscript]") {
  for (const std::string& model : kModels) {
    INFO(model);
    const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(model, "input");
    ir::Graph torchscript = load(model, "model.pt", inputs);
    ir::Graph exported = load(model, "model.pt2", inputs);
    REQUIRE(passes::run_default_pipeline(torchscript, {}).is_ok());
    REQUIRE(passes::run_default_pipeline(exported, {}).is_ok());
    CHECK(structural_text(std::move(torchscript)) == structural_text(std::move(exported)));
  }
}

}  // namespace
}  // namespace inferno
