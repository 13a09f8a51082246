"""Benchmark: the zoo's torchvision CNNs in fp16, infernoc against PyTorch's best mode, batch 1 and 32.

Every torchvision CNN of the zoo (tools/export_zoo.py's names: random weights, randomized BatchNorm
statistics as bench_cnn.build sets them), 224x224, at each batch of --batches (1 and 32): per-call
latency of infernoc and of PyTorch's `model.half()` eager and torch.compile (each mode of
--compile-modes, "default" and "reduce-overhead" unless told; "max-autotune" with --max-autotune,
many minutes per model), all in one process on one GPU, and the ratio infernoc / fastest PyTorch
mode against the targets (<= 0.8 at batch 1, <= 0.9 at batch 32). The legend above the table
(DIR/bench_cnn_fp16.md) says what each column times.

infernoc compiles the f32 torch.export program (exported at that batch) with `--precision fp16
--io-precision compute`: the library takes and returns float16 tensors, as `model.half()` does, so
both sides get the same half input and write a half output (like for like: no f32 <-> f16
conversion kernel on infernoc's side that PyTorch does not run). It is timed through the Python
loader (`model(x, out=out)`, the same process as PyTorch) and, for reference, from C++
(`inferno-run --iters`). Its output is checked against the f32 model's (full fp32, TF32 off) on
the same fp16-rounded input: relative L2 error <= 2e-3 (PyTorch's fp16 eager error is shown beside
it, for scale). Every PyTorch mode runs with torch.backends.cudnn.benchmark = True (eager
included) under torch.no_grad(); each compiled mode is compiled with dynamic=False, warmed up
(compiled, CUDA graphs recorded) before timing, and timed under
torch.compiler.set_stance("fail_on_recompile"). Latencies are bench_common.time_calls: host time of
one call + torch.cuda.synchronize(), median of --iters calls after warm-up.

Each step fails on its own (its error becomes its cell, the run goes on); infernoc's compile runs
in the background while torch.compile compiles, and nothing is timed until it is done. The table
is rewritten after every step, so a run cut short keeps what it measured; with --deadline (Unix
time), no model/batch and no torch.compile mode starts within --compile-reserve-s of it. The whole
zoo takes longer than one 10-minute device command: split it with --models.

Run it on the GPU machine (tools/gpu/check.sh cnn-fp16-bench does):
    PYTHONPATH=tools/python:build/python:tools/bench INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so \\
    python3 tools/bench/bench_cnn_fp16.py --infernoc build/src/infernoc --inferno-run build/runtime/inferno-run \\
        --out DIR [--models resnet18 ...] [--batches 1 32] [--compile-modes default reduce-overhead | none]
        [--max-autotune] [--deadline UNIX_TIME]
Exits 1 when a cell holds an error or an output is over the error bound.
"""
import os
import subprocess
import sys
import tempfile
import time
import traceback

import torch
import torchvision

import inferno
from bench_cnn import build, relative_l2
from bench_common import (bench_parser, export_pt2, full_fp32, inferno_run_latency, infernoc_command, time_calls,
                          write_table)
from llm_pytorch import release_gpu_memory
from llm_report import (COMPILE_MODES, SLOW_COMPILE_MODES, ReportError, compile_modes, error_cell, fastest, format_cell,
                        has_errors, markdown_table)

# The zoo's torchvision CNNs, by their torchvision constructor names (as tools/export_zoo.py names them).
MODELS = ("resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "convnext_tiny",
          "densenet121", "regnet_y_400mf", "shufflenet_v2_x0_5")
TARGETS = {1: 0.8, 32: 0.9}  # the bound on infernoc / best PyTorch mode, per batch
ERROR_BOUND, BOUND_TEXT = 2e-3, "2e-3"  # relative L2 error of infernoc's fp16 output against the f32 model's
INFERNOC_ARGS = ("--precision", "fp16", "--io-precision", "compute")
ALL_MODES = COMPILE_MODES + SLOW_COMPILE_MODES  # a column each, "-" where not run
SKIPPED = "skipped: too close to --deadline"


def log(message):
    print(f"bench_cnn_fp16: {message}", file=sys.stderr, flush=True)


def attempt(row, key, what, fn):
    """Runs fn() and puts its value (unless None) in row[key]; an exception is logged with its
    traceback and becomes row[key]. Returns whether fn() returned."""
    start = time.perf_counter()
    try:
        value = fn()
    except Exception as error:  # noqa: BLE001 - every failure becomes its cell, the others go on
        traceback.print_exc(file=sys.stderr)
        row[key] = error_cell(error)
        log(f"{row['model']} batch {row['batch']}: {what} FAILED after {time.perf_counter() - start:.1f} s")
        return False
    if value is not None:
        row[key] = value
    log(f"{row['model']} batch {row['batch']}: {what}: {time.perf_counter() - start:.1f} s")
    return True


def near_deadline(args):
    return args.deadline and time.time() > args.deadline - args.compile_reserve_s


