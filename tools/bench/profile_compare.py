"""Profiles infernoc, PyTorch eager and torch.compile on ResNet-50, BERT-base and GPT-2 small.

ResNet-50 (torchvision), BERT-base and GPT-2 small (transformers, default configs), random
weights, in f32 and fp16, profiled three ways in one process on one GPU:
infernoc (`inferno-run --profile`, its table, Chrome trace and roofline; the same model through the
Python loader under torch.profiler, whose CUPTI kernel records are an independent measure of its
kernel time; and `model.profile`), PyTorch eager and torch.compile (default mode) under
torch.profiler. Prints the top kernels of each side by side and a latency summary, and writes
profile_compare.md, profile_compare.json (what tools/gpu/profile_check.py judges), and a latency
bar chart (latency.png and latency.svg).

fp16 is the f32 export compiled with `--precision fp16` (infernoc's inputs and outputs stay f32);
PyTorch runs `model.half()`. Latencies are bench_common.time_calls (host, call + stream sync,
median), TF32 off on both sides. infernoc's compiles run in parallel while PyTorch is measured;
torch.compile comes last and is skipped for a model when less than --compile-reserve-s remain
before --deadline (the device tool's 10-minute limit covers the build too).

Run it on the GPU machine (tools/gpu/check.sh profile does):
    PYTHONPATH=tools/python:tools/bench INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \\
    python3 tools/bench/profile_compare.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import inferno  # noqa: E402
import transformer_models  # noqa: E402
from bar_chart import write_chart  # noqa: E402
from bench_common import bench_parser, time_calls  # noqa: E402
from profile_table import gpu_activity, parse_profile_output, top_kernels  # noqa: E402

MODELS = ("resnet50", "bert_base", "gpt2_small")
PRECISIONS = ("f32", "fp16")
SERIES = ("infernoc", "PyTorch eager", "torch.compile")
PROFILED_RUNS = 5


def build_model(name):
    """The model in eval mode on the CPU, f32, seeded."""
    torch.manual_seed(0)
    if name == "resnet50":
        from bench_cnn import build
        return build("resnet50")
    import transformers
    from export_hf_fixtures import ForwardOnly
    if name == "bert_base":
        config, cls, kind = transformers.BertConfig(), transformers.BertModel, "encoder"
    else:
        config, cls, kind = transformers.GPT2Config(), transformers.GPT2LMHeadModel, "lm"
    config._attn_implementation = "sdpa"  # as the fixtures export them
    return ForwardOnly(cls(config).eval(), kind, masked=False).eval()


def example_inputs(name, batch, seq):
    torch.manual_seed(1)
    if name == "resnet50":
        return (torch.randn(batch, 3, 224, 224),)
    vocab = 30522 if name == "bert_base" else 50257
    return (transformer_models.token_ids(batch, seq, vocab),)


def relative_l2(got, want):
    got, want = got.double(), want.double()
    return (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()


def profile_gpu(fn, runs, trace_path):
    """fn() `runs` times under torch.profiler (CUDA activity); the GPU work per name and in total,
    from the exported Chrome trace (kept at trace_path)."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    prof.export_chrome_trace(trace_path)
    with open(trace_path, encoding="utf-8") as f:
        return gpu_activity(json.load(f))


def side_record(by_name, total, runs, latency_ms, top):
    return {"latency_ms": latency_ms, "gpu_us_per_run": total / runs,
            "top": [list(row) for row in top_kernels(by_name, runs, top)]}


def run_inferno_profile(args, so, data, stem, no_graph):
    """inferno-run --profile (with --trace and --roofline); its stdout is kept beside them."""
    trace, roofline, log = (os.path.join(args.out, f"{stem}.{ext}") for ext in ("trace.json", "roofline.svg", "log"))
    command = [args.inferno_run, so, "--data", *data, "--profile", "--trace", trace, "--roofline", roofline]
    if no_graph:
        command.append("--no-graph")
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"$ {' '.join(command)}\n{result.stdout}{result.stderr}")
    if result.returncode != 0:
        raise RuntimeError(f"inferno-run --profile exited {result.returncode}: {result.stderr.strip()[-400:]}")
    parsed = parse_profile_output(result.stdout)
    return {"profile": parsed, "trace": trace, "roofline": roofline, "log": log}


