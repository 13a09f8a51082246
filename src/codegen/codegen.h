// Code generation: an optimized IR graph -> one CUDA C++ source (model.cu) implementing the model
// ABI of include/inferno/model_abi.h, plus the weights blob it embeds or loads.
//
// Contract with the nvcc driver (src/driver/):
//  - model.cu includes "inferno/model_abi.h" and "kernels/<name>.cuh": pass -I<repo>/include and
//    -I<directory containing kernels/> (the repo root, or the installed share dir).
//  - Unless external_weights_file is set, model.cu embeds the weights with a top-level asm
//    `.incbin "weights.bin"`; the path is relative to nvcc's working directory, so write
//    GeneratedModel::weights to <build dir>/weights.bin and run nvcc with cwd = <build dir>.
//  - Link with -cudart static, --shared, -Xcompiler -fPIC,-fvisibility=hidden,
//    -Xlinker --version-script=<exports_map written to a file>, -lcublasLt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"
#include "target/target.h"

namespace inferno::codegen {

/// A dynamic dim of the model's inputs, for the library's dims table (include/inferno/
/// model_dims.h): the code itself is compiled for fixed sizes of it.
struct ModelDim {
  std::string name;  ///< the export's symbol, e.g. "s77"
  int64_t min = 0;
  int64_t max = -1;                               ///< -1: unbounded
  std::vector<std::pair<int32_t, int32_t>> uses;  ///< (input, axis) pairs that have it
  /// A run may be split along it into runs of the compiled sizes (passes/row_split.h).
  bool split = false;
};

struct CodegenOptions {
  target::Target target;              // the archs (machine code for each) and TF32 (target.h)
  std::string external_weights_file;  // non-empty: weights live in this file beside the .so (file
                                      // name only)
  std::string source_model_hash;      // hex digest of the model file
  std::string cuda_version;           // e.g. "13.0"
  /// Testing only (`infernoc verify --corrupt-node`, emit_corruption.h): the node (by its output's
  /// name) whose output the model deliberately corrupts after computing it. Empty: none.
  std::string corrupt_node;
  /// Launch groups (launch_groups.h); false launches every node on its own (infernoc reads
  /// INFERNO_LAUNCH_GROUPS=0 from the environment, for comparisons).
  bool launch_groups = true;
  /// GEMV pairs (gemv_pairs.h); false keeps a gated MLP's elementwise kernel (infernoc reads
  /// INFERNO_GEMV_PAIRS=0 from the environment, for comparisons).
  bool gemv_pairs = true;
  /// Attention steps (attention_step.h); false keeps a decode step's rotary and cache writes in
  /// kernels of their own (infernoc reads INFERNO_ATTENTION_STEP=0 from the environment).
  bool attention_steps = true;
  /// The model's dynamic dims (model_dims.h); empty: the library exports no dims table.
  std::vector<ModelDim> dynamic_dims;
};

struct GeneratedModel {
  std::string cuda_source;         // model.cu
  std::vector<std::byte> weights;  // the weights blob; model.cu embeds it with a top-level asm
                                   // `.incbin "weights.bin"` (path relative to the compiler's cwd,
                                   // which the driver sets to the build dir), unless external
  uint64_t weights_checksum = 0;   // inferno_weights_checksum of weights
  std::string exports_map;         // linker version script exporting inferno_model_describe
                                   // and inferno_model_describe_profile
  /// The parts of run_steps() in model.cu (0: none): the driver may build them as separate
  /// objects in parallel, each compile defining which parts it holds (kernels/model_prelude.cuh).
  int32_t num_parts = 0;
};

Expected<GeneratedModel> generate(const ir::Graph& graph, const CodegenOptions& options);

/// One library holding several variants of a model: the same weights and state, other input
/// shapes (an LLM's one-token decode step and its prompt lengths). The first graph is the
/// model's own interface, the rest its variants (include/inferno/model_abi.h); the runtime runs
/// the one whose input shapes match. All must have the same states.
Expected<GeneratedModel> generate_variants(const std::vector<const ir::Graph*>& graphs,
                                           const CodegenOptions& options);

/// The memory plan generate() makes for `graph`, as text (`infernoc --emit plan`): the nodes by
/// index, then memory_plan_to_string (codegen/memory_plan.h): the arena's peak bytes against the
/// sum of all buffers, every buffer's offset, size, lifetime in nodes, value (and the input it
/// overwrites in place), and where each graph output comes from. Fails as generate() would.
Expected<std::string> describe_memory_plan(const ir::Graph& graph, const CodegenOptions& options);

/// Whether codegen lowers `op` (the op table test holds every op to a lowering or a backend note
/// in ops.def).
bool has_lowering(ir::OpKind op);

}  // namespace inferno::codegen
