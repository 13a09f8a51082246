#!/usr/bin/env python3
"""LLM generation benchmark on a GPU machine: per-token decode latency, prefill and time to first
token at batch 1 in fp16, for GPT-2 small and a TinyLlama-1.1B-shaped Llama (random weights, a
128-token prompt, 64 new tokens), against Hugging Face eager and torch.compile in the same process
and against the bandwidth floor (weight bytes / device copy bandwidth).

Each model is exported with transformers' decoder recipe (TorchExportableModuleForDecoderOnlyLM,
a static cache of MAX_CACHE positions) in fp16, compiled by infernoc with its weights beside the
library and two variants (the 128-token prompt and the one-token step), and run by
`inferno-run --generate` (C++, each decode step one CUDA graph replay). Hugging Face's figures are
generate() eager (its default cache) and with the forward under torch.compile (each mode of
--compile-modes, a static cache), and one forward over the prompt in each; what each column times
is written above the tables (llm_report.legend). Each PyTorch mode runs on its own: an error
becomes its cell. Each phase's seconds go to stderr, and DIR/bench_llm.md is rewritten after each
model, so a run cut short keeps the models done.

With --ncu, each library's decode step is also profiled: `ncu` times every kernel of a generation
of 1 and of 3 new tokens (--cache-control none --clock-control none: the caches and clocks of a
real run), and the difference over 2 is one decode step's kernels, summed per kernel name
(DIR/decode_kernels.md).

Usage: python3 tools/bench/bench_llm.py --infernoc build/src/infernoc \\
           --inferno-run build/runtime/inferno-run --out DIR [--models gpt2-small tinyllama] [--ncu]
           [--compile-modes default reduce-overhead | none] [--max-autotune] [--skip-hf]
           [--variants run:NAME=V,... compile:NAME=V,...] [--repeats N]
--variants times the decode step again with other settings (an environment variable of
inferno-run, or a library built with one of infernoc's), each the median of --repeats
generations taken in turn: DIR/variants.md.
Writes DIR/bench_llm.md and prints it last.
"""

import argparse
import collections
import csv
import importlib.metadata
import io
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import torch

from llm_pytorch import release_gpu_memory, run_pytorch
from llm_report import (COMPILE_MODES, ReportError, add_summary, compile_modes, error_cell, has_errors,
                        parse_generate_output, phase, pytorch_labels, report)

PROMPT, NEW, MAX_CACHE = 128, 64, 256


def configs():
    import transformers as tf
    return {
        "gpt2-small": (tf.GPT2LMHeadModel, tf.GPT2Config()),
        "tinyllama": (tf.LlamaForCausalLM,
                      tf.LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
                                     num_attention_heads=32, num_key_value_heads=4, vocab_size=32000,
                                     max_position_embeddings=2048)),
    }


def export(name, work):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
    cls, config = configs()[name]
    torch.manual_seed(0)
    model = cls(config).half().eval()
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    recipe = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=MAX_CACHE)
    seq = torch.export.Dim("seq_length", max=MAX_CACHE - 1)
    program = recipe.export(input_ids=torch.zeros(1, 4, dtype=torch.long), cache_position=torch.arange(4),
                            dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
    path = work / f"{name}.pt2"
    torch.export.save(program, str(path))
    symbol = str(next(iter(program.range_constraints)))
    return model, path, symbol


def compile_library(args, pt2, symbol, so, env=None):
    """infernoc's library of the prompt and one-token variants, with `env` added to its environment.
    --no-cache: the compile timed is a cold build, never a copy out of the build cache."""
    subprocess.run([args.infernoc, str(pt2), "-o", str(so), "--weights", "external", "--quiet",
                    "--no-cache", "--specialize", f"{symbol}=1,{PROMPT}"], check=True,
                   env={**os.environ, **(env or {})})


def generate(args, so, prompt_file, env=None):
    """`inferno-run --generate`'s output, with `env` added to its environment."""
    return subprocess.run([args.inferno_run, str(so), "--generate", "--prompt", str(prompt_file),
                           "--max-new-tokens", str(NEW)], check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}).stdout


