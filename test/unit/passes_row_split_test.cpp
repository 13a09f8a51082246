// The row-split analysis (passes/row_split.h) on IR text: which graphs compute their outputs row
// by row along the first axis of their split inputs, and, for those that do not, which node
// mixes the rows and why.
#include <string>
#include <vector>

#include "ir/parser.h"
#include "passes/row_split.h"
#include "support/catch.h"

namespace inferno {
namespace {

// check_row_split on `text` with its first `split` inputs split into `rows` rows and the values
// named in `row_indices` as the dim's row indices: "" when it splits, else the message and the
// node.
std::string why_not(const std::string& text, int64_t rows, size_t split = 1,
                    const std::vector<std::string>& row_indices = {}) {
  Expected<ir::Graph> graph = ir::parse_graph(text);
  REQUIRE(graph.has_value());
  std::vector<bool> flags(graph->num_user_inputs(), false);
  for (size_t i = 0; i < split; ++i) flags[i] = true;
  std::vector<ir::ValueId> indices;
  for (const std::string& name : row_indices) {
    indices.push_back(graph->find_value(name));
    REQUIRE(indices.back() != ir::kNoValue);
  }
  const Status status = passes::check_row_split(*graph, flags, indices, rows);
  if (status.is_ok()) return "";
  CHECK(status.code() == ErrorCode::kUnsupported);
  return status.message() + " @" + status.node();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("row split: an MLP, a transformer layer's attention and a CNN split by rows") {
  CHECK(why_not(R"(
graph(%x: f32[4,16], %w1: f32[32,16], %b1: f32[32], %w2: f32[8,32]) {
  %h: f32[4,32] = linear(%x, %w1, %b1)
  %g: f32[4,32] = gelu(%h)
  %y: f32[4,8] = linear(%g, %w2)
  return %y
})",
                4)
            .empty());
  // The batch merged with the sequence for the product and split again; the heads moved behind
  // the batch, never before it; a free causal mask broadcast over batch and heads.
  CHECK(why_not(R"(
graph(%x: f32[3,5,8], %w: f32[8,8], %mask: f32[1,1,5,5]) {
  %rows: f32[15,8] = reshape(%x) {shape=[15, 8]}
  %p: f32[15,8] = gemm(%rows, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %q: f32[3,5,2,4] = reshape(%p) {shape=[3, 5, 2, 4]}
  %qh: f32[3,2,5,4] = permute(%q) {dims=[0, 2, 1, 3]}
  %kt: f32[3,2,4,5] = transpose(%qh) {dim0=2, dim1=3}
  %s: f32[3,2,5,5] = matmul(%qh, %kt)
  %m: f32[3,2,5,5] = add(%s, %mask)
  %a: f32[3,2,5,5] = softmax(%m) {dim=3}
  %o: f32[3,2,5,4] = matmul(%a, %qh)
  %n: f32[3,2,5,4] = layer_norm(%o) {eps=1e-05, normalized_dims=1}
  return %n
})",
                3, 1)
            .empty());
  CHECK(why_not(R"(
graph(%x: f32[2,3,8,8], %w: f32[4,3,3,3], %b: f32[4]) {
  %c: f32[2,4,8,8] = conv2d(%x, %w, %b) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nchw", padding=[1, 1, 1, 1], residual=false, stride=[1, 1]}
  %p: f32[2,4,1,1] = adaptive_avg_pool2d(%c) {output_size=[1, 1]}
  %f: f32[2,4] = reshape(%p) {shape=[2, 4]}
  return %f
})",
                2)
            .empty());
}

TEST_CASE("row split: ops that mix rows are named with the reason") {
  CHECK(has(why_not(R"(
graph(%x: f32[4,16]) {
  %m: f32[16] = mean(%x) {dims=[0], keepdim=false}
  %y: f32[4,16] = sub(%x, %m)
  return %y
})",
                    4),
            "mean mixes the rows: it reduces over the rows @m"));
  CHECK(has(why_not(R"(
graph(%x: f32[4,16]) {
  %s: f32[4,16] = softmax(%x) {dim=0}
  return %s
})",
                    4),
            "works along the rows"));
  CHECK(has(why_not(R"(
graph(%x: f32[4,3,8]) {
  %t: f32[3,4,8] = permute(%x) {dims=[1, 0, 2]}
  %y: f32[3,4,8] = relu(%t)
  %b: f32[4,3,8] = permute(%y) {dims=[1, 0, 2]}
  return %b
})",
                    4),
            "moves the rows' axes @t"));
  // A constant with a size at the rows' axis: each run of fewer rows would read its first rows.
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %c: f32[4,16]) {
  %y: f32[4,16] = add(%x, %c)
  return %y
})",
                    4),
            "broadcast along the rows @y"));
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %i: i64[2]) {
  %y: f32[2,16] = index_select(%x, %i) {dim=0}
  return %y
})",
                    4),
            "gathers across the rows"));
  CHECK(has(why_not(R"(
graph(%x: f32[4,16]) {
  %y: f32[2,16] = slice(%x) {ends=[2, 16], starts=[0, 0], steps=[1, 1]}
  return %y
})",
                    4),
            "slices the rows' axes"));
  // The output does not have the rows: a run of fewer rows could not say what to write.
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %c: f32[8]) {
  %y: f32[8] = relu(%c)
  return %x, %y
})",
                    4),
            "output 'y' does not depend on the dim's rows alone"));
  // Rows reaching the dims a product multiplies over.
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %w: f32[8,4]) {
  %y: f32[8,16] = matmul(%w, %x)
  return %y
})",
                    4),
            "the rows reach the dims it multiplies over"));
}

