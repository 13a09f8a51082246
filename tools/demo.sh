#!/usr/bin/env bash
# The README's first command: builds the compiler and the runtime (only the targets it needs),
# then shows infernoc's main job on the bundled example MLP (examples/mlp/mlp.pt2): the IR as
# loaded (-O0) and after the optimization pipeline, a reference run on the CPU compared with
# PyTorch's output, and the compile to a self-contained mlp.so, which inferno-run checks, and runs
# and compares where there is a GPU. Everything it makes is left in demo-out/ (or
# $INFERNO_DEMO_OUT), named at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}
out=${INFERNO_DEMO_OUT:-$root/demo-out}
bash "$root/tools/build.sh" --target infernoc --target inferno-run --target npy_compare >&2
infernoc="$build/src/infernoc"
runner="$build/runtime/inferno-run"
example="$root/examples/mlp"

# Only what this script writes is replaced: $INFERNO_DEMO_OUT may name a folder holding more.
mkdir -p "$out"
rm -rf "$out/graphs" "$out/reference" "$out/gpu"
rm -f "$out/mlp.so" "$out/ir-before.txt" "$out/ir-after.txt" "$out/check.txt" "$out/run.txt"

echo "== IR as loaded: infernoc examples/mlp/mlp.pt2 -O0 --emit ir"
"$infernoc" "$example/mlp.pt2" -O0 --emit ir -o "$out/ir-before.txt" --quiet
cat "$out/ir-before.txt"
echo
echo "== IR after the optimization pipeline: infernoc examples/mlp/mlp.pt2 --emit ir --dump-graph graphs"
"$infernoc" "$example/mlp.pt2" --emit ir -o "$out/ir-after.txt" --dump-graph "$out/graphs" --quiet
cat "$out/ir-after.txt"
echo
echo "== reference run: infernoc examples/mlp/mlp.pt2 --reference --data examples/mlp/input0.npy --save-outputs reference"
"$infernoc" "$example/mlp.pt2" --reference --data "$example/input0.npy" --save-outputs "$out/reference"
echo "== compare with PyTorch's output (examples/mlp/output0.npy)"
"$build/tools/npy_compare" "$out/reference/out0.npy" "$example/output0.npy"
echo
echo "== compile: infernoc examples/mlp/mlp.pt2 -o mlp.so"
"$infernoc" "$example/mlp.pt2" -o "$out/mlp.so"
echo "== check: inferno-run mlp.so --check 0"
"$runner" "$out/mlp.so" --check 0 | tee "$out/check.txt"
echo "== run: inferno-run mlp.so --data examples/mlp/input0.npy --save-outputs gpu --iters 200"
if "$runner" "$out/mlp.so" --data "$example/input0.npy" --save-outputs "$out/gpu" --iters 200 \
  >"$out/run.txt" 2>&1; then
  cat "$out/run.txt"
  echo "== compare the GPU's output with PyTorch's"
  "$build/tools/npy_compare" "$out/gpu/out0.npy" "$example/output0.npy" --rtol 1e-5 --atol 1e-5
else
  echo "no GPU here, so mlp.so was built and checked but not run: $(head -1 "$out/run.txt")"
fi

pictures="before.dot, after.dot (PNGs too once Graphviz's dot is installed)"
[[ -f "$out/graphs/after.png" ]] && pictures="before.png, after.png and their .dot files"
cat <<SUMMARY

== results in $out
  mlp.so                       the compiled model, for inferno-run, libinferno_runtime or Python
  ir-before.txt, ir-after.txt  the IR as loaded and after optimization
  graphs/                      the graph before and after optimization: $pictures
  reference/out0.npy           the CPU reference's output (PyTorch's: examples/mlp/output0.npy)
  check.txt, run.txt           what inferno-run said (--check, and the run or why it could not run)
Next: compile your own model (README: "Export your model"), or run the tests: bash tools/test.sh
SUMMARY
