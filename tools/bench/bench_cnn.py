"""Benchmark: torchvision CNNs (resnet18, mobilenet_v2; random weights, randomized BatchNorm
statistics), fp32, 224x224, batch 1 and 8: per-call latency of PyTorch eager (full fp32: cuDNN's
TF32 off, like infernoc's f32 convolutions) and torch.compile (default mode), and of infernoc (C++
through inferno-run, Python through the ctypes loader), all in one process on one GPU; plus
infernoc's compile time, kernel launches per call, and its peak arena against PyTorch's peak
activation memory. Every infernoc output is checked against eager first.

Methodology as in bench_common.py. Run it on the GPU machine:
    PYTHONPATH=tools/python:tools/bench INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/bench_cnn.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import tempfile
import time

import torch
import torchvision

import inferno
from bench_common import (bench_parser, full_fp32, write_table, compile_with_infernoc, inferno_run_latency, infernoc_plan, kernel_launches,
                          pytorch_peak_activation_bytes, time_calls)

MODELS = ("resnet18", "mobilenet_v2")


def build(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 2.0)
    return model


def relative_l2(got, want):
    return (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()


def model_output_error(model, x, expected, label):
    """Runs the inferno `model` on x into a new tensor; returns (the tensor, its relative L2 error
    against eager's `expected`), raising when the error is over fp32's bound."""
    out = torch.empty_like(expected)
    model(x, out=out)
    torch.cuda.synchronize()
    error = relative_l2(out, expected)
    if not error <= 1e-4:  # fp32 both sides; sums of up to 4608 terms in other orders
        raise AssertionError(f"{label}: relative L2 error {error:.3g} vs eager")
    return out, error


def bench(name, batch, args, work):
    module = build(name)
    x_cpu = torch.randn(batch, 3, 224, 224)
    start = time.perf_counter()
    so, pt2 = compile_with_infernoc(args.infernoc, module, (x_cpu,), work, f"{name}_b{batch}")
    row = {"model": name, "batch": batch, "compile_s": time.perf_counter() - start}
    module = module.cuda()
    x = x_cpu.cuda()
    with torch.no_grad():
        row["eager"] = time_calls(lambda: module(x), args.iters, torch.cuda.synchronize)
        if not args.no_compile:
            compiled = torch.compile(module)
            row["compile"] = time_calls(lambda: compiled(x), args.iters, torch.cuda.synchronize)
        expected = module(x)
    row["torch_peak"] = pytorch_peak_activation_bytes(module, (x,))

    model = inferno.load(so)
    out, row["rel_l2"] = model_output_error(model, x, expected, f"{name} batch {batch}")
    row["infernoc_py"] = time_calls(lambda: model(x, out=out), args.iters, torch.cuda.synchronize)
    model.close()
    row["infernoc_cpp"] = inferno_run_latency(args.inferno_run, so, (x,), args.iters, work)
    row["kernels"] = kernel_launches(args.inferno_run, so)
    row["arena_peak"], row["arena_unshared"] = infernoc_plan(args.infernoc, pt2)
    return row


def write_report(rows, out_dir):
    lines = ["| model | batch | eager | compile | infernoc C++ | infernoc Python | C++ / best PyTorch | "
             "rel. L2 | kernels | infernoc compile | infernoc peak arena | PyTorch peak activations |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        best = min(r["eager"], r.get("compile", float("inf")))
        compile_ms = f"{r['compile']:.3f}" if "compile" in r else "-"
        lines.append(f"| {r['model']} | {r['batch']} | {r['eager']:.3f} | {compile_ms} | {r['infernoc_cpp']:.3f} | "
                     f"{r['infernoc_py']:.3f} | {r['infernoc_cpp'] / best:.2f} | {r['rel_l2']:.1e} | "
                     f"{r['kernels']} | {r['compile_s']:.0f} s | {r['arena_peak']:,} B (unshared "
                     f"{r['arena_unshared']:,}) | {r['torch_peak']:,} B |")
    header = (f"torchvision CNNs, fp32 (TF32 off), 224x224, per-call latency in ms (median; call + stream "
              f"sync), {torch.cuda.get_device_name()}, torch {torch.__version__}\n\n")
    return write_table(out_dir, "bench_cnn.md", header, lines)


def main():
    parser = bench_parser(__doc__, iters=200)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (it takes minutes)")
    args = parser.parse_args()
    full_fp32()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            for batch in args.batches:
                rows.append(bench(name, batch, args, work))
                print(rows[-1], flush=True)
    print(write_report(rows, args.out))


if __name__ == "__main__":
    main()
