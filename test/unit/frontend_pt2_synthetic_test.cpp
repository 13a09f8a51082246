// The .pt2 frontend on archives derived from the fixtures: a fixture's records are read, its
// model.json or configs edited, and the result written back as a stored zip (a minimal writer
// below). Covers dynamic dims, sym_size, strided weights, source locations, header checks, list
// outputs (as_tensors), and robustness: truncation at many lengths and type-mutated JSON must give
// a Status, never a crash.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "frontend/frontend.h"
#include "frontend/pt2_archive.h"
#include "frontend/pt2_model.h"
#include "ir/verifier.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/stored_zip.h"
#include "support/test_support.h"

namespace inferno::frontend {
namespace {

using Records = std::vector<std::pair<std::string, std::string>>;  // name (no top folder), bytes

// A zip with every entry stored under the top folder "m/".
std::string zip_bytes(const Records& records) {
  test::ZipRecords full;
  for (const auto& [name, data] : records) full.emplace_back("m/" + name, data);
  return test::stored_zip(full);
}

/// A directory of this process's own (ctest runs test cases as parallel processes, which must not
/// share file names), removed at exit with POSIX calls: std::filesystem::remove_all is broken in
/// binaries that link the torch wheel (docs/gpu-build.md).
class ScratchDir {
 public:
  ScratchDir()
      : dir_((std::filesystem::temp_directory_path() /
              ("inferno_pt2_tests_" + std::to_string(::getpid())))
                 .string()) {
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    for (const std::string& file : files_) ::unlink(file.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) {
    files_.insert(dir_ + "/" + name);
    return dir_ + "/" + name;
  }

 private:
  std::string dir_;
  std::set<std::string> files_;
};

std::string temp_path(const std::string& name) {
  static ScratchDir scratch;
  return scratch.path(name);
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A fixture's records, editable.
struct Archive {
  Records records;

  static Archive from(const std::string& fixture) {
    Expected<Pt2Archive> a = Pt2Archive::open(test::fixture_path(fixture));
    REQUIRE(a.has_value());
    Archive out;
    for (const std::string& name : a->records()) {
      Expected<std::vector<std::byte>> bytes = a->read(name, 1 << 24);
      REQUIRE(bytes.has_value());
      out.records.emplace_back(
          name, std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    }
    return out;
  }
  std::string& record(const std::string& name) {
    for (auto& [n, data] : records) {
      if (n == name) return data;
    }
    FAIL("no record " << name);
    return records.front().second;
  }
  nlohmann::json json(const std::string& name) { return nlohmann::json::parse(record(name)); }
  void set_json(const std::string& name, const nlohmann::json& j) { record(name) = j.dump(); }
  Expected<ir::Graph> load(const LoadOptions& options = {}) const {
    return load_model(write_file("model.pt2", zip_bytes(records)), options);
  }
};

nlohmann::json sym(const std::string& expr, std::optional<int64_t> hint) {
  nlohmann::json e = {{"expr_str", expr}};
  if (hint) e["hint"] = {{"as_int", *hint}};
  return {{"as_expr", e}};
}

nlohmann::json& find_node(nlohmann::json& model, const std::string& output) {
  for (nlohmann::json& n : model["graph_module"]["graph"]["nodes"]) {
    if (n["outputs"][0]["as_tensor"]["name"] == output) return n;
  }
  FAIL("no node " << output);
  return model;
}

const ir::Node* node_named(const ir::Graph& g, const std::string& name) {
  for (const ir::Node& n : g.nodes()) {
    if (g.node_name(n) == name) return &n;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("pt2 synthetic: the zip writer round-trips a fixture", "[frontend][pt2]") {
  Expected<ir::Graph> g = Archive::from("mlp2/model.pt2").load();
  INFO((g ? std::string() : g.status().to_string()));
  CHECK(g.has_value());
}

namespace {

// mlp2's model with its batch the dynamic dim s0 (hint 4, range `min`..64), and a node that
// takes linear_1's first dim as the SymInt `size` appended.
nlohmann::json with_dynamic_batch(Archive& a, const std::string& size, int64_t min) {
  nlohmann::json m = a.json("models/model.json");
  auto& values = m["graph_module"]["graph"]["tensor_values"];
  for (const char* v : {"x", "linear", "relu", "linear_1"}) values[v]["sizes"][0] = sym("s0", 4);
  m["graph_module"]["graph"]["nodes"].push_back(
      {{"target", "torch.ops.aten.sym_size.int"},
       {"inputs",
        {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "linear_1"}}}}}, {"kind", 1}},
         {{"name", "dim"}, {"arg", {{"as_int", 0}}}, {"kind", 1}}}},
       {"outputs", {{{"as_sym_int", {{"as_name", size}}}}}},
       {"metadata", nlohmann::json::object()}});
  m["graph_module"]["graph"]["sym_int_values"][size] = sym("s0", 4);
  m["range_constraints"] = {{"s0", {{"min_val", min}, {"max_val", 64}}}};
  return m;
}

}  // namespace

TEST_CASE("pt2 synthetic: dynamic batch dim and sym_size", "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = with_dynamic_batch(a, "sym_size_int_1", 2);
  auto& values = m["graph_module"]["graph"]["tensor_values"];
  // view(linear_1, [sym_size(linear_1, 0), 8]) as the output.
  auto& nodes = m["graph_module"]["graph"]["nodes"];
  nodes.push_back(
      {{"target", "torch.ops.aten.view.default"},
       {"inputs",
        {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "linear_1"}}}}}, {"kind", 1}},
         {{"name", "size"},
          {"arg", {{"as_sym_ints", {{{"as_name", "sym_size_int_1"}}, {{"as_int", 8}}}}}},
          {"kind", 1}}}},
       {"outputs", {{{"as_tensor", {{"name", "view"}}}}}},
       {"metadata", nlohmann::json::object()}});
  values["view"] = values["linear_1"];
  m["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] =
      "view";
  a.set_json("models/model.json", m);

  Expected<ir::Graph> g = a.load();  // the hint
  INFO((g ? std::string() : g.status().to_string()));
  REQUIRE(g.has_value());
  CHECK(g->type(g->inputs()[0]).to_string() == "f32[4,16]");
  CHECK(g->type(g->outputs()[0]).to_string() == "f32[4,8]");

  g = a.load({{{"x", {ir::DType::kF32, {7, 16}}}}});  // --input x:7x16:f32
  REQUIRE(g.has_value());
  CHECK(g->type(g->inputs()[0]).to_string() == "f32[7,16]");
  CHECK(g->type(g->outputs()[0]).to_string() == "f32[7,8]");
  CHECK(ir::verify(*g).is_ok());

  Status s = a.load({{{"x", {ir::DType::kF32, {100, 16}}}}}).status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("s0 = 100") != std::string::npos);
  s = a.load({{{"x", {ir::DType::kF32, {7, 15}}}}}).status();
  CHECK(s.message() == "--input 0 (x) is f32[7,15] but the model expects f32[s0,16]");

  m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = sym("s0", std::nullopt);
  a.set_json("models/model.json", m);
  s = a.load().status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message() == "input x has a dynamic dim s0; pass --input");
  CHECK(a.load({{{"", {ir::DType::kF32, {3, 16}}}}}).has_value());
}

