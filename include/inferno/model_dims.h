/* model_dims.h: a model's dynamic dims, beside the model ABI (model_abi.h).
 *
 * A model exported with dynamic dims (torch.export's dynamic_shapes) is compiled for fixed sizes
 * of them: the model's own and its variants' (infernoc --specialize). Its model.so then also
 * exports INFERNO_MODEL_DIMS_ENTRY ("inferno_model_describe_dims"), a function returning a
 * static, immutable inferno_model_dims: each dim's name (the export's symbol, "s77"), the range
 * the model was exported for, and the input dims that have it. The runtime uses it to say why a
 * shape is refused (outside the range, two inputs disagreeing, or in the range but not compiled)
 * and `inferno-run --check` lists it. The symbol is optional (models without dynamic dims, and
 * libraries written before it existed, lack it); it changes nothing in inferno_model, so it does
 * not change INFERNO_MODEL_ABI_VERSION; its version and struct_size follow the same rules.
 */
#ifndef INFERNO_MODEL_DIMS_H_
#define INFERNO_MODEL_DIMS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFERNO_MODEL_DIMS_VERSION 1u
#define INFERNO_MODEL_DIMS_ENTRY inferno_model_describe_dims
#define INFERNO_MODEL_DIMS_ENTRY_NAME "inferno_model_describe_dims"
/* The longest dim name a reader accepts (bytes, printable ASCII, without the NUL). */
#define INFERNO_MODEL_DIM_NAME_MAX 128

/* One dynamic dim. The name comes from the model: printable only after the reader checks it. */
typedef struct inferno_model_dim {
  const char* name; /* NUL-terminated, e.g. "s77" or a derived dim's "2*s94" */
  int64_t min;      /* the export's range, inclusive */
  int64_t max;      /* -1: no upper bound */
} inferno_model_dim;

/* Dim `axis` of input `input` (of every entry point: variants differ only in sizes) is dim `dim`
 * of the table. */
typedef struct inferno_model_dim_use {
  int32_t input;
  int32_t axis;
  int32_t dim;
} inferno_model_dim_use;

typedef struct inferno_model_dims {
  uint32_t version;     /* INFERNO_MODEL_DIMS_VERSION of the compiler that wrote it */
  uint32_t struct_size; /* sizeof(inferno_model_dims) as compiled into the model */
  int32_t num_dims;
  const inferno_model_dim* dims;
  int32_t num_uses;
  const inferno_model_dim_use* uses;
  /* Appended (a table whose struct_size ends before it has none): the dim a run may be split
   * along, or -1. The model computes each row of this dim independently: every input that has it
   * has it as its first axis, every output's first dim is a multiple of it, and rows [r, r + n)
   * of the outputs are the entry point of size n run on rows [r, r + n) of the inputs. So the
   * runtime runs a size no entry point has as several runs of sizes that some have. */
  int32_t split_dim;
} inferno_model_dims;

typedef const inferno_model_dims* (*inferno_model_dims_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERNO_MODEL_DIMS_H_ */
