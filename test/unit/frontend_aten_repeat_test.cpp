// The position and repetition entries of the ATen table, each checked on the reference against
// values written here from PyTorch's documentation: arange (every overload, int and float bounds,
// dtypes), tril/triu with a diagonal, stack, repeat, repeat_interleave (GQA's head repetition),
// unflatten, and masked_fill with -inf (where). x holds its flat indices, so each output element
// names the input element it came from. Inconsistent arguments are invalid input (exit 3) naming
// the node; data-dependent repeat counts are unsupported (exit 2).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::IntList;
using ir::ValueId;

AtenArg i64(int64_t v) { return AtenArg{v}; }
AtenArg ints(IntList v) { return AtenArg{std::move(v)}; }

struct G {
  ir::Graph g;
  ValueId x;
  explicit G(ir::Shape shape) : x(g.add_input("x", {DType::kF32, std::move(shape)})) {}

  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> args,
                                       std::string overload = "default") {
    AtenCall call{std::move(op), std::move(overload), std::move(args), {}, "node", {"m.py", 3}};
    return lower_aten_call(g, call);
  }
  /// The reference's value of the op's single output, x holding 0, 1, 2, ...
  ir::Tensor run(std::string op, std::vector<AtenArg> args, std::string overload = "default") {
    auto out = lower(op, std::move(args), std::move(overload));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    ir::Tensor data = ir::Tensor::zeros(g.type(x));
    for (int64_t k = 0; k < data.numel(); ++k) data.set(k, static_cast<double>(k));
    g.set_outputs({out->front()});
    auto values = reference::evaluate(g, {data});
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

TEST_CASE("aten arange: every overload, as a constant", "[frontend][aten]") {
  G t({1});
  check(t.run("aten::arange", {i64(4)}), "i64[4]", {0, 1, 2, 3});
  check(t.run("aten::arange", {i64(2), i64(5)}, "start"), "i64[3]", {2, 3, 4});
  check(t.run("aten::arange", {i64(10), i64(1), i64(-3)}, "start_step"), "i64[3]", {10, 7, 4});
  // float bounds: f32 by default, ceil((end - start) / step) elements
  check(t.run("aten::arange", {0.0, 1.0, 0.25}, "start_step"), "f32[4]", {0, 0.25, 0.5, 0.75});
  check(t.run("aten::arange", {i64(3), DType::kF16}), "f16[3]", {0, 1, 2});
  check(t.run("aten::arange", {i64(0)}), "i64[0]", {});
  // A large int64 start stays exact (past double's 2^53).
  const int64_t big = (int64_t{1} << 60) + 1;
  const ir::Tensor b = t.run("aten::arange", {i64(big), i64(big + 2)}, "start");
  REQUIRE(b.type.to_string() == "i64[2]");
  int64_t second = 0;
  std::memcpy(&second, b.data.data() + 8, 8);
  CHECK(second == big + 1);

  CHECK(t.error("aten::arange", {i64(0), i64(5), i64(0)}, "start_step").code() ==
        ErrorCode::kInvalidInput);
  CHECK(t.error("aten::arange", {i64(5), i64(0), i64(1)}, "start_step")
            .message()
            .find("inconsistent") != std::string::npos);
  CHECK(t.error("aten::arange", {std::numeric_limits<double>::infinity()}).code() ==
        ErrorCode::kInvalidInput);
  CHECK(t.error("aten::arange", {i64(int64_t{1} << 40)}).code() == ErrorCode::kUnsupported);
}

TEST_CASE("aten tril and triu with a diagonal", "[frontend][aten]") {
  // x [2, 3] = {0..5}; tril keeps column - row <= diagonal
  check(G({2, 3}).run("aten::tril", {G({2, 3}).x}), "f32[2,3]", {0, 0, 0, 3, 4, 0});
  {
    G t({2, 3});
    check(t.run("aten::tril", {t.x, i64(1)}), "f32[2,3]", {0, 1, 0, 3, 4, 5});
  }
  {
    G t({2, 3});
    check(t.run("aten::triu", {t.x}), "f32[2,3]", {0, 1, 2, 0, 4, 5});
  }
  {
    G t({2, 2, 2});  // batched over the leading dim, diagonal -1
    check(t.run("aten::triu", {t.x, i64(-1)}), "f32[2,2,2]", {0, 1, 2, 3, 4, 5, 6, 7});
    G u({2, 2, 2});
    check(u.run("aten::tril", {u.x, i64(-1)}), "f32[2,2,2]", {0, 0, 2, 0, 0, 0, 6, 0});
  }
  G v({3});
  CHECK(v.error("aten::tril", {v.x}).code() == ErrorCode::kInvalidInput);
}

TEST_CASE("aten repeat, repeat_interleave and unflatten", "[frontend][aten]") {
  {
    G t({2, 2});  // {{0, 1}, {2, 3}}.repeat(2, 1, 2): leading dim added, tiles
    check(t.run("aten::repeat", {t.x, ints({2, 1, 2})}), "f32[2,2,4]",
          {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3});
  }
  {
    G t({1, 2, 2});  // GQA: [B, kv_heads, S] heads repeated twice in place along dim 1
    check(t.run("aten::repeat_interleave", {t.x, i64(2), i64(1)}), "f32[1,4,2]",
          {0, 1, 0, 1, 2, 3, 2, 3});
  }
  {
    G t({2, 2});  // no dim: flattened, each element twice
    check(t.run("aten::repeat_interleave", {t.x, i64(2)}), "f32[8]", {0, 0, 1, 1, 2, 2, 3, 3});
  }
  {
    G t({2, 6});
    check(t.run("aten::unflatten", {t.x, i64(-1), ints({3, -1})}), "f32[2,3,2]",
          {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  }
  G t({2, 6});
  CHECK(t.error("aten::repeat", {t.x, ints({2})}).code() == ErrorCode::kInvalidInput);
  CHECK(t.error("aten::repeat_interleave", {t.x, t.x, i64(0)}).code() == ErrorCode::kUnsupported);
  CHECK(t.error("aten::repeat_interleave", {t.x, i64(2), i64(0), i64(5)}).code() ==
        ErrorCode::kInvalidInput);
  CHECK(t.error("aten::unflatten", {t.x, i64(1), ints({4, -1})}).code() ==
        ErrorCode::kInvalidInput);
  CHECK(t.error("aten::unflatten", {t.x, i64(1), ints({2, 2})}).code() == ErrorCode::kInvalidInput);
}

TEST_CASE("aten stack", "[frontend][aten]") {
  G t({2, 2});
  const ValueId y = t.g.add_constant("y", [] {
    ir::Tensor m = ir::Tensor::zeros({DType::kI64, {2, 2}});
    for (int64_t k = 0; k < 4; ++k) m.set(k, 10 + static_cast<double>(k));
    return m;
  }());
  // along the last dim, the i64 constant promoted to f32 (torch.stack promotes as cat does)
  check(t.run("aten::stack", {std::vector<ValueId>{t.x, y}, i64(-1)}), "f32[2,2,2]",
        {0, 10, 1, 11, 2, 12, 3, 13});
  G u({2, 2});
  check(u.run("aten::stack", {std::vector<ValueId>{u.x, u.x}}), "f32[2,2,2]",
        {0, 1, 2, 3, 0, 1, 2, 3});
  G v({2, 2});
  const ValueId other = v.g.add_input("z", {DType::kF32, {2, 3}});
  CHECK(v.error("aten::stack", {std::vector<ValueId>{v.x, other}}).message().find("one shape") !=
        std::string::npos);
  CHECK(v.error("aten::stack", {std::vector<ValueId>{v.x}, i64(4)}).code() ==
        ErrorCode::kInvalidInput);
}

TEST_CASE("aten embedding and index_select onto index_select", "[frontend][aten]") {
  auto ids = [](std::vector<double> v, ir::Shape shape) {
    ir::Tensor t = ir::Tensor::zeros({DType::kI64, std::move(shape)});
    for (size_t k = 0; k < v.size(); ++k) t.set(static_cast<int64_t>(k), v[k]);
    return t;
  };
  G t({3, 2});  // a table of 3 rows of 2
  const ValueId tokens = t.g.add_constant("tokens", ids({2, 0, 2, 1}, {2, 2}));
  check(t.run("aten::embedding", {t.x, tokens}), "f32[2,2,2]", {4, 5, 0, 1, 4, 5, 2, 3});
  G u({2, 3});
  const ValueId cols = u.g.add_constant("cols", ids({2, -3}, {2}));
  check(u.run("aten::index_select", {u.x, i64(1), cols}), "f32[2,2]", {2, 0, 5, 3});
  G v({3, 2});
  const ValueId bad = v.g.add_constant("bad", ids({0, 3}, {2}));
  const Status s = v.error("aten::embedding", {v.x, bad});
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("index 3 is out of range for dim 0 of size 3") != std::string::npos);
}

TEST_CASE("aten masked_fill with -inf", "[frontend][aten]") {
  G t({2, 2});
  const ValueId mask = t.g.add_constant("mask", [] {
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {1, 2}});
    m.set(1, 1);
    return m;
  }());
  const double inf = std::numeric_limits<double>::infinity();
  check(t.run("aten::masked_fill", {t.x, mask, -inf}, "Scalar"), "f32[2,2]", {0, -inf, 2, -inf});
}

}  // namespace
}  // namespace inferno::frontend
