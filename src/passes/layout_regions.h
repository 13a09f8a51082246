// Which convolutions the assign-layout pass (passes/assign_layout.h) puts channels-last under
// --layout auto: a decision per region, not per conv, because the cost of NHWC is the copies at a
// region's edges and its gain is in every convolution inside.
//
// A region is a connected group of nodes that can compute in NHWC — conv2d nodes (layout "nchw")
// and the ops that follow their operands (elementwise, cat, softmax, log_softmax, sum, mean, and
// the pools whose result another such op reads) — joined where one reads a 4-D result of another.
// Its copies are the distinct 4-D values it would have to permute: values it reads from outside
// (graph inputs included, constants not: they are permuted at compile time) and values it produces
// that something outside reads in NCHW (graph outputs included). A permutation that only moves dims
// of size 1 is a view and costs nothing, and so does a permute the model makes itself to or from
// channels-last (it cancels). A region goes NHWC when it holds more convolutions that run faster in
// NHWC (groups 1: the implicit GEMM; groups C: the depthwise kernel) than it needs copies: a ResNet
// from its stem on (one copy of the image, none at the NHWC mean) does, and so does VGG (its max
// pools keep the conv pairs in one region: the image in, the flattened features out);
// ShuffleNet's branches between channel shuffles do not. Inside a region that converts, every op
// that can follows an NHWC operand, whatever one node's copies would say: DenseNet's
// concatenations of a block's features, one of which comes from outside, stay NHWC and that one
// is copied once.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace inferno::passes {

/// Whether conv2d `node` runs on a kernel that reads NHWC faster: the implicit GEMM (groups 1)
/// or the depthwise kernel (groups C).
bool prefers_nhwc(const ir::Graph& graph, const ir::Node& node);
/// Ops that compute in NHWC when an operand is NHWC (elementwise, cat, softmax, log_softmax, sum,
/// mean, the pools): the pass's "follow" rule.
bool follows_operands(ir::OpKind op);

/// For each node of `nodes` (a graph's nodes in topological order): whether it belongs to a region
/// worth converting (see the file comment).
std::vector<bool> regions_worth_nhwc(const ir::Graph& graph, const std::vector<ir::Node>& nodes);

}  // namespace inferno::passes
