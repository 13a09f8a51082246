"""GPU test: --precision fp16/bf16 with --io-precision compute. Fixture MLPs (mlp2; and
mlp_gelu_silu_softmax, whose output is an f32 softmax island cast down) compiled by infernoc take
and return 16-bit tensors through the Python loader; their outputs are compared with the same
module converted in PyTorch (model.half() / model.to(torch.bfloat16)) on the GPU, the
like-for-like reference. An f32 tensor is refused with the runtime's message. inferno-run reads
an f32 .npy for the f16 input (rounded to nearest even, as NumPy's astype(float16) does) and
writes a float16 .npy bitwise equal to the loader's output. Exits 77 (ctest's skip) with
"SKIPPED: ..." where there is no GPU or no torch.

Environment: INFERNOC, INFERNO_RUN (executables), INFERNO_FIXTURES (test/fixtures),
INFERNO_RUNTIME_LIB and PYTHONPATH for the loader (set by CMake).
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"SKIPPED: no {e.name}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(77)

import inferno  # noqa: E402  (needs torch first)

MODELS = ["mlp2", "mlp_gelu_silu_softmax"]
# Relative L2 error against the PyTorch module in the same dtype: both round every stored value,
# in different places (fusion, f32 islands); a few unit roundoffs.
BOUNDS = {"fp16": (torch.float16, 4e-3), "bf16": (torch.bfloat16, 3e-2)}


def rel_l2(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def main():
    infernoc, inferno_run = os.environ["INFERNOC"], os.environ["INFERNO_RUN"]
    fixtures = os.environ["INFERNO_FIXTURES"]
    major, _ = torch.cuda.get_device_capability()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            path = os.path.join(fixtures, name, "model.pt2")
            for precision, (dtype, bound) in BOUNDS.items():
                if dtype == torch.bfloat16 and major < 8:
                    print(f"{name} {precision}: skipped (bf16 needs sm_80)")
                    continue
                tag = f"{name} {precision}"
                so = os.path.join(tmp, f"{name}_{precision}.so")
                subprocess.run([infernoc, path, "--precision", precision, "--io-precision",
                                "compute", "-o", so, "--quiet"], check=True)
                model = inferno.load(so)
                (in_name, in_dtype, shape), = model.inputs
                assert in_dtype == dtype, f"{tag}: input {model.inputs}"
                assert all(d == dtype for _, d, _ in model.outputs), f"{tag}: {model.outputs}"
                reference = torch.export.load(path).module().to("cuda").to(dtype)
                g = torch.Generator(device="cuda").manual_seed(3)
                for _ in range(3):
                    x = torch.randn(shape, device="cuda", generator=g).to(dtype)
                    y = model(x)
                    expected = reference(x)
                    assert y.dtype == dtype and y.shape == expected.shape, f"{tag}: {y.dtype}"
                    assert torch.isfinite(y).all(), f"{tag}: inf/NaN"
                    error = rel_l2(y, expected)
                    if error > bound:
                        failures.append(f"{tag}: rel L2 {error:.2e} > {bound:.0e}")
                print(f"{tag}: rel L2 vs PyTorch in {dtype}: {error:.2e} (bound {bound:.0e})")
                try:
                    model(torch.zeros(shape, device="cuda"))
                    failures.append(f"{tag}: an f32 input was accepted")
                except inferno.InfernoError as e:
                    assert "got f32[" in str(e), str(e)
                if dtype == torch.float16:
                    # inferno-run: the f32 .npy rounded to f16 on the host, the output '<f2'.
                    x32 = torch.randn(shape, generator=torch.Generator().manual_seed(5))
                    data = os.path.join(tmp, f"{name}_in.npy")
                    np.save(data, x32.numpy())
                    out_dir = os.path.join(tmp, f"{name}_out")
                    subprocess.run([inferno_run, so, "--data", data, "--save-outputs", out_dir],
                                   check=True)
                    saved = np.load(os.path.join(out_dir, "out0.npy"))
                    assert saved.dtype == np.float16, f"{tag}: inferno-run wrote {saved.dtype}"
                    y = model(torch.from_numpy(x32.numpy().astype(np.float16)).cuda())
                    if not np.array_equal(saved.view(np.int16), y.cpu().numpy().view(np.int16)):
                        failures.append(f"{tag}: inferno-run's output differs from the loader's")
                model.close()
    if failures:
        print("\n".join(failures))
        return 1
    print("io-precision gpu: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
