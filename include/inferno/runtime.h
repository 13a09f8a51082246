/* runtime.h: the C API of libinferno_runtime, which loads and runs a model.so written by infernoc.
 *
 * Every function returns an inferno_status and never throws or aborts. When a call fails,
 * inferno_last_error() gives a one-line message for this thread (lower case, says what and where).
 *
 * Objects and threads:
 *   inferno_loaded_model
 *                    a loaded model.so bound to one device, its weights uploaded once. Immutable
 *                    after load: share it between threads freely.
 *   inferno_session  per-thread (or per-stream) state: an arena for intermediates, the model's own
 *                    session data (cuBLASLt handle, plans), the model's mutable state (an LLM's KV
 *                    cache: see inferno_model_state) and a small cache of captured CUDA graphs. One
 *                    thread at a time: a second concurrent run on the same session returns
 *                    INFERNO_STATUS_BUSY instead of racing. Successive runs of one session on
 *                    different streams are ordered (they share the arena). A session keeps its
 *                    model alive, so a model may be unloaded before its sessions are destroyed.
 *
 * Buffers passed to inferno_session_run are device memory owned by the caller; the call only
 * enqueues work on the caller's stream and returns (synchronize the stream before reading outputs).
 */
#ifndef INFERNO_RUNTIME_H_
#define INFERNO_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "inferno/model_abi.h"
#include "inferno/model_profile.h"

#if defined(__GNUC__) || defined(__clang__)
#define INFERNO_RUNTIME_API __attribute__((visibility("default")))
#else
#define INFERNO_RUNTIME_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a runtime call did. The values are stable. */
typedef enum inferno_status {
  INFERNO_STATUS_OK = 0,
  INFERNO_STATUS_INVALID_ARGUMENT = 1, /* null pointer, wrong count, dtype or shape of a tensor */
  INFERNO_STATUS_IO = 2,               /* a file is missing or unreadable */
  INFERNO_STATUS_LOAD_FAILED = 3,     /* dlopen or dlsym failed (not a model.so, missing library) */
  INFERNO_STATUS_ABI_MISMATCH = 4,    /* abi_version or struct_size differs, or a malformed model */
  INFERNO_STATUS_ARCH_MISMATCH = 5,   /* the model has no machine code for the device's arch */
  INFERNO_STATUS_WEIGHTS_CORRUPT = 6, /* the weights' size or checksum differs from the manifest */
  INFERNO_STATUS_NO_DEVICE = 7,       /* no CUDA device (or driver), or no device with that index */
  INFERNO_STATUS_OUT_OF_MEMORY = 8,   /* a device allocation failed */
  INFERNO_STATUS_CUDA_ERROR = 9,      /* a CUDA call failed; the context is still usable */
  INFERNO_STATUS_CUBLAS_ERROR = 10,   /* a cuBLAS(Lt) call inside the model failed */
  INFERNO_STATUS_BUSY = 11,           /* the session is running on another thread right now */
  INFERNO_STATUS_DEVICE_LOST = 12,    /* a sticky CUDA error: the device context is unusable */
  INFERNO_STATUS_INTERNAL = 13        /* a bug in the runtime or the model */
} inferno_status;

/* Device indices with a special meaning for inferno_model_load. */
#define INFERNO_DEVICE_CURRENT (-1) /* the calling thread's current CUDA device */
#define INFERNO_DEVICE_NONE (-2)    /* no device: inspect the model only (no sessions) */

/* A loaded model (named so because model_abi.h's inferno_model is what a model.so describes). */
typedef struct inferno_loaded_model inferno_loaded_model;
typedef struct inferno_session inferno_session;

/* A caller-owned tensor for inferno_session_run: dense, row-major, in device memory. */
typedef struct inferno_tensor {
  void* data;
  int32_t dtype; /* an inferno_dtype */
  int32_t rank;
  const int64_t* shape; /* rank entries (may be NULL when rank is 0) */
} inferno_tensor;

/* Session options. Fill with inferno_session_options_default, then change fields. */
typedef struct inferno_session_options {
  uint32_t struct_size;     /* sizeof(inferno_session_options); set by the default function */
  int32_t use_cuda_graph;   /* nonzero (default): capture run into a CUDA graph, replay it */
  int32_t graph_cache_size; /* captured graphs kept per session, keyed by buffer addresses (8) */
} inferno_session_options;

/* Called by inferno_session_generate for each new token, in order (`index` counts from 0), on
 * the calling thread. Return 0 to go on, nonzero to stop after this token. */
typedef int32_t (*inferno_token_callback)(void* user_data, int32_t index, int64_t token);

/* What inferno_session_generate does. Fill with inferno_generate_options_default, then change
 * fields. */
