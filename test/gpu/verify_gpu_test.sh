#!/usr/bin/env bash
# infernoc verify on a GPU (docs/profiling.md#verify): every kernel of a few fixtures, compiled
# with their intermediates kept and run once, matches the CPU reference (exit 0, "all N values
# match"); and with one node's kernel deliberately corrupted (verify's testing flag
# --corrupt-node), verify exits 6 naming exactly that node.
# Usage: verify_gpu_test.sh INFERNOC FIXTURES_DIR. Exits 77 (skip) without a GPU (verify's exit 4).
set -euo pipefail
infernoc=$1 fixtures=$2
# No NVIDIA device node: no GPU to run on, so skip before spending minutes in nvcc.
if ! compgen -G "/dev/nvidia[0-9]*" >/dev/null; then
  echo "SKIPPED: no NVIDIA device (/dev/nvidia*)"
  exit 77
fi

# verify MODEL_DIR ARGS...: sets $output and $rc; exits 77 (the whole test) without a GPU.
verify() {
  local dir=$1
  shift
  rc=0
  output=$("$infernoc" verify "$dir/model.pt2" --data "$dir"/input*.npy --quiet "$@" 2>&1) || rc=$?
  if [[ $rc == 4 ]]; then
    echo "SKIPPED: no usable GPU ($output)"
    exit 77
  fi
}

failures=0
for entry in "mlp2" "mm_relu" "mlp_gelu_silu_softmax" "cnn_block" "mlp2 --precision fp16"; do
  read -r model flags <<<"$entry"
  # shellcheck disable=SC2086  # $flags is empty or one flag and its value
  verify "$fixtures/$model" $flags
  if [[ $rc == 0 ]] && grep -q '^verify: all [0-9]* values match' <<<"$output"; then
    echo "ok: $entry: $output"
  else
    echo "FAILED: $entry (exit $rc): $output"
    failures=$((failures + 1))
  fi
done

# The corrupted kernel: the first node codegen sees (the plan lists the legalized graph).
node=$("$infernoc" "$fixtures/mlp2/model.pt2" --emit plan | sed -n 's/^node 0: %\([A-Za-z0-9_.]*\) = .*/\1/p')
[[ -n $node ]] || { echo "FAILED: no node 0 in mlp2's plan"; exit 1; }
verify "$fixtures/mlp2" --corrupt-node "$node"
if [[ $rc == 6 ]] && grep -q "verify: %$node (" <<<"$output"; then
  echo "ok: the corrupted %$node is named: $output"
else
  echo "FAILED: corrupting %$node gave exit $rc: $output"
  failures=$((failures + 1))
fi
exit $((failures > 0))