// arange(n) of a dim's size alone (start 0, step 1, an integer dtype) is the rows' own index: the
// loader records the constant it becomes (DynamicDim::row_indices) and leaves the dim unread; any
// other arange of the size reads it as a number.
TEST_CASE("pt2 synthetic: arange of a dim's size is a row index, other aranges read the size",
          "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = with_dynamic_batch(a, "n", 1);
  auto& values = m["graph_module"]["graph"]["tensor_values"];
  auto& nodes = m["graph_module"]["graph"]["nodes"];
  values["r"] = values["linear_1"];
  using Args = std::vector<std::pair<std::string, nlohmann::json>>;
  const auto arange = [](const std::string& overload, const Args& args) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& [name, arg] : args)
      inputs.push_back({{"name", name}, {"arg", arg}, {"kind", name == "dtype" ? 2 : 1}});
    return nlohmann::json{{"target", "torch.ops.aten.arange." + overload},
                          {"inputs", inputs},
                          {"outputs", {{{"as_tensor", {{"name", "r"}}}}}},
                          {"metadata", nlohmann::json::object()}};
  };
  const nlohmann::json n = {{"as_sym_int", {{"as_name", "n"}}}};
  const nlohmann::json zero = {{"as_int", 0}}, one = {{"as_int", 1}};
  constexpr int64_t kLong = 5, kFloat = 7;  // the schema's ScalarType codes
  const nlohmann::json four = sym("s0", 4), three = {{"as_int", 3}}, two = {{"as_int", 2}};
  struct Case {
    nlohmann::json node;
    int64_t dtype;
    nlohmann::json size;
    bool row_index;
  };
  const std::vector<Case> cases = {
      {arange("default", {{"end", n}}), kLong, four, true},
      {arange("start_step", {{"start", zero}, {"end", n}, {"step", one}}), kLong, four, true},
      {arange("start", {{"start", one}, {"end", n}}), kLong, three, false},
      {arange("start_step", {{"start", zero}, {"end", n}, {"step", two}}), kLong, two, false},
      {arange("default", {{"end", n}, {"dtype", {{"as_scalar_type", kFloat}}}}), kFloat, four,
       false},
  };
  std::map<std::string, DynamicDim, std::less<>> dims;
  LoadOptions options;
  options.dynamic_dims = &dims;
  for (const Case& c : cases) {
    INFO(c.node.dump());
    nodes.push_back(c.node);
    values["r"]["dtype"] = c.dtype;
    values["r"]["sizes"] = nlohmann::json::array({c.size});  // {c.size} copies under clang
    a.set_json("models/model.json", m);
    Expected<ir::Graph> g = a.load(options);
    INFO((g ? std::string() : g.status().to_string()));
    REQUIRE(g.has_value());
    const DynamicDim& dim = dims.at("s0");
    CHECK(dim.read_as_value == !c.row_index);
    REQUIRE(dim.row_indices.size() == (c.row_index ? 1u : 0u));
    if (c.row_index) {
      const ir::Value& r = g->value(dim.row_indices[0]);
      CHECK(r.kind == ir::ValueKind::kConstant);
      CHECK(r.type.to_string() == "i64[4]");
      REQUIRE(r.constant);
      CHECK((r.constant->get(0) == 0 && r.constant->get(3) == 3));
    }
    nodes.erase(nodes.size() - 1);
  }
}

