// einsum in the ATen table: one- and two-operand equations on the reference against the values
// torch.einsum gives for the same operands (arange fills, written here), implicit outputs
// included; the equations it refuses name why.
#include <string>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::ValueId;

// Operands filled with 0, 1, 2, ... (or ones); einsum lowered over them and evaluated.
struct Einsum {
  ir::Graph g;
  std::vector<ir::Tensor> values;
  std::vector<ValueId> inputs;

  void operand(ir::Shape shape, bool ones = false) {
    ir::Tensor t = ir::Tensor::zeros({DType::kF32, std::move(shape)});
    for (int64_t k = 0; k < t.numel(); ++k) t.set(k, ones ? 1.0 : static_cast<double>(k));
    inputs.push_back(g.add_input("in" + std::to_string(inputs.size()), t.type));
    values.push_back(std::move(t));
  }
  Expected<std::vector<ValueId>> lower(const std::string& equation) {
    AtenCall call{"aten::einsum", "", {equation, inputs}, {}, "node", {"m.py", 3}};
    return lower_aten_call(g, call);
  }
  ir::Tensor run(const std::string& equation) {
    auto out = lower(equation);
    INFO(equation << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    g.set_outputs(*out);
    auto result = reference::evaluate(g, values);
    REQUIRE(result.has_value());
    return result->at(0);
  }
};

void check(const ir::Tensor& got, const std::string& type, const std::vector<double>& want) {
  CHECK(got.type.to_string() == type);
  REQUIRE(got.numel() >= static_cast<int64_t>(want.size()));
  for (size_t k = 0; k < want.size(); ++k) {
    INFO(k);
    CHECK(got.get(static_cast<int64_t>(k)) == want[k]);
  }
}

}  // namespace

TEST_CASE("aten einsum of one operand: a permute and sums", "[frontend][aten]") {
  for (const auto& [equation, type, want] :
       {std::tuple<std::string, std::string, std::vector<double>>{
            "ij->ji", "f32[3,2]", {0, 3, 1, 4, 2, 5}},
        {"i j -> j", "f32[3]", {3, 5, 7}},
        {"ij->", "f32[]", {15}}}) {
    Einsum e;
    e.operand({2, 3});
    check(e.run(equation), type, want);
  }
}

TEST_CASE("aten einsum of two operands: one batched matmul", "[frontend][aten]") {
  {
    Einsum e;
    e.operand({2, 3, 4});
    e.operand({2, 4, 5});
    check(e.run("bij,bjk->bik"), "f32[2,3,5]", {70, 76, 82, 88, 94, 190});
  }
  {
    Einsum e;  // implicit outputs: the letters seen once, sorted
    e.operand({2});
    e.operand({3});
    e.values[0].set(0, 1);
    e.values[0].set(1, 2);
    for (int64_t k = 0; k < 3; ++k) e.values[1].set(k, static_cast<double>(3 + k));
    check(e.run("i,j"), "f32[2,3]", {3, 4, 5, 6, 8, 10});
  }
  {
    Einsum e;
    e.operand({2, 3});
    e.operand({3, 4});
    check(e.run("ij,jk"), "f32[2,4]", {20, 23, 26, 29, 56, 68, 80, 92});
  }
  {
    Einsum e;  // i and k are each summed first; j contracted
    e.operand({2, 3});
    e.operand({5, 3}, /*ones=*/true);
    check(e.run("ij,kj->"), "f32[]", {75});
  }
  {
    Einsum e;  // MaxViT's form: batch letters B G H, the output transposed against the product
    e.operand({1, 2, 1, 3, 4});
    e.operand({1, 2, 1, 5, 4});
    const ir::Tensor out = e.run("B G H I D, B G H J D -> B G H J I");
    CHECK(out.type.to_string() == "f32[1,2,1,5,3]");
    // [g=0, j=0, i=1]: sum_d (4 + d) * d = 0 + 5 + 12 + 21.
    CHECK(out.get(1) == 38);
  }
}

TEST_CASE("aten einsum refuses what it does not lower, saying why", "[frontend][aten]") {
  Einsum e;
  e.operand({2, 2});
  e.operand({2, 3});
  for (const auto& [equation, why] :
       {std::pair{"...j,jk", "an ellipsis"}, std::pair{"ii,ik", "a letter repeated"},
        std::pair{"ij,jk,kl", "operands, the call 2"}, std::pair{"ijk,jk", "has 3 letters"},
        std::pair{"ij,kj->ik", "has two sizes"}, std::pair{"ij,jk->iz", "output letter 'z'"}}) {
    INFO(equation);
    auto out = e.lower(equation);
    REQUIRE(!out);
    CHECK(out.status().message().find(why) != std::string::npos);
  }
}

}  // namespace inferno::frontend
