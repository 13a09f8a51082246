#!/usr/bin/env bash
# The dynamic-shape fixtures (test/fixtures/dynamic, tools/export_dynamic_fixtures.py): models
# exported with torch.export's dynamic dims, each with inputs and PyTorch's outputs at three sizes
# (every dim at its minimum, its middle and its maximum). test/CMakeLists.txt registers:
#   dynamic_fixture_test.sh reference INFERNOC NPY_COMPARE DIR
#       at each size, the model's dims bound to that size's inputs (--data) and run on the CPU
#       reference, for the export as saved and after run_decompositions(): every output within
#       torch.testing's f32 tolerances of PyTorch's;
#   dynamic_fixture_test.sh specialize INFERNOC INFERNO_RUN DIR SYMBOL
#       one library holding a variant per size of dim SYMBOL (--specialize SYMBOL=min,mid,max;
#       nvcc, no GPU), whose descriptor (inferno-run --check) lists the three input shapes and
#       the dim's exported range and compiled sizes;
#   dynamic_fixture_test.sh run INFERNOC INFERNO_RUN NPY_COMPARE DIR SYMBOL
#       the same library on a GPU: each size's outputs against PyTorch's, and a size no variant
#       has refused (exit 3) saying whether it is inside the export's range.
set -euo pipefail
mode=$1
shift

# The first input's shape at size $1 ("1x16"), from its .npy header.
npy_shape() {
  local header
  header=$(head -c 128 "$1" | tr -d '\0')
  header=${header#*\'shape\': (}
  header=${header%%)*}
  header=${header//,/x}
  header=${header// /}
  echo "${header%x}"
}

# The range of dim $2 as the manifest beside fixture $1 records it ("1..64").
jq_range() {
  python3 -c 'import json, sys
manifest = json.load(open(sys.argv[1] + "/../manifest.json"))
name = sys.argv[1].rstrip("/").split("/")[-1]
model = next(m for m in manifest["models"] if m["name"] == name)
low, high = model["range_constraints"][sys.argv[2]][3:-1].split(", ")
print(low + ".." + high)' "$1" "$2"
}

case $mode in
reference)
  infernoc=$1 compare=$2 dir=$3
  failed=0
  for model in model.pt2 model_decomposed.pt2; do
    for size in min mid max; do
      out=$(mktemp -d)
      "$infernoc" "$dir/$model" --reference --data "$dir/$size"/input*.npy --save-outputs "$out"
      for expected in "$dir/$size"/output*.npy; do
        i=${expected##*/output}
        i=${i%.npy}
        echo -n "$model at $size, output $i: "
        "$compare" "$out/out$i.npy" "$expected" || failed=1
      done
      rm -rf "$out"
    done
  done
  exit $failed
  ;;
specialize)
  infernoc=$1 inferno_run=$2 dir=$3 symbol=$4
  values=() shapes=()
  for size in min mid max; do
    shape=$(npy_shape "$dir/$size/input0.npy")
    shapes+=("$shape")
    values+=("${shape%%x*}")  # the batch dim: the first
  done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$infernoc" "$dir/model.pt2" --specialize "$symbol=$(IFS=,; echo "${values[*]}")" \
    -o "$work/model.so" --no-cache
  "$inferno_run" "$work/model.so" --check 90 | tee "$work/check.txt"
  for shape in "${shapes[@]}"; do
    dims="[${shape//x/,}]"
    grep -qF "f32$dims" "$work/check.txt" || { echo "no variant takes f32$dims"; exit 1; }
  done
  # The export's range of the dim, where the input has it, and the sizes compiled.
  line="dynamic dim $symbol: exported for $(jq_range "$dir" "$symbol") (x dim 0), compiled for $(IFS=,; echo "${values[*]}" | sed 's/,/, /g')"
  grep -qxF "$line" "$work/check.txt" || { echo "no line: $line"; exit 1; }
  ;;
run)
  # On a GPU: one library of the three batch sizes runs each from its --data within
  # torch.testing's f32 tolerances, and a size that no variant has is refused in the dims' terms
  # (exit 3): one inside the export's range, one outside it.
  infernoc=$1 inferno_run=$2 compare=$3 dir=$4 symbol=$5
  values=()
  for size in min mid max; do
    shape=$(npy_shape "$dir/$size/input0.npy")
    values+=("${shape%%x*}")
  done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$infernoc" "$dir/model.pt2" --specialize "$symbol=$(IFS=,; echo "${values[*]}")" \
    -o "$work/model.so" --no-cache --quiet
  for size in min mid max; do
    "$inferno_run" "$work/model.so" --data "$dir/$size"/input*.npy --save-outputs "$work/$size"
    echo -n "$size: "
    "$compare" "$work/$size/out0.npy" "$dir/$size/output0.npy"
  done
  low=${values[0]} high=${values[2]}
  python3 -c 'import numpy as np, sys
for path, rows in zip(sys.argv[1::2], sys.argv[2::2]):
    np.save(path, np.zeros((int(rows), 16), np.float32))' \
    "$work/inside.npy" $((low + 1)) "$work/outside.npy" $((high + 1))
  for case in "inside:is in the range the model was exported for" "outside:outside the range of $symbol"; do
    set +e
    "$inferno_run" "$work/model.so" --data "$work/${case%%:*}.npy" >"$work/refused.txt" 2>&1
    code=$?
    set -e
    cat "$work/refused.txt"
    [[ $code == 3 ]] || { echo "exit $code, not 3"; exit 1; }
    grep -qF "${case#*:}" "$work/refused.txt" || { echo "no '${case#*:}'"; exit 1; }
  done
  ;;
*)
  echo "dynamic_fixture_test.sh: unknown mode $mode" >&2
  exit 2
  ;;
esac
