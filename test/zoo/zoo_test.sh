#!/usr/bin/env bash
# The zoo tests (test/zoo/CMakeLists.txt registers them; label zoo):
#   zoo_test.sh export PYTHON ZOO_DIR
#       exports every model with tools/export_zoo.py (skipping those already up to date);
#   zoo_test.sh check INFERNOC NPY_COMPARE ZOO_DIR NAME
#       lowers ZOO_DIR/NAME/model.pt (its inputs' shapes and dtypes from input*.npy, in order:
#       fewer than ten, so the glob's order is the inputs' order) with the default pipeline, generates its model.cu (every op of
#       the optimized graph has a lowering; no nvcc), runs the optimized graph on the CPU reference
#       and compares every output with PyTorch's: relative L2 error <= 1e-4 in f32, the issue's
#       criterion (a network dozens of layers deep rounds differently from PyTorch in every layer,
#       so a per-element rtol of 1.3e-6 is not a fair test of the whole; 1e-4 still catches any
#       wrong op, which gives errors of order 1);
#   zoo_test.sh structure INFERNOC ZOO_DIR NAME ATTENTIONS GEMMS
#       checks the optimized IR's shape of a transformer: ATTENTIONS attention nodes (one per
#       layer: the math form was recognized) and GEMMS gemm nodes (q, k and v projections fused
#       into one, Llama's gate and up into one);
#   zoo_test.sh precision INFERNOC NPY_COMPARE ZOO_DIR NAME PRECISION BOUND
#       runs the model converted by --precision PRECISION (fp16 or bf16) on the CPU reference,
#       which rounds every stored value to its 16-bit dtype, and compares every output with
#       PyTorch's f32 one: relative L2 error <= BOUND, no inf or NaN (npy_compare fails on NaN,
#       and an inf gives an infinite error);
#   zoo_test.sh refused INFERNOC ZOO_DIR NAME MESSAGE
#       checks that lowering the model is refused as unsupported (exit 2) with MESSAGE in the
#       error;
#   zoo_test.sh build INFERNOC ZOO_DIR NAME
#       compiles the model to a .so with nvcc (no GPU needed) and prints how long that took;
#   zoo_test.sh verify INFERNOC ZOO_DIR NAME
#       infernoc verify on a GPU: every kernel's output within tolerance of the reference's on
#       the same inputs (docs/profiling.md); exit 77 when verify finds no GPU (its exit 4).
# Exit 77 (ctest's SKIP_RETURN_CODE) when the zoo cannot be exported here: /usr/bin/python3
# without torch and torchvision (tools/install-deps.sh installs them).
set -euo pipefail
mode=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case $mode in
export)
  python=$1 zoo=$2
  if [[ ! -x $python ]]; then
    echo "zoo: no $python; the zoo needs it with python3-torch and python3-torchvision"
    exit 77
  fi
  exec "$python" "$here/../../tools/export_zoo.py" --out "$zoo" --if-changed
  ;;
check)
  infernoc=$1 compare=$2 dir=$3/$4
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  rm -rf "$dir/reference"
  inputs=("$dir"/input*.npy)
  "$infernoc" "$dir/model.pt" --data "${inputs[@]}" --emit cu -o "$dir/model.cu"
  "$infernoc" "$dir/model.pt" --data "${inputs[@]}" --reference --save-outputs "$dir/reference"
  count=0 failed=0
  for expected in "$dir"/output*.npy; do
    i=${expected##*/output}
    i=${i%.npy}
    echo -n "output $i: "
    "$compare" "$dir/reference/out$i.npy" "$expected" --rel-l2 1e-4 || failed=1
    count=$((count + 1))
  done
  actual=$(find "$dir/reference" -name 'out*.npy' | wc -l)
  if ((count == 0 || actual != count)); then
    echo "zoo: PyTorch gave $count outputs, infernoc $actual"
    exit 1
  fi
  exit $failed
  ;;
precision)
  infernoc=$1 compare=$2 dir=$3/$4 precision=$5 bound=$6
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  out=$dir/reference_$precision
  rm -rf "$out"
  inputs=("$dir"/input*.npy)
  "$infernoc" "$dir/model.pt" --data "${inputs[@]}" --precision "$precision" --reference \
    --save-outputs "$out"
  count=0 failed=0
  for expected in "$dir"/output*.npy; do
    i=${expected##*/output}
    i=${i%.npy}
    echo -n "output $i ($precision): "
    "$compare" "$out/out$i.npy" "$expected" --rel-l2 "$bound" || failed=1
    count=$((count + 1))
  done
  actual=$(find "$out" -name 'out*.npy' | wc -l)
  if ((count == 0 || actual != count)); then
    echo "zoo: PyTorch gave $count outputs, infernoc $actual"
    exit 1
  fi
  exit $failed
  ;;
structure)
  infernoc=$1 dir=$2/$3 want_attention=$4 want_gemm=$5
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  inputs=("$dir"/input*.npy)
  "$infernoc" "$dir/model.pt" --data "${inputs[@]}" --emit ir -o "$dir/optimized.ir"
  attention=$(grep -c ' = attention(' "$dir/optimized.ir" || true)
  gemm=$(grep -c ' = gemm(' "$dir/optimized.ir" || true)
  echo "zoo: $3 has $attention attention nodes (want $want_attention), $gemm gemms (want $want_gemm)"
  [[ $attention == "$want_attention" && $gemm == "$want_gemm" ]]
  ;;
refused)
  infernoc=$1 dir=$2/$3 message=$4
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  inputs=("$dir"/input*.npy)
  status=0
  error=$("$infernoc" "$dir/model.pt" --data "${inputs[@]}" --emit ir -o /dev/null 2>&1) || status=$?
  echo "$error"
  [[ $status == 2 && $error == *"$message"* ]]
  ;;
build)
  infernoc=$1 dir=$2/$3
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  inputs=("$dir"/input*.npy)
  start=$(date +%s.%N)
  "$infernoc" "$dir/model.pt" --data "${inputs[@]}" -o "$dir/model.so"
  end=$(date +%s.%N)
  echo "zoo: $3 compiled to model.so ($(stat -c %s "$dir/model.so") bytes) in" \
    "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s"
  ;;
verify)
  infernoc=$1 dir=$2/$3
  if [[ ! -f $dir/stamp ]]; then
    echo "zoo: $dir was not exported (see the 'zoo: export' test)"
    exit 77
  fi
  # No NVIDIA device node: no GPU to run on, so skip before minutes of nvcc on the kept graph.
  if ! compgen -G "/dev/nvidia[0-9]*" >/dev/null; then
    echo "SKIPPED: no NVIDIA device (/dev/nvidia*)"
    exit 77
  fi
  inputs=("$dir"/input*.npy)
  rc=0
  output=$("$infernoc" verify "$dir/model.pt" --data "${inputs[@]}" --quiet 2>&1) || rc=$?
  if [[ $rc == 4 ]]; then
    echo "SKIPPED: no usable GPU ($output)"
    exit 77
  fi
  echo "zoo: $3: $output"
  exit "$rc"
  ;;
*)
  echo "usage: zoo_test.sh export|check|precision|structure|refused|build|verify ..." >&2
  exit 2
  ;;
esac
