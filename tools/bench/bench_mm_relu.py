"""Benchmark: `relu(x @ W)` in fp32, per-call latency of PyTorch eager, torch.compile (default and
mode="reduce-overhead") and infernoc (from C++ through inferno-run, and from Python through the
ctypes loader), all in one process run on one GPU.

Methodology (the same for every figure) in bench_common.py.

Writes a markdown table (also printed) and a PNG plot to --out. Run it on the GPU machine:
    PYTHONPATH=tools/python INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/bench_mm_relu.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import os
import tempfile

import torch

import inferno
from bench_common import (bench_parser, compile_with_infernoc, inferno_run_latency, pytorch_latencies, time_calls,
                          write_table)

SIZES = ["64x128x256", "128x256x512", "256x512x256", "512x1024x512", "1024x1024x1024", "2048x2048x2048",
         "4096x4096x4096"]


class MmRelu(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(k, n) / k**0.5)

    def forward(self, x):
        return torch.relu(x @ self.w)


def bench_size(size, args, work):
    m, k, n = map(int, size.split("x"))
    torch.manual_seed(0)
    module = MmRelu(k, n).eval()
    x_cpu = torch.randn(m, k)
    so, _ = compile_with_infernoc(args.infernoc, module, (x_cpu,), work, f"mm_relu_{size}")
    module = module.cuda()
    x = x_cpu.cuda()
    iters = args.iters if m * k * n < 1024**3 else max(20, args.iters // 10)
    row = {"size": size}
    row.update(pytorch_latencies(module, (x,), iters))

    model = inferno.load(so)
    out = torch.empty(m, n, device="cuda")
    row["infernoc_py"] = time_calls(lambda: model(x, out=out), iters, torch.cuda.synchronize)
    with torch.no_grad():
        torch.testing.assert_close(out, module(x), rtol=1e-4, atol=1e-4)  # fp32 GEMMs, K up to 4096
    model.close()
    row["infernoc_cpp"] = inferno_run_latency(args.inferno_run, so, (x,), iters, work)
    return row


def write_report(rows, out_dir):
    lines = ["| M x K x N | eager | compile | compile reduce-overhead | infernoc C++ | infernoc Python | "
             "C++ / eager | C++ / best PyTorch |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        best = min(r["eager"], r["compile"], r["compile_ro"])
        lines.append(f"| {r['size']} | {r['eager']:.4f} | {r['compile']:.4f} | {r['compile_ro']:.4f} | "
                     f"{r['infernoc_cpp']:.4f} | {r['infernoc_py']:.4f} | {r['infernoc_cpp'] / r['eager']:.2f} | "
                     f"{r['infernoc_cpp'] / best:.2f} |")
    header = (f"relu(x @ W), fp32, per-call latency in ms (median; call + stream sync), "
              f"{torch.cuda.get_device_name()}, torch {torch.__version__}\n\n")
    text = write_table(out_dir, "bench_mm_relu.md", header, lines)
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
    return text


def main():
    parser = bench_parser(__doc__, iters=500)
    parser.add_argument("--sizes", default=",".join(SIZES))
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        rows = [bench_size(size, args, work) for size in args.sizes.split(",")]
    print(write_report(rows, args.out))


if __name__ == "__main__":
    main()
