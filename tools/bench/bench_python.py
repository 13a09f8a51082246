"""inferno.compile end to end, and what a call from Python costs over the same call from C++.

For each model (a small CNN, ResNet-18 and BERT-base at batch 1): `inferno.compile` into an empty
cache (export + infernoc + load), the same call again (a cache hit: no export, no infernoc run), the
output against eager PyTorch, then the median latency of one call + sync of its stream from C++
(`inferno-run --iters`), from Python through the native extension (`model(x)` and `model(x,
out=...)`, on torch's default stream, and `out=` on a stream of its own) and through ctypes, every
column in this one process but the C++ one; the columns take turns over three rounds. The overhead
columns are Python minus C++: what the binding adds per call. The last three compare the host time
of the call alone (its enqueue, no sync) from C++ and from Python with out=, which the GPU's own
time (and its drift between processes) does not move. The last two take the C API call's own
enqueue in this process (session_run_timer.cpp, through --timer: the same session, tensors and
stream), so that the difference is the binding's cost with nothing else between the columns.
The final two come from one loop that times, per iteration, the binding's out= call, the C API
call through ctypes and a ctypes call of a function with the same arguments that does nothing:
the C call's enqueue in a Python loop (ctypes less the no-op), and the median per-iteration
difference between the binding's call and it, which the machine's drift moves least.

    PYTHONPATH=tools/python:build/python:tools/bench INFERNOC=build/src/infernoc \
        python3 tools/bench/bench_python.py --infernoc build/src/infernoc \
        --inferno-run build/runtime/inferno-run --timer build/runtime/inferno_bench_timer.so \
        --out results

Writes bench_python.md (and prints it).
"""
import ctypes
import os
import statistics
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import inferno  # noqa: E402
import inferno.runtime  # noqa: E402
import transformer_models  # noqa: E402
from bench_common import bench_parser, enqueue_us, full_fp32, inferno_run_timing, time_calls, write_table  # noqa: E402


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
            torch.nn.Flatten(), torch.nn.Linear(32, 10))

    def forward(self, x):
        return self.body(x)


def resnet18():
    import torchvision
    return torchvision.models.resnet18().eval(), (torch.randn(1, 3, 224, 224),)


def bert_base():
    bert = transformer_models.Bert(vocab=30522, positions=512, width=768, heads=12, layers=12, inner=3072).eval()
    return bert, (transformer_models.token_ids(1, 128, 30522), torch.ones(1, 128, dtype=torch.long))


# name -> (table name, a function returning (module, example inputs))
MODELS = {
    "small_cnn": ("small CNN", lambda: (SmallCnn().eval(), (torch.randn(1, 3, 32, 32),))),
    "resnet18": ("ResNet-18", resnet18),
    "bert_base": ("BERT-base", bert_base),
}


def max_relative_error(got, want):
    """The largest error of any output, relative to that output's largest magnitude."""
    if isinstance(want, torch.Tensor):
        got, want = (got,), (want,)
    errors = []
    for g, w in zip(got, want, strict=True):
        g, w = g.double().cpu(), w.double().cpu()
        errors.append(((g - w).abs().max() / w.abs().max().clamp_min(1e-30)).item())
    return max(errors)


ROUNDS = 3


def ctypes_latency(path, inputs, iters):
    """The same call through the ctypes path: the loader picks its path per process at import
    (INFERNO_PYTHON_NATIVE=0), so this swaps the module's extension out for one loaded model."""
    native, inferno.runtime._native = inferno.runtime._native, None
    try:
        model = inferno.load(path)
        ms = time_calls(lambda: model(*inputs), iters, torch.cuda.current_stream().synchronize)
        model.close()
    finally:
        inferno.runtime._native = native
    return ms


