"""Benchmark: `relu(x @ W)` in fp32, per-call latency of PyTorch eager, torch.compile (default and
mode="reduce-overhead") and infernoc (from C++ through inferno-run, and from Python through the
ctypes loader), all in one process run on one GPU.

Every figure is measured the same way: one call followed by a synchronization of its stream, timed
on the host, median over --iters calls after warm-up (the GPU clocks boost under load). TF32 is off
everywhere (PyTorch's default for matmul, and infernoc's without --tf32), so all sides do full fp32.

Writes a markdown table (also printed) and a PNG plot to --out. Run it on the GPU machine:
    PYTHONPATH=tools/python INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/bench_mm_relu.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np
import torch

import inferno

SIZES = ["64x128x256", "128x256x512", "256x512x256", "512x1024x512", "1024x1024x1024", "2048x2048x2048",
         "4096x4096x4096"]


class MmRelu(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(k, n) / k**0.5)

    def forward(self, x):
        return torch.relu(x @ self.w)


def time_calls(fn, iters, sync):
    for _ in range(max(10, iters // 10)):
        fn()
    sync()
    samples = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3  # ms


def inferno_run_latency(inferno_run, so, input_path, iters, out_dir):
    result = subprocess.run([inferno_run, so, "--data", input_path, "--save-outputs", out_dir, "--iters", str(iters)],
                            capture_output=True, text=True, check=True)
    match = re.search(r"median ([0-9.]+) us", result.stdout)
    if not match:
        raise RuntimeError("cannot parse inferno-run's output:\n" + result.stdout)
    return float(match.group(1)) / 1e3


def bench_size(size, args, work):
    m, k, n = map(int, size.split("x"))
    torch.manual_seed(0)
    module = MmRelu(k, n).cuda().eval()
    x = torch.randn(m, k, device="cuda")
    iters = args.iters if m * k * n < 1024**3 else max(20, args.iters // 10)
    sync = torch.cuda.synchronize
    row = {"size": size}
    with torch.no_grad():
        row["eager"] = time_calls(lambda: module(x), iters, sync)
        compiled = torch.compile(module)
        row["compile"] = time_calls(lambda: compiled(x), iters, sync)
        reduce_overhead = torch.compile(module, mode="reduce-overhead")
        row["compile_ro"] = time_calls(lambda: reduce_overhead(x), iters, sync)

    pt2 = os.path.join(work, f"mm_relu_{size}.pt2")
    so = os.path.join(work, f"mm_relu_{size}.so")
    torch.export.save(torch.export.export(MmRelu(k, n).eval(), (torch.randn(m, k),)), pt2)
    # The exported module has its own random weights; infernoc's output is checked against it below.
    reference = torch.export.load(pt2).module().cuda()
    subprocess.run([args.infernoc, pt2, "-o", so, "--quiet"], check=True)
    model = inferno.load(so)
    out = torch.empty(m, n, device="cuda")
    row["infernoc_py"] = time_calls(lambda: model(x, out=out), iters, sync)
    with torch.no_grad():
        torch.testing.assert_close(out, reference(x), rtol=1e-4, atol=1e-4)  # fp32 GEMMs, K up to 4096
    input_path = os.path.join(work, f"x_{size}.npy")
    np.save(input_path, x.cpu().numpy())
    row["infernoc_cpp"] = inferno_run_latency(args.inferno_run, so, input_path, iters, os.path.join(work, "out"))
    model.close()
    return row


def write_report(rows, out_dir):
    lines = ["| M x K x N | eager | compile | compile reduce-overhead | infernoc C++ | infernoc Python | "
             "C++ / eager | C++ / best PyTorch |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        best = min(r["eager"], r["compile"], r["compile_ro"])
        lines.append(f"| {r['size']} | {r['eager']:.4f} | {r['compile']:.4f} | {r['compile_ro']:.4f} | "
                     f"{r['infernoc_cpp']:.4f} | {r['infernoc_py']:.4f} | {r['infernoc_cpp'] / r['eager']:.2f} | "
                     f"{r['infernoc_cpp'] / best:.2f} |")
    table = "\n".join(lines)
    header = (f"relu(x @ W), fp32, per-call latency in ms (median; call + stream sync), "
              f"{torch.cuda.get_device_name()}, torch {torch.__version__}\n\n")
    with open(os.path.join(out_dir, "bench_mm_relu.md"), "w") as f:
        f.write(header + table + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 5))
        labels = [r["size"] for r in rows]
        for key, name in [("eager", "eager"), ("compile", "torch.compile"), ("compile_ro", "reduce-overhead"),
                          ("infernoc_cpp", "infernoc (C++)"), ("infernoc_py", "infernoc (Python)")]:
            ax.plot(labels, [r[key] for r in rows], marker="o", label=name)
        ax.set_yscale("log")
        ax.set_ylabel("ms per call (log)")
        ax.set_xlabel("M x K x N")
        ax.set_title("relu(x @ W), fp32, " + torch.cuda.get_device_name())
        ax.tick_params(axis="x", rotation=30)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "bench_mm_relu.png"), dpi=110)
    except ImportError:
        print("matplotlib missing: no plot")
    return header + table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--inferno-run", required=True)
    parser.add_argument("--out", default=".")
    parser.add_argument("--iters", type=int, default=500)
    parser.add_argument("--sizes", default=",".join(SIZES))
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        rows = [bench_size(size, args, work) for size in args.sizes.split(",")]
    print(write_report(rows, args.out))


if __name__ == "__main__":
    main()
