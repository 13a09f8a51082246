"""How long infernoc takes to compile each model of the zoo, stage by stage.

After one untimed compile (the toolkit into the page cache), each model is compiled to a model.so
one at a time, cold (into an empty build cache), with `-v`,
and the stage times infernoc logs (`infernoc: time: <stage> <ms> ms`, docs/build-cache.md) become
one table row; a second compile of the same model then shows what a cache hit costs; where the
model's directory also holds a model.pt2 (export_zoo.py --pt2), a cold compile of that is the last
column (no TorchScript loader child), and the nvcc time of a cold compile with `--jobs 1` (one nvcc
process: a large model is otherwise built as several objects at once) the one before it. Run it on
an idle machine: every other process takes CPU from nvcc.

    /usr/bin/python3 tools/export_zoo.py --out zoo [--pt2]    # once: TorchScript files + inputs
    python3 tools/bench/compile_times.py --infernoc build/src/infernoc --zoo zoo --out results

Writes compile_times.md (and prints it): per model the frontend, passes, codegen, nvcc and total
seconds, and the cache hit's total. Needs nothing but the standard library.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

STAGE_LINE = re.compile(r"infernoc: time: (.+?)\s+([0-9.]+) ms")
COLUMNS = ["frontend", "passes", "codegen", "nvcc", "total"]


def stage_times(log):
    """{stage: milliseconds} from infernoc's -v log."""
    return {m.group(1).strip(): float(m.group(2)) for m in STAGE_LINE.finditer(log)}


def compile_once(infernoc, model_dir, output, extra, model_file="model.pt"):
    argv = [infernoc, os.path.join(model_dir, model_file)]
    if model_file == "model.pt":  # TorchScript carries no input shapes: the inputs give them
        inputs = sorted(f for f in os.listdir(model_dir) if re.fullmatch(r"input\d+\.npy", f))
        inputs.sort(key=lambda f: int(f[len("input"):-len(".npy")]))
        argv += ["--data"] + [os.path.join(model_dir, f) for f in inputs]
    argv += ["-o", output, "-v"] + extra
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return stage_times(result.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--infernoc", required=True)
    parser.add_argument("--zoo", required=True, help="tools/export_zoo.py's output directory")
    parser.add_argument("--only", help="comma-separated model names (default: every model there)")
    parser.add_argument("--out", default=".", help="where compile_times.md goes")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()

    models = args.only.split(",") if args.only else sorted(
        d for d in os.listdir(args.zoo) if os.path.isfile(os.path.join(args.zoo, d, "model.pt")))
    rows = []
    with tempfile.TemporaryDirectory(prefix="inferno_compile_times_") as scratch:
        # Untimed: the first compile on a fresh machine also reads the toolkit and LibTorch from
        # disk, seconds that no later compile pays.
        if models:
            compile_once(args.infernoc, os.path.join(args.zoo, models[0]),
                         os.path.join(scratch, "warm-up.so"), ["--arch", args.arch, "--no-cache"])
        for model in models:
            model_dir = os.path.join(args.zoo, model)
            output = os.path.join(scratch, model + ".so")
            cache = ["--arch", args.arch, "--cache-dir", os.path.join(scratch, "cache-" + model)]
            cold = compile_once(args.infernoc, model_dir, output, cache)  # a miss, then a store
            hit = compile_once(args.infernoc, model_dir, output, cache)
            shutil.rmtree(cache[-1], ignore_errors=True)
            pt2 = None
            if os.path.isfile(os.path.join(model_dir, "model.pt2")):
                pt2 = compile_once(args.infernoc, model_dir, output, cache, "model.pt2")
                shutil.rmtree(cache[-1], ignore_errors=True)
            one = compile_once(args.infernoc, model_dir, output,
                               ["--arch", args.arch, "--no-cache", "--jobs", "1"])
            rows.append((model, cold, hit, pt2, one))
            print(f"{model}: {cold.get('total', 0) / 1e3:.1f} s cold, "
                  f"{hit.get('total', 0) / 1e3:.2f} s from the cache", file=sys.stderr)

    cores = os.cpu_count()
    lines = [f"infernoc compile times, {args.arch}, {cores} CPUs, one model at a time (seconds)", "",
             "| model | " + " | ".join(COLUMNS) + " | cache hit | nvcc, one object | .pt2 total |",
             "|---|" + "---|" * (len(COLUMNS) + 3)]
    for model, cold, hit, pt2, one in rows:
        cells = [f"{cold.get(c, 0) / 1e3:.1f}" for c in COLUMNS]
        pt2_cell = f"{pt2.get('total', 0) / 1e3:.1f}" if pt2 else "-"
        lines.append(f"| {model} | " + " | ".join(cells) +
                     f" | {hit.get('total', 0) / 1e3:.2f} | {one.get('nvcc', 0) / 1e3:.1f} | {pt2_cell} |")
    table = "\n".join(lines) + "\n"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "compile_times.md"), "w") as f:
        f.write(table)
    print(table)


if __name__ == "__main__":
    main()