// A free value expanded to the rows (Hugging Face's token types, a decoder's causal mask) is the
// same in every row: uniform, it meets split values as they do.
TEST_CASE("row split: a free value expanded to the rows splits with them") {
  // BERT's embeddings: the token types a buffer [1, S] expanded to the batch, looked up and added
  // to the words' embeddings, then normalized and projected.
  CHECK(why_not(R"(
graph(%ids: i64[4,6], %types: i64[1,6], %words: f32[50,8], %type_table: f32[2,8], %pos: f32[1,6,8], %g: f32[8], %b: f32[8], %w: f32[8,8]) {
  %t: i64[4,6] = expand(%types) {shape=[4, 6]}
  %we: f32[4,6,8] = index_select(%words, %ids) {dim=0}
  %te: f32[4,6,8] = index_select(%type_table, %t) {dim=0}
  %e: f32[4,6,8] = add(%we, %te)
  %p: f32[4,6,8] = add(%e, %pos)
  %n: f32[4,6,8] = layer_norm(%p, %g, %b) {eps=1e-12, normalized_dims=1}
  %y: f32[4,6,8] = linear(%n, %w)
  return %y
})",
                4)
            .empty());
  // GPT-2's causal mask [1, 1, q, q] expanded to the batch and joined with the padding mask of a
  // split attention_mask, the attention's q, k and v split.
  CHECK(why_not(R"(
graph(%x: f32[2,2,5,4], %am: bool[2,5], %causal: bool[1,1,5,5]) {
  %c: bool[2,1,5,5] = expand(%causal) {shape=[2, 1, 5, 5]}
  %pad: bool[2,1,1,5] = reshape(%am) {shape=[2, 1, 1, 5]}
  %m: bool[2,1,5,5] = logical_and(%c, %pad)
  %o: f32[2,2,5,4] = attention(%x, %x, %x, %m) {causal=false, kv_groups=1, mask="bool", scale=0.5}
  return %o
})",
                2, 2)
            .empty());
  // The expanded mask alone as the attention's mask.
  CHECK(why_not(R"(
graph(%x: f32[4,2,5,4], %causal: f32[1,1,5,5]) {
  %c: f32[4,1,5,5] = expand(%causal) {shape=[4, 1, 5, 5]}
  %o: f32[4,2,5,4] = attention(%x, %x, %x, %c) {causal=false, kv_groups=1, mask="additive", scale=0.5}
  return %o
})",
                4)
            .empty());
}

TEST_CASE("row split: what only looks uniform, or counts the rows, is refused") {
  // A free input with the rows' size that is not split: its rows are data, not copies.
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %c: f32[4,16]) {
  %e: f32[4,16] = expand(%c) {shape=[4, 16]}
  %y: f32[4,16] = add(%x, %e)
  return %y
})",
                    4),
            "add mixes the rows: an operand is broadcast along the rows @y"));
  // A reduction over the rows of an expanded value counts the rows (a run of 8 would add 8).
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %c: f32[1,16]) {
  %e: f32[4,16] = expand(%c) {shape=[4, 16]}
  %s: f32[16] = sum(%e) {dims=[0], keepdim=false}
  %y: f32[4,16] = add(%x, %s)
  return %y
})",
                    4),
            "sum mixes the rows: it reduces over the rows @s"));
  // An expand of a later axis that keeps the free value's own rows.
  CHECK(has(why_not(R"(
graph(%x: f32[4,3,16], %c: f32[4,1,16]) {
  %e: f32[4,3,16] = expand(%c) {shape=[4, 3, 16]}
  %y: f32[4,3,16] = mul(%x, %e)
  return %y
})",
                    4),
            "mul mixes the rows: an operand is broadcast along the rows @y"));
  // An expanded value with its rows at a later axis of the result: a run of fewer rows would make
  // each row shorter.
  CHECK(has(why_not(R"(
graph(%x: f32[4,1,16], %c: f32[1,16]) {
  %e: f32[4,16] = expand(%c) {shape=[4, 16]}
  %y: f32[4,4,16] = add(%x, %e)
  return %y
})",
                    4),
            "add mixes the rows: an operand is broadcast along the rows @y"));
  // A uniform output does not come from the inputs: nothing ties its rows to the dim.
  CHECK(has(why_not(R"(
graph(%x: f32[4,16], %c: f32[1,16]) {
  %e: f32[4,16] = expand(%c) {shape=[4, 16]}
  %y: f32[4,16] = relu(%e)
  return %x, %y
})",
                    4),
            "output 'y' does not depend on the split inputs"));
  // A norm's weight of ones expanded from a scalar to a multiple of the rows is read as a weight.
  CHECK(why_not(R"(
graph(%x: f32[4,8], %one: f32[1], %b: f32[8], %w: f32[8,8]) {
  %g: f32[8] = expand(%one) {shape=[8]}
  %n: f32[4,8] = layer_norm(%x, %g, %b) {eps=1e-05, normalized_dims=1}
  %y: f32[4,8] = linear(%n, %w, %g)
  return %y
})",
                4)
            .empty());
  // A mask expanded over heads that happen to number the rows stays free, broadcast as before.
  CHECK(why_not(R"(
graph(%x: f32[4,4,5,5], %mask: f32[1,1,5,5]) {
  %m: f32[1,4,5,5] = expand(%mask) {shape=[1, 4, 5, 5]}
  %y: f32[4,4,5,5] = add(%x, %m)
  return %y
})",
                4)
            .empty());
}

