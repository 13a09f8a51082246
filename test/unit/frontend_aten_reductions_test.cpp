// The running-sum, difference and extremum entries of the ATen table on the reference, against
// values written here from PyTorch's documentation: cumsum (floating, a bool mask counted in i64,
// a dtype argument), diff (prepend as transformers builds packed-sequence ids, order 2, bool as
// xor), amax/amin and max()/min() of a whole tensor, max.dim/min.dim (values and indices, the first
// of equal extrema, NaN winning), argmax/argmin over one or all dims, and exact int64 extrema past
// 2^53. Refusals: an extremum over an empty dim (exit 3).
#include <cmath>
#include <cstring>
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

const double kNaN = std::numeric_limits<double>::quiet_NaN();
AtenArg i64(int64_t v) { return AtenArg{v}; }

ir::Tensor make(DType dtype, ir::Shape shape, const std::vector<double>& v) {
  ir::Tensor t = ir::Tensor::zeros({dtype, std::move(shape)});
  for (size_t k = 0; k < v.size(); ++k) t.set(static_cast<int64_t>(k), v[k]);
  return t;
}

// One graph input `x` with its value; lowers one call and evaluates its outputs.
struct G {
  ir::Graph g;
  ir::Tensor value;
  ValueId x;
  explicit G(ir::Tensor v) : value(std::move(v)), x(g.add_input("x", value.type)) {}

  std::vector<ir::Tensor> run(std::string op, std::vector<AtenArg> args, std::string overload) {
    AtenCall call{std::move(op), std::move(overload), std::move(args), {}, "node", {"m.py", 3}};
    auto out = lower_aten_call(g, call);
    INFO(call.op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    g.set_outputs(*out);
    auto values = reference::evaluate(g, {value});
    INFO((values ? std::string() : values.status().to_string()));
    REQUIRE(values.has_value());
    return std::move(*values);
  }
  ir::Tensor one(std::string op, std::vector<AtenArg> args, std::string overload = "default") {
    std::vector<ir::Tensor> out = run(std::move(op), std::move(args), std::move(overload));
    REQUIRE(out.size() == 1);
    return std::move(out[0]);
  }
};

void check(const ir::Tensor& got, const std::string& type, const std::vector<double>& want) {
  CHECK(got.type.to_string() == type);
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    const double v = got.get(static_cast<int64_t>(i));
    CHECK((v == want[i] || (std::isnan(v) && std::isnan(want[i]))));
  }
}

}  // namespace

TEST_CASE("aten cumsum", "[frontend][aten][reduction]") {
  const ir::Tensor x = make(DType::kF32, {2, 3}, {0, 1, 2, 3, 4, 5});
  G rows(x);
  check(rows.one("aten::cumsum", {rows.x, i64(1)}), "f32[2,3]", {0, 1, 3, 3, 7, 12});
  G t(x);
  check(t.one("aten::cumsum", {t.x, i64(-2)}), "f32[2,3]", {0, 1, 2, 3, 5, 7});
  G d(x);
  AtenCall call{"aten::cumsum", "default", {d.x, i64(1)}, {{"dtype", DType::kF64}}, "n", {}};
  auto out = lower_aten_call(d.g, call);
  REQUIRE(out.has_value());
  CHECK(d.g.type(out->front()).to_string() == "f64[2,3]");
  // A bool mask counts in i64 (transformers' packed-sequence ids).
  G m(make(DType::kBool, {4}, {1, 0, 1, 1}));
  check(m.one("aten::cumsum", {m.x, i64(0)}), "i64[4]", {1, 1, 2, 3});
}

