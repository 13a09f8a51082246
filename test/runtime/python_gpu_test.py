"""The Python loader on a GPU: a model called on torch CUDA tensors returns what the model computes,
refuses bad tensors with the runtime's message, and serves several threads at once."""
import os
import sys
import threading

try:
    import torch
except ImportError:
    print("SKIPPED: no torch")
    sys.exit(0)
if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(0)

import inferno

model = inferno.load(os.path.join(os.environ["INFERNO_TEST_MODEL_DIR"], "test_model_good.so"))
assert model.inputs == [("x", torch.float32, (4, 8))], model.inputs

# y = x * w + b: recover b and w from the model itself, then check random inputs against torch.
b = model(torch.zeros(4, 8, device="cuda"))
w = model(torch.ones(4, 8, device="cuda")) - b
x = torch.randn(4, 8, device="cuda")
torch.testing.assert_close(model(x), x * w + b)
torch.testing.assert_close(model(x.t().contiguous().t()), x * w + b)  # non-contiguous input
y = torch.empty(4, 8, device="cuda")  # out=: the caller's tensors are written and returned
assert model(x, out=y) is y
torch.testing.assert_close(y, x * w + b)
y.zero_()
assert model(x, out=[y]) is y
torch.testing.assert_close(y, x * w + b)

for bad, text in [(torch.zeros(4, 7, device="cuda"), "input 'x': expected f32[4,8], got f32[4,7]"),
                  (torch.zeros(4, 8, device="cuda", dtype=torch.float16), "got f16[4,8]"),
                  (torch.zeros(4, 8), "host memory")]:
    try:
        model(bad)
        raise AssertionError("no error for " + text)
    except inferno.InfernoError as e:
        assert e.status == "invalid_argument" and text in str(e), str(e)

errors = []


def worker(seed):
    try:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            g = torch.Generator(device="cuda").manual_seed(seed)
            for _ in range(50):
                xi = torch.randn(4, 8, device="cuda", generator=g)
                torch.testing.assert_close(model(xi), xi * w + b)
        stream.synchronize()
    except Exception as e:  # reported by the main thread
        errors.append(repr(e))


threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
model.close()
print("python gpu: ok")
