// The slicing entries of the ATen table: slice, narrow and select take one piece, chunk, split,
// split_with_sizes and unbind a list of them, with PyTorch's piece sizes and bound clamping. Each
// piece is checked on the reference: with x holding its flat indices, piece element k must hold
// the index of the element PyTorch's piece has there. Inconsistent arguments are invalid input
// (exit 3) naming the op and node; too many pieces are unsupported (exit 2).
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
const AtenArg kNone = NoneArg{};
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// A graph with one input x of `shape` holding 0, 1, 2, ... (its flat indices).
struct G {
  ir::Graph g;
  ValueId x;
  explicit G(ir::Shape shape) : x(g.add_input("x", {DType::kF32, std::move(shape)})) {}

  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> rest,
                                       std::string overload = "") {
    std::vector<AtenArg> args = {x};
    args.insert(args.end(), rest.begin(), rest.end());
    AtenCall call{std::move(op), std::move(overload), std::move(args), {}, "piece", {"m.py", 7}};
    return lower_aten_call(g, call);
  }
  std::vector<ValueId> ok(std::string op, std::vector<AtenArg> rest, std::string overload = "") {
    auto out = lower(op, std::move(rest), std::move(overload));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    return *out;
  }
  /// The reference's values of `outputs`, x being its flat indices.
  std::vector<ir::Tensor> run(const std::vector<ValueId>& outputs) {
    ir::Tensor data = ir::Tensor::zeros(g.type(x));
    for (int64_t k = 0; k < data.numel(); ++k) data.set(k, static_cast<double>(k));
    g.set_outputs(outputs);
    auto out = reference::evaluate(g, {data});
    REQUIRE(out.has_value());
    return *out;
  }
};

/// The flat indices of x[..., start : start + step * n : step, ...] in dim `dim` of `shape`.
std::vector<double> piece_indices(const ir::Shape& shape, size_t dim, int64_t start, int64_t step,
                                  int64_t n) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t i = 0; i < inner; ++i)
        out.push_back(static_cast<double>((o * shape[dim] + start + k * step) * inner + i));
    }
  }
  return out;
}

std::vector<double> values(const ir::Tensor& t) {
  std::vector<double> v;
  for (int64_t k = 0; k < t.numel(); ++k) v.push_back(t.get(k));
  return v;
}

void refused(const Expected<std::vector<ValueId>>& out, ErrorCode code, const std::string& needle) {
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == code);
  CHECK(out.status().node() == "piece");
  CHECK(out.status().message().find(needle) != std::string::npos);
}

TEST_CASE("aten slice clamps its bounds as Python does", "[frontend][aten]") {
  const ir::Shape shape = {3, 8, 2};
  G t(shape);
  const std::vector<ValueId> y = {
      t.ok("aten::slice", {i64(1), i64(-6), i64(kMax), i64(3)}, "Tensor")[0],  // 2, 5
      t.ok("aten::slice", {i64(0), kNone, i64(-1)})[0],                        // rows 0, 1
      t.ok("aten::slice", {i64(1), i64(-100), i64(3)})[0],                     // 0, 1, 2
      t.ok("aten::slice", {i64(1), i64(6), i64(2)})[0],                        // end < start
      t.ok("aten::slice", {i64(-2), i64(9), i64(20)})[0],                      // past the end
      t.ok("aten::slice_copy", {i64(2), i64(1)})[0]};
  const auto out = t.run(y);
  CHECK(t.g.type(y[0]).shape == ir::Shape{3, 2, 2});
  CHECK(values(out[0]) == piece_indices(shape, 1, 2, 3, 2));
  CHECK(values(out[1]) == piece_indices(shape, 0, 0, 1, 2));
  CHECK(values(out[2]) == piece_indices(shape, 1, 0, 1, 3));
  CHECK(t.g.type(y[3]).shape == ir::Shape{3, 0, 2});
  CHECK(t.g.type(y[4]).shape == ir::Shape{3, 0, 2});
  CHECK(values(out[5]) == piece_indices(shape, 2, 1, 1, 1));
  // All of x is x itself: no node.
  const size_t nodes = t.g.nodes().size();
  CHECK(t.ok("aten::slice", {i64(0), i64(0), i64(kMax), i64(1)})[0] == t.x);
  CHECK(t.g.nodes().size() == nodes);
}

