// The indexing entries of the ATen table and the small ops transformer exports record, on the
// reference against values written here from PyTorch's documentation: index.Tensor with one index
// tensor (Nones before it, a multi-dim index) and with several (broadcast together, adjacent or
// not, negative ids), gather (a runtime and a constant index, ids past
// the index's own extent), squeeze with a list of dims, alias, to.dtype / to.dtype_layout /
// _to_copy, scalar_tensor, where with broadcast masks and scalar branches, masked_fill with -inf.
// x holds its flat indices, so each output element names the input element it came from.
// Refusals: bool-mask indices, repeat_interleave of a tensor of counts
// (data-dependent: exit 2); constant ids out of range and bad index shapes (exit 3, naming the
// node).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::ValueId;

AtenArg i64(int64_t v) { return AtenArg{v}; }
const AtenArg kNone = NoneArg{};

ir::Tensor make(DType dtype, ir::Shape shape, std::vector<double> v) {
  ir::Tensor t = ir::Tensor::zeros({dtype, std::move(shape)});
  for (size_t k = 0; k < v.size(); ++k) t.set(static_cast<int64_t>(k), v[k]);
  return t;
}

struct G {
  ir::Graph g;
  ValueId x;
  std::vector<ir::Tensor> extra;  ///< values of inputs added after x
  explicit G(ir::Shape shape) : x(g.add_input("x", {DType::kF32, std::move(shape)})) {}

  ValueId input(const std::string& name, ir::Tensor value) {
    const ValueId id = g.add_input(name, value.type);
    extra.push_back(std::move(value));
    return id;
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> args,
                                       std::string overload = "default") {
    AtenCall call{std::move(op), std::move(overload), std::move(args), {}, "node", {"m.py", 5}};
    return lower_aten_call(g, call);
  }
  ir::Tensor run(std::string op, std::vector<AtenArg> args, std::string overload = "default") {
    auto out = lower(op, std::move(args), std::move(overload));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    ir::Tensor data = ir::Tensor::zeros(g.type(x));
    for (int64_t k = 0; k < data.numel(); ++k) data.set(k, static_cast<double>(k));
    std::vector<ir::Tensor> inputs = {data};
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    g.set_outputs({out->front()});
    auto values = reference::evaluate(g, inputs);
    INFO((values ? std::string() : values.status().to_string()));
    REQUIRE(values.has_value());
    return values->front();
  }
  Status error(std::string op, std::vector<AtenArg> args, std::string overload = "default") {
    auto out = lower(op, std::move(args), std::move(overload));
    REQUIRE(!out.has_value());
    CHECK(out.status().node() == "node");
    return out.status();
  }
};

void check(const ir::Tensor& got, const std::string& type, const std::vector<double>& want) {
  CHECK(got.type.to_string() == type);
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got.get(static_cast<int64_t>(i)) == want[i]);
  }
}

TEST_CASE("aten index.Tensor with one index tensor", "[frontend][aten][index]") {
  {
    G t({2, 3, 2});  // x[:, idx] with idx [[2, 0]] of shape [1, 2]: out [2, 1, 2, 2]
    const ValueId idx = t.g.add_constant("idx", make(DType::kI64, {1, 2}, {2, 0}));
    check(t.run("aten::index", {t.x, std::vector<ValueId>{ir::kNoValue, idx}}, "Tensor"),
          "f32[2,1,2,2]", {4, 5, 0, 1, 10, 11, 6, 7});
  }
  {
    G t({3, 2});  // x[idx] with a runtime i32 index, negative ids counting from the end
    const ValueId idx = t.input("idx", make(DType::kI32, {3}, {-1, 0, 1}));
    check(t.run("aten::index", {t.x, std::vector<ValueId>{idx}}, "Tensor"), "f32[3,2]",
          {4, 5, 0, 1, 2, 3});
  }
  G t({3, 2});
  const ValueId mask = t.input("mask", make(DType::kBool, {3}, {1, 0, 1}));
  const Status bool_index = t.error("aten::index", {t.x, std::vector<ValueId>{mask}}, "Tensor");
  CHECK(bool_index.code() == ErrorCode::kUnsupported);
  CHECK(bool_index.message().find("bool mask") != std::string::npos);
  const ValueId far = t.g.add_constant("far", make(DType::kI64, {2}, {0, 3}));
  const Status range = t.error("aten::index", {t.x, std::vector<ValueId>{far}}, "Tensor");
  CHECK(range.code() == ErrorCode::kInvalidInput);
  CHECK(range.message().find("index 3 is out of range for dim 0 of size 3") != std::string::npos);
}

