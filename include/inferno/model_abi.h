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
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFERNO_MODEL_ABI_VERSION 3u
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
  uint64_t weights_checksum;     /* inferno_weights_checksum (below) of the weights blob */
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

/* One step of the weights checksum: FNV-1a's xor and multiply on a 64-bit word, then the high
 * half folded into the low one (so a change in any bit reaches every later bit). */
static inline uint64_t inferno_checksum_step(uint64_t h, uint64_t word) {
  h = (h ^ word) * 1099511628211ull;
  return h ^ (h >> 32);
}

/* The weights checksum (ABI version 3 on): the blob as little-endian 64-bit words dealt to four
 * independent lanes of inferno_checksum_step, then the lanes, the tail bytes and the size folded
 * into one. The lanes run about ten times as fast as a byte-wise FNV-1a (0.017 against 0.29 s for
 * 111 MB on one core), which cost seconds at every load (and compile) of a large model. */
static inline uint64_t inferno_weights_checksum(const void* data, uint64_t size) {
  const unsigned char* p = (const unsigned char*)data;
  const uint64_t basis = 14695981039346656037ull;
  uint64_t lane[4] = {basis, basis + 1, basis + 2, basis + 3};
  uint64_t i = 0;
  for (; i + 32 <= size; i += 32) {
    for (int l = 0; l < 4; ++l) {
      uint64_t word = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      memcpy(&word, p + i + 8 * l, 8); /* the same value, loaded at once */
#else
      for (int b = 0; b < 8; ++b) word |= (uint64_t)p[i + 8 * l + b] << (8 * b);
#endif
      lane[l] = inferno_checksum_step(lane[l], word);
    }
  }
  uint64_t h = basis;
  for (int l = 0; l < 4; ++l) h = inferno_checksum_step(h, lane[l]);
  for (; i < size; ++i) h = inferno_checksum_step(h, p[i]);
  return inferno_checksum_step(h, size);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_MODEL_ABI_H_ */
