/* model_profile.h: what a model.so tells a profiler, beside the model ABI (model_abi.h).
 *
 * A model.so written by infernoc also exports INFERNO_MODEL_PROFILE_ENTRY
 * ("inferno_model_describe_profile"), a function returning a static, immutable
 * inferno_model_profile: one entry per step of run() (a node of the compiled graph whose code
 * launches kernels, in launch order) with what it computes, where the model's source made it, and
 * its cost by the compiler's formulas (FLOPs, the least bytes it reads and writes), and a second
 * run entry that calls a hook around each step so that a profiler can time it. The symbol is
 * optional: a library without it (written before it existed) runs as before and cannot be profiled
 * per kernel. It changes nothing in inferno_model, so it does not change INFERNO_MODEL_ABI_VERSION;
 * its own version and struct_size follow the same rules (fields only appended).
 */
#ifndef INFERNO_MODEL_PROFILE_H_
#define INFERNO_MODEL_PROFILE_H_

#include <stddef.h>
#include <stdint.h>

#include "inferno/model_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define INFERNO_MODEL_PROFILE_VERSION 1u
#define INFERNO_MODEL_PROFILE_ENTRY inferno_model_describe_profile
#define INFERNO_MODEL_PROFILE_ENTRY_NAME "inferno_model_describe_profile"

/* One step of run(): a node's launches. Strings are NUL-terminated; names and locations come
 * from the model and are printable only after the reader checks them. */
typedef struct inferno_kernel_cost {
  int32_t node;          /* the node's index in the compiled graph; -1: the copies into outputs */
  int32_t launches;      /* kernel launches (cuBLASLt calls included) in this step */
  const char* node_name; /* the node's IR name, without '%' */
  const char* op;        /* the IR op, e.g. "gemm" */
  const char* location;  /* "modeling_llama.py:271", or "" when unknown */
  const char* kernel;    /* the kernels and how they run, e.g. "cublasLt (tensor cores)" */
  int32_t dtype;         /* an inferno_dtype: the node's output */
  int32_t reserved;      /* 0 */
  double flops;          /* floating-point operations (a multiply-add is 2) */
  uint64_t bytes_read;   /* the least the step reads from device memory */
  uint64_t bytes_written;
} inferno_kernel_cost;

/* Called by run_profiled on the host just before (phase 0) and just after (phase 1) step `step`
 * enqueues its launches on `stream` (a cudaStream_t), so that it can record an event there. */
typedef void (*inferno_profile_hook)(void* user, int32_t step, int32_t phase, void* stream);

typedef struct inferno_model_profile {
  uint32_t version;           /* INFERNO_MODEL_PROFILE_VERSION of the compiler that wrote it */
  uint32_t struct_size;       /* sizeof(inferno_model_profile) as compiled into the model */
  const inferno_model* model; /* the entry point these steps belong to */
  int32_t num_steps;
  const inferno_kernel_cost* steps;
  /* model->run with `hook` called around each step (NULL: exactly model->run). Not for CUDA
   * graph capture when hook is set: the hook runs on the host at enqueue time. */
  int32_t (*run_profiled)(void* state, const inferno_model_run_args* args,
                          inferno_profile_hook hook, void* user, char* error, size_t error_size);
  /* The variants' tables, in the order of model->variants. */
  int32_t num_variants;
  const struct inferno_model_profile* const* variants;
} inferno_model_profile;

typedef const inferno_model_profile* (*inferno_model_profile_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_MODEL_PROFILE_H_ */
