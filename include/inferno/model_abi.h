/* model_abi.h: the contract between a model.so written by infernoc and the runtime that loads it.
 *
 * A model.so exports INFERNO_MODEL_ENTRY ("inferno_model_describe"), a function returning a
 * pointer to a static, immutable inferno_model (and, optionally, the profile table of
 * inferno/model_profile.h, which changes nothing here). Everything the runtime needs is in that
 * struct: what the model expects (inputs, outputs), how much memory it needs (arena, weights,
 * workspace), where it came from (manifest), and plain C function pointers to create per-session
 * state and to run. No C++ types cross this boundary.
 *
 * Versioning: the runtime refuses a model whose abi_version differs from its own
 * INFERNO_MODEL_ABI_VERSION, or whose struct_size is smaller than the struct it knows. Fields are
 * only ever appended; any other change bumps the version.
 */
#ifndef INFERNO_MODEL_ABI_H_
#define INFERNO_MODEL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFERNO_MODEL_ABI_VERSION 2u
#define INFERNO_MODEL_ENTRY inferno_model_describe
#define INFERNO_MODEL_ENTRY_NAME "inferno_model_describe"

/* Element types; the values are fixed by the ABI. */
typedef enum inferno_dtype {
  INFERNO_DTYPE_F32 = 0,
  INFERNO_DTYPE_F16 = 1,
  INFERNO_DTYPE_BF16 = 2,
  INFERNO_DTYPE_F64 = 3,
  INFERNO_DTYPE_I64 = 4,
  INFERNO_DTYPE_I32 = 5,
  INFERNO_DTYPE_BOOL = 6
} inferno_dtype;

/* Status codes returned by a model's functions (0 is success). */
typedef enum inferno_model_status {
  INFERNO_MODEL_OK = 0,
  INFERNO_MODEL_CUDA_ERROR = 1,   /* a CUDA runtime call failed (message says which) */
  INFERNO_MODEL_CUBLAS_ERROR = 2, /* a cuBLAS(Lt) call failed, or no algorithm fits */
  INFERNO_MODEL_DEVICE_LOST = 3,  /* a sticky CUDA error: the context is unusable */
  INFERNO_MODEL_BAD_ARGUMENT = 4  /* a null pointer or inconsistent argument */
} inferno_model_status;

/* A model input or output: dense, row-major, on the device. */
typedef struct inferno_tensor_desc {
  const char* name; /* printable: [A-Za-z0-9_.] */
  int32_t dtype;    /* an inferno_dtype */
  int32_t rank;
  const int64_t* shape; /* rank entries */
} inferno_tensor_desc;

/* A piece of mutable state (an LLM's KV cache, any buffer the model writes in place): device
 * memory the runtime allocates per session, fills with its initial value when the session is
 * created or reset, and passes to every run in args->states. A run reads it and writes its new
 * value in place, so it carries over to the next run of the same session. */
typedef struct inferno_state_desc {
  inferno_tensor_desc tensor; /* name (the model's buffer name), dtype, shape */
  /* Offset of the initial value in the weights blob, or INFERNO_STATE_INIT_ZERO (all zeros). */
  uint64_t init_offset;
} inferno_state_desc;

#define INFERNO_STATE_INIT_ZERO UINT64_MAX

/* Where the model came from and what it was built for. */
typedef struct inferno_manifest {
  const char* compiler_version; /* infernoc's version, e.g. "0.1.0" */
  const char* cuda_version;     /* CUDA toolkit used, e.g. "13.0" */
  const int32_t* sm_archs;      /* compute capabilities with machine code, e.g. {90}: 90 = sm_90 */
  int32_t num_sm_archs;
  const char* source_model_hash; /* hex digest of the source model file */
  uint64_t weights_checksum;     /* FNV-1a 64 of the weights blob (inferno_fnv1a64 below) */
} inferno_manifest;

/* What one call of run() needs. All pointers are device pointers unless said otherwise. */
typedef struct inferno_model_run_args {
  void* stream;         /* a cudaStream_t; every launch goes onto it */
  void* arena;          /* arena_bytes of scratch, 256-byte aligned, owned by the session */
  void* const* inputs;  /* host array of num_inputs device pointers, in input order */
  void* const* outputs; /* host array of num_outputs device pointers, in output order */
  void* const* states;  /* host array of num_states device pointers (session-owned), state order */
} inferno_model_run_args;

typedef struct inferno_model {
  uint32_t abi_version; /* INFERNO_MODEL_ABI_VERSION of the compiler that wrote it */
  uint32_t struct_size; /* sizeof(inferno_model) as compiled into the model */
  inferno_manifest manifest;

  int32_t num_inputs;
  const inferno_tensor_desc* inputs;
  int32_t num_outputs;
  const inferno_tensor_desc* outputs;

  uint64_t arena_bytes;     /* per-session scratch for intermediates */
  uint64_t workspace_bytes; /* of arena_bytes, the part the model uses as cuBLASLt workspace */
  uint64_t weights_bytes;   /* size of the weights blob */
  const void* weights;      /* the embedded blob (host memory); NULL when external */
  const char* weights_file; /* file name beside the .so holding the blob when external, else NULL */

  /* Creates per-session state on the current device (cuBLASLt handle, matmul plans) bound to the
   * uploaded weights (`device_weights`, weights_bytes long, 256-byte aligned). On failure returns a
   * status and writes a NUL-terminated message of at most `error_size` bytes to `error`. */
  int32_t (*session_create)(const void* device_weights, void** state, char* error,
                            size_t error_size);
  /* Enqueues one inference on args->stream. Never allocates, never synchronizes; safe to capture
   * into a CUDA graph. One call at a time per state. */
  int32_t (*run)(void* state, const inferno_model_run_args* args, char* error, size_t error_size);
  /* Frees what session_create made. Accepts NULL. */
  void (*session_destroy)(void* state);

  /* Mutable state, shared by this model and its variants (see inferno_state_desc). */
  int32_t num_states;
  const inferno_state_desc* states;
  /* How many positions the state holds when the model writes state rows by position (a KV
   * cache's length: position inputs must stay below it), else 0. */
  int64_t max_positions;
  /* Entry points for other input shapes (an LLM's one-token decode step next to its prompt
   * lengths), each a complete model of its own (inputs, outputs, arena, session, run) whose
   * manifest, weights and states are this model's; a variant has no variants itself. The runtime
   * runs the first of {this model, variants...} whose input shapes match the caller's. */
  int32_t num_variants;
  const struct inferno_model* const* variants;
} inferno_model;

typedef const inferno_model* (*inferno_model_entry_fn)(void);

/* The weights checksum: 64-bit FNV-1a over the blob's bytes. */
static inline uint64_t inferno_fnv1a64(const void* data, uint64_t size) {
  const unsigned char* p = (const unsigned char*)data;
  uint64_t h = 14695981039346656037ull;
  for (uint64_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_MODEL_ABI_H_ */
