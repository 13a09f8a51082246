#!/usr/bin/env bash
# Kernel launches per run, as the GPU executes them: each model is compiled by infernoc with the
# default pipeline and one run is captured into a CUDA graph (inferno-run --count-kernels), whose
# kernel nodes are counted (cuBLASLt's own kernels included). The expected numbers are what the
# optimizer promises for each model; a change in fusion or in the GEMM plans shows up here.
# Usage: kernel_counts_test.sh INFERNOC INFERNO_RUN FIXTURES_DIR. Exits 77 (skip) without a GPU.
set -euo pipefail
infernoc=$1 inferno_run=$2 fixtures=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# model | expected kernels per run | why
expectations=(
  # The fixtures' inputs have at most 8 rows: every GEMM is a GEMV kernel with its epilogue fused
  # (codegen/emit_gemv.h), one launch each.
  # relu(x @ W): one GEMV with the ReLU in it.
  "mm_relu 1"
  # linear -> relu -> linear: two GEMVs, bias (and ReLU) fused.
  "mlp2 2"
  # linear -> gelu -> linear -> gelu(tanh) -> linear -> silu -> linear -> softmax: four GEMVs with
  # the bias and the exact or tanh GELU fused; silu; softmax.
  "mlp_gelu_silu_softmax 6"
)

run_count() {  # run_count SO: prints the kernel count, or exits 77 when there is no GPU
  local output rc=0
  output=$("$inferno_run" "$1" --count-kernels 2>&1) || rc=$?
  if [[ $rc == 4 ]]; then
    echo "SKIPPED: no CUDA device ($output)"
    exit 77
  fi
  [[ $rc == 0 ]] || { echo "inferno-run failed ($rc): $output" >&2; exit 1; }
  sed -n 's/^launches per run: \([0-9]*\) kernels.*/\1/p' <<<"$output"
}

failures=0
for entry in "${expectations[@]}"; do
  read -r model expected <<<"$entry"
  for form in model.pt2 model_decomposed.pt2; do
    so="$work/${model}_${form%.pt2}.so"
    "$infernoc" "$fixtures/$model/$form" -o "$so" --quiet
    got=$(run_count "$so")
    if [[ "$got" == "$expected" ]]; then
      echo "ok: $model/$form launches $got kernels per run"
    else
      echo "FAILED: $model/$form launches $got kernels per run, expected $expected"
      failures=$((failures + 1))
    fi
  done
done
exit $((failures > 0))
