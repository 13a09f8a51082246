"""The Python loader's native extension (inferno._native) without a GPU: it is the call path when
built, it reports the runtime's errors as ctypes does, and it checks a call's tensors (count, type,
dtype, shape, device, contiguity, out=) before the runtime sees them. Needs torch (CPU is enough)."""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIPPED: no torch")
    sys.exit(0)

import inferno
from inferno import runtime

MODELS = os.environ["INFERNO_TEST_MODEL_DIR"]
GOOD = os.path.join(MODELS, "test_model_good.so")

assert runtime._native is not None, "inferno._native was not found on sys.path"
assert os.path.samefile(runtime._native.library_path(), os.environ["INFERNO_RUNTIME_LIB"])


def expect(fn, error, text, status=None):
    try:
        fn()
    except error as e:
        assert text in str(e), f"{text!r} not in {str(e)!r}"
        if status is not None:
            assert e.status == status, (e.status, str(e))
        return e
    raise AssertionError(f"expected {error.__name__}: {text}")


# Loading without a GPU: the same error, by the extension and by ctypes.
native_error = expect(lambda: inferno.load(GOOD), inferno.InfernoError, "no NVIDIA GPU", "no_device")
expect(lambda: runtime._native.load(os.fsencode(GOOD), 0), inferno.InfernoError, str(native_error), "no_device")
lib = runtime._library()
handle = runtime.ctypes.c_void_p()
status = lib.inferno_model_load(os.fsencode(GOOD), 0, runtime.ctypes.byref(handle))
assert lib.inferno_status_name(status).decode() == "no_device", status
assert f"no_device: {lib.inferno_last_error().decode()}" == str(native_error)
expect(lambda: runtime._native.load(b"/nonexistent/model.so", -2), inferno.InfernoError, "/nonexistent", "io")

# The model's interface without a device: x f32[4,8] -> y f32[4,8].
model = inferno.Model(GOOD, runtime._DEVICE_NONE)
assert model.device is None and model.variants == [([("x", torch.float32, (4, 8))], [("y", torch.float32, (4, 8))])]

# A runner on the model's device 0 with no session: every check runs before the session is used,
# with the runtime's messages.
runner = runtime._native_runner(torch, None, torch.device("cuda", 0), model.variants)
x = torch.zeros(4, 8)
expect(lambda: runner(), inferno.InfernoError, "expected 1 input, got 0", "invalid_argument")
expect(lambda: runner("x"), TypeError, "input 0: expected a torch.Tensor, got str")
expect(lambda: runner(x.to(torch.complex64)), TypeError, "input 0: unsupported dtype torch.complex64")
expect(lambda: runner(x), inferno.InfernoError, "input 'x': data is host memory, not device memory",
       "invalid_argument")
expect(lambda: runner(x, out=1), inferno.InfernoError, "input 'x': data is host memory", "invalid_argument")
expect(lambda: runner(x, bad=1), TypeError, "only tensors and out=")

# On a CPU "device" the tensors pass the device check, so the variant choice, the outputs and the
# closed session are reached.
cpu = runtime._native_runner(torch, None, torch.device("cpu"), model.variants)
expect(lambda: cpu(x, x), inferno.InfernoError, "expected 1 input, got 2", "invalid_argument")
expect(lambda: cpu(x.double()), inferno.InfernoError, "input 'x': expected f32[4,8], got f64[4,8]")
expect(lambda: cpu(torch.zeros(2, 8)), inferno.InfernoError, "input 'x': expected f32[4,8], got f32[2,8]")
expect(lambda: cpu(x), inferno.InfernoError, "the model is closed", "invalid_argument")
expect(lambda: cpu(torch.zeros(8, 4).t()), inferno.InfernoError, "the model is closed")  # made contiguous
expect(lambda: cpu(x, out=torch.zeros(4, 7)), inferno.InfernoError, "output 'y': expected f32[4,8], got f32[4,7]",
       "invalid_argument")
expect(lambda: cpu(x, out=[x, x]), inferno.InfernoError, "expected 1 output, got 2", "invalid_argument")
expect(lambda: cpu(x, out=torch.zeros(8, 4).t()), ValueError, "out tensors must be contiguous")
expect(lambda: cpu(x, out=[torch.zeros(4, 8)]), inferno.InfernoError, "the model is closed")
expect(lambda: cpu(x, out=5), TypeError, "out must be a tensor or a sequence of tensors")

# Variants: the inputs pick one, and its outputs are what out= must match.
f32 = torch.float32
two = [([("x", f32, (4, 8))], [("y", f32, (4, 8))]), ([("x", f32, (1, 8))], [("y", f32, (1, 2)), ("z", f32, ())])]
cpu2 = runtime._native_runner(torch, None, torch.device("cpu"), two)
expect(lambda: cpu2(torch.zeros(2, 8)), inferno.InfernoError,
       "inputs (f32[2,8]) match no variant of the model, which takes (x f32[4,8]) or (x f32[1,8])")
expect(lambda: cpu2(torch.zeros(1, 8)), inferno.InfernoError, "the model is closed")
expect(lambda: cpu2(torch.zeros(1, 8), out=[torch.zeros(1, 2), torch.zeros(())]), inferno.InfernoError,
       "the model is closed")
expect(lambda: cpu2(torch.zeros(1, 8), out=torch.zeros(4, 8)), inferno.InfernoError, "expected 2 outputs, got 1")
expect(lambda: cpu2(torch.zeros(1, 8), out=[torch.zeros(1, 2), torch.zeros(1)]), inferno.InfernoError,
       "output 'z': expected f32[], got f32[1]")

# A variant table the loader could get wrong is refused when the runner is made.
expect(lambda: runtime._native.Runner(None, 0, (), (), torch.Tensor, torch.empty, id), TypeError, "dtypes")
expect(lambda: runtime._native_runner(torch, None, torch.device("cpu"), []), TypeError, "non-empty tuple")
expect(lambda: cpu.__init__(None, 0, (), (), torch.Tensor, torch.empty, id), TypeError, "initialized once")
model.close()
print("python native: ok")
