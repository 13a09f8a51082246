#!/usr/bin/env bash
# The dynamic-shape fixtures (test/fixtures/dynamic, tools/export_dynamic_fixtures.py): models
# exported with torch.export's dynamic dims, each with inputs and PyTorch's outputs at three sizes
# (every dim at its minimum, its middle and its maximum). test/CMakeLists.txt registers:
#   dynamic_fixture_test.sh reference INFERNOC NPY_COMPARE DIR
#       at each size, the model's dims bound to that size's inputs (--data) and run on the CPU
#       reference, for the export as saved and after run_decompositions(): every output within
#       torch.testing's f32 tolerances of PyTorch's;
#   dynamic_fixture_test.sh split INFERNOC NPY_COMPARE DIR
#       the compiler splits runs along the batch (the dims table names a split dim), and on the
#       CPU reference the model at one less than the largest batch equals, row for row, the model
#       run on the pieces the runtime would cut that batch into (descending powers of two): the
#       rows are independent, as the split claims;
#   dynamic_fixture_test.sh specialize INFERNOC INFERNO_RUN DIR SYMBOL
#       one library holding a variant per size of dim SYMBOL (--specialize SYMBOL=min,mid,max;
#       nvcc, no GPU), whose descriptor (inferno-run --check) lists the three input shapes and
#       the dim's exported range and compiled sizes;
#   dynamic_fixture_test.sh run INFERNOC INFERNO_RUN NPY_COMPARE DIR SYMBOL [INFERNOC ARGS...]
#       the library infernoc compiles by default (the batch's powers of two; ARGS: a sequence
#       dim's --specialize, to which the batch's sizes are added) on a GPU: each
#       size's outputs against PyTorch's, a batch no variant has (run in pieces) against the CPU
#       reference, and a batch outside the export's range refused (exit 3) naming the range.
set -euo pipefail
mode=$1
shift
# NumPy's python: the first python3 on PATH, else the distribution's.
python3() {
  if command python3 -c 'import numpy' 2>/dev/null; then command python3 "$@"; else /usr/bin/python3 "$@"; fi
}

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

# Writes the first $3 rows of each input of size dir $1 to $2/input<i>.npy.
first_rows() {
  python3 -c 'import numpy as np, sys, glob
for path in sorted(glob.glob(sys.argv[1] + "/input*.npy")):
    np.save(sys.argv[2] + "/" + path.rsplit("/", 1)[1], np.load(path)[int(sys.argv[3]):int(sys.argv[4])])' \
    "$1" "$2" "${4:-0}" "$3"
}