class Config:
    """One model in one precision: its modules, inputs, files and measurements."""

    def __init__(self, name, precision, args):
        self.name, self.precision, self.stem = name, precision, f"{name}_{precision}"
        self.module = build_model(name)
        self.example = example_inputs(name, args.batch, args.seq)
        self.pt2 = os.path.join(args.work, f"{name}.pt2")
        self.so = os.path.join(args.work, f"{self.stem}.so")
        self.data = []
        for i, x in enumerate(self.example):
            self.data.append(os.path.join(args.work, f"{name}_input{i}.npy"))
            np.save(self.data[-1], x.numpy())
        self.record = {"model": name, "precision": precision, "batch": args.batch, "pt2": self.pt2, "so": self.so,
                       "data": self.data, "infernoc_args": ["--precision", "fp16"] if precision == "fp16" else [],
                       "errors": []}

    def torch_module_and_inputs(self):
        dtype = torch.float16 if self.precision == "fp16" else torch.float32
        module = self.module.to(dtype).cuda()
        inputs = tuple(x.to(dtype).cuda() if x.is_floating_point() else x.cuda() for x in self.example)
        return module, inputs


def export(config):
    with torch.no_grad():
        program = torch.export.export(config.module, config.example)
    torch.export.save(program, config.pt2)


def compile_so(args, config):
    command = [args.infernoc, config.pt2, "-o", config.so, "--quiet", *config.record["infernoc_args"]]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"infernoc exited {result.returncode}: {result.stderr.strip()[-600:]}")
    return time.perf_counter() - start


def profile_eager(args, config):
    """Eager's kernels (CUPTI, unaffected by the compiles running beside it) and its outputs."""
    module, inputs = config.torch_module_and_inputs()
    with torch.no_grad():
        by_name, total = profile_gpu(lambda: module(*inputs), PROFILED_RUNS,
                                     os.path.join(args.work, f"{config.stem}_eager.trace.json"))
        config.expected = module(*inputs).float()
    config.record["eager"] = side_record(by_name, total, PROFILED_RUNS, None, args.top)


def time_eager(args, config):
    """Eager's latency, host-bound at small sizes: measured once no compile loads the CPU."""
    module, inputs = config.torch_module_and_inputs()
    with torch.no_grad():
        config.record["eager"]["latency_ms"] = time_calls(lambda: module(*inputs), args.iters, torch.cuda.synchronize)


def measure_infernoc(args, config):
    rec = config.record
    rec.update(run_inferno_profile(args, config.so, config.data, config.stem, no_graph=False))
    rec["no_graph_end_to_end_us"] = run_inferno_profile(
        args, config.so, config.data, config.stem + "_nograph", no_graph=True)["profile"]["end_to_end_us"]
    inputs = tuple(x.cuda() for x in config.example)
    graphed = inferno.load(config.so)
    out = graphed(*inputs)
    torch.cuda.synchronize()
    if hasattr(config, "expected"):  # eager ran: is this profile one of a correct model?
        rec["rel_l2_vs_eager"] = relative_l2(out, config.expected)
    latency = time_calls(lambda: graphed(*inputs, out=out), args.iters, torch.cuda.synchronize)
    graphed.close()
    # CUPTI's view of the same kernels, launched plainly (a graph's kernels are the same ones; plain
    # launches avoid relying on how a CUPTI version reports graph replays).
    plain = inferno.load(config.so, use_cuda_graph=False)
    by_name, total = profile_gpu(lambda: plain(*inputs, out=out), PROFILED_RUNS,
                                 os.path.join(args.work, f"{config.stem}_infernoc.trace.json"))
    rec["infernoc"] = side_record(by_name, total, PROFILED_RUNS, latency, args.top)
    steps = plain.profile(*inputs)
    rec["python_profile"] = {"steps": len(steps), "sum_ms": sum(s["ms"] for s in steps),
                             "slowest": steps[0]["node"] if steps else None,
                             "timing": steps[0]["timing"] if steps else None}
    plain.close()


def measure_compiled(args, config):
    module, inputs = config.torch_module_and_inputs()
    with torch.no_grad():
        compiled = torch.compile(module)
        start = time.perf_counter()
        compiled(*inputs)
        torch.cuda.synchronize()
        config.record["torch_compile_s"] = time.perf_counter() - start
        latency = time_calls(lambda: compiled(*inputs), args.iters, torch.cuda.synchronize)
        by_name, total = profile_gpu(lambda: compiled(*inputs), PROFILED_RUNS,
                                     os.path.join(args.work, f"{config.stem}_compile.trace.json"))
    config.record["compile"] = side_record(by_name, total, PROFILED_RUNS, latency, args.top)


