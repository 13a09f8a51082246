#!/usr/bin/env python3
"""LLM generation benchmark on a GPU machine: per-token decode latency and time to first token at
batch 1 in fp16, for GPT-2 small and a TinyLlama-1.1B-shaped Llama (random weights, a 128-token
prompt, 64 new tokens), against Hugging Face's eager generate in the same process and against the
bandwidth floor (weight bytes / device copy bandwidth).

Each model is exported with transformers' decoder recipe (TorchExportableModuleForDecoderOnlyLM,
a static cache of MAX_CACHE positions) in fp16, compiled by infernoc with its weights beside the
library and two variants (the 128-token prompt and the one-token step), and run by
`inferno-run --generate` (C++, each decode step one CUDA graph replay). Hugging Face's figures
are generate() with its default cache: per token (t(64 new) - t(1 new)) / 63, first token t(1).

With --ncu, each library's decode step is also profiled: `ncu` times every kernel of a generation
of 1 and of 3 new tokens (--cache-control none --clock-control none: the caches and clocks of a
real run), and the difference over 2 is one decode step's kernels, summed per kernel name
(DIR/decode_kernels.md).

Usage: python3 tools/bench/bench_llm.py --infernoc build/src/infernoc \\
           --inferno-run build/runtime/inferno-run --out DIR [--models gpt2-small tinyllama] [--ncu]
Writes DIR/bench_llm.md and prints it last.
"""

import argparse
import collections
import csv
import io
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

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


def run_infernoc(args, name, pt2, symbol, prompt_file, work):
    so = work / f"{name}.so"
    start = time.perf_counter()
    # --no-cache: the compile timed is a cold build, never a copy out of the build cache.
    subprocess.run([args.infernoc, str(pt2), "-o", str(so), "--weights", "external", "--quiet",
                    "--no-cache", "--specialize", f"{symbol}=1,{PROMPT}"], check=True)
    compile_s = time.perf_counter() - start
    text = subprocess.run([args.inferno_run, str(so), "--generate", "--prompt", str(prompt_file),
                           "--max-new-tokens", str(NEW)], check=True, capture_output=True,
                          text=True).stdout
    (work / f"{name}.generate.txt").write_text(text)
    per_token = float(re.search(r"median ([0-9.]+)", text).group(1))
    ttft = float(re.search(r"time to first token: ([0-9.]+)", text).group(1))
    floor = float(re.search(r"= ([0-9.]+) ms/token", text).group(1))
    row = {"compile s": compile_s, "infernoc ms/token": per_token, "infernoc TTFT ms": ttft,
           "floor ms/token": floor}
    if args.ncu:
        with open(args.out / "decode_kernels.md", "a") as f:
            f.write(decode_step_kernels(args, name, so, prompt_file) + "\n")
        row.update(profile_decode_step(args, name, so, prompt_file, work))
    return row


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


def decode_step_kernels(args, name, so, prompt_file):
    """Markdown: one decode step's kernels (3 new tokens minus 1, over 2), slowest first."""
    t1, c1 = ncu_kernel_times(args, so, prompt_file, 1)
    t3, c3 = ncu_kernel_times(args, so, prompt_file, 3)
    rows = [(k, (t3[k] - t1[k]) / 2 / 1e3, (c3[k] - c1[k]) / 2) for k in t3]
    rows = sorted((r for r in rows if r[2] > 0), key=lambda r: -r[1])
    total = sum(r[1] for r in rows)
    lines = [f"### {name}: one decode step, {total:.1f} us of kernel time in "
             f"{sum(r[2] for r in rows):.0f} kernels", "", "| kernel | launches | us | share |",
             "|---|---|---|---|"]
    lines += [f"| `{k}` | {n:.0f} | {us:.1f} | {us / total:.1%} |" for k, us, n in rows]
    return "\n".join(lines) + "\n"


def run_hf(model, prompt):
    model = model.cuda()
    ids = torch.from_numpy(prompt).cuda()

    def timed(new):
        times = []
        for _ in range(3):
            torch.cuda.synchronize()
            start = time.perf_counter()
            model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False, pad_token_id=0,
                           cache_implementation=None)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        return sorted(times)[1] * 1e3

    model.generation_config.cache_implementation = None  # Hugging Face's default (dynamic) cache
    timed(2)  # warm-up
    first, full = timed(1), timed(NEW)
    return {"HF eager ms/token": (full - first) / (NEW - 1), "HF eager TTFT ms": first}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--inferno-run", required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-llm"))
    parser.add_argument("--models", nargs="+", default=["gpt2-small", "tinyllama"])
    parser.add_argument("--ncu", action="store_true", help="profile one decode step's kernels with ncu")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "decode_kernels.md").unlink(missing_ok=True)
    work = Path(tempfile.gettempdir()) / "bench-llm"  # the exports and libraries: GBs, not --out
    work.mkdir(exist_ok=True)
    rows = []
    for name in args.models:
        row = {"model": name}
        try:
            model, pt2, symbol = export(name, work)
            prompt = np.random.default_rng(0).integers(3, model.config.vocab_size, (1, PROMPT), dtype=np.int64)
            prompt_file = work / f"{name}.prompt.npy"
            np.save(prompt_file, prompt)
            row.update(run_infernoc(args, name, pt2, symbol, prompt_file, work))
            row.update(run_hf(model, prompt))
            row["floor / infernoc"] = row["floor ms/token"] / row["infernoc ms/token"]
            row["HF / infernoc"] = row["HF eager ms/token"] / row["infernoc ms/token"]
        except Exception as error:
            row["error"] = f"{type(error).__name__}: {str(error)[:300]}"
        print(row, flush=True)
        rows.append(row)
    keys = ["model", "infernoc ms/token", "floor ms/token", "floor / infernoc", "HF eager ms/token",
            "HF / infernoc", "infernoc TTFT ms", "HF eager TTFT ms", "compile s"]
    if args.ncu:
        keys += ["profile steps us", "profile end to end us", "profile timing", "model.profile us",
                 "model.profile timing"]
    lines = [f"{torch.cuda.get_device_name()}, fp16, batch 1, prompt {PROMPT}, {NEW} new tokens, "
             f"median per token", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row[k]:.3f}" if isinstance(row.get(k), float) else str(row.get(k, "-"))
                                       for k in keys) + " |")
    text = "\n".join(lines)
    (args.out / "bench_llm.md").write_text(text + "\n")
    print(text)
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
