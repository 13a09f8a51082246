#!/usr/bin/env bash
# The README's first command: builds infernoc, then shows its main job on the bundled example MLP
# (examples/mlp/mlp.pt2): the IR as loaded (-O0) and after the optimization pipeline, then runs
# the optimized graph on the CPU reference interpreter and compares with PyTorch's output.
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
echo "== reference run: infernoc examples/mlp/mlp.pt2 --reference --data input0.npy --save-outputs DIR"
"$infernoc" "$example/mlp.pt2" --reference --data "$example/input0.npy" --save-outputs "$out"
echo "== compare with PyTorch's output"
"$build/tools/npy_compare" "$out/out0.npy" "$example/output0.npy"
