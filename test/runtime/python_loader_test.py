"""The Python loader (tools/python/inferno) without a GPU or torch: finding libinferno_runtime and
checking model files, with errors raised as InfernoError carrying the runtime's status, and its
ctypes prototypes against the C API."""
import os

import inferno

MODELS = os.environ["INFERNO_TEST_MODEL_DIR"]


def model(name):
    return os.path.join(MODELS, f"test_model_{name}.so")


def expect_error(fn, status, text):
    try:
        fn()
    except inferno.InfernoError as e:
        assert e.status == status, (e.status, str(e))
        assert text in str(e), str(e)
        return
    raise AssertionError(f"expected {status}")


inferno.check(model("good"))
inferno.check(model("sm75"), 75)
expect_error(lambda: inferno.check(model("bad_abi")), "abi_mismatch", "ABI version 999")
expect_error(lambda: inferno.check(model("bad_checksum")), "weights_corrupt", "checksum")
expect_error(lambda: inferno.check(model("sm75"), 90), "arch_mismatch", "sm_75")
expect_error(lambda: inferno.check("/nonexistent/model.so"), "io", "/nonexistent/model.so")
# The ctypes mirrors of generate's structs have the C layout: the runtime fills the defaults.
import ctypes  # noqa: E402
from inferno import runtime as rt  # noqa: E402

options = rt._GenerateOptions()
assert rt._library().inferno_generate_options_default(ctypes.byref(options)) == 0
assert options.struct_size == ctypes.sizeof(rt._GenerateOptions), options.struct_size
assert (options.max_new_tokens, options.temperature, options.top_k, options.top_p) == (16, 0.0, 0, 1.0)
assert options.num_stop_tokens == 0 and options.seed == 0 and not options.callback
assert ctypes.sizeof(rt._GenerateStats) == 64  # 4 int32 and 6 doubles
# inferno_kernel_cost: 2 int32, 4 strings, 2 int32, a double and 2 uint64 (profile_table_test.cpp
# holds the C struct to the same size).
assert ctypes.sizeof(rt._KernelCost) == 72, ctypes.sizeof(rt._KernelCost)
# The dynamic dims functions' prototypes (Model.dynamic_dims reads through them), on the test LLM
# loaded for inspection (INFERNO_DEVICE_NONE, -2).
lib, handle = rt._library(), ctypes.c_void_p()
assert lib.inferno_model_load(os.fsencode(model("llm")), -2, ctypes.byref(handle)) == 0
count, name, low, high, uses = ctypes.c_int32(), ctypes.c_char_p(), ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int32()
assert lib.inferno_model_num_dynamic_dims(handle, ctypes.byref(count)) == 0 and count.value == 1
assert lib.inferno_model_dynamic_dim(handle, 0, ctypes.byref(name), ctypes.byref(low), ctypes.byref(high),
                                     ctypes.byref(uses)) == 0
assert (name.value, low.value, high.value, uses.value) == (b"seq_length", 1, 31, 2), (name.value, high.value)
index, axis = ctypes.c_int32(), ctypes.c_int32()
assert lib.inferno_model_dynamic_dim_use(handle, 0, 0, ctypes.byref(index), ctypes.byref(axis)) == 0
assert (index.value, axis.value) == (0, 1)
# No split dim (the length is input_ids' dim 1, and the model has state); the outputs a variant's
# inputs give, and inputs no variant takes refused.
split, rank, dims = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * 3)()
assert lib.inferno_model_split_dim(handle, ctypes.byref(split)) == 0 and split.value == -1
for length, status in ((4, 0), (5, 1)):
    ids, positions = (ctypes.c_int64 * 2)(1, length), (ctypes.c_int64 * 1)(length)
    given = (rt._Tensor * 2)(rt._Tensor(None, 4, 2, ids), rt._Tensor(None, 4, 1, positions))  # i64
    assert lib.inferno_model_output_shape(handle, given, 2, 0, dims, 3, ctypes.byref(rank)) == status
assert list(dims[:rank.value]) == [1, 4, 1000], list(dims)
assert lib.inferno_model_unload(handle) == 0
print("python loader: ok")
