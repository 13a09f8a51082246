// The registry of every pass, by name, listed in default pipeline order. Adding a pass: its own
// header/source in this folder, a row here, and (if it belongs in the default pipeline) a line in
// pipeline.cpp.
#include <algorithm>

#include "passes/assign_layout.h"
#include "passes/canonicalize.h"
#include "passes/convert_precision.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/fold_batch_norm.h"
#include "passes/fold_constants.h"
#include "passes/fuse_elementwise.h"
#include "passes/fuse_epilogues.h"
#include "passes/fuse_norm_gemv.h"
#include "passes/fuse_parallel_gemms.h"
#include "passes/gemm_as_conv.h"
#include "passes/legalize.h"
#include "passes/pad_conv_channels.h"
#include "passes/pass.h"
#include "passes/recognize_attention.h"
#include "passes/recognize_gelu.h"
#include "passes/recognize_rms_norm.h"
#include "passes/recognize_rotary.h"
#include "passes/simplify.h"
#include "passes/transpose_gemm_weights.h"

namespace inferno::passes {

const std::vector<PassInfo>& registered_passes() {
  static const std::vector<PassInfo> passes = {
      {"canonicalize",
       "one form per computation: gemm for linear/addmm/matmul, permute for transpose, merged "
       "layout ops, silu",
       &canonicalize},
      {"fold-constants", "evaluate nodes whose inputs are all constants at compile time",
       &fold_constants},
      {"simplify",
       "drop operations that return their input (x * 1, neg(neg(x)), relu(relu(x)), ...)",
       &simplify},
      {"cse", "merge identical constants and identical nodes", &eliminate_common_subexpressions},
      {"dce", "remove nodes and constants no graph output depends on", &eliminate_dead_code},
      {"recognize-gelu",
       "GELU written out (0.5 x (1 + tanh(...)) or 0.5 x (1 + erf(x / sqrt 2))) becomes gelu_tanh "
       "or gelu",
       &recognize_gelu},
      {"recognize-rms-norm",
       "x * rsqrt(mean(x^2, -1) + eps) * w, with Llama's casts to f32 and back, becomes rms_norm",
       &recognize_rms_norm},
      {"recognize-rotary",
       "x * cos + rotate_half(x) * sin (Hugging Face's apply_rotary_pos_emb, partial rotary "
       "included) becomes one rotary node",
       &recognize_rotary},
      {"recognize-attention",
       "softmax(scale * q @ k^T + mask) @ v written out (masks, causal tril buffers, GQA repeats, "
       "3-D and core-ATen forms) becomes one attention node",
       &recognize_attention},
      {"fold-batch-norm",
       "fold a per-channel constant scale and shift (inference BatchNorm) after a conv2d or gemm "
       "into its weights and bias",
       &fold_batch_norm},
      {"convert-precision",
       "with --precision fp16 or bf16: compute in the 16-bit type with f32 accumulation, keeping "
       "f32 islands (softmax, f16 range overflows, the model's own f32 upcasts, graph inputs and "
       "outputs); weights converted once",
       &convert_precision},
      {"fuse-epilogues",
       "fold a gemm's or conv2d's activation, residual add, bias add and scaling into it, and a "
       "squeeze-and-excitation mul into the conv2d reading it (gate)",
       &fuse_epilogues},
      {"fuse-parallel-gemms",
       "gemms reading the same input with constant weights (q/k/v, gate/up projections) become "
       "one gemm over the concatenated weights and a slice per branch",
       &fuse_parallel_gemms},
      {"transpose-gemm-weights",
       "store a gemm's constant [K, N] weight as [N, K] with trans_b: one layout for every weight, "
       "each output column's K values contiguous (the decode GEMV's fast layout)",
       &transpose_gemm_weights},
      {"fuse-norm-gemv",
       "a layer_norm or rms_norm over the last dim read only by decode-shaped gemms (the GEMV "
       "path, [N, K] weights) becomes part of each: norm_gemm, one launch instead of two",
       &fuse_norm_gemv},
      {"assign-layout",
       "channels-last (NHWC) convolutions, converting only at graph boundaries and around ops "
       "that need NCHW",
       &assign_layout},
      {"pad-conv-channels",
       "a 16-bit NHWC convolution with input channels not a multiple of 8 (an image's 3) reads "
       "them zero-padded, so the tensor-core kernels take it",
       &pad_conv_channels},
      {"gemm-as-conv",
       "a 16-bit GEMM with an activation cuBLASLt cannot apply (gelu) and a short K runs as a 1x1 "
       "NHWC conv, whose kernels apply it in their epilogue instead of a second pass (not in the "
       "default pipeline: slower so far)",
       &gemm_as_conv},
      {"fuse-elementwise",
       "turn each chain or tree of elementwise ops into one fused_elementwise node",
       &fuse_elementwise},
      {"legalize",
       "the forms codegen lowers: gemm for every matrix product (vectors reshaped), permute for "
       "transpose",
       &legalize},
  };
  return passes;
}

const PassInfo* find_pass(std::string_view name) {
  const auto& passes = registered_passes();
  auto it =
      std::find_if(passes.begin(), passes.end(), [&](const PassInfo& p) { return p.name == name; });
  return it == passes.end() ? nullptr : &*it;
}

}  // namespace inferno::passes
