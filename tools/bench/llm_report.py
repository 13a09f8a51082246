"""What bench_llm.py reports, without torch: the figures it reads from `inferno-run --generate`, the
torch.compile modes it runs, the fastest PyTorch mode, its Markdown tables and its progress lines.
Pure functions (llm_report_test.py tests them on this machine's Python, with no GPU)."""

import contextlib
import re
import sys
import time

# torch.compile's modes; max-autotune takes many minutes per model, so it runs only when asked.
COMPILE_MODES = ("default", "reduce-overhead")
SLOW_COMPILE_MODES = ("max-autotune",)


class ReportError(ValueError):
    pass


def compile_modes(requested, max_autotune):
    """The torch.compile modes to run: `requested` (a list of names, or ["none"] for none) plus
    max-autotune when `max_autotune`; in order, each once."""
    if requested == ["none"]:
        modes = []
    elif "none" in requested:
        raise ReportError("--compile-modes: 'none' stands alone")
    else:
        modes = list(requested)
    for mode in modes:
        if mode in SLOW_COMPILE_MODES:
            raise ReportError(f"--compile-modes: {mode} takes many minutes per model: pass --{mode}")
        if mode not in COMPILE_MODES:
            raise ReportError(f"--compile-modes: unknown mode '{mode}' (known: {', '.join(COMPILE_MODES)}, none)")
    if max_autotune:
        modes += list(SLOW_COMPILE_MODES)
    return list(dict.fromkeys(modes))


def pytorch_labels(modes):
    """The PyTorch columns' names: eager, then one per compiled mode."""
    return ["HF eager"] + [f"HF compile {mode}" for mode in modes]


def _number(pattern, text, what, kind=float):
    match = re.search(pattern, text, re.M)
    if match is None:
        raise ReportError(f"inferno-run --generate printed no {what}:\n{text}")
    return kind(match.group(1))


def parse_generate_output(text):
    """The figures of `inferno-run --generate` (runtime/tools/generate_cmd.cpp prints them): the
    median time between tokens, the time to first token, the GPU time of the prompt's runs, how
    many tokens and runs that was, and the bandwidth floor."""
    return {
        "per_token_ms": _number(r"^decode: .*\(median ([0-9.]+)", text, "decode median"),
        "ttft_ms": _number(r"^time to first token: ([0-9.]+) ms", text, "time to first token"),
        "prefill_ms": _number(r"^prompt: .* runs, ([0-9.]+) ms on the GPU", text, "prompt time"),
        "prompt_tokens": _number(r"^prompt: (\d+) tokens", text, "prompt length", int),
        "prefill_runs": _number(r"^prompt: \d+ tokens in (\d+) runs", text, "prompt runs", int),
        "floor_ms": _number(r"^bandwidth floor: .* = ([0-9.]+) ms/token", text, "bandwidth floor"),
    }


def per_token_ms(first_ms, full_ms, new_tokens):
    """Decode time per token: a generation of `new_tokens` less one of 1 token (the prompt and the
    first token), over the tokens between."""
    if new_tokens < 2:
        raise ReportError("per-token time needs at least 2 new tokens")
    return (full_ms - first_ms) / (new_tokens - 1)


def error_cell(error):
    """An exception as one table cell: its type and first line, short."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    return f"error: {type(error).__name__}: {first}"[:160]


def fastest(row, labels, suffix):
    """(label, value) of the smallest number among row[label + suffix] for each label, None when
    none is a number (every mode failed or was skipped)."""
    timed = [(row[f"{label} {suffix}"], label) for label in labels if isinstance(row.get(f"{label} {suffix}"), float)]
    if not timed:
        return None
    value, label = min(timed)
    return label, value


def add_summary(row, labels):
    """Adds the fastest PyTorch mode per table (decode and prefill) and its ratio to infernoc's."""
    for suffix, name, ours in (("ms/token", "best PyTorch", "infernoc ms/token"),
                               ("prefill ms", "best PyTorch prefill", "infernoc prefill ms")):
        best = fastest(row, labels, suffix)
        if best is None:
            continue
        row[name] = best[0]
        row[f"best PyTorch {suffix}"] = best[1]
        if isinstance(row.get(ours), float) and row[ours] > 0:
            row[f"{name} / infernoc"] = best[1] / row[ours]
    if isinstance(row.get("floor ms/token"), float) and isinstance(row.get("infernoc ms/token"), float):
        row["floor / infernoc"] = row["floor ms/token"] / row["infernoc ms/token"]


