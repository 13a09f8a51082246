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
 *                    state (cuBLASLt handle, plans) and a small cache of captured CUDA graphs. One
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
/* Where the model came from (compiler, CUDA version, archs, checksum); lives with the model. */
INFERNO_RUNTIME_API inferno_status inferno_model_manifest(const inferno_loaded_model* model,
                                                          const inferno_manifest** manifest);
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

/* Enqueues one inference on `stream` (a cudaStream_t; NULL is the legacy default stream). Every
 * tensor's count, data, dtype and shape is checked before anything is launched, and on new buffer
 * addresses also that the data is memory of the model's device. Does not synchronize.
 * With use_cuda_graph, the first run for a set of buffer addresses captures the model into a CUDA
 * graph (on a session-owned stream) and launches it on `stream`; later runs with the same
 * addresses replay it. Graphs for the legacy default stream run on the session's stream, ordered
 * with the caller's by events. On a stream the caller is capturing, the model's launches simply
 * become part of the caller's graph. */
INFERNO_RUNTIME_API inferno_status inferno_session_run(inferno_session* session, void* stream,
                                                       const inferno_tensor* inputs,
                                                       int32_t num_inputs,
                                                       const inferno_tensor* outputs,
                                                       int32_t num_outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_RUNTIME_H_ */