def c_enqueue_us(timer, model, inputs, out, iters, stream):
    """Median microseconds of the C API's inferno_session_run alone in this process, on the
    session, tensors and stream the binding's calls use (session_run_timer.cpp)."""
    keep = []
    outs = out if isinstance(out, (tuple, list)) else (out,)
    ins = (inferno.runtime._Tensor * len(inputs))(*[model._tensor(t, keep) for t in inputs])
    res = (inferno.runtime._Tensor * len(outs))(*[model._tensor(t, keep) for t in outs])
    us = timer.inferno_bench_run_enqueue_us(model._session(), ctypes.c_void_p(stream.cuda_stream), ins,
                                            len(inputs), res, len(outs), iters)
    if us < 0:
        raise RuntimeError("inferno_bench_run_enqueue_us failed: " + inferno.runtime._library().inferno_last_error().decode())
    return us


def paired_binding_us(timer, model, inputs, out, iters, stream):
    """The binding's own cost, paired: each iteration times, one right after the other (each call
    synced outside its timing), the binding's out= call, inferno_session_run through ctypes and a
    ctypes call of a C function that takes the same arguments and does nothing. Returns the
    medians of the C call's enqueue in this loop (ctypes less the no-op) and of the binding's call
    less it, per iteration: the machine's drift (which moves each column by microseconds between
    rounds) meets both sides of each difference alike."""
    keep = []
    outs = out if isinstance(out, (tuple, list)) else (out,)
    ins = (inferno.runtime._Tensor * len(inputs))(*[model._tensor(t, keep) for t in inputs])
    res = (inferno.runtime._Tensor * len(outs))(*[model._tensor(t, keep) for t in outs])
    call = (model._session(), ctypes.c_void_p(stream.cuda_stream), ctypes.cast(ins, ctypes.c_void_p), len(inputs),
            ctypes.cast(res, ctypes.c_void_p), len(outs))
    once, nothing = timer.inferno_bench_run_once, timer.inferno_bench_no_run
    if once(*call) != 0:
        raise RuntimeError("inferno_bench_run_once failed: " + inferno.runtime._library().inferno_last_error().decode())
    clock, sync, c_call, over = time.perf_counter, stream.synchronize, [], []
    for i in range(-(iters // 10), iters):
        t0 = clock()
        model(*inputs, out=out)
        t1 = clock()
        sync()
        t2 = clock()
        once(*call)
        t3 = clock()
        sync()
        t4 = clock()
        nothing(*call)
        t5 = clock()
        if i >= 0:
            c_call.append((t3 - t2) - (t5 - t4))
            over.append((t1 - t0) - c_call[-1])
    return statistics.median(c_call) * 1e6, statistics.median(over) * 1e6


def bench(name, module, example, args, work):
    cache = os.path.join(work, "cache")
    start = time.perf_counter()
    compiled = inferno.compile(module, example, cache_dir=cache)
    cold_s = time.perf_counter() - start
    start = time.perf_counter()
    compiled = inferno.compile(module, example, cache_dir=cache)
    hit_s = time.perf_counter() - start
    inputs = tuple(x.cuda() for x in example)
    with torch.no_grad():
        want = module.cuda()(*inputs)
    got = compiled(*inputs)
    error = max_relative_error(got, want)
    out = compiled(*inputs)
    so = compiled.path
    # Every column syncs its own stream (as inferno-run does), and the columns take turns for
    # ROUNDS rounds, each column's figure the median of its rounds' medians: the GPU's clocks drift
    # over a run by more than the few microseconds the binding costs.
    default = torch.cuda.current_stream()
    side = torch.cuda.Stream()  # the control: a stream of the caller's own, not the legacy default

    def on_side():
        with torch.cuda.stream(side):
            return time_calls(lambda: compiled(*inputs, out=out), args.iters, side.synchronize)

    def on_side_enqueue():  # only in the log
        with torch.cuda.stream(side):
            return enqueue_us(lambda: compiled(*inputs, out=out), args.iters, side.synchronize)

    columns = {
        "cpp": lambda: inferno_run_timing(args.inferno_run, so, example, args.iters, work),
        "native": lambda: time_calls(lambda: compiled(*inputs), args.iters, default.synchronize),
        "out": lambda: time_calls(lambda: compiled(*inputs, out=out), args.iters, default.synchronize),
        "side": on_side,
        "ctypes": lambda: ctypes_latency(so, inputs, args.iters),
        "out_enqueue": lambda: enqueue_us(lambda: compiled(*inputs, out=out), args.iters, default.synchronize),
        "c_enqueue": lambda: c_enqueue_us(args.timer, compiled, inputs, out, args.iters, default),
        "paired": lambda: paired_binding_us(args.timer, compiled, inputs, out, args.iters, default),
        "side_enqueue": on_side_enqueue,
        # Only in the log: the same calls synced with torch.cuda.synchronize() (the whole device).
        "out_device_sync": lambda: time_calls(lambda: compiled(*inputs, out=out), args.iters, torch.cuda.synchronize),
    }
    rounds = {column: [] for column in columns}
    for _ in range(ROUNDS):
        for column, measure in columns.items():
            rounds[column].append(measure())
    print(f"{name}: per round: {rounds}", file=sys.stderr)
    rounds["cpp_enqueue"] = [enqueue for _, enqueue in rounds["cpp"]]
    rounds["c_in_loop"] = [c for c, _ in rounds["paired"]]
    rounds["binding"] = [b for _, b in rounds.pop("paired")]
    rounds["cpp"] = [latency for latency, _ in rounds["cpp"]]
    m = {column: statistics.median(values) for column, values in rounds.items()}
    over = lambda t: (t - m["cpp"]) * 1e3  # noqa: E731
    return (f"| {name} | {cold_s:.1f} | {hit_s:.2f} | {error:.1e} | {m['cpp']:.4f} | {m['native']:.4f} | "
            f"{m['out']:.4f} | {m['side']:.4f} | {m['ctypes']:.4f} | {over(m['native']):.1f} | "
            f"{over(m['out']):.1f} | {over(m['side']):.1f} | {over(m['ctypes']):.1f} | "
            f"{m['cpp_enqueue']:.1f} | {m['out_enqueue']:.1f} | {m['out_enqueue'] - m['cpp_enqueue']:.1f} | "
            f"{m['c_enqueue']:.1f} | {m['out_enqueue'] - m['c_enqueue']:.1f} | {m['c_in_loop']:.1f} | "
            f"{m['binding']:.1f} |")


def main():
    parser = bench_parser(__doc__, 1000)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--timer", required=True, help="inferno_bench_timer.so (session_run_timer.cpp)")
    args = parser.parse_args()
    args.timer = ctypes.CDLL(args.timer)
    args.timer.inferno_bench_run_enqueue_us.restype = ctypes.c_double
    call_types = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    for function in (args.timer.inferno_bench_run_once, args.timer.inferno_bench_no_run):
        function.argtypes, function.restype = call_types, ctypes.c_int32
    os.makedirs(args.out, exist_ok=True)
    full_fp32()  # eager PyTorch is the accuracy reference
    if inferno.runtime._native is None:
        print("bench_python: inferno._native is not importable (build/python on PYTHONPATH?)", file=sys.stderr)
        return 1
    os.environ.setdefault("INFERNOC", args.infernoc)
    lines = ["| model | compile s | cache hit s | max rel. error | C++ ms | native ms | native out= ms | "
             "out= side stream ms | ctypes ms | native over C++ us | out= over C++ us | "
             "side stream over C++ us | ctypes over C++ us | C++ enqueue us | out= enqueue us | "
             "out= enqueue over C++ us | C API enqueue here us | out= enqueue over C API here us | "
             "C API enqueue in the Python loop us | out= enqueue over it, paired us |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in args.models:
        name, make = MODELS[key]
        torch.manual_seed(0)
        module, example = make()
        with tempfile.TemporaryDirectory(prefix="inferno_bench_python_") as work:
            try:
                lines.append(bench(name, module, example, args, work))
            except Exception as e:  # one model's failure still leaves the others' rows
                lines.append(f"| {name} | FAILED: {type(e).__name__}: {str(e)[:300]} |")
            print(lines[-1], flush=True)
    device = torch.cuda.get_device_name()
    header = (f"inferno.compile and the Python call path on {device} (torch {torch.__version__}), batch 1, "
              f"f32, median of {args.iters} calls + stream sync.\n\n")
    print(write_table(args.out, "bench_python.md", header, lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