def run_infernoc(args, name, pt2, symbol, prompt_file, work):
    so = work / f"{name}.so"
    start = time.perf_counter()
    compile_library(args, pt2, symbol, so)
    compile_s = time.perf_counter() - start
    text = generate(args, so, prompt_file)
    (work / f"{name}.generate.txt").write_text(text)
    figures = parse_generate_output(text)
    if (figures["prompt_tokens"], figures["prefill_runs"]) != (PROMPT, 1):
        print(f"bench_llm: {name}: the prompt took {figures['prefill_runs']} runs for "
              f"{figures['prompt_tokens']} tokens, not one run of {PROMPT}", file=sys.stderr)
    row = {"compile s": compile_s, "infernoc ms/token": figures["per_token_ms"],
           "infernoc TTFT ms": figures["ttft_ms"], "infernoc prefill ms": figures["prefill_ms"],
           "floor ms/token": figures["floor_ms"]}
    # Programmatic dependent launch off (kernels/dependent_launch.cuh); the GEMVs' L2 prefetch off
    # (kernels/l2_prefetch.cuh); then --variants, each timed --repeats times in turn with the
    # library as built (medians in DIR/variants.md).
    row["no dependent launch ms/token"] = generate_ms_per_token(
        args, so, prompt_file, {"INFERNO_DEPENDENT_LAUNCH": "0"})
    row["no L2 prefetch ms/token"] = generate_ms_per_token(
        args, so, prompt_file, {"INFERNO_L2_PREFETCH_MB": "0"})
    if args.variants:
        with open(args.out / "variants.md", "a") as f:
            f.write(time_variants(args, name, pt2, symbol, so, prompt_file, work) + "\n")
    if args.ncu:
        try:  # on its own: a profiler's failure keeps the generation's figures
            with phase(f"{name}: ncu and profiles"):
                with open(args.out / "decode_kernels.md", "a") as f:
                    f.write(decode_step_kernels(args, name, so, prompt_file) + "\n")
                row.update(profile_decode_step(args, name, so, prompt_file, work))
        except Exception as error:
            report_failure(error)
            row["profile steps us"] = error_cell(error)
    return row


def generate_ms_per_token(args, so, prompt_file, env):
    """One generation's per-token figure, with `env` added to inferno-run's environment."""
    return parse_generate_output(generate(args, so, prompt_file, env))["per_token_ms"]


def parse_variant(text):
    """'run:NAME=V,NAME=V' or 'compile:NAME=V': the environment of inferno-run, or of infernoc (a
    library built with it)."""
    kind, _, settings = text.partition(":")
    if kind not in ("run", "compile") or not settings:
        raise ValueError(f"--variants: {text!r} is not run:NAME=V,... or compile:NAME=V,...")
    env = dict(item.split("=", 1) for item in settings.split(","))
    return kind, env


def time_variants(args, name, pt2, symbol, so, prompt_file, work):
    """Markdown: ms/token of each --variants entry (and the baseline), the median of --repeats
    generations each, the variants taken in turn in every round so that drift hits them alike."""
    variants = [("baseline", so, {})]
    for text in args.variants:
        kind, env = parse_variant(text)
        library = so
        if kind == "compile":
            library = work / f"{name}.{len(variants)}.so"
            compile_library(args, pt2, symbol, library, env)
        variants.append((text, library, env if kind == "run" else {}))
    times = {label: [] for label, _, _ in variants}
    for _ in range(args.repeats):
        for label, library, env in variants:
            times[label].append(generate_ms_per_token(args, library, prompt_file, env))
    lines = [f"### {name}: ms/token by variant (median of {args.repeats}, taken in turn)", "",
             "| variant | ms/token | / baseline | all runs |", "|---|---|---|---|"]
    base = float(np.median(times["baseline"]))
    for label, runs in times.items():
        median = float(np.median(runs))
        lines.append(f"| `{label}` | {median:.4f} | {median / base:.3f} | "
                     + ", ".join(f"{t:.4f}" for t in runs) + " |")
    text = "\n".join(lines) + "\n"
    print(text, file=sys.stderr)
    return text


def profile_decode_step(args, name, so, prompt_file, work):
    """`inferno-run --profile` and Python's model.profile on one decode step (the prompt's last
    token at position PROMPT, on a zeroed cache): the report goes to DIR/NAME_decode_profile.txt;
    returns both step sums and how each was timed."""
    token, position = work / f"{name}.token.npy", work / f"{name}.position.npy"
    np.save(token, np.load(prompt_file)[:, -1:])
    np.save(position, np.array([PROMPT], dtype=np.int64))
    run = subprocess.run([args.inferno_run, str(so), "--profile", "--data", str(token), str(position)],
                         check=True, capture_output=True, text=True)
    text = run.stdout
    # stderr says why the steps were not timed by CUPTI, when they were not.
    (args.out / f"{name}_decode_profile.txt").write_text(text + "\n" + run.stderr)
    kernels_us = float(re.search(r"^kernels ([0-9.]+) us", text, re.M).group(1))
    end_to_end_us = float(re.search(r"end to end ([0-9.]+) us", text).group(1))
    timing = re.search(r"^step times: (\S+)", text, re.M).group(1)
    import inferno
    model = inferno.load(str(so), use_cuda_graph=False)
    steps = model.profile(torch.from_numpy(np.load(token)).cuda(), torch.from_numpy(np.load(position)).cuda())
    model.close()
    return {"profile steps us": kernels_us, "profile end to end us": end_to_end_us, "profile timing": timing,
            "model.profile us": sum(s["ms"] for s in steps) * 1e3,
            "model.profile timing": steps[0]["timing"] if steps else "-"}


def ncu_kernel_times(args, so, prompt_file, new):
    """{kernel name: summed ns} over every kernel of one `inferno-run --generate` under ncu."""
    command = ["ncu", "--metrics", "gpu__time_duration.sum", "--csv", "--print-units", "base",
               "--cache-control", "none", "--clock-control", "none", args.inferno_run, str(so),
               "--generate", "--prompt", str(prompt_file), "--max-new-tokens", str(new)]
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    header = text.find('"ID"')
    times = collections.Counter()
    counts = collections.Counter()
    for row in csv.DictReader(io.StringIO(text[header:])):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            name = re.sub(r"\(.*", "", row["Kernel Name"])[:70]
            times[name] += float(row["Metric Value"].replace(",", ""))  # ncu groups thousands
            counts[name] += 1
    return times, counts