TEST_CASE("aten index.Tensor with several index tensors", "[frontend][aten][index]") {
  {
    G t({3, 4});  // x[rows, cols], rows [2, 1] and cols [3] broadcast to [2, 3]; -1 is col 3
    const ValueId rows = t.g.add_constant("rows", make(DType::kI64, {2, 1}, {0, 2}));
    const ValueId cols = t.input("cols", make(DType::kI32, {3}, {1, -1, 3}));
    check(t.run("aten::index", {t.x, std::vector<ValueId>{rows, cols}}, "Tensor"), "f32[2,3]",
          {1, 3, 3, 9, 11, 11});
  }
  {
    G t({2, 3, 4});  // x[i, :, k]: not adjacent, so the index dim goes first: out [2, 3]
    const ValueId i = t.input("i", make(DType::kI64, {2}, {1, 0}));
    const ValueId k = t.input("k", make(DType::kI64, {2}, {2, 3}));
    check(t.run("aten::index", {t.x, std::vector<ValueId>{i, ir::kNoValue, k}}, "Tensor"),
          "f32[2,3]", {14, 18, 22, 3, 7, 11});
  }
  {
    G t({2, 3, 4, 2});  // x[:, i, k]: adjacent after dim 0, the index dim stays there: [2, 2, 2]
    const ValueId i = t.input("i", make(DType::kI64, {2}, {2, 0}));
    const ValueId k = t.input("k", make(DType::kI64, {2}, {1, 3}));
    check(t.run("aten::index", {t.x, std::vector<ValueId>{ir::kNoValue, i, k}}, "Tensor"),
          "f32[2,2,2]", {18, 19, 6, 7, 42, 43, 30, 31});
  }
  G t({3, 2});
  const ValueId idx = t.g.add_constant("idx", make(DType::kI64, {2}, {0, 1}));
  const ValueId far = t.g.add_constant("far", make(DType::kI64, {2}, {0, 2}));
  const Status range = t.error("aten::index", {t.x, std::vector<ValueId>{idx, far}}, "Tensor");
  CHECK(range.code() == ErrorCode::kInvalidInput);
  CHECK(range.message().find("index 2 is out of range for dim 1 of size 2") != std::string::npos);
  const ValueId three = t.g.add_constant("three", make(DType::kI64, {3}, {0, 1, 0}));
  CHECK(t.error("aten::index", {t.x, std::vector<ValueId>{idx, three}}, "Tensor").code() ==
        ErrorCode::kInvalidInput);  // [2] and [3] do not broadcast
  const ValueId mask = t.input("mask", make(DType::kBool, {2}, {1, 0}));
  CHECK(t.error("aten::index", {t.x, std::vector<ValueId>{idx, mask}}, "Tensor").code() ==
        ErrorCode::kUnsupported);
}

TEST_CASE("aten gather", "[frontend][aten][index]") {
  {
    G t({2, 3});  // torch.gather(x, 1, [[2, 0], [1, 1]]) = [[2, 0], [4, 4]]
    const ValueId idx = t.input("idx", make(DType::kI64, {2, 2}, {2, 0, 1, 1}));
    check(t.run("aten::gather", {t.x, i64(1), idx}), "f32[2,2]", {2, 0, 4, 4});
  }
  {
    G t({3, 2});  // along dim 0, a constant index of fewer columns: [[2], [0]] -> [[4], [0]]
    const ValueId idx = t.g.add_constant("idx", make(DType::kI64, {2, 1}, {2, 0}));
    check(t.run("aten::gather", {t.x, i64(-2), idx}), "f32[2,1]", {4, 0});
  }
  {
    G t({2, 2, 3});  // the last dim of a rank-3 x, an i32 index
    const ValueId idx = t.input("idx", make(DType::kI32, {2, 2, 1}, {0, 2, 1, 2}));
    check(t.run("aten::gather", {t.x, i64(2), idx}), "f32[2,2,1]", {0, 5, 7, 11});
  }
  G t({2, 3});
  const ValueId neg = t.g.add_constant("neg", make(DType::kI64, {2, 1}, {0, -1}));
  CHECK(t.error("aten::gather", {t.x, i64(1), neg}).code() == ErrorCode::kInvalidInput);
  const ValueId wide = t.g.add_constant("wide", make(DType::kI64, {3, 1}, {0, 0, 0}));
  CHECK(t.error("aten::gather", {t.x, i64(1), wide}).message().find("no larger") !=
        std::string::npos);
  const ValueId mask = t.g.add_constant("mask", make(DType::kBool, {2, 1}, {1, 0}));
  CHECK(t.error("aten::gather", {t.x, i64(1), mask}).code() == ErrorCode::kUnsupported);
}