class InfernocBuild:
    """infernoc's compile of one export, running in the background (its output in a log beside it)."""

    def __init__(self, args, pt2, so):
        self.so, self.log = so, so + ".log"
        with open(self.log, "w") as f:
            arch = ("--arch", args.arch) if args.arch else ()
            self.process = subprocess.Popen(infernoc_command(args.infernoc, pt2, so, INFERNOC_ARGS + arch), stdout=f,
                                            stderr=subprocess.STDOUT)

    def wait(self):
        code = self.process.wait()
        if code != 0:
            with open(self.log) as f:
                lines = [line.strip() for line in f if line.strip()]
            raise RuntimeError(f"infernoc exited {code}: {lines[-1] if lines else 'no output'}")

    def stop(self):
        """Kills the compile if it still runs (the model failed before waiting for it)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def compile_mode(args, module, x, mode, compiled, row):
    """torch.compile in `mode`, warmed up (compiled, then reduce-overhead's CUDA graph trees warm up,
    record and replay), into compiled[mode]; skipped near the deadline."""
    key = f"compile {mode} ms"
    if near_deadline(args):
        row[key] = SKIPPED
        return
    fn = torch.compile(module, mode=mode, dynamic=False)

    def warm_up():
        for _ in range(3):
            fn(x)
        torch.cuda.synchronize()

    if attempt(row, key, f"torch.compile {mode} warm-up", warm_up):
        compiled[mode] = fn


def time_mode(args, x, mode, compiled, row):
    def timed():
        # A compile inside a timed call would count as run time: an error instead.
        with torch.compiler.set_stance("fail_on_recompile"):
            return time_calls(lambda: compiled[mode](x), args.iters, torch.cuda.synchronize)

    if mode in compiled:
        attempt(row, f"compile {mode} ms", f"time compile {mode}", timed)


def check_and_time_infernoc(args, so, x, reference, row):
    """infernoc's relative error against the f32 model, then its latency through the loader."""
    model = inferno.load(so)
    try:
        out = model(x)  # float16, allocated by the loader; every timed call writes into it
        torch.cuda.synchronize()
        row["rel. L2"] = relative_l2(out.double(), reference.double())
        return time_calls(lambda: model(x, out=out), args.iters, torch.cuda.synchronize)
    finally:
        model.close()


def bench(name, batch, args, modes, work, row, report):
    """Fills `row` (already in the table) for one model at one batch, rewriting the table as it goes."""
    module = build(name)
    torch.manual_seed(1)
    x_cpu = torch.randn(batch, 3, 224, 224).half()  # the input of both sides (the f32 model: its f32 copy)
    stem = f"{name}_b{batch}"
    pt2 = []
    attempt(row, "infernoc ms", "torch.export", lambda: pt2.append(export_pt2(module, (x_cpu.float(),), work, stem)))
    infernoc = InfernocBuild(args, pt2[0], os.path.join(work, f"{stem}_fp16.so")) if pt2 else None
    try:
        with torch.no_grad():
            module = module.cuda()
            x = x_cpu.cuda()
            reference = module(x.float())  # full fp32 (TF32 off)
            module.half()
            row["eager rel. L2"] = relative_l2(module(x).double(), reference.double())
            compiled = {}
            fast = [m for m in modes if m not in SLOW_COMPILE_MODES]
            for mode in fast:  # these compiles overlap infernoc's; nothing is timed before both are done
                compile_mode(args, module, x, mode, compiled, row)
            if infernoc is not None and attempt(row, "infernoc ms", "infernoc compile (the wait for it)", infernoc.wait):
                attempt(row, "infernoc ms", "time infernoc",
                        lambda: check_and_time_infernoc(args, infernoc.so, x, reference, row))
                attempt(row, "infernoc C++ ms", "time inferno-run",
                        lambda: inferno_run_latency(args.inferno_run, infernoc.so, (x,), args.iters, work))
                if args.profile:
                    write_profile(args, infernoc.so, f"profile_{name}_b{batch}.txt")
                report()
            attempt(row, "eager ms", "time eager", lambda: time_calls(lambda: module(x), args.iters,
                                                                      torch.cuda.synchronize))
            for mode in fast:
                time_mode(args, x, mode, compiled, row)
                report()
            for mode in modes:  # max-autotune: compiled and timed last, alone (minutes)
                if mode in SLOW_COMPILE_MODES:
                    compile_mode(args, module, x, mode, compiled, row)
                    time_mode(args, x, mode, compiled, row)
                    report()
    finally:
        if infernoc is not None:
            infernoc.stop()


def write_profile(args, so, file_name):
    """`inferno-run --profile`'s per-kernel table of the library into --out/file_name."""
    result = subprocess.run([args.inferno_run, so, "--profile"], capture_output=True, text=True, timeout=300)
    with open(os.path.join(args.out, file_name), "w") as f:
        f.write(result.stdout + result.stderr)