typedef struct inferno_generate_options {
  uint32_t struct_size;   /* sizeof(inferno_generate_options); set by the default function */
  int32_t max_new_tokens; /* 1..1048576 (default 16); tokens_out must hold this many */
  float temperature; /* 0 (default): greedy argmax; > 0: sample softmax(logits / temperature) */
  int32_t top_k;     /* sample among the top_k highest logits (ties kept); 0 (default): all */
  float top_p;       /* then among the fewest most likely tokens whose probability reaches
                        top_p, in (0, 1]; 1 (default): all */
  int32_t num_stop_tokens;    /* 0..1024 entries of stop_tokens */
  uint64_t seed;              /* sampling is a function of (seed, step): same inputs, same tokens */
  const int64_t* stop_tokens; /* generation ends after emitting one of these (included) */
  inferno_token_callback callback; /* NULL: none */
  void* user_data;                 /* passed to callback */
} inferno_generate_options;

/* What one inferno_session_generate call took. The caller sets struct_size. */
typedef struct inferno_generate_stats {
  uint32_t struct_size; /* sizeof(inferno_generate_stats) */
  int32_t prompt_tokens;
  int32_t new_tokens;
  int32_t prefill_runs;          /* model runs the prompt took */
  double time_to_first_token_ms; /* host time from the call to the first new token on the host */
  double prefill_ms;             /* GPU time of the prompt's runs (CUDA events) */
  double decode_ms;              /* host time from the first new token to the last */
  double decode_ms_per_token;    /* decode_ms / (new_tokens - 1); 0 for one token */
  double decode_ms_p50;          /* median and 90th percentile of the times between tokens */
  double decode_ms_p90;
} inferno_generate_stats;

/* A short stable name for a status, e.g. "invalid_argument". Never NULL. */
INFERNO_RUNTIME_API const char* inferno_status_name(inferno_status status);
/* The message of the last failed call on this thread ("" after a successful call). Valid until
 * the next runtime call on this thread. */
INFERNO_RUNTIME_API const char* inferno_last_error(void);

/* Loads `path` (dlopen), checks its ABI version and weights checksum, and on `device` (an index,
 * INFERNO_DEVICE_CURRENT or INFERNO_DEVICE_NONE) checks the GPU arch and uploads the weights.
 * External weights (model->weights_file) are read from the .so's directory. */
INFERNO_RUNTIME_API inferno_status inferno_model_load(const char* path, int device,
                                                      inferno_loaded_model** model);
/* Releases the caller's reference; the model is freed with its last session. Accepts NULL. */
INFERNO_RUNTIME_API inferno_status inferno_model_unload(inferno_loaded_model* model);
/* Validates `path` without touching a GPU: ABI, weights checksum, and when sm > 0 that the model
 * has machine code for sm (major*10+minor, e.g. 90). For deployment checks and GPU-less CI. */
INFERNO_RUNTIME_API inferno_status inferno_model_check(const char* path, int sm);

INFERNO_RUNTIME_API inferno_status inferno_model_num_inputs(const inferno_loaded_model* model,
                                                            int32_t* count);
INFERNO_RUNTIME_API inferno_status inferno_model_num_outputs(const inferno_loaded_model* model,
                                                             int32_t* count);
/* Describes input/output `index`; the pointers in `desc` live as long as the model. */
INFERNO_RUNTIME_API inferno_status inferno_model_input(const inferno_loaded_model* model,
                                                       int32_t index, inferno_tensor_desc* desc);
INFERNO_RUNTIME_API inferno_status inferno_model_output(const inferno_loaded_model* model,
                                                        int32_t index, inferno_tensor_desc* desc);
/* Mutable state: tensors each session holds on the device, initialized (zeros or a value from the
 * weights) when the session is created and by inferno_session_reset_state, and updated in place
 * by every run (an LLM's KV cache). `bytes` may be NULL. */
INFERNO_RUNTIME_API inferno_status inferno_model_num_states(const inferno_loaded_model* model,
                                                            int32_t* count);
INFERNO_RUNTIME_API inferno_status inferno_model_state(const inferno_loaded_model* model,
                                                       int32_t index, inferno_state_desc* desc,
                                                       uint64_t* bytes);
/* How many positions the state holds (an LLM's KV cache length; position inputs must stay below
 * it), or 0 when the model declares no such limit. */
INFERNO_RUNTIME_API inferno_status inferno_model_max_positions(const inferno_loaded_model* model,
                                                               int64_t* max_positions);
/* Size of the weights blob (uploaded once per model). */
INFERNO_RUNTIME_API inferno_status inferno_model_weights_bytes(const inferno_loaded_model* model,
                                                               uint64_t* bytes);

