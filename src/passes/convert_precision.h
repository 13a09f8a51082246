// convert-precision: with `--precision fp16` or `bf16`, an f32 model computes in the 16-bit type
// (tensor-core GEMMs, convolutions and attention, half the memory traffic), with f32 kept where
// the numerics need it. With fp32 or tf32 (PassOptions::precision) the pass changes nothing.
//
// Requires: a verified graph; in the default pipeline after fold-batch-norm (a BatchNorm folds into
// its conv's weights in f32, rounded once to 16 bits here) and after the pattern recognizers
// (gelu, rms_norm, attention: it sees the ops whose kernels accumulate in f32), before the fusions
// (fused bodies and epilogues come out in their final types; the boundary casts fuse into the
// first and last kernels).
//
// Rules, for each node in order (T = f16 or bf16, "f32 form" / "T form" of an f32 value: the
// value itself, or a cast of it made once and shared by every reader):
//  - A node that reads and writes no f32 value (integer, bool and already 16-bit computations) is
//    left as it is. Integer and bool values are never touched.
//  - By default a node runs in T: its f32 operands are read in their T form and its f32 results
//    become T (same value names; `--emit ir` shows the dtypes). Every kernel that sums runs its
//    accumulation in f32 for T operands: GEMMs (cuBLASLt, CUBLAS_COMPUTE_32F), convolutions,
//    attention (f32 softmax statistics and accumulators), layer/rms/group norm statistics, mean
//    (kernels/*.cuh, acc_t<T> = float); the reference interpreter likewise accumulates in double
//    and rounds each result to its dtype.
//  - f32 islands: the node reads the f32 forms of its operands and its results stay f32:
//      * softmax and log_softmax (their inputs are logits, which can exceed f16's range: a row
//        with logits of 70000 read in f32 does not overflow);
//      * for f16 only (bf16 has f32's exponent range): exp, expm1, pow and sum, whose results can
//        exceed f16's 65504, and every elementwise op, reduction or norm that reads such a
//        "wide" value (and rotary, written out in elementwise ops); their results are wide in
//        turn, except after log, log1p, sqrt, rsqrt, tanh, sigmoid, erf, sin, cos and the
//        norms, which bring values back into range;
//      * what the model itself computes in f32 on purpose: the result of an explicit cast from
//        f16/bf16 to f32 and every node that reads it (transitively), up to the model's cast back
//        down (kept as it is, reading the f32 value);
//      * angles: an integer value (positions) cast to f32 on its way to a sin or cos (through
//        elementwise and layout ops only: a rotary or sinusoidal embedding), and those
//        elementwise and layout ops that read it and lead on to the sin or cos; the sin or cos
//        itself computes in f32, and its result (in [-1, 1]) is read in T. Why: an angle of 1000
//        in f16 is off by up to 0.25 (its spacing is 0.5), and an f16 inv_freq by 2.4e-4 of it;
//        in f32 the rotary embedding stays accurate over thousands of positions;
//      * fused_elementwise nodes (when the pass is run after fusion by --passes) and any node whose
//        shape rule does not give the same types in T (mixed f16/bf16 operands, say).
//  - Graph inputs and outputs keep the model's dtypes: an f32 input is cast to T where a T node
//    reads it, and an output computed in T is cast back to f32 right after the node that computes
//    it (that cast defines the output's value, so its name stays); fuse-elementwise and
//    fuse-epilogues put these casts into neighbouring kernels where they can.
//    With PassOptions::io_precision kCompute (--io-precision compute) there are no boundary
//    casts: each f32 graph input becomes T itself (an f32 island reading it gets a cast up, named
//    <input>_f32), and each f32 output is its T value; an output computed in an f32 island is
//    cast down, the cast taking the output's name. Integer and bool inputs and outputs, and those
//    already 16-bit, are unchanged. A graph state (ir::StateInfo: an LLM's KV cache) is always
//    converted this way, whatever io_precision says: the caller never sees it, and its value and
//    update (and initial value) in T halve the bytes every step reads.
//  - A constant read in T becomes a new constant of type T (converted once here, the f32 one
//    dropped when nothing else reads it, so the weights blob halves); finite values outside T's
//    range saturate to T's largest finite value (f16 65504, bf16 3.39e38) instead of becoming
//    infinite (masks built from torch.finfo(torch.float32).min stay finite, so (1 - m) * min is
//    never 0 * inf = NaN and a fully masked row is not all -inf).
//  - A cast of an integer or bool value to f32 (a mask, positions) casts to T directly, unless
//    it starts an angle (above).
//    Constants read by f32 islands stay f32.
// Numerics: each stored T value is rounded to T once (f16: 11 significant bits, relative
// rounding 4.9e-4; bf16: 8 bits, 3.9e-3); sums accumulate in f32. Not bit-exact with the f32
// graph by construction; the zoo's precision tests bound the error per dtype (docs/optimizer.md).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status convert_precision(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
