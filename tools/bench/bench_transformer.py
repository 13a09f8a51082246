"""Benchmark: the transformers of tools/transformer_models.py at real sizes, batch 1, sequence 128:
GPT-2 small (12 layers, width 768, vocabulary 50257, tied head), BERT-base (12 layers, width 768,
padding mask) and one Llama-style block (width 2048, 32 heads, 8 kv heads, SwiGLU 5632), with
random weights, in fp32 (TF32 off on both sides), fp16 (the model's own .half(), exported so) and
fp16-pass (the f32 export compiled with --precision fp16; PyTorch runs model.half(), the like-for-like
reference, and infernoc's f32 outputs are compared with it). Per-call
latency of PyTorch eager and torch.compile (default; reduce-overhead with --reduce-overhead), and of
infernoc (C++ through inferno-run, Python through the ctypes loader), all in one process on one
GPU; plus infernoc's compile time, kernel launches per call and its peak arena against PyTorch's
peak activation memory. Every infernoc output is checked against eager in the same precision first
(relative L2: 1e-4 in fp32; 1e-2 in fp16, where both sides round every intermediate to fp16 in
different orders).

Methodology as in bench_common.py. Run it on the GPU machine:
    PYTHONPATH=tools/python:tools/bench INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \\
    python3 tools/bench/bench_transformer.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import os
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import inferno  # noqa: E402
import transformer_models  # noqa: E402
from bench_common import (bench_parser, full_fp32, write_table, compile_with_infernoc, inferno_run_latency, infernoc_plan, kernel_launches,  # noqa: E402
                          pytorch_peak_activation_bytes, time_calls)

SEQ = 128
MODELS = {
    "gpt2_small": lambda: transformer_models.Gpt2(vocab=50257, positions=1024, width=768, heads=12, layers=12),
    "bert_base": lambda: transformer_models.Bert(vocab=30522, positions=512, width=768, heads=12, layers=12,
                                                 inner=3072),
    "llama_block": lambda: transformer_models.LlamaBlock(width=2048, heads=32, kv_heads=8, inner=5632),
}
# precision -> (dtype of the exported model, dtype PyTorch runs in, infernoc's extra arguments)
PRECISIONS = {
    "fp32": (torch.float32, torch.float32, ()),
    "fp16": (torch.float16, torch.float16, ()),
    "fp16-pass": (torch.float32, torch.float16, ("--precision", "fp16")),
}


def inputs_of(name, dtype):
    torch.manual_seed(1)
    if name == "gpt2_small":
        return (transformer_models.token_ids(1, SEQ, 50257),)
    if name == "bert_base":
        return (transformer_models.token_ids(1, SEQ, 30522), torch.ones(1, SEQ, dtype=torch.long))
    return (torch.randn(1, SEQ, 2048).to(dtype),)  # the same values in every precision


def relative_l2(got, want):
    got, want = got.double(), want.double()
    return (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()


def bench(name, precision, args, work):
    export_dtype, torch_dtype, extra = PRECISIONS[precision]
    torch.manual_seed(0)
    module = MODELS[name]().eval().to(export_dtype)
    example = inputs_of(name, export_dtype)
    start = time.perf_counter()
    so, pt2 = compile_with_infernoc(args.infernoc, module, example, work, f"{name}_{precision}", extra)
    row = {"model": name, "precision": precision, "compile_s": time.perf_counter() - start}
    module = module.to(torch_dtype).cuda()
    inputs = tuple(x.cuda() for x in inputs_of(name, torch_dtype))
    infernoc_inputs = tuple(x.cuda() for x in example)
    with torch.no_grad():
        row["eager"] = time_calls(lambda: module(*inputs), args.iters, torch.cuda.synchronize)
        if not args.no_compile:
            compiled = torch.compile(module)
            row["compile"] = time_calls(lambda: compiled(*inputs), args.iters, torch.cuda.synchronize)
        if args.reduce_overhead:
            graphed = torch.compile(module, mode="reduce-overhead")
            row["compile_ro"] = time_calls(lambda: graphed(*inputs), args.iters, torch.cuda.synchronize)
        expected = module(*inputs)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    row["torch_peak"] = pytorch_peak_activation_bytes(module, inputs)

    model = inferno.load(so)
    outs = [torch.full(shape, float("nan"), dtype=dtype, device="cuda") for _, dtype, shape in model.outputs]
    model(*infernoc_inputs, out=outs)
    torch.cuda.synchronize()
    row["rel_l2"] = max(relative_l2(o, e) for o, e in zip(outs, expected))
    bound = 1e-4 if precision == "fp32" else 1e-2
    if not row["rel_l2"] <= bound:
        raise AssertionError(f"{name} {precision}: relative L2 error {row['rel_l2']:.3g} vs eager")
    row["infernoc_py"] = time_calls(lambda: model(*infernoc_inputs, out=outs), args.iters, torch.cuda.synchronize)
    model.close()
    row["infernoc_cpp"] = inferno_run_latency(args.inferno_run, so, example, args.iters, work)
    row["kernels"] = kernel_launches(args.inferno_run, so)
    row["arena_peak"], row["arena_unshared"] = infernoc_plan(args.infernoc, pt2, extra)
    return row


def write_report(rows, out_dir):
    lines = ["| model | precision | eager | compile | compile (reduce-overhead) | infernoc C++ | infernoc Python | "
             "C++ / best PyTorch | rel. L2 | kernels | infernoc compile | infernoc peak arena | "
             "PyTorch peak activations |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        best = min(r["eager"], r.get("compile", float("inf")), r.get("compile_ro", float("inf")))
        cell = lambda key: f"{r[key]:.3f}" if key in r else "-"  # noqa: E731
        lines.append(f"| {r['model']} | {r['precision']} | {r['eager']:.3f} | {cell('compile')} | "
                     f"{cell('compile_ro')} | {r['infernoc_cpp']:.3f} | {r['infernoc_py']:.3f} | "
                     f"{r['infernoc_cpp'] / best:.2f} | {r['rel_l2']:.1e} | {r['kernels']} | "
                     f"{r['compile_s']:.0f} s | {r['arena_peak']:,} B | {r['torch_peak']:,} B |")
    header = (f"transformers, batch 1, sequence {SEQ}, per-call latency in ms (median; call + stream sync), "
              f"{torch.cuda.get_device_name()}, torch {torch.__version__}\n\n")
    return write_table(out_dir, "bench_transformer.md", header, lines)


def main():
    parser = bench_parser(__doc__, iters=100)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--precisions", nargs="+", default=list(PRECISIONS), choices=list(PRECISIONS))
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (it takes minutes)")
    parser.add_argument("--reduce-overhead", action="store_true", help="also torch.compile(mode='reduce-overhead')")
    args = parser.parse_args()
    full_fp32()
    rows, failed = [], []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            for precision in args.precisions:
                try:
                    rows.append(bench(name, precision, args, work))
                    print(rows[-1], flush=True)
                except Exception as e:  # measure the others, then fail
                    print(f"FAILED {name} {precision}: {e}", flush=True)
                    failed.append(f"{name} {precision}")
    print(write_report(rows, args.out))
    if failed:
        print(f"failed: {failed}")
        sys.exit(1)


if __name__ == "__main__":
    main()