TEST_CASE("pt2 synthetic: a dim's size read as a number, user ranges and derived dims",
          "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = with_dynamic_batch(a, "n", 1);
  auto& values = m["graph_module"]["graph"]["tensor_values"];
  auto& nodes = m["graph_module"]["graph"]["nodes"];
  const nlohmann::json view_node = {
      {"target", "torch.ops.aten.view.default"},
      {"inputs",
       {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "linear_1"}}}}}, {"kind", 1}},
        {{"name", "size"},
         {"arg", {{"as_sym_ints", {{{"as_name", "n"}}, {{"as_int", 8}}}}}},
         {"kind", 1}}}},
      {"outputs", {{{"as_tensor", {{"name", "out"}}}}}},
      {"metadata", nlohmann::json::object()}};
  // x * x.shape[0]: the size as a number.
  const nlohmann::json mul_node = {
      {"target", "torch.ops.aten.mul.Tensor"},
      {"inputs",
       {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "linear_1"}}}}}, {"kind", 1}},
        {{"name", "other"}, {"arg", {{"as_sym_int", {{"as_name", "n"}}}}}, {"kind", 1}}}},
      {"outputs", {{{"as_tensor", {{"name", "out"}}}}}},
      {"metadata", nlohmann::json::object()}};
  values["out"] = values["linear_1"];
  m["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] =
      "out";
  std::map<std::string, DynamicDim, std::less<>> dims;
  LoadOptions options;
  options.dynamic_dims = &dims;
  for (const auto& [node, read] : {std::pair{view_node, false}, std::pair{mul_node, true}}) {
    nodes.push_back(node);
    a.set_json("models/model.json", m);
    Expected<ir::Graph> g = a.load(options);
    INFO((g ? std::string() : g.status().to_string()));
    REQUIRE(g.has_value());
    CHECK(dims.at("s0").read_as_value == read);
    CHECK(!dims.at("s0").derived);
    nodes.erase(nodes.size() - 1);
  }
  // An expand to the size after the first axis ([n, 8] -> [n, n, 8]) repeats each row n times:
  // read as a number. Its first axis alone would only shape the result (the view above).
  const nlohmann::json expand_node = {
      {"target", "torch.ops.aten.expand.default"},
      {"inputs",
       {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "linear_1"}}}}}, {"kind", 1}},
        {{"name", "size"},
         {"arg", {{"as_sym_ints", {{{"as_name", "n"}}, {{"as_name", "n"}}, {{"as_int", 8}}}}}},
         {"kind", 1}}}},
      {"outputs", {{{"as_tensor", {{"name", "out"}}}}}},
      {"metadata", nlohmann::json::object()}};
  values["out"]["sizes"] = {sym("s0", 1), sym("s0", 1), {{"as_int", 8}}};
  nodes.push_back(expand_node);
  a.set_json("models/model.json", m);
  {
    Expected<ir::Graph> g = a.load(options);
    INFO((g ? std::string() : g.status().to_string()));
    REQUIRE(g.has_value());
    CHECK(dims.at("s0").read_as_value);
  }
  nodes.erase(nodes.size() - 1);
  values["out"] = values["linear_1"];
  nodes.push_back(mul_node);  // the archive as the loop left it: the mul last
  a.set_json("models/model.json", m);
  nodes.erase(nodes.size() - 1);
  // --dim narrows the range (the dims record says so) and never widens it. (The archive holds the
  // last model, with the mul.)
  options.dim_ranges = {{"s0", {2, 16}}};
  REQUIRE(a.load(options).has_value());
  CHECK((dims.at("s0").min == 2 && dims.at("s0").max == 16));
  options.dim_ranges = {{"s0", {1, 100}}};
  const Status wide = a.load(options).status();
  CHECK(wide.message() ==
        "--dim s0=1..100 is not within the range the model was exported for (1..64)");
  options.dim_ranges = {{"s0", {8, 16}}};
  CHECK(a.load(options).status().message() ==
        "dynamic dim s0 = 4 is outside the range --dim gives it");
}

TEST_CASE("pt2 synthetic: a recorded type that disagrees with the lowering is invalid input",
          "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  m["graph_module"]["graph"]["tensor_values"]["relu"]["sizes"][1] = {{"as_int", 33}};
  a.set_json("models/model.json", m);
  const Status s = a.load().status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.node() == "relu");
  CHECK(s.message().starts_with(
      "value 'relu' is f32[4,33] in the model but infernoc computed f32[4,32] (a damaged model"));
}

TEST_CASE("pt2 synthetic: source location skips PyTorch's own frames", "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  find_node(m, "linear")["metadata"]["stack_trace"] =
      "File \"/home/me/proj/nets/model.py\", line 12, in forward\n    x = self.fc1(x)\n"
      "  File \"/usr/lib/python3/site-packages/torch/nn/modules/linear.py\", line 134, in forward\n"
      "    return F.linear(input, self.weight, self.bias)";
  find_node(m, "relu")["metadata"]["stack_trace"] = 42;  // ill-typed metadata is ignored
  a.set_json("models/model.json", m);
  Expected<ir::Graph> g = a.load();
  REQUIRE(g.has_value());
  REQUIRE(node_named(*g, "linear") != nullptr);
  CHECK(node_named(*g, "linear")->loc.to_string() == "model.py:12");
  CHECK(node_named(*g, "relu")->loc.empty());
}

