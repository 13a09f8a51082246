// Channels-last activations for convolutions: the layout the implicit-GEMM and depthwise kernels
// read fastest (kernels/conv_igemm.cuh: a pixel's channels are one 16-byte load; a 1x1 conv is a
// plain GEMM over [pixels, C], passes/conv_as_gemm.h), with the conversions at the graph's
// boundaries and around the ops that need NCHW.
//
// One forward walk over the nodes (layout_forms.h keeps each value's NCHW and NHWC forms, makes a
// conversion only when a consumer reads that form, and makes it once):
//  - conv2d (layout "nchw") goes NHWC when the policy says so: with --layout nhwc always; with
//    auto when groups is 1 or C (implicit GEMM, depthwise) and its region is worth it (more such
//    convs than copies at the region's edges: passes/layout_regions.h), so a ResNet body converts
//    once while a lone conv or a VGG pair between max pools does not; a grouped conv when its
//    input is NHWC already (the direct kernel runs either layout; following it saves a copy).
//    x, the residual and the gate are read in NHWC (a gate [N, C, 1, 1] is a reshape), the
//    constant weight becomes a new OHWI constant.
//  - an elementwise node with a 4-D result goes NHWC when an operand is in NHWC already and
//    either it belongs to a region that converts, or the operands it would have to copy to NHWC
//    hold no more elements than those it would have to copy back to NCHW; a broadcast operand is
//    permuted as a 4-D one with leading 1s (a constant [C, 1, 1] becomes a constant [C], a [N, C,
//    1, 1] value a reshape), so broadcasting and type promotion stay as they were.
//  - sum and mean (their dims renumbered; without keepdim only when the remaining dims keep
//    their order), softmax, log_softmax, cat and the pools (layout "nhwc") follow an input that
//    is in NHWC already under the same rule.
//  - permute(v, [0, 2, 3, 1]) of a value with an NHWC form is that form, and any other permute of
//    a pending value is composed with its conversion: inverse pairs cancel.
//  - a reshape of a pending value whose conversion would be a view (a flatten of an NHWC
//    [N, 1, 1, C] mean) reads the NHWC form; everything else (resizing, other reshapes, norms,
//    ...) reads NCHW.
//
// Requires: a verified graph, canonical (permute chains merged) and with constants folded;
// after fuse-epilogues, so a conv's residual and gate are its operands and move with it.
// Guarantees: the outputs keep their NCHW types and their values bit for bit on the reference
// interpreter (permutations move elements; every computation keeps its operands). No permute of
// a permute, no permute or reshape of a constant, no identity permute or reshape, and a value is
// converted at most once per direction; the result is canonical (the pass ends with canonicalize's
// rules, which the moved values can meet anew). With --layout nchw (PassOptions) it changes
// nothing.
// Running it again changes nothing: a conv2d or pool with layout "nhwc" and the conversions it
// made are recognized (permutes by [0, 2, 3, 1] and [0, 3, 1, 2] are NHWC forms).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status assign_layout(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