def attempt(config, what, fn, *fn_args):
    """Runs one measurement; a failure is recorded (and printed) and the others go on."""
    try:
        fn(*fn_args)
        return True
    except (Exception, subprocess.TimeoutExpired) as e:  # noqa: BLE001 - every failure is reported
        message = f"{what}: {type(e).__name__}: {str(e).strip()[-800:]}"
        config.record["errors"].append(message)
        print(f"FAILED {config.stem} {message}", flush=True)
        return False


def cell(text, width):
    text = str(text)
    return (text if len(text) <= width else text[:width - 1] + "~").ljust(width)


def side_by_side(record, top):
    """Rows of (rank, infernoc step, us, bound, eager kernel, us, compile kernel, us)."""
    ours = record.get("profile", {}).get("rows", [])[:top]
    eager = record.get("eager", {}).get("top", [])
    compiled = record.get("compile", {}).get("top", [])
    rows = []
    for i in range(max(len(ours), len(eager), len(compiled))):
        row = [str(i + 1)]
        if i < len(ours):
            r = ours[i]
            row += [f"{r['node']} ({r['op']}) {r['kernel']}", f"{r['us']:.1f}", r["bound"]]
        else:
            row += ["", "", ""]
        for side in (eager, compiled):
            row += [side[i][0], f"{side[i][1]:.1f}"] if i < len(side) else ["", ""]
        rows.append(row)
    return rows


HEADER = ("#", "infernoc step (node, op, kernel)", "us", "bound", "eager kernel", "us", "torch.compile kernel", "us")
WIDTHS = (3, 44, 8, 8, 44, 8, 44, 8)


def text_table(record, top):
    lines = ["  ".join(cell(h, w) for h, w in zip(HEADER, WIDTHS))]
    lines += ["  ".join(cell(c, w) for c, w in zip(row, WIDTHS)) for row in side_by_side(record, top)]
    return "\n".join(line.rstrip() for line in lines)


def markdown_escape(text):
    return str(text).replace("|", "\\|")