case $mode in
split)
  infernoc=$1 compare=$2 dir=$3
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$infernoc" "$dir/model.pt2" --emit cu -o "$work/model.cu" --quiet
  grep -qE "kDimUses, [0-9]+};" "$work/model.cu" || { echo "no split dim in the dims table"; exit 1; }
  high=$(npy_shape "$dir/max/input0.npy")
  rows=$((${high%%x*} - 1))
  mkdir -p "$work/all" "$work/all_out" "$work/joined"
  first_rows "$dir/max" "$work/all" "$rows"
  "$infernoc" "$dir/model.pt2" --reference --data "$work/all"/input*.npy --save-outputs "$work/all_out"
  first=0 pieces=()
  while ((first < rows)); do
    piece=1
    while ((piece * 2 <= rows - first)); do piece=$((piece * 2)); done
    mkdir -p "$work/in$first" "$work/out$first"
    first_rows "$dir/max" "$work/in$first" $((first + piece)) "$first"
    "$infernoc" "$dir/model.pt2" --reference --data "$work/in$first"/input*.npy \
      --save-outputs "$work/out$first"
    pieces+=("$work/out$first")
    first=$((first + piece))
  done
  echo "$rows rows as ${#pieces[@]} pieces"
  failed=0
  for whole in "$work/all_out"/out*.npy; do
    name=${whole##*/}
    python3 -c 'import numpy as np, sys
np.save(sys.argv[1], np.concatenate([np.load(p) for p in sys.argv[2:]]))' \
      "$work/joined/$name" "${pieces[@]/%//$name}"
    echo -n "$name: "
    "$compare" "$work/joined/$name" "$whole" || failed=1
  done
  exit $failed
  ;;
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
  line="dynamic dim $symbol: exported for $(jq_range "$dir" "$symbol") (x dim 0), compiled for $(IFS=,; echo "${values[*]}" | sed 's/,/, /g'); other sizes run as several runs of these"
  grep -qxF "$line" "$work/check.txt" || { echo "no line: $line"; exit 1; }
  ;;
run)
  # On a GPU (see the header); the arguments after SYMBOL go to infernoc (a sequence dim's
  # --specialize: the batch's sizes are added to it).
  infernoc=$1 inferno_run=$2 compare=$3 dir=$4 symbol=$5
  shift 5
  extra=("$@")
  values=()
  for size in min mid max; do
    shape=$(npy_shape "$dir/$size/input0.npy")
    values+=("${shape%%x*}")
  done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$infernoc" "$dir/model.pt2" -o "$work/model.so" --no-cache --quiet "${extra[@]}"
  for size in min mid max; do
    "$inferno_run" "$work/model.so" --data "$dir/$size"/input*.npy --save-outputs "$work/$size"
    echo -n "$size: "
    "$compare" "$work/$size/out0.npy" "$dir/$size/output0.npy"
  done
  # A batch no variant has: in pieces on the GPU, whole on the CPU reference.
  high=${values[2]}
  mkdir -p "$work/odd" "$work/odd_reference" "$work/odd_gpu" "$work/outside"
  first_rows "$dir/max" "$work/odd" $((high - 1))
  "$infernoc" "$dir/model.pt2" --reference --data "$work/odd"/input*.npy \
    --save-outputs "$work/odd_reference"
  "$inferno_run" "$work/model.so" --data "$work/odd"/input*.npy --save-outputs "$work/odd_gpu"
  echo -n "batch $((high - 1)) in pieces: "
  "$compare" "$work/odd_gpu/out0.npy" "$work/odd_reference/out0.npy"
  # Sizes 1 and 3 only: batch 7 runs as 3 + 3 + 1, the later runs starting at rows 3 and 6, which
  # for rows of 40 bytes (dyn_resnet's ten classes) are not 16-byte aligned: staged runs.
  "$infernoc" "$dir/model.pt2" --specialize "$symbol=1,3" -o "$work/staged.so" --no-cache --quiet \
    "${extra[@]}"
  mkdir -p "$work/seven" "$work/seven_reference" "$work/seven_gpu"
  first_rows "$dir/max" "$work/seven" 7
  "$infernoc" "$dir/model.pt2" --reference --data "$work/seven"/input*.npy \
    --save-outputs "$work/seven_reference"
  "$inferno_run" "$work/staged.so" --data "$work/seven"/input*.npy --save-outputs "$work/seven_gpu"
  echo -n "batch 7 as 3 + 3 + 1: "
  "$compare" "$work/seven_gpu/out0.npy" "$work/seven_reference/out0.npy"
  python3 -c 'import numpy as np, sys, glob
for path in sorted(glob.glob(sys.argv[1] + "/input*.npy")):
    x = np.load(path)
    np.save(sys.argv[2] + "/" + path.rsplit("/", 1)[1], np.concatenate([x, x[:1]]))' \
    "$dir/max" "$work/outside"
  set +e
  "$inferno_run" "$work/model.so" --data "$work/outside"/input*.npy >"$work/refused.txt" 2>&1
  code=$?
  set -e
  cat "$work/refused.txt"
  [[ $code == 3 ]] || { echo "exit $code, not 3"; exit 1; }
  grep -qF "outside the range of $symbol" "$work/refused.txt" || { echo "no range named"; exit 1; }
  ;;
*)
  echo "dynamic_fixture_test.sh: unknown mode $mode" >&2
  exit 2
  ;;
esac