TEST_CASE("aten narrow and select", "[frontend][aten]") {
  const ir::Shape shape = {4, 5};
  G t(shape);
  const std::vector<ValueId> y = {t.ok("aten::narrow", {i64(1), i64(-3), i64(2)})[0],
                                  t.ok("aten::select", {i64(0), i64(-1)}, "int")[0],
                                  t.ok("aten::select", {i64(1), i64(2)})[0]};
  const auto out = t.run(y);
  CHECK(values(out[0]) == piece_indices(shape, 1, 2, 1, 2));
  CHECK(t.g.type(y[1]).shape == ir::Shape{5});
  CHECK(values(out[1]) == piece_indices(shape, 0, 3, 1, 1));
  CHECK(t.g.type(y[2]).shape == ir::Shape{4});
  CHECK(values(out[2]) == piece_indices(shape, 1, 2, 1, 1));
}

TEST_CASE("aten chunk, split, split_with_sizes and unbind give PyTorch's pieces",
          "[frontend][aten]") {
  const ir::Shape shape = {2, 5, 3};
  auto check_pieces = [&](const std::string& op, std::vector<AtenArg> args,
                          const std::vector<int64_t>& sizes, const std::string& overload = "") {
    INFO(op);
    G t(shape);
    const std::vector<ValueId> y = t.ok(op, std::move(args), overload);
    REQUIRE(y.size() == sizes.size());
    const auto out = t.run(y);
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      INFO("piece " << i);
      CHECK(t.g.type(y[i]).shape == ir::Shape{2, sizes[i], 3});
      CHECK(values(out[i]) == piece_indices(shape, 1, start, 1, sizes[i]));
      start += sizes[i];
    }
  };
  check_pieces("aten::chunk", {i64(3), i64(1)}, {2, 2, 1});
  check_pieces("aten::chunk", {i64(4), i64(-2)}, {2, 2, 1});  // fewer pieces than asked
  check_pieces("aten::chunk", {i64(5), i64(1)}, {1, 1, 1, 1, 1});
  check_pieces("aten::chunk", {i64(1), i64(1)}, {5});
  check_pieces("aten::split", {i64(2), i64(1)}, {2, 2, 1}, "Tensor");
  check_pieces("aten::split", {i64(7), i64(1)}, {5});
  check_pieces("aten::split", {ints({1, 4}), i64(1)}, {1, 4}, "sizes");
  check_pieces("aten::split", {ints({3, 0, 2}), i64(1)}, {3, 0, 2});  // no overload: the list
  check_pieces("aten::split_with_sizes", {ints({1, 1, 3}), i64(1)}, {1, 1, 3});
  check_pieces("aten::unsafe_chunk", {i64(2), i64(1)}, {3, 2});

  G t(shape);
  const std::vector<ValueId> rows = t.ok("aten::unbind", {i64(1)});
  REQUIRE(rows.size() == 5);
  const auto out = t.run(rows);
  for (int64_t i = 0; i < 5; ++i) {
    CHECK(t.g.type(rows[static_cast<size_t>(i)]).shape == ir::Shape{2, 3});
    CHECK(values(out[static_cast<size_t>(i)]) == piece_indices(shape, 1, i, 1, 1));
  }
}

TEST_CASE("an empty dim: chunk gives `chunks` empty pieces, split one", "[frontend][aten]") {
  G t({2, 0});
  const std::vector<ValueId> chunks = t.ok("aten::chunk", {i64(3), i64(1)});
  REQUIRE(chunks.size() == 3);
  for (ValueId v : chunks) CHECK(t.g.type(v).shape == ir::Shape{2, 0});
  CHECK(t.ok("aten::split", {i64(2), i64(1)}).size() == 1);
  CHECK(t.ok("aten::split", {i64(0), i64(1)}).size() == 1);
}

