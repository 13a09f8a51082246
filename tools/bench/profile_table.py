"""Reads the profiles the comparison joins: the text `inferno-run --profile` prints
(runtime/tools/profile_report.cpp, profile_report_text), its Chrome trace (`--trace`), and the
Chrome trace torch.profiler exports (Kineto: one event per GPU kernel, copy or memset).

No torch at import time: the CPU tests run it with the distribution's Python.
"""
import json
import re

# The table's header line: the column names profile_table() pads; their positions give the
# kernel, source and line columns (each may hold spaces, so a row cannot be split on them).
_HEADER = re.compile(r"^kernel +source +line +time +share +TFLOP/s +GB/s +of peak +bound$")
# The numeric tail of a row: time (%8.1f "us"), share (%5.1f%%), TFLOP/s (%7.2f), GB/s (%7.1f),
# of peak (%6.1f%%), bound.
_ROW_TAIL = re.compile(r"\s+(-?[0-9.]+)us\s+(-?[0-9.]+)%\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)%\s+"
                       r"(compute|memory|latency)$")
_STEPS = re.compile(r"^(\d+) steps, (\d+) launches on (.*) \(peak ([0-9.]+) TFLOP/s FMA, ([0-9.]+) tensor, "
                    r"([0-9.]+) GB/s copy\)$")
_TIMES = re.compile(r"^kernels ([0-9.]+) us, end to end ([0-9.]+) us, launch overhead ([0-9.]+) us$")
_MEMORY = re.compile(r"^peak device memory ([0-9.]+) MiB")
_TIMING = re.compile(r"^step times: (CUPTI|CUDA events)")


class ProfileParseError(ValueError):
    """The text is not what profile_report.cpp prints (the format changed, or the run failed)."""


def _field(line, start, end):
    # Columns are padded by bytes; the text was decoded as Latin-1 so that positions are bytes.
    return line[start:end].rstrip().encode("latin-1").decode("utf-8", "replace")


def parse_profile_output(text):
    """The profile in `inferno-run --profile`'s stdout (other lines around it are ignored): a dict
    with rows (slowest first: kernel, node, op, location, us, share, tflops, gbps, peak_fraction,
    bound), steps, launches, device, fma_tflops, tensor_tflops, copy_gbps, kernels_us,
    end_to_end_us, launch_overhead_us, memory_mib and hints."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    else:
        text = text.encode("utf-8").decode("latin-1")
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if header_at is None:
        raise ProfileParseError("no profile table header ('kernel  source  line  time ...') in the output")
    header = lines[header_at]
    source_at, line_at = header.index("  source") + 2, header.index("  line") + 2
    rows = []
    at = header_at + 1
    while at < len(lines) and lines[at].strip():
        line = lines[at]
        tail = _ROW_TAIL.search(line)
        # The time is right-aligned after the line column, which is empty for a node that has no
        # source line (a cast the precision pass inserted): the padding before the time then starts
        # inside it, so only the number itself must lie past the column's start.
        if tail is None or tail.start(1) < line_at:
            raise ProfileParseError(f"unreadable profile row: {line!r}")
        source = _field(line, source_at, line_at - 2)
        node, paren, op = source.rpartition(" (")
        if not paren or not op.endswith(")"):
            raise ProfileParseError(f"unreadable source column {source!r} in: {line!r}")
        rows.append({"kernel": _field(line, 0, source_at - 2), "node": node, "op": op[:-1],
                     "location": _field(line, line_at, tail.start(1)).strip(),
                     "us": float(tail.group(1)), "share": float(tail.group(2)) / 100,
                     "tflops": float(tail.group(3)), "gbps": float(tail.group(4)),
                     "peak_fraction": float(tail.group(5)) / 100, "bound": tail.group(6)})
        at += 1
    result = {"rows": rows, "hints": []}
    for line in lines[at:]:
        if match := _STEPS.match(line):
            result.update(steps=int(match.group(1)), launches=int(match.group(2)), device=match.group(3),
                          fma_tflops=float(match.group(4)), tensor_tflops=float(match.group(5)),
                          copy_gbps=float(match.group(6)))
        elif match := _TIMES.match(line):
            result.update(kernels_us=float(match.group(1)), end_to_end_us=float(match.group(2)),
                          launch_overhead_us=float(match.group(3)))
        elif match := _MEMORY.match(line):
            result["memory_mib"] = float(match.group(1))
        elif match := _TIMING.match(line):
            result["timing"] = "cupti" if match.group(1) == "CUPTI" else "events"
        elif line.startswith("hint: "):
            result["hints"].append(line[len("hint: "):].encode("latin-1").decode("utf-8", "replace"))
    missing = [key for key in ("steps", "kernels_us", "memory_mib") if key not in result]
    if missing:
        raise ProfileParseError(f"the profile summary lacks {missing}")
    if result["steps"] != len(rows):
        raise ProfileParseError(f"the summary says {result['steps']} steps, the table has {len(rows)} rows")
    return result


def read_step_trace(path):
    """The steps of an `inferno-run --trace` file, in launch order: dicts of name ("%node op"),
    ts_us, dur_us and its args (kernel, location, dtype, launches, flops, bytes). Raises ValueError
    (json's) for a file that is not JSON."""
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    return [{"name": e["name"], "ts_us": float(e["ts"]), "dur_us": float(e["dur"]), **e.get("args", {})}
            for e in trace["traceEvents"] if e.get("ph") == "X"]


# Kineto's categories of GPU work: what the device executed, each with a duration.
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def gpu_activity(trace):
    """Per name, [calls, total us] of the GPU work in a torch.profiler Chrome trace (a dict, as
    export_chrome_trace writes it), and the total us over all of it."""
    by_name, total = {}, 0.0
    for event in trace.get("traceEvents", []):
        if event.get("ph") != "X" or event.get("cat") not in GPU_CATEGORIES:
            continue
        dur = float(event.get("dur", 0))
        entry = by_name.setdefault(event.get("name", "?"), [0, 0.0])
        entry[0] += 1
        entry[1] += dur
        total += dur
    return by_name, total


def top_kernels(by_name, runs, count):
    """The `count` names with the most GPU time, as (name, us per run, calls per run)."""
    ranked = sorted(by_name.items(), key=lambda item: -item[1][1])[:count]
    return [(name, total / runs, calls / runs) for name, (calls, total) in ranked]
