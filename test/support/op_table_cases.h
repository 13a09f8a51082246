// The op table's rows turned into node applications with concrete operands, and all of them in
// one graph (for nvcc and the GPU, where one compile for the whole table keeps nvcc's time low).
//
// Each row on each dtype its shape rule accepts is applied in these forms:
//   grid       each data operand (value or condition) on an axis of its own, so every combination
//              of values meets: unary [V], binary [V,V] (broadcast), where [2,V,V]; parameters as
//              rank-0 constants (literals in CUDA), one application per parameter set
//   tensor parameters  (rows with parameters) data and parameters as [V] tensors, the parameters
//              cycling through the parameter sets: the non-literal, non-broadcast path
//   literal    (two or more data operands) the last value operand a rank-0 constant, the others [V]
//   rank-0 input  (two or more data operands) the first value operand a rank-0 graph input
// cast is applied (grid) to every output dtype.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ir/graph.h"
#include "support/op_table.h"

namespace inferno::test {

/// One operand of an application: a graph input or a constant holding `tensor`.
struct OperandData {
  bool constant = false;
  ir::Tensor tensor;
};

/// One node to build: `op` {attrs} over the operands.
struct Application {
  std::string label;  ///< "add f16 grid", "clamp i32 literal parameters (0, 6)"
  ir::OpKind op;
  ir::Attributes attrs;
  std::vector<OperandData> operands;
};

/// The applications of `row` to operands of `dtype` (none when its shape rule refuses the dtype),
/// with data operands holding `values` and the literal form tried with each of `literals` (all
/// values representable in `dtype`).
std::vector<Application> applications(const OpRow& row, ir::DType dtype,
                                      const std::vector<double>& values,
                                      const std::vector<double>& literals);

/// Adds applications to a graph: each one's operands (graph inputs or constants; operands equal
/// to earlier ones, of the same kind, type and bytes, are shared) and its node.
class ApplicationAdder {
 public:
  explicit ApplicationAdder(ir::Graph& graph) : graph_(graph) {}
  /// The node's output; fails the current test when the node does not build.
  ir::ValueId add(const Application& application);
  /// The tensors of the graph inputs added so far, in order.
  const std::vector<ir::Tensor>& inputs() const { return inputs_; }

 private:
  ir::Graph& graph_;
  std::vector<ir::Tensor> inputs_;
  std::map<std::tuple<bool, std::string, std::string>, ir::ValueId> known_;
};

/// The flat index into an operand of shape `operand`, broadcast to `out`, that output element `i`
/// reads (NumPy broadcasting, written here independently of the reference's).
int64_t broadcast_source(const ir::Shape& operand, const ir::Shape& out, int64_t i);

/// layer_norm, rms_norm and group_norm on a floating `dtype` (none for other dtypes): random data,
/// some rows far from zero (1000 + small, where a one-pass variance cancels), random weight and
/// bias constants, in shapes that take every path of kernels/norm.cuh (a group of lanes per short
/// row, a warp per row, a block per row with the row in shared memory or read again, packed and
/// unpacked).
std::vector<Application> norm_applications(ir::DType dtype);

/// attention on a floating `dtype` (none for other dtypes): random q, k and v, in shapes that take
/// the kernels' paths (one and several query and key tiles, sequences not multiples of a tile,
/// Sq != Skv, head dims 8 .. 200 and d != dv, unaligned rows), GQA with 2 and 4 query heads per kv
/// head, causal, bool and additive masks of broadcast shapes, rows that see no key.
std::vector<Application> attention_applications(ir::DType dtype);

/// attention's value on an application of attention_applications, computed here in double from
/// its definition (softmax(scale * q @ k^T + mask) @ v; a row that sees no key gives zeros),
/// independently of the reference interpreter; not yet rounded to the output dtype.
std::vector<double> attention_definition(const Application& application);

/// Every row on every dtype it accepts, and the norm, attention and rotary (rotary_cases.h)
/// applications, in one graph, one output per application.
struct TableGraph {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;   ///< one per graph input
  std::vector<std::string> labels;  ///< one per graph output
};
/// The data operands hold table_values plus, for integers, the dtype's extremes (where PyTorch's
/// integer arithmetic wraps); each row's literal form uses one edge value, chosen by its position.
TableGraph table_graph();

}  // namespace inferno::test