def decode_keys(labels, ncu):
    keys = ["model", "infernoc ms/token", "no dependent launch ms/token", "no L2 prefetch ms/token", "floor ms/token",
            "floor / infernoc"]
    keys += [f"{label} ms/token" for label in labels]
    keys += ["best PyTorch", "best PyTorch ms/token", "best PyTorch / infernoc", "compile s"]
    keys += [f"{label} warm-up s" for label in labels[1:]]
    if ncu:
        keys += ["profile steps us", "profile end to end us", "profile timing", "model.profile us",
                 "model.profile timing"]
    return keys


def prompt_keys(labels):
    keys = ["model", "infernoc prefill ms"] + [f"{label} prefill ms" for label in labels]
    keys += ["best PyTorch prefill", "best PyTorch prefill ms", "best PyTorch prefill / infernoc", "infernoc TTFT ms"]
    return keys + [f"{label} TTFT ms" for label in labels]


def format_cell(value):
    if isinstance(value, float):
        return f"{value:.3f}"
    if value is None:
        return "-"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows, keys):
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(format_cell(row.get(key)) for key in keys) + " |" for row in rows]
    return "\n".join(lines)


def legend(prompt, new, modes):
    """What each column times (the tables' header)."""
    compiled = ", ".join(f'"{mode}"' for mode in modes) or "none run"
    return "\n".join([
        f"Batch 1, fp16, a {prompt}-token prompt, {new} new tokens, greedy. Every PyTorch figure is Hugging Face's "
        "model in this process; each timed call is followed by torch.cuda.synchronize().",
        "",
        "- infernoc ms/token: `inferno-run --generate`, median time between tokens of its timed (second) "
        "generation; each step one CUDA graph replay and the next-token kernel.",
        "- no dependent launch ms/token: the same with INFERNO_DEPENDENT_LAUNCH=0 (kernels launched one after "
        "another, no programmatic dependent launch).",
        "- no L2 prefetch ms/token: the same with INFERNO_L2_PREFETCH_MB=0 (no GEMV asks L2 for the next GEMVs' "
        "weights).",
        "- floor ms/token: the weight bytes over the device's copy bandwidth (measured by inferno-run).",
        f"- HF eager / HF compile MODE ms/token: generate(), (t({new} new) - t(1 new)) / {new - 1}, each t the "
        "median of 3 calls after warm-up. Eager: the default (dynamic) cache. Compiled (modes: "
        f"{compiled}): model.forward = torch.compile(model.forward, mode=MODE, fullgraph=True, dynamic=False) "
        "and cache_implementation=\"static\" (generate's own automatic compile off); the warm-up runs "
        f"generate() of {new} and of 1 token and 3 prompt forwards, twice, so every compile and graph capture "
        "happens before timing, and the timed calls run under torch.compiler.set_stance(\"fail_on_recompile\").",
        "- best PyTorch: the fastest of the HF columns that ran (eager included); its ratio is its time "
        "over infernoc's (above 1: infernoc is faster).",
        "- compile s: infernoc's cold build (no cache); HF compile MODE warm-up s: the compiled mode's warm-up.",
        "- infernoc prefill ms: GPU time (CUDA events) of the prompt's run of the timed generation: one run of "
        f"the {prompt}-token variant, all {prompt} rows of logits and the KV cache writes, after the copies of its "
        "token ids and positions to the GPU (`inferno-run` prints it as \"prompt: ... ms on the GPU\"); one sample.",
        f"- HF prefill ms: one forward, model(input_ids=prompt, use_cache=False): all {prompt} rows of logits, "
        "no cache; host time of the synchronized call, median of 10 after 10 warm-up calls.",
        "- TTFT ms: infernoc: host time from the generate call to the first token on the host (cache reset, "
        "prompt, next-token kernel); HF: t(1 new) above (generate()'s own prompt step and its overhead).",
    ])


def report(device, prompt, new, modes, rows, ncu):
    """The whole Markdown report: the legend, the decode table and the prompt table."""
    labels = pytorch_labels(modes)
    decode = decode_keys(labels, ncu)
    if any("error" in row for row in rows):
        decode.append("error")
    return "\n".join([f"{device}. " + legend(prompt, new, modes), "", "Decode:", "",
                      markdown_table(rows, decode), "", "Prompt:", "", markdown_table(rows, prompt_keys(labels))])


def has_errors(rows):
    """Whether any cell holds an error (error_cell's text)."""
    return any(isinstance(value, str) and value.startswith("error: ") for row in rows for value in row.values())


@contextlib.contextmanager
def phase(name, stream=sys.stderr):
    """Prints the phase's name and, when it ends (or fails), its seconds."""
    print(f"bench_llm: {name} ...", file=stream, flush=True)
    start = time.perf_counter()
    try:
        yield
    finally:
        print(f"bench_llm: {name}: {time.perf_counter() - start:.1f} s", file=stream, flush=True)