TEST_CASE("pt2 synthetic: header, signature and payload errors", "[frontend][pt2]") {
  auto error_of = [](Archive a) { return a.load().status(); };
  Archive a = Archive::from("mlp2/model.pt2");
  a.record("archive_version") = "1";
  Status s = error_of(a);
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("archive_version 1") != std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  a.record("byteorder") = "big";
  CHECK(error_of(a).code() == ErrorCode::kUnsupported);

  a = Archive::from("mlp2/model.pt2");
  a.record("models/model.json") = "{\"graph_module\": [1, 2";
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("models/model.json: not valid JSON") != std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  m["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 1;  // uint8
  a.set_json("models/model.json", m);
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kUnsupported);
  CHECK(s.message() == "input 'x' has dtype uint8, which infernoc does not support");

  a = Archive::from("mlp2/model.pt2");
  m = a.json("models/model.json");
  find_node(m, "linear")["inputs"][0]["arg"] = {{"as_int", "x"}};
  a.set_json("models/model.json", m);
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.node() == "linear");
  CHECK(s.message() ==
        "models/model.json: expected an integer, got a string at "
        "graph_module.graph.nodes[0].inputs[0].arg.as_int");

  a = Archive::from("mlp2/model.pt2");
  m = a.json("models/model.json");
  find_node(m, "relu")["target"] = "torch.ops.higher_order.cond";
  a.set_json("models/model.json", m);
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kUnsupported);
  CHECK(s.message().find("torch.ops.higher_order.cond (node 'relu'") != std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  m = a.json("models/model.json");
  m["graph_module"]["signature"]["output_specs"].push_back(
      {{"buffer_mutation", {{"arg", {{"name", "relu"}}}, {"buffer_name", "running_mean"}}}});
  a.set_json("models/model.json", m);
  s = error_of(a);  // a buffer the model writes becomes state; one it does not have is invalid
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("mutation of 'running_mean', which is no buffer input") !=
        std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  m = a.json("models/model.json");
  m["graph_module"]["signature"]["input_specs"][0] = {
      {"custom_obj", {{"arg", {{"name", "obj"}, {"class_fqn", "x"}}}, {"custom_obj_name", "obj"}}}};
  a.set_json("models/model.json", m);
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("pickle") != std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  nlohmann::json w = a.json("data/weights/model_weights_config.json");
  w["config"]["fc1.bias"]["tensor_meta"]["storage_offset"] = {
      {"as_int", 1}};  // runs 4 bytes past the record
  a.set_json("data/weights/model_weights_config.json", w);
  s = error_of(a);
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("parameter 'fc1.bias'") != std::string::npos);
  CHECK(s.message().find("needs 132") != std::string::npos);

  a = Archive::from("mlp2/model.pt2");
  a.record("data/weights/weight_1").clear();  // a 0-byte record means zeros
  Expected<ir::Graph> g = a.load();
  REQUIRE(g.has_value());
  const ir::Tensor& bias = *g->value(g->find_value("fc1.bias")).constant;
  for (int64_t i = 0; i < bias.numel(); ++i) CHECK(bias.get(i) == 0.0);
}

TEST_CASE("pt2 payloads: strided views, shared storage, bounds", "[frontend][pt2]") {
  std::string storage(12 * sizeof(float), '\0');
  for (int i = 0; i < 12; ++i) {
    const float f = static_cast<float>(i);
    std::memcpy(storage.data() + i * sizeof(float), &f, sizeof(float));
  }
  const std::string path = write_file("payload.pt2", zip_bytes({{".data/version", "6"},
                                                                {"data/weights/weight_0", storage},
                                                                {"data/weights/empty", ""}}));
  Expected<Pt2Archive> archive = Pt2Archive::open(path);
  REQUIRE(archive.has_value());
  auto payload = [](std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset,
                    std::string record = "data/weights/weight_0") {
    pt2::Payload p;
    p.record = std::move(record);
    p.meta = pt2::TensorMeta{};
    p.meta->dtype_code = 7;
    for (int64_t s : sizes) p.meta->sizes.push_back({s, "", std::nullopt});
    for (int64_t s : strides) p.meta->strides.push_back({s, "", std::nullopt});
    p.meta->storage_offset.value = offset;
    return p;
  };
  auto values = [](const ir::Tensor& t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
    return v;
  };
  pt2::RecordCache cache;
  Expected<ir::Tensor> t =
      pt2::load_payload(*archive, payload({3, 2}, {1, 3}, 0), "w", cache);  // a transposed view
  REQUIRE(t.has_value());
  CHECK(t->type.to_string() == "f32[3,2]");
  CHECK(values(*t) == std::vector<double>{0, 3, 1, 4, 2, 5});
  t = pt2::load_payload(*archive, payload({2, 3}, {3, 1}, 6), "w",
                        cache);  // a slice of the same storage
  REQUIRE(t.has_value());
  CHECK(values(*t) == std::vector<double>{6, 7, 8, 9, 10, 11});
  t = pt2::load_payload(*archive, payload({4}, {0}, 2), "w", cache);  // an expanded scalar
  REQUIRE(t.has_value());
  CHECK(values(*t) == std::vector<double>{2, 2, 2, 2});
  CHECK(cache.size() == 1);
  t = pt2::load_payload(*archive, payload({2, 2}, {2, 1}, 0, "data/weights/empty"), "w", cache);
  REQUIRE(t.has_value());
  CHECK(values(*t) == std::vector<double>{0, 0, 0, 0});
  CHECK(pt2::load_payload(*archive, payload({0, 5}, {5, 1}, 100), "w", cache)
            .has_value());  // empty view

  for (const pt2::Payload& bad :
       {payload({4, 4}, {4, 1}, 0), payload({3, 2}, {1, 3}, 7), payload({2}, {1}, -1),
        payload({2, 2}, {-1, 1}, 3), payload({int64_t{1} << 40, int64_t{1} << 40}, {1, 1}, 0),
        payload({2}, {int64_t{1} << 62}, 0), payload({2, 2}, {1}, 0),
        payload({2}, {1}, 0, "data/weights/missing")}) {
    Expected<ir::Tensor> r = pt2::load_payload(*archive, bad, "parameter 'w'", cache);
    REQUIRE(!r.has_value());
    CHECK(r.status().code() == ErrorCode::kInvalidInput);
  }
  pt2::Payload pickled = payload({2}, {1}, 0);
  pickled.use_pickle = true;
  CHECK(pt2::load_payload(*archive, pickled, "parameter 'w'", cache)
            .status()
            .message()
            .find("pickle") != std::string::npos);
}