TEST_CASE("aten diff", "[frontend][aten][reduction]") {
  G t(make(DType::kF32, {2, 3}, {0, 1, 3, 3, 7, 12}));
  check(t.one("aten::diff", {t.x}), "f32[2,2]", {1, 2, 4, 5});
  G second(make(DType::kF32, {2, 3}, {0, 1, 3, 3, 7, 12}));
  check(second.one("aten::diff", {second.x, i64(2), i64(1)}), "f32[2,1]", {1, 1});
  G along0(make(DType::kF32, {2, 3}, {0, 1, 3, 3, 7, 12}));
  check(along0.one("aten::diff", {along0.x, i64(1), i64(0)}), "f32[1,3]", {3, 6, 9});
  // diff(ids, prepend=ids[:, :1] - 1): every step of an arange is 1.
  G ids(make(DType::kI64, {1, 4}, {0, 1, 2, 0}));
  const ValueId first = ids.g.add_constant("first", make(DType::kI64, {1, 1}, {-1}));
  check(ids.one("aten::diff", {ids.x, i64(1), i64(-1), first}), "i64[1,4]", {1, 1, 1, -2});
  G flags(make(DType::kBool, {4}, {1, 0, 0, 1}));
  check(flags.one("aten::diff", {flags.x}), "bool[3]", {1, 0, 1});
  // An order past the dim's size leaves it empty.
  G many(make(DType::kF32, {3}, {1, 2, 4}));
  check(many.one("aten::diff", {many.x, i64(5)}), "f32[0]", {});
}

TEST_CASE("aten max, min, amax, amin, argmax and argmin", "[frontend][aten][reduction]") {
  const ir::Tensor x = make(DType::kF32, {2, 3}, {1, kNaN, 3, 5, 5, -2});
  G amax(x);
  check(amax.one("aten::amax", {amax.x, std::vector<int64_t>{1}}), "f32[2]", {kNaN, 5});
  G amin(x);
  check(amin.one("aten::amin", {amin.x, std::vector<int64_t>{-1}, true}), "f32[2,1]", {kNaN, -2});
  G row(make(DType::kF32, {2, 3}, {1, 4, 3, 5, 5, -2}));
  check(row.one("aten::amax", {row.x, std::vector<int64_t>{0}}), "f32[3]", {5, 5, 3});
  G whole(x);
  check(whole.one("aten::max", {whole.x}), "f32[]", {kNaN});
  G whole_min(make(DType::kF32, {2, 2}, {3, -1, 0, 2}));
  check(whole_min.one("aten::min", {whole_min.x}), "f32[]", {-1});

  // max.dim: values and the first index of the extremum; a NaN wins.
  G by_dim(x);
  std::vector<ir::Tensor> r = by_dim.run("aten::max", {by_dim.x, i64(1)}, "dim");
  REQUIRE(r.size() == 2);
  check(r[0], "f32[2]", {kNaN, 5});
  check(r[1], "i64[2]", {1, 0});
  G by_dim_min(x);
  r = by_dim_min.run("aten::min", {by_dim_min.x, i64(1), true}, "dim");
  check(r[0], "f32[2,1]", {kNaN, -2});
  check(r[1], "i64[2,1]", {1, 2});

  G arg_all(make(DType::kF32, {2, 3}, {1, 7, 3, 7, 5, -2}));
  check(arg_all.one("aten::argmax", {arg_all.x}), "i64[]", {1});
  G arg_keep(make(DType::kF32, {2, 3}, {1, 7, 3, 7, 5, -2}));
  check(arg_keep.one("aten::argmin", {arg_keep.x, AtenArg{NoneArg{}}, true}), "i64[1,1]", {5});
  G arg_dim(x);
  check(arg_dim.one("aten::argmin", {arg_dim.x, i64(0)}), "i64[3]", {0, 0, 1});
  G arg_nan(x);
  check(arg_nan.one("aten::argmax", {arg_nan.x}), "i64[]", {1});

  // int64 compares exactly: 2^53 + 1 beats 2^53 (equal in double).
  ir::Tensor big = ir::Tensor::zeros({DType::kI64, {3}});
  const int64_t values[] = {int64_t{1} << 53, (int64_t{1} << 53) + 1, -5};
  std::memcpy(big.data.data(), values, sizeof values);
  G ints(big);
  const ir::Tensor top = ints.one("aten::amax", {ints.x, std::vector<int64_t>{}});
  int64_t got = 0;
  std::memcpy(&got, top.data.data(), sizeof got);
  CHECK(got == (int64_t{1} << 53) + 1);
  G int_arg(big);
  check(int_arg.one("aten::argmax", {int_arg.x, i64(0)}), "i64[]", {1});

  G empty(ir::Tensor::zeros({DType::kF32, {2, 0}}));
  AtenCall call{"aten::amax", "default", {empty.x, std::vector<int64_t>{1}}, {}, "node", {}};
  auto refused = lower_aten_call(empty.g, call);
  REQUIRE(!refused);
  CHECK(refused.status().code() == ErrorCode::kInvalidInput);
}

}  // namespace inferno::frontend
