"""What every benchmark in tools/bench/ measures the same way.

Every figure is one call followed by a synchronization of its stream, timed on the host, median over
`iters` calls after warm-up (the H200's clocks idle at 540 MHz and boost under load). TF32 is off
everywhere (PyTorch's matmul default, and infernoc's without --tf32), so every side does full fp32.
"""
import argparse
import os
import re
import statistics
import subprocess
import time

import numpy as np
import torch


def median_call_seconds(fn, iters, sync, timed_sync=True):
    """Median seconds of `fn(); sync()` over `iters` calls (or of `fn()` alone, each call still
    synced after its timing ends, without timed_sync), after iters/10 (at least 10) warm-up calls."""
    for _ in range(max(10, iters // 10)):
        fn()
    sync()
    samples = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        if timed_sync:
            sync()
        samples.append(time.perf_counter() - start)
        if not timed_sync:
            sync()
    return statistics.median(samples)


def full_fp32():
    """PyTorch's f32 without TF32 (its convolutions' default is TF32; infernoc's f32 is full)."""
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def time_calls(fn, iters, sync):
    """Median milliseconds of `fn(); sync()` over `iters` calls."""
    return median_call_seconds(fn, iters, sync) * 1e3


def pytorch_latencies(module, inputs, iters):
    """eager, torch.compile default and mode="reduce-overhead", in ms, under no_grad."""
    sync = torch.cuda.synchronize
    row = {}
    with torch.no_grad():
        row["eager"] = time_calls(lambda: module(*inputs), iters, sync)
        compiled = torch.compile(module)
        row["compile"] = time_calls(lambda: compiled(*inputs), iters, sync)
        reduce_overhead = torch.compile(module, mode="reduce-overhead")
        row["compile_ro"] = time_calls(lambda: reduce_overhead(*inputs), iters, sync)
    return row


def pytorch_peak_activation_bytes(module, inputs):
    """Bytes the caching allocator held at peak during one eager forward, beyond what was allocated
    before it (weights and inputs): PyTorch's activation memory for the call."""
    torch.cuda.synchronize()
    with torch.no_grad():
        module(*inputs)  # the first call may allocate lazily (cuBLAS workspaces); not activations
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        out = module(*inputs)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
    del out
    return peak - before


def export_pt2(module, example_inputs, work, name, dynamic_shapes=None):
    """Exports `module` (on the CPU) with torch.export (and its `dynamic_shapes`) to WORK/NAME.pt2;
    returns its path."""
    pt2 = os.path.join(work, f"{name}.pt2")
    torch.export.save(torch.export.export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes), pt2)
    return pt2


def infernoc_command(infernoc, pt2, so, extra_args=()):
    """infernoc's command line compiling `pt2` into `so` with `extra_args` (e.g. --precision fp16).
    --no-cache: a compile timed is a cold build, never a copy out of the build cache."""
    return [infernoc, pt2, "-o", so, "--quiet", "--no-cache", *extra_args]


def compile_with_infernoc(infernoc, module, example_inputs, work, name, extra_args=(), dynamic_shapes=None):
    """Exports `module` (export_pt2) and compiles it (infernoc_command); returns (so path, pt2 path)."""
    pt2 = export_pt2(module, example_inputs, work, name, dynamic_shapes)
    so = os.path.join(work, f"{name}.so")
    subprocess.run(infernoc_command(infernoc, pt2, so, extra_args), check=True)
    return so, pt2


def infernoc_plan(infernoc, pt2, extra_args=()):
    """(peak planned arena bytes, sum of all buffers) from `infernoc --emit plan`."""
    text = subprocess.run([infernoc, pt2, "--emit", "plan", "--quiet", *extra_args], check=True,
                          capture_output=True, text=True).stdout
    match = re.search(r"peak (\d+) bytes \(unshared (\d+)\)", text)
    if not match:
        raise RuntimeError("cannot parse infernoc --emit plan:\n" + text)
    return int(match.group(1)), int(match.group(2))


def inferno_run_timing(inferno_run, so, inputs, iters, work):
    """From C++ (inferno-run --iters): the median ms per call (one CUDA-graph replay + stream sync)
    and the median microseconds of the run call alone (its enqueue, which GPU time does not move)."""
    paths = []
    for i, x in enumerate(inputs):
        paths.append(os.path.join(work, f"input{i}.npy"))
        np.save(paths[-1], x.cpu().numpy())
    result = subprocess.run([inferno_run, so, "--data", *paths, "--iters", str(iters)], capture_output=True,
                            text=True, check=True)
    latency = re.search(r"median ([0-9.]+) us", result.stdout)
    enqueue = re.search(r"\(enqueue\): median ([0-9.]+) us", result.stdout)
    if not latency or not enqueue:
        raise RuntimeError("cannot parse inferno-run's output:\n" + result.stdout)
    return float(latency.group(1)) / 1e3, float(enqueue.group(1))


def inferno_run_latency(inferno_run, so, inputs, iters, work):
    """Median ms per call of the model from C++ (inferno-run: one CUDA-graph replay + stream sync)."""
    return inferno_run_timing(inferno_run, so, inputs, iters, work)[0]


def enqueue_us(fn, iters, sync):
    """Median microseconds of `fn()` alone (the host's cost of the call)."""
    return median_call_seconds(fn, iters, sync, timed_sync=False) * 1e6


def kernel_launches(inferno_run, so):
    """Kernels one run of the model launches (inferno-run --count-kernels)."""
    result = subprocess.run([inferno_run, so, "--count-kernels"], capture_output=True, text=True, check=True)
    match = re.search(r"launches per run: (\d+) kernels", result.stdout)
    if not match:
        raise RuntimeError("cannot parse inferno-run --count-kernels:\n" + result.stdout)
    return int(match.group(1))


def bench_parser(doc, iters):
    """The arguments every latency benchmark takes: the tools to run, where to write its table and
    how many timed calls; the description is the script's first docstring line."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--inferno-run", required=True)
    parser.add_argument("--out", default=".")
    parser.add_argument("--iters", type=int, default=iters)
    return parser


def write_table(out_dir, file_name, header, lines):
    """Writes the Markdown table (a header paragraph, then its lines) and returns its text."""
    text = header + "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, file_name), "w") as f:
        f.write(text)
    return text