TEST_CASE("pt2 symbolic size expressions", "[frontend][pt2]") {
  const pt2::Symbols syms = {{"s0", 6}, {"s1", 4}};
  CHECK(pt2::eval_sym_expr("s0", syms) == 6);
  CHECK(pt2::eval_sym_expr("2*s0 + 1", syms) == 13);
  CHECK(pt2::eval_sym_expr("(s0 + s1)//3", syms) == 3);
  CHECK(pt2::eval_sym_expr("-s0//4", syms) == -2);  // floor division, as Python
  CHECK(pt2::eval_sym_expr("s0 % 4 - s1", syms) == -2);
  CHECK(pt2::eval_sym_expr("12", syms) == 12);
  std::string long_sum = "s0";
  for (int i = 0; i < 1000; ++i) long_sum += " + 1";
  CHECK(pt2::eval_sym_expr(long_sum, syms) == 1006);
  // sympy's srepr, as torch 2.9+ writes sizes.
  CHECK(pt2::eval_sym_expr("Symbol('s0', positive=True, integer=True)", syms) == 6);
  CHECK(pt2::eval_sym_expr("Mul(Integer(16), Symbol('s1', positive=True, integer=True))", syms) ==
        64);
  CHECK(pt2::eval_sym_expr("Add(Symbol('s0'), Integer(-1), Symbol('s1'))", syms) == 9);
  CHECK(pt2::eval_sym_expr("FloorDiv(Symbol('s0'), Integer(4))", syms) == 1);
  CHECK(pt2::eval_sym_expr("Max(s0, 2)", syms) == 6);
  CHECK(pt2::symbol_name("Symbol('s11', positive=True, integer=True)") == "s11");
  CHECK(pt2::symbol_name("s3") == "s3");
  CHECK(pt2::symbol_name("Mul(Integer(2), Symbol('s0'))") == "Mul(Integer(2), Symbol('s0'))");
  for (const char* bad :
       {"s2", "Symbol('s2')", "Pow(s0, 2)", "Integer(1, 2)", "FloorDiv(s0, 0)", "Symbol('s0'",
        "s0 +", "(s0", "s0 // 0", "s0**2", "", "99999999999999999999", "9223372036854775807 + 1"}) {
    INFO(bad);
    CHECK(!pt2::eval_sym_expr(bad, syms).has_value());
  }
  CHECK(!pt2::eval_sym_expr(std::string(100000, '(') + "1" + std::string(100000, ')'), syms)
             .has_value());
  CHECK(!pt2::eval_sym_expr(std::string(100000, '-') + "1", syms).has_value());
}

TEST_CASE("pt2 SymInt arithmetic nodes", "[frontend][pt2]") {
  CHECK(pt2::is_sym_int_op("_operator.mul"));
  CHECK(pt2::is_sym_int_op("_operator.floordiv"));
  CHECK_FALSE(pt2::is_sym_int_op("_operator.truediv"));  // a float: not a size
  CHECK_FALSE(pt2::is_sym_int_op("torch.ops.aten.mul.Tensor"));
  CHECK(pt2::eval_sym_int_op("_operator.mul", {3, 4}) == 12);
  CHECK(pt2::eval_sym_int_op("_operator.add", {3, -4}) == -1);
  CHECK(pt2::eval_sym_int_op("_operator.sub", {-3, -4}) == 1);
  CHECK(pt2::eval_sym_int_op("_operator.floordiv", {-7, 2}) == -4);  // floor, as Python
  CHECK(pt2::eval_sym_int_op("_operator.mod", {-7, 2}) == 1);
  CHECK(pt2::eval_sym_int_op("_operator.neg", {5}) == -5);
  CHECK(!pt2::eval_sym_int_op("_operator.floordiv", {7, 0}).has_value());
  CHECK(!pt2::eval_sym_int_op("_operator.mul", {INT64_MAX, 2}).has_value());
  CHECK(!pt2::eval_sym_int_op("_operator.neg", {INT64_MIN}).has_value());
  CHECK(!pt2::eval_sym_int_op("_operator.mul", {3}).has_value());
  CHECK(!pt2::eval_sym_int_op("_operator.truediv", {3, 4}).has_value());
}