TEST_CASE("aten squeeze overloads, repeat_interleave of counts", "[frontend][aten][index]") {
  G t({1, 2, 1, 1});
  check(t.run("aten::squeeze", {t.x, std::vector<int64_t>{0, -1}}, "dims"), "f32[2,1]", {0, 1});
  G u({1, 2, 1});
  check(u.run("aten::squeeze", {u.x, i64(0)}, "dim"), "f32[2,1]", {0, 1});
  G v({1, 2, 1});
  check(v.run("aten::squeeze", {v.x}), "f32[2]", {0, 1});
  G w({1, 2, 1});
  check(w.run("aten::squeeze", {w.x, i64(1)}, "dim"), "f32[1,2,1]", {0, 1});  // size 2: kept
  // repeat_interleave(repeats) alone: a data-dependent length, unsupported (not invalid).
  G r({3});
  const ValueId counts = r.input("counts", make(DType::kI64, {3}, {1, 0, 2}));
  for (const char* overload : {"Tensor", ""}) {
    INFO("overload '" << overload << "'");
    const Status s = r.error("aten::repeat_interleave", {counts}, overload);
    CHECK(s.code() == ErrorCode::kUnsupported);
    CHECK(s.message().find("tensor of counts") != std::string::npos);
  }
}

TEST_CASE("aten alias, dtype conversions, scalar_tensor, where and masked_fill",
          "[frontend][aten][index]") {
  {
    G t({2});
    check(t.run("aten::alias", {t.x}), "f32[2]", {0, 1});
  }
  {
    G t({3});
    check(t.run("aten::to", {t.x, DType::kI64}, "dtype"), "i64[3]", {0, 1, 2});
  }
  {
    G t({2});
    check(t.run("aten::to", {t.x, DType::kF16, kNone, kNone, kNone}, "dtype_layout"), "f16[2]",
          {0, 1});
  }
  {
    G t({2});
    check(t.run("aten::_to_copy", {t.x, DType::kF64}), "f64[2]", {0, 1});
  }
  {
    G t({1});
    check(t.run("aten::scalar_tensor", {2.5, DType::kF16}), "f16[]", {2.5});
  }
  const double inf = std::numeric_limits<double>::infinity();
  {
    G t({2, 3});  // where.self with a mask [3] broadcast over the rows, y [2, 1]
    const ValueId m = t.g.add_constant("m", make(DType::kBool, {3}, {1, 0, 1}));
    const ValueId y = t.g.add_constant("y", make(DType::kF32, {2, 1}, {-1, -2}));
    check(t.run("aten::where", {m, t.x, y}, "self"), "f32[2,3]", {0, -1, 2, 3, -2, 5});
  }
  {
    G t({2, 2});  // where.ScalarOther: -inf where the [2, 1] mask is false
    const ValueId m = t.g.add_constant("m", make(DType::kBool, {2, 1}, {1, 0}));
    check(t.run("aten::where", {m, t.x, -inf}, "ScalarOther"), "f32[2,2]", {0, 1, -inf, -inf});
  }
  {
    G t({2, 2});  // where.ScalarSelf
    const ValueId m = t.g.add_constant("m", make(DType::kBool, {1, 2}, {1, 0}));
    check(t.run("aten::where", {m, 7.0, t.x}, "ScalarSelf"), "f32[2,2]", {7, 1, 7, 3});
  }
  {
    G t({2, 2});  // masked_fill.Tensor with a 0-d -inf, mask [2, 1]
    const ValueId m = t.g.add_constant("m", make(DType::kBool, {2, 1}, {0, 1}));
    const ValueId value = t.g.add_constant("v", make(DType::kF64, {}, {-inf}));
    check(t.run("aten::masked_fill", {t.x, m, value}, "Tensor"), "f32[2,2]", {0, 1, -inf, -inf});
  }
}

}  // namespace
}  // namespace inferno::frontend
