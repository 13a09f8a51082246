#!/usr/bin/env bash
# tools/demo.sh, the README's first command, run on the finished build: it must succeed, leave its
# results in the folder it names at the end ($INFERNO_DEMO_OUT here, a scratch directory), and
# say so. Its build step finds everything up to date.
# Usage: demo_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
out="$scratch/demo out"  # a space, as a user's folder may have
INFERNO_SKIP_DEPS=1 INFERNO_BUILD_DIR=$build INFERNO_DEMO_OUT=$out \
  bash "$source/tools/demo.sh" >"$scratch/demo.log" 2>&1 || {
  cat "$scratch/demo.log"
  exit 1
}
grep -qF "== results in $out" "$scratch/demo.log" || {
  echo "FAILED: the demo does not name its folder at the end" >&2
  tail -15 "$scratch/demo.log"
  exit 1
}
for file in mlp.so ir-before.txt ir-after.txt graphs/before.dot graphs/after.dot \
  reference/out0.npy check.txt run.txt; do
  [[ -s "$out/$file" ]] || { echo "FAILED: the demo left no $file in its folder" >&2; exit 1; }
done
grep -q "= gemm(" "$out/ir-after.txt" || { echo "FAILED: ir-after.txt has no gemm" >&2; exit 1; }
echo "ok: the demo's results are in its folder"