// The byte offset of `record`'s entry in the central directory (its "PK\1\2" signature).
size_t central_entry(const std::string& zip, const std::string& record) {
  const size_t name_at = zip.rfind("m/" + record);
  REQUIRE(name_at != std::string::npos);
  return name_at - 46;
}

TEST_CASE("pt2 robustness: limits are checked before anything large is built", "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  a.record("models/model.json") = std::string(100000, '[') + std::string(100000, ']');
  Status s = a.load().status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message() ==
        "models/model.json: JSON nested 100000 levels deep, more than the limit of 128");

  a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  m["graph_module"]["graph"]["nodes"] = nlohmann::json::array();
  for (int i = 0; i <= (1 << 20); ++i) m["graph_module"]["graph"]["nodes"].push_back(0);
  a.set_json("models/model.json", m);
  s = a.load().status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("1048577 nodes, more than infernoc's limit of 1048576") !=
        std::string::npos);

  // A 4-TiB weight declared in a model of a few kilobytes: refused by the record's size.
  a = Archive::from("mlp2/model.pt2");
  nlohmann::json config = a.json("data/weights/model_weights_config.json");
  nlohmann::json& meta = config["config"]["fc1.weight"]["tensor_meta"];
  meta["sizes"] = {{{"as_int", int64_t{1} << 20}}, {{"as_int", int64_t{1} << 20}}};
  meta["strides"] = {{{"as_int", int64_t{1} << 20}}, {{"as_int", 1}}};
  a.set_json("data/weights/model_weights_config.json", config);
  s = a.load().status();
  INFO(s.message());
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("weight_0") != std::string::npos);
}

TEST_CASE("pt2 robustness: records are stored and intact", "[frontend][pt2]") {
  const Archive a = Archive::from("mlp2/model.pt2");
  const std::string zip = zip_bytes(a.records);

  std::string compressed = zip;  // method 8 (deflate) in the central directory
  compressed[central_entry(zip, "models/model.json") + 10] = 8;
  Expected<ir::Graph> g = load_model(write_file("deflated.pt2", compressed), {});
  REQUIRE(!g.has_value());
  CHECK(g.status().code() == ErrorCode::kUnsupported);
  CHECK(g.status().message().find("record 'models/model.json' is compressed (zip method 8)") !=
        std::string::npos);

  std::string flipped = zip;  // one bit of the model's JSON changed under its CRC
  const size_t json_at = flipped.find("\"graph_module\"");
  REQUIRE(json_at != std::string::npos);
  flipped[json_at + 1] = 'G';
  g = load_model(write_file("flipped.pt2", flipped), {});
  REQUIRE(!g.has_value());
  CHECK(g.status().code() == ErrorCode::kInvalidInput);
  CHECK(g.status().message().find("record 'models/model.json' fails its CRC check") !=
        std::string::npos);
}

TEST_CASE("pt2 robustness: truncated archives never crash", "[frontend][pt2]") {
  const std::string whole = test::read_text_file(test::fixture_path("mlp2/model.pt2"));
  for (size_t n = 0; n < whole.size(); n += 61) {
    Expected<ir::Graph> g = load_model(write_file("truncated.pt2", whole.substr(0, n)), {});
    INFO(n);
    REQUIRE(!g.has_value());
    CHECK(g.status().code() == ErrorCode::kInvalidInput);
  }
}

TEST_CASE("pt2 robustness: mistyped JSON fields never crash", "[frontend][pt2]") {
  const Archive base = Archive::from("bmm_matmul/model_decomposed.pt2");
  const nlohmann::json model = nlohmann::json::parse(Archive(base).record("models/model.json"));
  // Every JSON pointer of the graph and signature, replaced by values of other types.
  std::vector<nlohmann::json::json_pointer> pointers;
  const nlohmann::json flat = model["graph_module"].flatten();
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    if (it.key().find("/metadata") != std::string::npos) continue;  // free text, checked elsewhere
    nlohmann::json::json_pointer p("/graph_module" + it.key());
    while (!p.empty()) {
      pointers.push_back(p);
      p = p.parent_pointer();
      if (std::find(pointers.begin(), pointers.end(), p) != pointers.end()) break;
    }
  }
  const nlohmann::json replacements[] = {nlohmann::json("bogus"), nlohmann::json(-1),
                                         nlohmann::json::object(), nlohmann::json::array({1}),
                                         nlohmann::json()};
  size_t loaded = 0, failed = 0, i = 0;
  for (const auto& p : pointers) {
    if (i++ % 2 != 0) continue;  // half of them keeps the test fast
    for (const nlohmann::json& r : replacements) {
      Archive a = base;
      nlohmann::json m = model;
      m[p] = r;
      a.set_json("models/model.json", m);
      Expected<ir::Graph> g = a.load();
      if (g.has_value()) {
        ++loaded;
        CHECK(ir::verify(*g).is_ok());
      } else {
        ++failed;
        CHECK(g.status().code() != ErrorCode::kOk);
      }
    }
  }
  CHECK(failed > 100);
  CHECK(loaded > 0);  // e.g. edits of ignored fields
}

