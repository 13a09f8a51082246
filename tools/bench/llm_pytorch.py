"""Hugging Face's side of bench_llm.py: generate() and one forward over the prompt on the GPU, eager
and under each torch.compile mode, every mode timed the same way in this process (what each figure
is: llm_report.legend)."""

import gc
import statistics
import sys
import time
import traceback

import torch

from bench_common import time_calls
from llm_report import error_cell, per_token_ms, phase, pytorch_labels

GENERATE_REPEATS = 3  # generate() calls per timed figure (median)
PREFILL_ITERS = 10  # timed prompt forwards, after as many warm-up calls (time_calls)


def release_gpu_memory():
    """Frees what the last model or compiled mode left: dynamo's compiled code and its CUDA graphs,
    then the allocator's cached blocks."""
    torch._dynamo.reset()
    gc.collect()
    torch.cuda.empty_cache()


def _generate(model, ids, new, cache_implementation):
    model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False, pad_token_id=0,
                   cache_implementation=cache_implementation)


def _generate_ms(model, ids, new, cache_implementation):
    """Median ms of GENERATE_REPEATS synchronized generate() calls of exactly `new` tokens."""
    times = []
    for _ in range(GENERATE_REPEATS):
        torch.cuda.synchronize()
        start = time.perf_counter()
        _generate(model, ids, new, cache_implementation)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _prompt_forward(model, ids):
    # Each call a new step for reduce-overhead's CUDA graphs: the last call's logits may be overwritten.
    torch.compiler.cudagraph_mark_step_begin()
    with torch.no_grad():  # generate's grad mode, so a compiled forward is not compiled again for another
        return model(input_ids=ids, use_cache=False).logits


def _measure(model, ids, new, cache_implementation):
    first = _generate_ms(model, ids, 1, cache_implementation)
    full = _generate_ms(model, ids, new, cache_implementation)
    prefill = time_calls(lambda: _prompt_forward(model, ids), PREFILL_ITERS, torch.cuda.synchronize)
    return {"ms/token": per_token_ms(first, full, new), "TTFT ms": first, "prefill ms": prefill}


def _eager(model, ids, new):
    model.generation_config.cache_implementation = None  # Hugging Face's default (dynamic) cache
    for _ in range(GENERATE_REPEATS):
        _generate(model, ids, 2, None)
    return _measure(model, ids, new, None)


def _compiled(model, ids, new, mode):
    """Hugging Face's recipe for compiled generation: the forward compiled as one graph, a static
    cache so its shapes stay fixed."""
    config = model.generation_config
    had_disable_compile = getattr(config, "disable_compile", False)
    config.cache_implementation = "static"
    config.disable_compile = True  # generate's automatic compile would wrap ours in its own mode
    # generate keeps its static cache while it is long enough, so the warm-up's first call is the
    # longest and later ones reuse its cache. dynamic=False: a cache of another size would get a
    # static graph of its own (in the warm-up) rather than one recompiled with symbolic sizes.
    model.forward = torch.compile(model.forward, mode=mode, fullgraph=True, dynamic=False)
    try:
        start = time.perf_counter()
        for _ in range(2):  # the first compiles; the second records reduce-overhead's CUDA graphs
            _generate(model, ids, new, "static")
            _generate(model, ids, 1, "static")
            for _ in range(3):
                _prompt_forward(model, ids)
        torch.cuda.synchronize()
        warm_up_s = time.perf_counter() - start
        # A compile inside a timed call would count as run time: an error instead.
        with torch.compiler.set_stance("fail_on_recompile"):
            result = _measure(model, ids, new, "static")
        result["warm-up s"] = warm_up_s
        return result
    finally:
        del model.forward  # the class's forward again
        config.cache_implementation = None
        config.disable_compile = had_disable_compile
        release_gpu_memory()


def run_pytorch(model, prompt, modes, new):
    """The row's PyTorch cells ("HF eager ms/token", "HF compile default prefill ms", ...): eager, then
    each compiled mode, each on its own (a failure becomes its ms/token cell, the others still run)."""
    try:
        model.cuda()
        ids = torch.from_numpy(prompt).cuda()
    except Exception as error:  # out of memory, a broken device: every PyTorch cell is this one
        traceback.print_exc(file=sys.stderr)
        return {"HF eager ms/token": error_cell(error)}
    row = {}
    for label, mode in zip(pytorch_labels(modes), [None] + list(modes)):
        with phase(f"{label}"):
            try:
                result = _eager(model, ids, new) if mode is None else _compiled(model, ids, new, mode)
                row.update({f"{label} {key}": value for key, value in result.items()})
            except Exception as error:
                traceback.print_exc(file=sys.stderr)
                row[f"{label} ms/token"] = error_cell(error)
    return row