/* The vocabulary size (the logits' last dimension) of a model inferno_session_generate accepts;
 * INVALID_ARGUMENT saying why for a model that cannot generate. */
INFERNO_RUNTIME_API inferno_status inferno_model_vocab_size(const inferno_loaded_model* model,
                                                            int64_t* vocab);

/* Variants: the input shapes a model runs. Variant 0 is the model itself (what
 * inferno_model_input/output describe); others are entry points for other shapes sharing the
 * weights and state, such as an LLM's one-token decode step next to its prompt lengths.
 * inferno_session_run picks the first variant whose input dtypes and shapes match its tensors. */
INFERNO_RUNTIME_API inferno_status inferno_model_num_variants(const inferno_loaded_model* model,
                                                              int32_t* count);
INFERNO_RUNTIME_API inferno_status inferno_model_variant_num_inputs(
    const inferno_loaded_model* model, int32_t variant, int32_t* count);
INFERNO_RUNTIME_API inferno_status inferno_model_variant_num_outputs(
    const inferno_loaded_model* model, int32_t variant, int32_t* count);
INFERNO_RUNTIME_API inferno_status inferno_model_variant_input(const inferno_loaded_model* model,
                                                               int32_t variant, int32_t index,
                                                               inferno_tensor_desc* desc);
INFERNO_RUNTIME_API inferno_status inferno_model_variant_output(const inferno_loaded_model* model,
                                                                int32_t variant, int32_t index,
                                                                inferno_tensor_desc* desc);

/* Dynamic dims (inferno/model_dims.h): the input dims that were dynamic in the model's export,
 * each with the range it was exported for. The library runs the sizes its variants were compiled
 * for, and any size of its split dim's range (inferno_model_split_dim); a call with another size
 * is refused with a message in these terms. A model without them gives *count 0. */
INFERNO_RUNTIME_API inferno_status inferno_model_num_dynamic_dims(const inferno_loaded_model* model,
                                                                  int32_t* count);
/* Dim `index`: its name (the export's symbol, e.g. "s77"; lives with the model), its range (max
 * -1: unbounded) and how many input dims have it. */
INFERNO_RUNTIME_API inferno_status inferno_model_dynamic_dim(const inferno_loaded_model* model,
                                                             int32_t index, const char** name,
                                                             int64_t* min, int64_t* max,
                                                             int32_t* num_uses);
/* The `use`-th input dim that has dim `index`: the input's index and the axis. */
INFERNO_RUNTIME_API inferno_status inferno_model_dynamic_dim_use(const inferno_loaded_model* model,
                                                                 int32_t index, int32_t use,
                                                                 int32_t* input, int32_t* axis);

/* The dynamic dim a run is split along (*index; -1 when none): the library runs a size of it that
 * no variant was compiled for, within its range, as several runs of variants' sizes, each on its
 * rows of the inputs and outputs (a batch of 13 as 8, 4 and 1), since the model computes each row
 * on its own. Such a run's outputs have their first dim scaled to the call's rows: see
 * inferno_model_output_shape. */
INFERNO_RUNTIME_API inferno_status inferno_model_split_dim(const inferno_loaded_model* model,
                                                           int32_t* index);
/* The shape output `output` has in a run on `inputs` (num_inputs of them, only their dtypes,
 * ranks and shapes are read): a variant's, or for a run split along the split dim, the variant's
 * with its first dim scaled. Writes the rank to *rank and the dims to shape[0 .. rank) (max_rank
 * entries available). INVALID_ARGUMENT, saying why, when no run takes the inputs. */
INFERNO_RUNTIME_API inferno_status inferno_model_output_shape(const inferno_loaded_model* model,
                                                              const inferno_tensor* inputs,
                                                              int32_t num_inputs, int32_t output,
                                                              int64_t* shape, int32_t max_rank,
                                                              int32_t* rank);

/* Where the model came from (compiler, CUDA version, archs, checksum); lives with the model. */
INFERNO_RUNTIME_API inferno_status inferno_model_manifest(const inferno_loaded_model* model,
                                                          const inferno_manifest** manifest);
/* Entry point `variant`'s profile steps (inferno/model_profile.h): each step of its run in launch
 * order, with the source op, kernel and cost; they live with the model. A library without the
 * table (compiled before it existed) gives *steps NULL and *count 0. */
INFERNO_RUNTIME_API inferno_status inferno_model_profile_steps(const inferno_loaded_model* model,
                                                               int32_t variant,
                                                               const inferno_kernel_cost** steps,
                                                               int32_t* count);
/* Device memory the model uses, in bytes: its weights (once per model), and per session the arena
 * (of which `workspace` is cuBLASLt's workspace) and the state. Any pointer may be NULL. */