TEST_CASE("pt2 synthetic: batch_norm's 3 outputs, the saved statistics refused where used",
          "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  auto& graph = m["graph_module"]["graph"];
  auto tensor = [](const char* name) { return nlohmann::json{{"as_tensor", {{"name", name}}}}; };
  auto in = [&](const char* name, nlohmann::json arg) {
    return nlohmann::json{{"name", name}, {"arg", std::move(arg)}, {"kind", 1}};
  };
  // bn, bn_1, bn_2 = _native_batch_norm_legit_no_training(linear_1, fc2.bias x 4, 0.1, 1e-5)
  graph["nodes"].push_back(
      {{"target", "torch.ops.aten._native_batch_norm_legit_no_training.default"},
       {"inputs",
        {in("input", tensor("linear_1")), in("weight", tensor("p_fc2_bias")),
         in("bias", tensor("p_fc2_bias")), in("running_mean", tensor("p_fc2_bias")),
         in("running_var", tensor("p_fc2_bias")), in("momentum", {{"as_float", 0.1}}),
         in("eps", {{"as_float", 1e-5}})}},
       {"outputs", {tensor("bn"), tensor("bn_1"), tensor("bn_2")}},
       {"metadata", nlohmann::json::object()}});
  graph["tensor_values"]["bn"] = graph["tensor_values"]["linear_1"];
  for (const char* saved : {"bn_1", "bn_2"}) {
    graph["tensor_values"][saved] = graph["tensor_values"]["p_fc2_bias"];
    graph["tensor_values"][saved]["sizes"] = {{{"as_int", 0}}};
  }
  auto& output = m["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"];
  output["as_tensor"]["name"] = "bn";
  a.set_json("models/model.json", m);
  Expected<ir::Graph> g = a.load();
  INFO((g ? std::string() : g.status().to_string()));
  REQUIRE(g.has_value());
  CHECK(g->type(g->outputs()[0]).to_string() == "f32[4,8]");
  CHECK(ir::verify(*g).is_ok());

  // Returning a saved statistic, or computing with one: unsupported, naming the value.
  output["as_tensor"]["name"] = "bn_1";
  a.set_json("models/model.json", m);
  Status s = a.load().status();
  CHECK(s.code() == ErrorCode::kUnsupported);
  CHECK(s.message().find("value 'bn_1' is used, but infernoc does not compute it") !=
        std::string::npos);
  graph["nodes"].push_back({{"target", "torch.ops.aten.relu.default"},
                            {"inputs", {in("self", tensor("bn_2"))}},
                            {"outputs", {tensor("relu_bn")}},
                            {"metadata", nlohmann::json::object()}});
  graph["tensor_values"]["relu_bn"] = graph["tensor_values"]["bn_2"];
  output["as_tensor"]["name"] = "relu_bn";
  a.set_json("models/model.json", m);
  s = a.load().status();
  CHECK(s.code() == ErrorCode::kUnsupported);
  CHECK(s.node() == "relu_bn");
  CHECK(s.message().find("value 'bn_2' is used") != std::string::npos);
}

TEST_CASE("pt2 synthetic: split_with_sizes and unbind return as_tensors lists", "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  auto& graph = m["graph_module"]["graph"];
  auto tensor = [](const char* name) { return nlohmann::json{{"as_tensor", {{"name", name}}}}; };
  auto in = [&](const char* name, nlohmann::json arg) {
    return nlohmann::json{{"name", name}, {"arg", std::move(arg)}, {"kind", 1}};
  };
  auto typed = [&](const char* name, std::vector<int64_t> sizes) {
    graph["tensor_values"][name] = graph["tensor_values"]["linear_1"];
    auto& s = graph["tensor_values"][name]["sizes"];
    s = nlohmann::json::array();
    for (int64_t d : sizes) s.push_back({{"as_int", d}});
  };
  // part, part_1 = split_with_sizes(linear_1 [4, 8], [3, 5], 1); relu(part_1)
  graph["nodes"].push_back(
      {{"target", "torch.ops.aten.split_with_sizes.default"},
       {"inputs",
        {in("self", tensor("linear_1")), in("split_sizes", {{"as_ints", {3, 5}}}),
         in("dim", {{"as_int", 1}})}},
       {"outputs", {{{"as_tensors", {{{"name", "part"}}, {{"name", "part_1"}}}}}}},
       {"metadata", nlohmann::json::object()}});
  typed("part", {4, 3});
  typed("part_1", {4, 5});
  graph["nodes"].push_back({{"target", "torch.ops.aten.relu.default"},
                            {"inputs", {in("self", tensor("part_1"))}},
                            {"outputs", {tensor("relu_part")}},
                            {"metadata", nlohmann::json::object()}});
  typed("relu_part", {4, 5});
  // row, row_1, row_2, row_3 = unbind(linear_1, 0)
  nlohmann::json rows = nlohmann::json::array();
  for (const char* name : {"row", "row_1", "row_2", "row_3"}) {
    rows.push_back({{"name", name}});
    typed(name, {8});
  }
  graph["nodes"].push_back(
      {{"target", "torch.ops.aten.unbind.int"},
       {"inputs", {in("self", tensor("linear_1")), in("dim", {{"as_int", 0}})}},
       {"outputs", {{{"as_tensors", rows}}}},
       {"metadata", nlohmann::json::object()}});
  auto& outputs = m["graph_module"]["signature"]["output_specs"];
  for (const char* name : {"relu_part", "row_2"})
    outputs.push_back({{"user_output", {{"arg", tensor(name)}}}});
  a.set_json("models/model.json", m);
  Expected<ir::Graph> g = a.load();
  INFO((g ? std::string() : g.status().to_string()));
  REQUIRE(g.has_value());
  REQUIRE(g->outputs().size() == 3);
  CHECK(ir::verify(*g).is_ok());

  // On the reference: relu_part is relu(linear_1[:, 3:]), row_2 is linear_1[2].
  ir::Tensor x = test::random_tensor(g->type(g->inputs()[0]), 3);
  Expected<std::vector<ir::Tensor>> out = reference::evaluate(*g, {x});
  REQUIRE(out.has_value());
  const ir::Tensor &linear = (*out)[0], &relu_part = (*out)[1], &row = (*out)[2];
  REQUIRE(relu_part.type.to_string() == "f32[4,5]");
  REQUIRE(row.type.to_string() == "f32[8]");
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j)
      CHECK(relu_part.get(i * 5 + j) == std::max(0.0, linear.get(i * 8 + 3 + j)));
  }
  for (int64_t j = 0; j < 8; ++j) CHECK(row.get(j) == linear.get(2 * 8 + j));

  // A list of another length than infernoc's pieces is an error naming the node, not a crash.
  for (nlohmann::json& node : graph["nodes"]) {
    if (node["target"] == "torch.ops.aten.split_with_sizes.default")
      node["outputs"][0]["as_tensors"].erase(1);
  }
  a.set_json("models/model.json", m);
  const Status s = a.load().status();
  CHECK_FALSE(s.is_ok());
  CHECK(s.node() == "part");
}