# `inferno-run --generate` generates twice: a warm-up (graph captures), then the timed run.
GENERATIONS_PER_RUN = 2


def decode_step_kernels(args, name, so, prompt_file):
    """Markdown: one decode step's kernels, slowest first: 3 new tokens minus 1 is 2 decode steps
    in each of inferno-run's generations."""
    t1, c1 = ncu_kernel_times(args, so, prompt_file, 1)
    t3, c3 = ncu_kernel_times(args, so, prompt_file, 3)
    steps = 2 * GENERATIONS_PER_RUN
    rows = [(k, (t3[k] - t1[k]) / steps / 1e3, (c3[k] - c1[k]) / steps) for k in t3]
    rows = sorted((r for r in rows if r[2] > 0), key=lambda r: -r[1])
    total = sum(r[1] for r in rows)
    lines = [f"### {name}: one decode step, {total:.1f} us of kernel time in "
             f"{sum(r[2] for r in rows):.0f} kernels", "", "| kernel | launches | us | share |",
             "|---|---|---|---|"]
    lines += [f"| `{k}` | {n:.0f} | {us:.1f} | {us / total:.1%} |" for k, us, n in rows]
    return "\n".join(lines) + "\n"


def report_failure(error):
    """The traceback, and a tool's own message when its output was captured, to stderr."""
    traceback.print_exc(file=sys.stderr)
    if getattr(error, "stderr", None):
        print(error.stderr, file=sys.stderr)


def installed_version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def bench_model(args, name, modes, work):
    """One model's row: its export, then infernoc, then PyTorch, each failure its own cell."""
    row = {"model": name}
    try:
        with phase(f"{name}: export"):
            model, pt2, symbol = export(name, work)
    except Exception as error:
        report_failure(error)
        row["error"] = error_cell(error)
        return row
    prompt = np.random.default_rng(0).integers(3, model.config.vocab_size, (1, PROMPT), dtype=np.int64)
    prompt_file = work / f"{name}.prompt.npy"
    np.save(prompt_file, prompt)
    try:
        with phase(f"{name}: infernoc compile and generate"):
            row.update(run_infernoc(args, name, pt2, symbol, prompt_file, work))
    except Exception as error:
        report_failure(error)
        row["infernoc ms/token"] = error_cell(error)
    if not args.skip_hf:
        row.update(run_pytorch(model, prompt, modes, NEW))
    add_summary(row, pytorch_labels(modes))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--inferno-run", required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-llm"))
    parser.add_argument("--models", nargs="+", default=["gpt2-small", "tinyllama"])
    parser.add_argument("--ncu", action="store_true", help="profile one decode step's kernels with ncu")
    # "reduce-overhead" is opt-in: with transformers 5.17's static cache on torch 2.11 it skipped
    # CUDA graphs (mutated inputs) and then crashed the process (SIGSEGV) during GPT-2's warm-up on
    # an H100, taking the other columns with it.
    parser.add_argument("--compile-modes", nargs="+", default=["default"], metavar="MODE",
                        help="torch.compile modes for Hugging Face's forward ('none': eager only)")
    parser.add_argument("--max-autotune", action="store_true",
                        help="also torch.compile mode max-autotune (many minutes per model)")
    parser.add_argument("--skip-hf", action="store_true", help="infernoc only: no Hugging Face figures")
    parser.add_argument("--variants", nargs="*", metavar="VARIANT",
                        default=["run:INFERNO_ATTENTION_DEPENDENT=0", "compile:INFERNO_GEMV_PAIRS=0",
                                 "compile:INFERNO_LAUNCH_GROUPS=0"],
                        help="also time the decode step with inferno-run's environment ('run:NAME=V,...') "
                             "or a library built with infernoc's ('compile:NAME=V,...'): DIR/variants.md")
    parser.add_argument("--repeats", type=int, default=3, help="generations per variant (median)")
    args = parser.parse_args()
    try:
        modes = compile_modes(args.compile_modes, args.max_autotune)
    except ReportError as error:
        parser.error(str(error))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "decode_kernels.md").unlink(missing_ok=True)
    (args.out / "variants.md").unlink(missing_ok=True)
    work = Path(tempfile.gettempdir()) / "bench-llm"  # the exports and libraries: GBs, not --out
    work.mkdir(exist_ok=True)
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no CUDA device"
    device += f", torch {torch.__version__}, transformers {installed_version('transformers')}"
    rows = []
    for name in args.models:
        rows.append(bench_model(args, name, modes, work))
        print(rows[-1], flush=True)
        release_gpu_memory()  # the model went with bench_model's frame
        # Rewritten after each model: a run cut short (a time limit) keeps the models done.
        text = report(device, PROMPT, NEW, [] if args.skip_hf else modes, rows, args.ncu)
        (args.out / "bench_llm.md").write_text(text + "\n")
    print(text)
    return 1 if has_errors(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
