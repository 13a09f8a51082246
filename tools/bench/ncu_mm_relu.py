"""Evidence for GEMM epilogue fusion: Nsight Compute on `relu(x @ W)` (fp32, M x K x N = 256x512x128
by default), PyTorch eager against infernoc: kernels launched per call and DRAM bytes read and
written by them, summed over the call's kernels.

Each side runs in its own process under `ncu --clock-control none --profile-from-start off`; the
process warms up, then profiles exactly one call between cudaProfilerStart and cudaProfilerStop.
ncu's default cache control flushes the caches before each kernel, so every kernel's bytes are what
it moves from DRAM cold, and the two sides are measured alike. Run it on the GPU machine:
    PYTHONPATH=tools/python INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/ncu_mm_relu.py --infernoc build/src/infernoc --out /tmp/ncu
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile

import torch

METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")


class MmRelu(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(k, n) / k**0.5)

    def forward(self, x):
        return torch.relu(x @ self.w)


def probe(args):
    """The profiled process: one warm call of one side between profiler start and stop."""
    m, k, _ = map(int, args.size.split("x"))
    torch.backends.cuda.matmul.allow_tf32 = False
    module = torch.export.load(args.pt2).module().cuda()
    x = torch.randn(m, k, device="cuda")
    if args.probe == "eager":
        call = lambda: module(x)  # noqa: E731
    else:
        import inferno
        model = inferno.load(args.so)
        call = lambda: model(x)  # noqa: E731
    with torch.no_grad():
        for _ in range(5):
            call()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        call()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


def profile(side, args, pt2, so):
    command = ["ncu", "--clock-control", "none", "--profile-from-start", "off", "--metrics", ",".join(METRICS),
               "--csv", "--print-units", "base", sys.executable, os.path.abspath(__file__), "--probe", side,
               "--pt2", pt2, "--so", so, "--size", args.size]
    result = subprocess.run(command, capture_output=True, text=True)
    with open(os.path.join(args.out, f"ncu_{side}.log"), "w") as f:
        f.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"ncu failed for {side}; see ncu_{side}.log")
    # The CSV starts at the header line; ncu prints its own ==PROF== lines before it.
    text = result.stdout[result.stdout.index('"ID"'):]
    kernels, totals = {}, dict.fromkeys(METRICS, 0.0)
    for row in csv.DictReader(io.StringIO(text)):
        kernels[row["ID"]] = row["Kernel Name"]
        if row["Metric Name"] in totals:
            totals[row["Metric Name"]] += float(row["Metric Value"].replace(",", ""))
    return {"kernels": len(kernels), "names": sorted(set(kernels.values())), "read": totals[METRICS[0]],
            "write": totals[METRICS[1]]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--infernoc")
    parser.add_argument("--out", default=".")
    parser.add_argument("--size", default="256x512x128")
    parser.add_argument("--probe", choices=("eager", "infernoc"), help=argparse.SUPPRESS)
    parser.add_argument("--pt2", help=argparse.SUPPRESS)
    parser.add_argument("--so", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        return probe(args)

    os.makedirs(args.out, exist_ok=True)
    m, k, n = map(int, args.size.split("x"))
    with tempfile.TemporaryDirectory() as work:
        torch.manual_seed(0)
        pt2, so = os.path.join(work, "mm_relu.pt2"), os.path.join(work, "mm_relu.so")
        torch.export.save(torch.export.export(MmRelu(k, n).eval(), (torch.randn(m, k),)), pt2)
        subprocess.run([args.infernoc, pt2, "-o", so, "--quiet"], check=True)
        rows = {side: profile(side, args, pt2, so) for side in ("eager", "infernoc")}
    lines = [f"relu(x @ W), fp32, {args.size} (M x K x N), ncu --clock-control none, one warm call, "
             f"{torch.cuda.get_device_name()}, torch {torch.__version__}", "",
             "| | kernels | DRAM read | DRAM written | DRAM total |", "|---|---|---|---|---|"]
    for side, r in rows.items():
        lines.append(f"| {side} | {r['kernels']} | {r['read'] / 1e3:.1f} KB | {r['write'] / 1e3:.1f} KB | "
                     f"{(r['read'] + r['write']) / 1e3:.1f} KB |")
    lines.append("")
    for side, r in rows.items():
        lines.append(f"{side} kernels: " + "; ".join(name[:120] for name in r["names"]))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "ncu_mm_relu.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
