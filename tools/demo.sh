#!/usr/bin/env bash
# The README's first command: builds infernoc, then shows its main job on the bundled example MLP
# (examples/mlp/mlp.pt2): the IR as loaded (-O0) and after the optimization pipeline, a reference
# run on the CPU compared with PyTorch's output, and the compile to a self-contained mlp.so, which
# inferno-run then runs and checks where there is a GPU.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}
bash "$root/tools/build.sh" >&2
infernoc="$build/src/infernoc"
example="$root/examples/mlp"

echo "== IR as loaded: infernoc examples/mlp/mlp.pt2 -O0 --emit ir"
"$infernoc" "$example/mlp.pt2" -O0 --emit ir
echo
echo "== IR after the optimization pipeline: infernoc examples/mlp/mlp.pt2 --emit ir"
"$infernoc" "$example/mlp.pt2" --emit ir
echo
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
runner="$build/runtime/inferno-run"
echo "== reference run: infernoc examples/mlp/mlp.pt2 --reference --data input0.npy --save-outputs DIR"
"$infernoc" "$example/mlp.pt2" --reference --data "$example/input0.npy" --save-outputs "$out"
echo "== compare with PyTorch's output"
"$build/tools/npy_compare" "$out/out0.npy" "$example/output0.npy"
echo
echo "== compile: infernoc examples/mlp/mlp.pt2 -o mlp.so"
"$infernoc" "$example/mlp.pt2" -o "$out/mlp.so"
"$runner" "$out/mlp.so" --check 0
if "$runner" "$out/mlp.so" --data "$example/input0.npy" --save-outputs "$out/gpu" --iters 200 2>"$out/run.err"; then
  echo "== compare the GPU's output with PyTorch's"
  "$build/tools/npy_compare" "$out/gpu/out0.npy" "$example/output0.npy" --rtol 1e-5 --atol 1e-5
else
  echo "no GPU here, so mlp.so was built and checked but not run ($(head -1 "$out/run.err"))"
fi
