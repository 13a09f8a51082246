#include "passes/pipeline.h"

#include "ir/verifier.h"

namespace inferno::passes {

// The default pipeline, top to bottom; each entry is a name from pass_registry.cpp. It is
// idempotent: running it on its own output changes nothing (tested on every fixture).
const std::vector<std::string_view>& default_pipeline() {
  static const std::vector<std::string_view> pipeline = {
      "canonicalize",  // before folding: a weight's permute becomes trans_b, not a transposed copy
      "fold-constants",  // before simplify, which looks for constant 0 and 1 operands
      "simplify",        // re-canonicalizes what it changes
      "cse",
      "dce",  // drops what canonicalize and simplify left unused (permuted weights)
      // The transformer patterns, on a folded and simplified graph (their constants are single
      // constants, their casts to the same dtype gone).
      "recognize-gelu",      // before fuse-epilogues, which folds the gelu into its gemm
      "recognize-rms-norm",  // its rules build on each other in one walk (norm, cast, weight)
      // Before convert-precision, which then runs the rotary in 16 bits like the ops it replaced;
      // before fuse-elementwise, which would fuse its multiply-add into a body of its own.
      "recognize-rotary",
      // Before fuse-epilogues, which would fold the scores' scale into their gemm and an additive
      // mask into its addend; after fold-constants, which slices a causal buffer into a constant.
      "recognize-attention",
      "dce",  // what they replaced: fuse-epilogues then sees a gemm read only by its gelu
      // After fold-constants (BatchNorm's scale and shift are constants then) and before
      // fuse-epilogues, which then sees the conv2d or gemm with its bias.
      "fold-batch-norm",
      // With --precision fp16/bf16 only (a no-op otherwise): after fold-batch-norm (BatchNorm folds
      // into the weights in f32, rounded once) and the recognizers (it sees gemm, attention and
      // the norms, whose kernels accumulate in f32), before the fusions, so that fused bodies and
      // epilogues come out in their final dtypes and the boundary casts fuse into their kernels.
      "convert-precision",
      "fuse-epilogues",  // before fuse-elementwise: what a gemm or conv2d can take goes into it
      // After fuse-epilogues, so that each branch first takes its own epilogue and only branches
      // whose epilogues agree are fused (a slice can take none); after recognize-attention, which
      // reads q, k and v wherever they come from.
      "fuse-parallel-gemms",
      // After every pass that rewrites gemm weights (fold-batch-norm, convert-precision,
      // fuse-parallel-gemms), so that the [N, K] copy is made once, of the final weights.
      "transpose-gemm-weights",
      // After transpose-gemm-weights (the GEMV it fuses into needs the [N, K] weight) and
      // fuse-epilogues (the gemm has its final addends, which decide whether the GEMV takes it);
      // before cse and fuse-elementwise, which never look inside a norm_gemm.
      "fuse-norm-gemv",
      // After the epilogue fusions (a conv's residual and gate move with it) and before
      // fuse-elementwise, which then fuses the elementwise ops it moved to NHWC with their NHWC
      // neighbours; before cse, which merges constants it permuted alike.
      "assign-layout",
      "pad-conv-channels",  // after assign-layout, which makes the NHWC convolutions it pads
      // (gemm-as-conv would go here if it paid: passes/gemm_as_conv.h.)
      "cse",  // gemms that became equal (linear with bias, matmul + add of the same bias)
      "fuse-elementwise",  // groups over a CSE'd graph, so no two fused nodes come out equal
      "dce",
      "legalize",  // last: what is left is what codegen lowers (the CLI also runs it at -O0)
  };
  return pipeline;
}

Status check_pass_names(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (find_pass(name) != nullptr) continue;
    std::string known;
    for (const PassInfo& p : registered_passes())
      known += (known.empty() ? "" : ", ") + std::string(p.name);
    return invalid_input("unknown pass '" + name + "' (known passes: " + known + ")");
  }
  return Status::ok();
}

Status run_passes(ir::Graph& graph, const std::vector<std::string>& names,
                  const PipelineOptions& options) {
  INFERNO_RETURN_IF_ERROR(check_pass_names(names));
  for (const std::string& name : names) {
    const PassInfo* pass = find_pass(name);
    Status status = pass->run(graph, options.pass_options);
    if (!status) return status;
    if (options.verify_each) {
      Status verified = ir::verify(graph);
      if (!verified) {
        return internal_error("the graph does not verify after pass '" + name +
                              "': " + verified.to_string());
      }
    }
    if (options.after_pass) options.after_pass(name, graph);
  }
  return Status::ok();
}

Status run_default_pipeline(ir::Graph& graph, const PipelineOptions& options) {
  std::vector<std::string> names(default_pipeline().begin(), default_pipeline().end());
  return run_passes(graph, names, options);
}

}  // namespace inferno::passes