INFERNO_RUNTIME_API inferno_status inferno_model_memory_use(const inferno_loaded_model* model,
                                                            uint64_t* weights, uint64_t* arena,
                                                            uint64_t* workspace, uint64_t* state);
/* The device the model was loaded on (INFERNO_DEVICE_NONE for an inspection-only load). */
INFERNO_RUNTIME_API inferno_status inferno_model_device(const inferno_loaded_model* model,
                                                        int* device);

INFERNO_RUNTIME_API inferno_status
inferno_session_options_default(inferno_session_options* options);
/* Creates a session on the model's device. `options` may be NULL (defaults). */
INFERNO_RUNTIME_API inferno_status inferno_session_create(inferno_loaded_model* model,
                                                          const inferno_session_options* options,
                                                          inferno_session** session);
/* Waits for the session's last run, then frees it. Accepts NULL. */
INFERNO_RUNTIME_API inferno_status inferno_session_destroy(inferno_session* session);

/* Enqueues one inference on `stream` (a cudaStream_t; NULL is the legacy default stream). The
 * variant is the first whose input dtypes and shapes match `inputs` (INVALID_ARGUMENT naming the
 * accepted shapes when none does). Every tensor's count, data, dtype and shape is checked before
 * anything is launched, and on new buffer addresses also that the data is memory of the model's
 * device. The run reads and updates the session's state. Does not synchronize.
 * With use_cuda_graph, the first run for a set of buffer addresses captures the model into a CUDA
 * graph (on a session-owned stream) and launches it on `stream`; later runs with the same
 * addresses replay it (on the legacy default stream too; a run there that captures goes to the
 * session's stream, ordered with the caller's by events). On a stream the caller is capturing, the
 * model's launches simply become part of the caller's graph. */
INFERNO_RUNTIME_API inferno_status inferno_session_run(inferno_session* session, void* stream,
                                                       const inferno_tensor* inputs,
                                                       int32_t num_inputs,
                                                       const inferno_tensor* outputs,
                                                       int32_t num_outputs);

/* Enqueues the state's initialization on `stream` (zeros, or the values from the weights), as at
 * session creation; ordered after the session's earlier runs. Does not synchronize. */
/* As inferno_session_run, for a profiler: plain launches (never a CUDA graph) through the model's
 * run_profiled (inferno/model_profile.h), which calls `hook(user_data, step, phase, stream)` on
 * this thread just before (phase 0) and after (phase 1) each step enqueues its launches, so the
 * hook can record a CUDA event on `stream` there. The steps wait on the GPU until every one is
 * enqueued (at most 0.2 s), so they then run back to back and such events time the kernels, not
 * the launches: the hook must not wait for the GPU. *variant (if not NULL) receives the entry point
 * that ran, whose steps inferno_model_profile_steps gives. INFERNO_STATUS_INVALID_ARGUMENT for a
 * model without a profile table or a stream being captured. */
INFERNO_RUNTIME_API inferno_status
inferno_session_run_profiled(inferno_session* session, void* stream, const inferno_tensor* inputs,
                             int32_t num_inputs, const inferno_tensor* outputs, int32_t num_outputs,
                             inferno_profile_hook hook, void* user_data, int32_t* variant);
INFERNO_RUNTIME_API inferno_status inferno_session_reset_state(inferno_session* session,
                                                               void* stream);

INFERNO_RUNTIME_API inferno_status
inferno_generate_options_default(inferno_generate_options* options);
/* Generates tokens with an LLM (a model whose variants take input_ids i64[1,S] and cache_position
 * i64[S] and return logits [1,S,vocab], one of them with S = 1): resets the state, runs the prompt
 * (the smallest variant that holds what is left of it, the tail padded; the largest one at a time
 * when it is longer), then one-token decode steps, each one CUDA graph replay whose next token is
 * chosen on the GPU (greedy or sampled, see inferno_generate_options). Writes the new tokens to
 * `tokens_out` (room for options->max_new_tokens) and their count to `num_tokens_out`; `stats`
 * may be NULL. `options` NULL: the defaults. Works on `stream` and returns when done. An empty
 * prompt, a token id outside [0, vocab), or a prompt plus max_new_tokens beyond max_positions is
 * INVALID_ARGUMENT naming the limit, with nothing launched. */
INFERNO_RUNTIME_API inferno_status inferno_session_generate(
    inferno_session* session, void* stream, const int64_t* prompt, int32_t prompt_len,
    const inferno_generate_options* options, int64_t* tokens_out, int32_t* num_tokens_out,
    inferno_generate_stats* stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_RUNTIME_H_ */
