// --input NAME:DIMS:DTYPE parsing and matching against a model's input names.
#include "frontend/input_spec.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::frontend {

TEST_CASE("input specs parse", "[frontend][input_spec]") {
  Expected<InputSpec> s = parse_input_spec("x:1x512:f32");
  REQUIRE(s.has_value());
  CHECK(s->name == "x");
  CHECK(s->type.to_string() == "f32[1,512]");
  s = parse_input_spec("input.1:8:bf16");
  REQUIRE(s.has_value());
  CHECK(s->name == "input.1");
  CHECK(s->type.to_string() == "bf16[8]");
  CHECK(parse_input_spec("t:scalar:i64")->type.to_string() == "i64[]");
  CHECK(parse_input_spec("t::bool")->type.to_string() == "bool[]");
  CHECK(parse_input_spec(":0x3:f16")->type.to_string() == "f16[0,3]");
  CHECK(parse_input_spec("x:2147483648:f32")->type.shape == ir::Shape{int64_t{1} << 31});
  CHECK(parse_input_spec("x:1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1:f32").has_value());
}

TEST_CASE("input specs name dynamic dims", "[frontend][input_spec]") {
  Expected<InputSpec> s = parse_input_spec("x:Bx3x224x224:f32");
  REQUIRE(s.has_value());
  CHECK(s->dim_symbols == std::vector<std::string>{"B", "", "", ""});
  CHECK(s->type.to_string() == "f32[0,3,224,224]");  // B is sized when bound
  s = parse_input_spec("ids:1xseq_len2:i64");
  REQUIRE(s.has_value());
  CHECK(s->dim_symbols == std::vector<std::string>{"", "seq_len2"});
  CHECK(parse_input_spec("x:3x4:f32")->dim_symbols.empty());
  CHECK(has_named_dims({*s}));
  CHECK(!has_named_dims({*parse_input_spec("x:3x4:f32")}));
  for (const char* bad : {"x:2*Bx3:f32", "x:B-1x3:f32", "x:maxx3:f32", "x:4Bx3:f32"}) {
    INFO(bad);
    CHECK(parse_input_spec(bad).status().message().find("neither a non-negative integer nor a "
                                                        "name") != std::string::npos);
  }
}

TEST_CASE("named dims bind to a value within their --dim range", "[frontend][input_spec]") {
  std::map<std::string, DynamicDim, std::less<>> dims;
  LoadOptions options;
  options.inputs = {*parse_input_spec("a:Bx4:f32"), *parse_input_spec("b:3xB:f32")};
  options.dim_ranges = {{"B", {2, 16}}};
  options.dynamic_dims = &dims;
  // The range's low end unless a value is given; every use recorded once per load.
  for (int load = 0; load < 2; ++load) {
    LoadOptions bound = options;
    REQUIRE(bind_named_dims(bound).is_ok());
    CHECK(bound.inputs[0].type.to_string() == "f32[2,4]");
    CHECK(bound.inputs[1].type.to_string() == "f32[3,2]");
    CHECK(!has_named_dims(bound.inputs));
  }
  REQUIRE(dims.count("B") == 1);
  CHECK(dims["B"].min == 2);
  CHECK(dims["B"].max == 16);
  CHECK(dims["B"].value == 2);
  REQUIRE(dims["B"].uses.size() == 2);
  CHECK((dims["B"].uses[1].input == 1 && dims["B"].uses[1].axis == 1));
  options.symbols = {{"B", 9}};
  LoadOptions nine = options;
  REQUIRE(bind_named_dims(nine).is_ok());
  CHECK(nine.inputs[1].type.to_string() == "f32[3,9]");
  CHECK(dims["B"].value == 9);

  options.symbols = {{"B", 17}};
  LoadOptions outside = options;
  CHECK(bind_named_dims(outside).message() ==
        "--input 0 names dim 0 'B' with the size 17, outside its range 2..16");
  options.dim_ranges.clear();
  LoadOptions unranged = options;
  CHECK(bind_named_dims(unranged).message() ==
        "--input 0 names dim 0 'B', which has no range: give it one with --dim B=LO..HI");
}

TEST_CASE("input specs reject bad text", "[frontend][input_spec]") {
  const std::pair<const char*, const char*> cases[] = {
      {"x:1x512", "three"},
      {"x:1x512:f32:extra", "three"},
      {"x y:1:f32", "name may only contain"},
      {"x/../y:1:f32", "name may only contain"},
      {"x:1xx2:f32", "dim ''"},
      {"x:1x:f32", "dim ''"},
      {"x:-1:f32", "dim '-1'"},
      {"x:4a:f32", "dim '4a'"},
      {"x:99999999999999999999:f32", "dim '99999999999999999999'"},
      {"x:2147483649:f32", "larger than 2^31"},
      {"x:1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1:f32", "more than 16 dims"},
      {"x:65536x65536x65536x65536:f32", "more than 2^48 elements"},
      {"x:4:float32", "unknown dtype 'float32' (one of f32, f16, bf16, f64, i64, i32, bool)"},
      {"x:4:", "unknown dtype ''"},
  };
  for (const auto& [text, needle] : cases) {
    Expected<InputSpec> s = parse_input_spec(text);
    INFO(text);
    REQUIRE(!s.has_value());
    CHECK(s.status().code() == ErrorCode::kInvalidInput);
    CHECK(s.status().message().find(std::string("--input '") + text + "'") == 0);
    CHECK(s.status().message().find(needle) != std::string::npos);
  }
}

TEST_CASE("input specs match model inputs", "[frontend][input_spec]") {
  const ir::TensorType t{ir::DType::kF32, {4}};
  CHECK(check_input_specs({{"x", t}, {"y", t}}, {"x", "y"}).is_ok());
  CHECK(check_input_specs({{"", t}, {"y", t}}, {"x", "y"}).is_ok());
  CHECK(check_input_specs({{"x", t}}, {"x.1"}).is_ok());  // TorchScript's unique-name suffix
  CHECK(check_input_specs({{"x.3", t}}, {"x"}).is_ok());
  CHECK(check_input_specs({}, {}).is_ok());
  Status s = check_input_specs({{"x", t}}, {"x", "y"});
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message() == "model has 2 inputs (x, y) but 1 --input was given");
  s = check_input_specs({{"x", t}, {"y", t}}, {"x"});
  CHECK(s.message() == "model has 1 input (x) but 2 --inputs were given");
  s = check_input_specs({{"x", t}, {"z", t}}, {"x", "y"});
  CHECK(s.message() == "--input 1 is named 'z' but the model's input 1 is 'y'");
  CHECK(!check_input_specs({{"x.a", t}}, {"x"}).is_ok());
}

}  // namespace inferno::frontend