// A row index (arange of the dim's size, frontend::DynamicDim::row_indices) holds i in row i: it
// may pick each row's own row of a split value, nothing else.
TEST_CASE("row split: a row index picks each row's own row, and is refused elsewhere") {
  // Views of it, unused (what the frontend leaves of x[arange(n)[:, None], j]), and a gather of a
  // split padding mask's rows by it.
  CHECK(why_not(R"(
graph(%x: f32[4,7], %am: f32[4,7]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %r1: i64[4,1] = reshape(%r) {shape=[4, 1]}
  %r3: i64[4,1,1,1] = reshape(%r1) {shape=[4, 1, 1, 1]}
  %re: i64[4,3] = expand(%r1) {shape=[4, 3]}
  %m: f32[4,1,7] = index_select(%am, %r1) {dim=0}
  %m2: f32[4,7] = reshape(%m) {shape=[4, 7]}
  %y: f32[4,7] = add(%x, %m2)
  return %y
})",
                4, 2, {"r"})
            .empty());
  const std::string arithmetic = R"(
graph(%x: f32[4,7]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %two: i64[] = constant [2]
  %s: i64[4] = mul(%r, %two)
  %g: f32[4,7] = index_select(%x, %s) {dim=0}
  return %g
})";
  CHECK(
      has(why_not(arithmetic, 4, 1, {"r"}),
          "mul uses the rows' index (an arange of the dim's size) other than to pick each row's "
          "own row of a split value, so its result would differ between a run and its pieces @s"));
  // Without the row index the same graph is a gather by a free index across the rows.
  CHECK(has(why_not(arithmetic, 4, 1), "index_select mixes the rows: it gathers across the rows"));
  // As the index of a later axis, of a free table, or expanded in front of its rows.
  CHECK(
      has(why_not(R"(
graph(%x: f32[4,4]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %g: f32[4,4] = index_select(%x, %r) {dim=1}
  return %g
})",
                  4, 1, {"r"}),
          "index_select uses the rows' index (an arange of the dim's size) other than to pick each "
          "row's "
          "own row of a split value, so its result would differ between a run and its pieces @g"));
  CHECK(
      has(why_not(R"(
graph(%x: f32[4,7], %table: f32[4,7]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %t: f32[4,7] = index_select(%table, %r) {dim=0}
  %y: f32[4,7] = add(%x, %t)
  return %y
})",
                  4, 1, {"r"}),
          "index_select uses the rows' index (an arange of the dim's size) other than to pick each "
          "row's "
          "own row of a split value, so its result would differ between a run and its pieces @t"));
  CHECK(
      has(why_not(R"(
graph(%x: f32[4,4]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %e: i64[4,4] = expand(%r) {shape=[4, 4]}
  %g: f32[4,4,4] = index_select(%x, %e) {dim=0}
  return %g
})",
                  4, 1, {"r"}),
          "expand uses the rows' index (an arange of the dim's size) other than to pick each row's "
          "own row of a split value, so its result would differ between a run and its pieces @e"));
  // Returned: its rows are numbers, not the inputs' rows.
  CHECK(has(why_not(R"(
graph(%x: f32[4,7]) {
  %r: i64[4] = constant [0, 1, 2, 3]
  %r1: i64[4,1] = reshape(%r) {shape=[4, 1]}
  return %x, %r1
})",
                    4, 1, {"r"}),
            "output 'r1' is the rows' index (an arange of the dim's size)"));
}

}  // namespace inferno
