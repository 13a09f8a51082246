#!/usr/bin/env python3
"""The LLM checks on a GPU machine: the Hugging Face decoder fixtures (test/fixtures/hf, exported
by tools/export_hf_fixtures.py with transformers' ExecuTorch recipe) compiled by infernoc and run
through the Python loader, against what the eager recipe module and Hugging Face's generate gave.

For each of GPT-2, Llama and Qwen2 (small configs, random weights):
  * f32: a session step by step (the prompt through the 16-token variant, padded, then one-token
    steps fed the recorded tokens): every step's logits against the recorded ones;
  * f32: greedy generate() of 64 tokens against Hugging Face's generate;
  * fp16 (--precision fp16): the prompt's logits against the f32 recording, relative to the
    largest logit (the issue's 1e-2).
Prints one table row per model and exits 1 when any check fails.

Usage: python3 tools/gpu/llm_check.py --infernoc build/src/infernoc --out DIR
(PYTHONPATH=tools/python and INFERNO_RUNTIME_LIB=build/runtime/libinferno_runtime.so).
"""

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

import inferno

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "test" / "fixtures" / "hf"
PREFILL = 16  # a default variant length that holds the 5-token prompt


def compile_model(infernoc, source, so, extra=()):
    cmd = [infernoc, str(source), "-o", str(so), "--quiet", *extra]
    subprocess.run(cmd, check=True)
    return inferno.load(str(so))


def trace(name, key):
    return np.load(FIXTURES / name / f"trace_{key}.npy")


def run_prompt(model, prompt):
    """The prompt through the PREFILL variant, its tail padded; the prompt rows' logits."""
    n = prompt.shape[1]
    ids = np.concatenate([prompt, np.repeat(prompt[:, -1:], PREFILL - n, axis=1)], axis=1)
    model.reset_state()
    out = model(torch.from_numpy(ids).cuda(), torch.arange(PREFILL, device="cuda"))
    torch.cuda.synchronize()
    return out[:, :n].float().cpu().numpy()


def relative_error(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def check(infernoc, name, out_dir):
    row = {"model": name}
    model = compile_model(infernoc, FIXTURES / name / "decoder.pt2", out_dir / f"{name}.so")
    row["variants"] = len(model.variants)
    errors = [relative_error(run_prompt(model, trace(name, "prompt")), trace(name, "prefill_logits"))]
    for step in range(4):
        logits = model(torch.from_numpy(trace(name, f"step{step}_token")).cuda(),
                       torch.from_numpy(trace(name, f"step{step}_position")).cuda())
        torch.cuda.synchronize()
        errors.append(relative_error(logits.float().cpu().numpy(), trace(name, f"step{step}_logits")))
    row["f32 steps rel err"] = max(errors)
    want = np.load(FIXTURES / name / "generate.npy").tolist()
    got = model.generate(trace(name, "prompt")[0].tolist(), max_new_tokens=len(want))
    row["greedy tokens equal"] = f"{sum(a == b for a, b in zip(got, want))}/{len(want)}"
    row["ok"] = max(errors) < 1e-4 and got == want
    half = compile_model(infernoc, FIXTURES / name / "decoder.pt2", out_dir / f"{name}_fp16.so",
                         ["--precision", "fp16"])
    row["fp16 prompt rel err"] = relative_error(run_prompt(half, trace(name, "prompt")),
                                                trace(name, "prefill_logits"))
    row["ok"] = row["ok"] and row["fp16 prompt rel err"] < 1e-2
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--out", type=Path, default=Path("llm-check"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows, failed = [], False
    for name in ("gpt2", "llama", "qwen2"):
        try:
            rows.append(check(args.infernoc, name, args.out))
        except Exception as error:  # report every model, then fail
            rows.append({"model": name, "ok": False, "error": f"{type(error).__name__}: {error}"})
        failed |= not rows[-1]["ok"]
        print(rows[-1], flush=True)
    keys = ["model", "variants", "f32 steps rel err", "greedy tokens equal", "fp16 prompt rel err", "ok"]
    table = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        cells = [f"{row[k]:.2e}" if isinstance(row.get(k), float) else str(row.get(k, "-")) for k in keys]
        table.append("| " + " | ".join(cells) + " |")
    text = "\n".join(table)
    (args.out / "llm_check.md").write_text(text + "\n")
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