def latency_rows(records):
    def ms(rec, side):
        value = rec.get(side, {}).get("latency_ms")
        return f"{value:.3f}" if value is not None else "-"

    def us(value):
        return f"{value:.1f}" if value is not None else "-"

    lines = ["| model | precision | infernoc ms | eager ms | torch.compile ms | infernoc steps us | "
             "infernoc CUPTI us | inferno-run end to end us (graph / no graph) | eager GPU us | "
             "torch.compile GPU us | rel. L2 vs eager |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for rec in records:
        profile = rec.get("profile", {})
        rel = rec.get("rel_l2_vs_eager")
        lines.append(
            f"| {rec['model']} | {rec['precision']} | {ms(rec, 'infernoc')} | {ms(rec, 'eager')} | "
            f"{ms(rec, 'compile')} | {us(profile.get('kernels_us'))} | "
            f"{us(rec.get('infernoc', {}).get('gpu_us_per_run'))} | {us(profile.get('end_to_end_us'))} / "
            f"{us(rec.get('no_graph_end_to_end_us'))} | {us(rec.get('eager', {}).get('gpu_us_per_run'))} | "
            f"{us(rec.get('compile', {}).get('gpu_us_per_run'))} | {f'{rel:.1e}' if rel is not None else '-'} |")
    return lines


def write_report(records, args, chart_tool):
    device = torch.cuda.get_device_name()
    parts = [f"# Profile comparison\n\n{device}, torch {torch.__version__}, batch {args.batch}"
             f" (transformers: sequence {args.seq}), random weights. Latency: median of {args.iters} calls "
             f"(call + stream sync); GPU us: kernels, copies and memsets per run from torch.profiler's CUPTI "
             f"records ({PROFILED_RUNS} runs); infernoc steps: the sum of `inferno-run --profile`'s step "
             f"times. Chart: latency.png (drawn by {chart_tool}), latency.svg.\n",
             "\n".join(latency_rows(records)) + "\n"]
    for rec in records:
        parts.append(f"## {rec['model']} {rec['precision']}\n")
        if rec["errors"]:
            parts.append("\n".join(f"- error: {markdown_escape(e)}" for e in rec["errors"]) + "\n")
        parts.append("| " + " | ".join(HEADER) + " |\n|" + "---|" * len(HEADER))
        parts.append("\n".join("| " + " | ".join(markdown_escape(c) for c in row) + " |"
                               for row in side_by_side(rec, args.top)) + "\n")
        hints = rec.get("profile", {}).get("hints", [])
        if hints:
            parts.append("\n".join(f"- hint: {markdown_escape(h)}" for h in hints) + "\n")
    text = "\n".join(parts)
    with open(os.path.join(args.out, "profile_compare.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


def save_records(records, args):
    with open(os.path.join(args.out, "profile_compare.json"), "w", encoding="utf-8") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "configs": records}, f,
                  indent=1)


def main():
    parser = bench_parser(__doc__, iters=50)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--precisions", nargs="+", default=list(PRECISIONS), choices=PRECISIONS)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq", type=int, default=128, help="the transformers' sequence length")
    parser.add_argument("--top", type=int, default=10, help="rows of each side's table")
    parser.add_argument("--work", default="/tmp/inferno-profile-work",
                        help="where the .pt2, .so, inputs and torch traces go (large: not --out)")
    parser.add_argument("--deadline", type=float, default=0,
                        help="Unix time by which to finish (0: none): torch.compile is skipped after it")
    parser.add_argument("--compile-reserve-s", type=float, default=75,
                        help="the time one torch.compile measurement needs before the deadline")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    configs = []
    for name in args.models:
        first = None
        for precision in args.precisions:
            config = Config(name, precision, args)
            configs.append(config)
            if first is None:
                first = config if attempt(config, "torch.export", export, config) else False
            elif first is False:
                config.record["errors"].append("torch.export failed (see the first precision)")
    # infernoc's compiles (nvcc, a core each) run beside eager's kernel profiles; every latency and
    # infernoc's profile (its step times include host launch time) wait until they are done.
    exported = [c for c in configs if not c.record["errors"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(len(exported), os.cpu_count() or 1))) as pool:
        builds = {c: pool.submit(compile_so, args, c) for c in exported}
        for c in configs:
            attempt(c, "eager profile", profile_eager, args, c)
        built = [c for c, f in builds.items()
                 if attempt(c, "infernoc compile", lambda f=f, c=c: c.record.update(compile_s=f.result()))]
    for c in configs:
        if c in built:
            attempt(c, "infernoc profile", measure_infernoc, args, c)
        if "eager" in c.record:
            attempt(c, "eager latency", time_eager, args, c)
        save_records([x.record for x in configs], args)
        print(f"{c.stem}: infernoc {c.record.get('infernoc', {}).get('latency_ms')} ms, "
              f"eager {c.record.get('eager', {}).get('latency_ms')} ms", flush=True)
    # torch.compile takes a minute or more per model: every model's first precision first, so that a
    # deadline cuts the second precisions.
    for c in sorted(configs, key=lambda c: args.precisions.index(c.precision)):
        if args.no_compile:
            break
        if args.deadline and time.time() > args.deadline - args.compile_reserve_s:
            c.record["errors"].append("torch.compile skipped: too close to --deadline")
            continue
        attempt(c, "torch.compile", measure_compiled, args, c)
        save_records([x.record for x in configs], args)
        print(f"{c.stem}: torch.compile {c.record.get('compile', {}).get('latency_ms')} ms", flush=True)
    records = [c.record for c in configs]
    save_records(records, args)

    groups = [(f"{r['model']} {r['precision']}", [r.get(k, {}).get("latency_ms") for k in ("infernoc", "eager", "compile")])
              for r in records]
    chart_tool = write_chart(os.path.join(args.out, "latency.png"), os.path.join(args.out, "latency.svg"), groups,
                             list(SERIES), f"latency per call, batch {args.batch}, {torch.cuda.get_device_name()}", "ms")
    write_report(records, args, chart_tool)
    for rec in records:
        print(f"\n== {rec['model']} {rec['precision']}: top {args.top} kernels ==")
        print(text_table(rec, args.top))
    print("\n" + "\n".join(latency_rows(records)))
    return 1 if any(not e.startswith("torch.compile skipped") for r in records for e in r["errors"]) else 0


if __name__ == "__main__":
    sys.exit(main())
