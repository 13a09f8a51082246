"""GPU test: every fixture, in every exported form, compiled by infernoc to a model.so, matches
PyTorch on fresh random inputs.

For each model and form: compile with infernoc; run through the Python loader on random inputs
into output buffers poisoned with NaN; compare with the same PyTorch module evaluated in float64
on the CPU (the ground truth; fp32 tolerances of torch.testing); check that CUDA-graph replay and
a plain run agree bitwise; and run the model once under compute-sanitizer's memcheck through
inferno-run. Exits 77 (ctest's skip) with "SKIPPED: ..." where there is no GPU or no torch.

Environment: INFERNOC, INFERNO_RUN (executables), INFERNO_FIXTURES (test/fixtures),
INFERNO_RUNTIME_LIB and PYTHONPATH for the loader (set by CMake); INFERNO_FIXTURES_ONLY, a model
name prefix, checks only those models (by hand; ctest checks all).
"""
import json
import os
import shutil
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

FORMS = ["model.pt2", "model_decomposed.pt2", "model.pt"]
RTOL, ATOL = 1.3e-6, 1e-5  # torch.testing's fp32 defaults


def load_reference(path):
    """The PyTorch module of a fixture file, in float64 on the CPU."""
    if path.endswith(".pt2"):
        module = torch.export.load(path).module()
    else:
        module = torch.jit.load(path, map_location="cpu")
    return module.to(torch.float64)


def same_bits(a, b):
    """Bitwise equality (NaN payloads included, where torch.equal calls NaN unequal to itself)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    as_int = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
    return torch.equal(a.contiguous().view(as_int), b.contiguous().view(as_int))


def compile_model(infernoc, path, inputs, out_dir, form):
    so = os.path.join(out_dir, form.replace(".", "_") + ".so")
    args = [infernoc, path, "-o", so, "--quiet"]
    if path.endswith(".pt"):
        for name, spec in inputs:
            args += ["--input", f"{name}:{'x'.join(map(str, spec['shape']))}:{spec['dtype']}"]
    subprocess.run(args, check=True)
    return so


def run_sanitizer(inferno_run, so, inputs, out_dir):
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        return "compute-sanitizer not found: memcheck skipped"
    data = []
    for i, x in enumerate(inputs):
        path = os.path.join(out_dir, f"in{i}.npy")
        np.save(path, x.cpu().numpy())
        data += ["--data", path]
    result = subprocess.run([sanitizer, "--tool", "memcheck", "--error-exitcode", "9", inferno_run, so, *data,
                             "--save-outputs", os.path.join(out_dir, "sanitized")], capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"memcheck failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
    return "memcheck clean"


def fresh_inputs(fixtures, name, inputs_spec, generator):
    """Random f32 inputs; token ids and masks (int64, bool) are the fixture's own, since their
    valid values depend on the model (a vocabulary, a padding pattern)."""
    inputs = []
    for _, spec in inputs_spec:
        if spec["dtype"] == "f32":
            inputs.append(torch.randn(*spec["shape"], generator=generator, dtype=torch.float32))
        else:
            inputs.append(torch.from_numpy(np.load(os.path.join(fixtures, name, spec["file"]))))
    return inputs


def as_float64(x):
    return x.double() if x.is_floating_point() else x


def check_model(name, spec, fixtures, infernoc, inferno_run, generator):
    failures = []
    inputs_spec = [(i["name"], i) for i in spec["inputs"]]
    for form in FORMS:
        path = os.path.join(fixtures, name, form)
        label = f"{name}/{form}"
        if not os.path.exists(path):
            continue
        with tempfile.TemporaryDirectory() as out_dir:
            try:
                so = compile_model(infernoc, path, inputs_spec, out_dir, form)
                inputs = fresh_inputs(fixtures, name, inputs_spec, generator)
                try:
                    expected = load_reference(path)(*[as_float64(x) for x in inputs])
                except RuntimeError:
                    # An export that pins a dtype (a model's own .float() becomes a dtype assertion
                    # in torch.export's graph) does not run in float64: PyTorch in float32 then.
                    module = torch.export.load(path).module() if path.endswith(".pt2") else torch.jit.load(path)
                    expected = module(*inputs)
                expected = expected if isinstance(expected, (tuple, list)) else (expected,)
                cuda_inputs = [x.cuda() for x in inputs]

                results = {}
                for use_graph in (True, False):
                    model = inferno.load(so, use_cuda_graph=use_graph)
                    outs = [torch.full(shape, float("nan"), dtype=dtype, device="cuda") for _, dtype, shape in model.outputs]
                    for _ in range(3):  # the first run is eager, later ones replay the captured graph
                        model(*cuda_inputs, out=outs)
                    torch.cuda.synchronize()
                    results[use_graph] = [o.cpu() for o in outs]
                    model.close()

                # NaN where PyTorch gives NaN (log or sqrt of a negative input in math_ops), and
                # nowhere else: the outputs were poisoned with NaN, so an unwritten one still fails.
                for k, (actual, want) in enumerate(zip(results[True], expected)):
                    # (A model's own .float() makes PyTorch's output f32 even from f64 inputs.)
                    torch.testing.assert_close(actual.double(), want.double(), rtol=RTOL, atol=ATOL, equal_nan=True,
                                               msg=lambda m, k=k: f"{label} output {k}: {m}")
                for k, (graph_out, plain_out) in enumerate(zip(results[True], results[False])):
                    if not same_bits(graph_out, plain_out):
                        raise AssertionError(f"{label} output {k}: CUDA-graph replay differs from a plain run")
                note = run_sanitizer(inferno_run, so, inputs, out_dir)
                print(f"ok   {label}: {len(expected)} output(s) match; graph == plain; {note}")
            except Exception as e:  # report every model and form, then fail
                failures.append(f"{label}: {e}")
                print(f"FAIL {label}: {e}")
    return failures


def main():
    fixtures = os.environ["INFERNO_FIXTURES"]
    infernoc, inferno_run = os.environ["INFERNOC"], os.environ["INFERNO_RUN"]
    torch.backends.cuda.matmul.allow_tf32 = False
    generator = torch.Generator().manual_seed(1234)
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    models = manifest["models"] if isinstance(manifest.get("models"), list) else [
        dict(v, name=k) for k, v in manifest["models"].items()]
    only = os.environ.get("INFERNO_FIXTURES_ONLY", "")  # a name prefix, to check some models by hand
    models = [m for m in models if m["name"].startswith(only)]
    failures = []
    for spec in models:
        failures += check_model(spec["name"], spec, fixtures, infernoc, inferno_run, generator)
    print(f"{len(models) * len(FORMS) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
