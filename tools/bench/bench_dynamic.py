"""Benchmark: one model.so for every batch size against a static library per size, eager PyTorch
and torch.compile(dynamic=True): torchvision CNNs (random weights, randomized BatchNorm
statistics, bench_cnn.build), fp32 (TF32 off), 224x224, exported once with a dynamic batch of
1..32 and compiled by infernoc's defaults (a variant per power of two), and exported again with
each static batch. Per-call latency in one process, from Python (the loader's out= call on
torch's stream, call + stream sync, median), at batch 1, 8 and 32 (variants of the dynamic
library, so the same kernels as the static one) and at 13 and 24, which no variant has (split
into runs of 8 + 4 + 1 and 16 + 8 rows). Every infernoc output is checked against eager first.

Run it on the GPU machine:
    PYTHONPATH=tools/python:tools/bench INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \
    python3 tools/bench/bench_dynamic.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import tempfile
import time

import torch

import inferno
from bench_cnn import build, model_output_error
from bench_common import bench_parser, compile_with_infernoc, full_fp32, time_calls, write_table

MODELS = ("resnet18", "resnet50", "mobilenet_v2")
MAX_BATCH = 32
STATIC = (1, 8, 32)
SIZES = (1, 8, 13, 24, 32)


def bench(name, args, work):
    module = build(name)
    batch = torch.export.Dim("batch", min=1, max=MAX_BATCH)
    start = time.perf_counter()
    dynamic_so, _ = compile_with_infernoc(args.infernoc, module, (torch.randn(4, 3, 224, 224),), work,
                                          f"{name}_dynamic", dynamic_shapes={"x": {0: batch}})
    compile_s = {"dynamic": time.perf_counter() - start}
    static_so = {}
    for b in STATIC:
        start = time.perf_counter()
        static_so[b], _ = compile_with_infernoc(args.infernoc, module, (torch.randn(b, 3, 224, 224),), work,
                                                f"{name}_b{b}")
        compile_s[b] = time.perf_counter() - start
    module = module.cuda()
    dynamic = inferno.load(dynamic_so)
    compiled = None if args.no_compile else torch.compile(module, dynamic=True)
    rows = []
    for b in SIZES:
        x = torch.randn(b, 3, 224, 224, device="cuda")
        row = {"model": name, "batch": b, "compile_s": compile_s}
        with torch.no_grad():
            expected = module(x)
            row["eager"] = time_calls(lambda: module(x), args.iters, torch.cuda.synchronize)
            if compiled is not None:
                row["compile"] = time_calls(lambda: compiled(x), args.iters, torch.cuda.synchronize)
        out, row["rel_l2"] = model_output_error(dynamic, x, expected, f"{name} batch {b}")
        row["dynamic"] = time_calls(lambda: dynamic(x, out=out), args.iters, torch.cuda.synchronize)
        if b in static_so:
            static = inferno.load(static_so[b])
            static(x, out=out)
            row["static"] = time_calls(lambda: static(x, out=out), args.iters, torch.cuda.synchronize)
            static.close()
        rows.append(row)
        print(row, flush=True)
    dynamic.close()
    return rows


def write_report(rows, out_dir):
    lines = ["| model | batch | infernoc dynamic | infernoc static | dynamic / static | eager | "
             "torch.compile dynamic=True | dynamic / torch.compile | rel. L2 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        static = f"{r['static']:.3f}" if "static" in r else "-"
        ratio = f"{r['dynamic'] / r['static']:.3f}" if "static" in r else "-"
        compiled = f"{r['compile']:.3f}" if "compile" in r else "-"
        versus = f"{r['dynamic'] / r['compile']:.2f}" if "compile" in r else "-"
        lines.append(f"| {r['model']} | {r['batch']} | {r['dynamic']:.3f} | {static} | {ratio} | {r['eager']:.3f} | "
                     f"{compiled} | {versus} | {r['rel_l2']:.1e} |")
    times = sorted({(r["model"], tuple(sorted((str(k), round(v)) for k, v in r["compile_s"].items()))) for r in rows})
    compile_lines = [f"- {model}: " + ", ".join(f"{k} {v} s" for k, v in entries) for model, entries in times]
    header = (f"torchvision CNNs, fp32 (TF32 off), 224x224, batch 1..{MAX_BATCH} in one library against one "
              f"library per batch, per-call latency in ms from Python (median; call + stream sync), "
              f"{torch.cuda.get_device_name()}, torch {torch.__version__}\n\n"
              "infernoc compile times (dynamic: every variant; static: per batch):\n\n" + "\n".join(compile_lines)
              + "\n\n")
    return write_table(out_dir, "bench_dynamic.md", header, lines)


def main():
    parser = bench_parser(__doc__, iters=100)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (it takes minutes)")
    args = parser.parse_args()
    full_fp32()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            rows.extend(bench(name, args, work))
    print(write_report(rows, args.out))


if __name__ == "__main__":
    main()