TEST_CASE("pt2 synthetic: native_layer_norm and native_group_norm, their statistics refused",
          "[frontend][pt2]") {
  Archive a = Archive::from("mlp2/model.pt2");
  nlohmann::json m = a.json("models/model.json");
  auto& graph = m["graph_module"]["graph"];
  auto tensor = [](const char* name) { return nlohmann::json{{"as_tensor", {{"name", name}}}}; };
  auto in = [&](const char* name, nlohmann::json arg) {
    return nlohmann::json{{"name", name}, {"arg", std::move(arg)}, {"kind", 1}};
  };
  auto integer = [](int64_t v) { return nlohmann::json{{"as_int", v}}; };
  // ln, ln_1, ln_2 = native_layer_norm(linear_1 [4, 8], [8], fc2.bias, fc2.bias, 1e-5)
  graph["nodes"].push_back(
      {{"target", "torch.ops.aten.native_layer_norm.default"},
       {"inputs",
        {in("input", tensor("linear_1")), in("normalized_shape", {{"as_ints", {8}}}),
         in("weight", tensor("p_fc2_bias")), in("bias", tensor("p_fc2_bias")),
         in("eps", {{"as_float", 1e-5}})}},
       {"outputs", {tensor("ln"), tensor("ln_1"), tensor("ln_2")}},
       {"metadata", nlohmann::json::object()}});
  // gn, gn_1, gn_2 = native_group_norm(ln, fc2.bias, None, N 4, C 8, HxW 1, group 2, 1e-5)
  auto group_norm = [&](int64_t n) {
    return nlohmann::json{
        {"target", "torch.ops.aten.native_group_norm.default"},
        {"inputs",
         {in("input", tensor("ln")), in("weight", tensor("p_fc2_bias")),
          in("bias", {{"as_none", true}}), in("N", integer(n)), in("C", integer(8)),
          in("HxW", integer(1)), in("group", integer(2)), in("eps", {{"as_float", 1e-5}})}},
        {"outputs", {tensor("gn"), tensor("gn_1"), tensor("gn_2")}},
        {"metadata", nlohmann::json::object()}};
  };
  graph["nodes"].push_back(group_norm(4));
  auto& values = graph["tensor_values"];
  values["ln"] = values["gn"] = values["linear_1"];
  for (const char* saved : {"ln_1", "ln_2", "gn_1", "gn_2"}) {
    values[saved] = values["linear_1"];
    values[saved]["sizes"] = {{{"as_int", 4}}, {{"as_int", saved[0] == 'l' ? 1 : 2}}};
  }
  auto& output = m["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"];
  output["as_tensor"]["name"] = "gn";
  a.set_json("models/model.json", m);
  Expected<ir::Graph> g = a.load();
  INFO((g ? std::string() : g.status().to_string()));
  REQUIRE(g.has_value());
  CHECK(g->type(g->outputs()[0]).to_string() == "f32[4,8]");
  CHECK(ir::verify(*g).is_ok());
  int norms = 0;
  for (const ir::Node& node : g->nodes()) {
    norms += node.op == ir::OpKind::kLayerNorm || node.op == ir::OpKind::kGroupNorm ? 1 : 0;
  }
  CHECK(norms == 2);

  // A saved mean or rstd returned: unsupported, naming the value.
  for (const char* saved : {"ln_1", "gn_2"}) {
    output["as_tensor"]["name"] = saved;
    a.set_json("models/model.json", m);
    const Status s = a.load().status();
    CHECK(s.code() == ErrorCode::kUnsupported);
    CHECK(s.message().find("value '" + std::string(saved) + "' is used") != std::string::npos);
  }
  // N disagreeing with the input: invalid input naming the op.
  output["as_tensor"]["name"] = "gn";
  graph["nodes"].back() = group_norm(2);
  a.set_json("models/model.json", m);
  const Status s = a.load().status();
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("aten::native_group_norm: N, C, HxW = 2, 8, 1") != std::string::npos);
}

}  // namespace inferno::frontend
