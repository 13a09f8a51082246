"""Benchmark: the MLP 1024-4096-4096-1024 with exact GELU, fp32, batch 1 and 64: per-call latency of
PyTorch eager, torch.compile (default and mode="reduce-overhead") and infernoc (C++ through
inferno-run, Python through the ctypes loader), all in one process run on one GPU; plus kernel
launches per call and infernoc's peak arena bytes against PyTorch's peak activation memory.

Methodology as in bench_common.py. Run it on the GPU machine (tools/gpu/check.sh bench does):
    PYTHONPATH=tools/python INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/bench_mlp.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import os
import tempfile

import torch

import inferno
from bench_common import (bench_parser, write_table, compile_with_infernoc, inferno_run_latency, infernoc_plan, kernel_launches,
                          pytorch_latencies, pytorch_peak_activation_bytes, time_calls)

WIDTHS = (1024, 4096, 4096, 1024)


class Mlp(torch.nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.nn.functional.gelu(x)
        return x


def bench_batch(batch, args, work):
    torch.manual_seed(0)
    module = Mlp(WIDTHS).eval()
    x_cpu = torch.randn(batch, WIDTHS[0])
    so, pt2 = compile_with_infernoc(args.infernoc, module, (x_cpu,), work, f"mlp_b{batch}")
    module = module.cuda()
    x = x_cpu.cuda()
    row = {"batch": batch}
    row.update(pytorch_latencies(module, (x,), args.iters))
    row["torch_peak"] = pytorch_peak_activation_bytes(module, (x,))

    model = inferno.load(so)
    out = torch.empty(batch, WIDTHS[-1], device="cuda")
    row["infernoc_py"] = time_calls(lambda: model(x, out=out), args.iters, torch.cuda.synchronize)
    with torch.no_grad():
        # fp32 GEMMs over K up to 4096 in a different summation order than cuBLAS's for PyTorch.
        torch.testing.assert_close(out, module(x), rtol=1e-4, atol=1e-4)
    model.close()
    row["infernoc_cpp"] = inferno_run_latency(args.inferno_run, so, (x,), args.iters, work)
    row["kernels"] = kernel_launches(args.inferno_run, so)
    row["arena_peak"], row["arena_unshared"] = infernoc_plan(args.infernoc, pt2)
    return row


def write_report(rows, out_dir):
    lines = ["| batch | eager | compile | compile reduce-overhead | infernoc C++ | infernoc Python | "
             "C++ / best PyTorch | kernels | infernoc peak arena | PyTorch peak activations |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        best = min(r["eager"], r["compile"], r["compile_ro"])
        lines.append(f"| {r['batch']} | {r['eager']:.4f} | {r['compile']:.4f} | {r['compile_ro']:.4f} | "
                     f"{r['infernoc_cpp']:.4f} | {r['infernoc_py']:.4f} | {r['infernoc_cpp'] / best:.2f} | "
                     f"{r['kernels']} | {r['arena_peak']:,} B (unshared {r['arena_unshared']:,}) | "
                     f"{r['torch_peak']:,} B |")
    header = (f"MLP {'-'.join(map(str, WIDTHS))} GELU, fp32, per-call latency in ms (median; call + stream sync), "
              f"{torch.cuda.get_device_name()}, torch {torch.__version__}\n\n")
    return write_table(out_dir, "bench_mlp.md", header, lines)


def main():
    parser = bench_parser(__doc__, iters=500)
    parser.add_argument("--batches", default="1,64")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        rows = [bench_batch(int(b), args, work) for b in args.batches.split(",")]
    print(write_report(rows, args.out))


if __name__ == "__main__":
    main()