def summarize(row):
    """The row as the table shows it: best PyTorch mode, the ratio and its target, the errors."""
    shown = dict(row)
    best = fastest(row, ["eager"] + [f"compile {mode}" for mode in ALL_MODES], "ms")
    target = TARGETS.get(row["batch"])
    if best is not None:
        shown["best PyTorch"] = best[0]
        if isinstance(row.get("infernoc ms"), float):
            ratio = row["infernoc ms"] / best[1]
            shown["infernoc / best"] = ratio
            if target is not None:
                shown["target"] = f"<= {target}: {'met' if ratio <= target else 'NOT met'}"
    for key in ("rel. L2", "eager rel. L2"):
        if isinstance(row.get(key), float):
            shown[key] = f"{row[key]:.1e}" + (f" (over {BOUND_TEXT})" if row[key] > ERROR_BOUND else "")
    return shown


COLUMNS = (["model", "batch", "infernoc ms", "infernoc C++ ms", "eager ms"] + [f"compile {m} ms" for m in ALL_MODES]
           + ["best PyTorch", "infernoc / best", "target", "rel. L2", "eager rel. L2"])


def legend(args, modes):
    compiled = ", ".join(modes) or "none"
    return "\n".join([
        f"torchvision CNNs (random weights, randomized BatchNorm statistics), 224x224, fp16; "
        f"{torch.cuda.get_device_name()}, torch {torch.__version__}, torchvision {torchvision.__version__}. Every "
        f"figure: median ms of {args.iters} calls after warm-up, each call followed by torch.cuda.synchronize() "
        "(host time), all in this process.",
        "",
        "- infernoc ms: the f32 torch.export program compiled by `infernoc --precision fp16 --io-precision "
        "compute` (a float16 input and output, as model.half() takes and returns), called through the Python "
        "loader into its output tensor (`model(x, out=out)`, one CUDA graph replay).",
        "- infernoc C++ ms: the same library from `inferno-run --iters` (graph replay + stream sync).",
        "- eager ms: `model.half()` on the float16 input, torch.no_grad(), torch.backends.cudnn.benchmark = "
        "True (as for every PyTorch column).",
        f"- compile MODE ms: torch.compile(model.half(), mode=MODE, dynamic=False), compiled (and its CUDA "
        f"graphs recorded, where the mode has them) before timing, timed under "
        f"set_stance(\"fail_on_recompile\"); modes run: {compiled} "
        "(\"-\": not run; max-autotune needs --max-autotune).",
        "- best PyTorch: the fastest PyTorch column that ran; infernoc / best: infernoc ms over its ms; target: "
        f"the bound on that ratio ({', '.join(f'<= {t} at batch {b}' for b, t in TARGETS.items())}).",
        f"- rel. L2: ||infernoc - f32|| / ||f32|| against the f32 model (full fp32, TF32 off) on the same "
        f"fp16-rounded input, bound {BOUND_TEXT}; eager rel. L2: the same for PyTorch's fp16 eager.",
        "",
        "",
    ])


def over_bound(rows):
    return [r for r in rows if isinstance(r.get("rel. L2"), float) and r["rel. L2"] > ERROR_BOUND]


def main():
    parser = bench_parser(__doc__, iters=200)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--profile", action="store_true",
                        help="also write inferno-run --profile's kernel table of each library (profile_MODEL_bN.txt)")
    parser.add_argument("--arch", default="",
                        help="infernoc's --arch (default: its own, the local GPU's); sm_90a for wgmma convolutions")
    parser.add_argument("--compile-modes", nargs="+", default=list(COMPILE_MODES), metavar="MODE",
                        help="torch.compile modes ('none': eager only)")
    parser.add_argument("--max-autotune", action="store_true",
                        help="also torch.compile mode max-autotune (many minutes per model)")
    parser.add_argument("--deadline", type=float, default=0,
                        help="Unix time by which to finish (0: none): nothing new starts near it")
    parser.add_argument("--compile-reserve-s", type=float, default=75,
                        help="the time a model/batch or a torch.compile mode needs before the deadline")
    args = parser.parse_args()
    try:
        modes = compile_modes(args.compile_modes, args.max_autotune)
    except ReportError as error:
        parser.error(str(error))
    os.makedirs(args.out, exist_ok=True)
    full_fp32()  # the f32 reference; fp16 math uses no TF32
    torch.backends.cudnn.benchmark = True

    rows = []

    def report():
        columns = COLUMNS + (["error"] if any("error" in r for r in rows) else [])
        return write_table(args.out, "bench_cnn_fp16.md", legend(args, modes),
                           [markdown_table([summarize(r) for r in rows], columns)])

    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            for batch in args.batches:
                row = {"model": name, "batch": batch}
                rows.append(row)
                if near_deadline(args):
                    row["infernoc ms"] = SKIPPED
                else:  # an error outside every step's own (a model that does not build, no memory)
                    attempt(row, "error", "model and batch", lambda: bench(name, batch, args, modes, work, row,
                                                                           report))
                    release_gpu_memory()  # dynamo's caches and CUDA graphs, the models' memory
                print({key: format_cell(value) for key, value in summarize(row).items()}, flush=True)
                report()
    print(report())
    return 1 if has_errors(rows) or over_bound(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