TEST_CASE("aten slice_scatter and select_scatter write a slice back", "[frontend][aten]") {
  G t({3, 4});
  // src holds -1, -2, ...: x[:, 1::2] = src[3, 2], and x[-1] = src[4].
  const auto negatives = [&](ir::Shape shape) {
    ir::Tensor v = ir::Tensor::zeros({DType::kF32, std::move(shape)});
    for (int64_t k = 0; k < v.numel(); ++k) v.set(k, -1.0 - static_cast<double>(k));
    return t.g.add_constant("src" + std::to_string(v.numel()), std::move(v));
  };
  const ValueId columns =
      t.ok("aten::slice_scatter", {negatives({3, 2}), i64(1), i64(1), kNone, i64(2)}).at(0);
  const ValueId row = t.ok("aten::select_scatter", {negatives({4}), i64(0), i64(-1)}).at(0);
  const ValueId empty = t.ok("aten::slice_scatter", {negatives({3, 0}), i64(1), i64(5)}).at(0);
  CHECK(empty == t.x);  // start 5 clamps to 4: nothing is written
  const std::vector<ir::Tensor> out = t.run({columns, row});
  const std::vector<double> want_columns = {0, -1, 2, -2, 4, -3, 6, -4, 8, -5, 10, -6};
  const std::vector<double> want_row = {0, 1, 2, 3, 4, 5, 6, 7, -1, -2, -3, -4};
  for (int64_t k = 0; k < 12; ++k) {
    INFO(k);
    CHECK(out[0].get(k) == want_columns[static_cast<size_t>(k)]);
    CHECK(out[1].get(k) == want_row[static_cast<size_t>(k)]);
  }
  auto wrong = t.lower("aten::select_scatter", {negatives({3}), i64(0), i64(3)});
  REQUIRE(!wrong);
  CHECK(wrong.status().message().find("index 3 is out of range for dim 0 of size 3") !=
        std::string::npos);
  wrong = t.lower("aten::select_scatter", {negatives({3}), i64(0), i64(0)});
  REQUIRE(!wrong);
  CHECK(wrong.status().message().find("is not self's shape without dim 0") != std::string::npos);
}

TEST_CASE("aten roll wraps each dim around, or the flattened tensor", "[frontend][aten]") {
  G t({2, 3});
  const ValueId both = t.ok("aten::roll", {ints({1, -1}), ints({0, 1})}).at(0);
  const ValueId flat = t.ok("aten::roll", {ints({2}), ints({})}).at(0);
  const ValueId none = t.ok("aten::roll", {ints({6}), ints({1})}).at(0);
  CHECK(none == t.x);  // a whole turn
  const std::vector<ir::Tensor> out = t.run({both, flat});
  // torch.roll(arange(6).view(2, 3), (1, -1), (0, 1)) and torch.roll(..., 2).
  const std::vector<double> want_both = {4, 5, 3, 1, 2, 0}, want_flat = {4, 5, 0, 1, 2, 3};
  for (int64_t k = 0; k < 6; ++k) {
    INFO(k);
    CHECK(out[0].get(k) == want_both[static_cast<size_t>(k)]);
    CHECK(out[1].get(k) == want_flat[static_cast<size_t>(k)]);
  }
  CHECK(!t.lower("aten::roll", {ints({1, 2}), ints({0})}));
  CHECK(!t.lower("aten::roll", {ints({1, 2}), ints({})}));
}

TEST_CASE("slicing refusals name the op and the node", "[frontend][aten]") {
  G t({4, 5});
  const ErrorCode invalid = ErrorCode::kInvalidInput;
  refused(t.lower("aten::slice", {i64(1), i64(0), i64(5), i64(0)}), invalid, "step");
  refused(t.lower("aten::slice", {i64(2), i64(0), i64(5), i64(1)}), invalid, "aten::slice");
  refused(t.lower("aten::narrow", {i64(1), i64(3), i64(3)}), invalid, "do not fit");
  refused(t.lower("aten::narrow", {i64(1), i64(-6), i64(1)}), invalid, "do not fit");
  refused(t.lower("aten::select", {i64(0), i64(4)}), invalid, "out of range");
  refused(t.lower("aten::select", {i64(0), i64(-5)}), invalid, "out of range");
  refused(t.lower("aten::chunk", {i64(0), i64(1)}), invalid, "chunks must be positive");
  refused(t.lower("aten::split", {i64(0), i64(1)}), invalid, "does not split");
  refused(t.lower("aten::split", {i64(-2), i64(1)}), invalid, "does not split");
  refused(t.lower("aten::split_with_sizes", {ints({2, 2}), i64(1)}), invalid, "add up");
  refused(t.lower("aten::split_with_sizes", {ints({6, -1}), i64(1)}), invalid, "add up");
  refused(t.lower("aten::split", {ints({kMax, kMax, 2}), i64(1)}, "sizes"), invalid, "add up");

  G scalar({});
  refused(scalar.lower("aten::chunk", {i64(2), i64(0)}), invalid, "0-dim");
  refused(scalar.lower("aten::select", {i64(0), i64(0)}), invalid, "0-dim");

  G wide({100000});
  refused(wide.lower("aten::unbind", {i64(0)}), ErrorCode::kUnsupported, "pieces");
  refused(wide.lower("aten::split", {i64(1), i64(0)}), ErrorCode::kUnsupported, "pieces");
  G empty({0});
  refused(empty.lower("aten::chunk", {i64(100000), i64(0)}), ErrorCode::kUnsupported, "pieces");
}

}  // namespace
}  // namespace inferno::frontend
