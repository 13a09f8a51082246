#!/usr/bin/env bash
# A GPU machine's check: build infernoc from source against the torch wheel's LibTorch, run every
# test (unit and gpu-labelled), and print a short summary last (docs/gpu-build.md). Logs go to
# $OUT (the device tool's result folder) or ./gpu-check-logs. Nothing is installed. Our own
# machine (one H200, probed 2026-11-22): no package access; nvcc 13.0 on PATH; g++ 13.3 at
# /opt/gcc/bin (CMake picks it: builds without -Werror); cmake, ninja and torch 2.11.0+cu130 in
# /opt/torch/.venv; system CLI11 2.4, fmt 9.1, spdlog 1.12, nlohmann-json 3.11, Catch2 3.4; no
# cudnn.h. The wheel's fmt 12 and its std::filesystem copy are the traps docs/gpu-build.md names.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/gpu-check-logs}
build=${INFERNO_GPU_BUILD_DIR:-/tmp/inferno-gpu-build}
mkdir -p "$out"

step() {  # step NAME LOG COMMAND...: runs a step, records its status for the summary
  local name=$1 log=$2; shift 2
  local start=$SECONDS
  "$@" >"$out/$log" 2>&1
  local rc=$?
  summary+=("| $name | $([[ $rc == 0 ]] && echo ok || echo "FAILED ($rc)") | $((SECONDS - start)) s | $log |")
  return $rc
}
summary=()

{
  nvidia-smi -L; nvcc --version | tail -2; g++ --version | head -1; cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__)'
} >"$out/environment.log" 2>&1
# inferno-run --profile's CUPTI: the toolkit's, else the torch wheel's (profiling.md).
if [[ -z ${INFERNO_CUPTI_LIB:-} ]]; then
  INFERNO_CUPTI_LIB=$(find /usr/local/cuda*/ /opt/torch -name 'libcupti.so*' 2>/dev/null | sort | head -1)
  export INFERNO_CUPTI_LIB
fi
echo "libcupti: ${INFERNO_CUPTI_LIB:-none found}" >>"$out/environment.log"

# tests: build + every test; bench: build + tools/bench (latency tables, ncu); all: both;
# llm: build + the gpu tests + tools/gpu/llm_check.py + tools/bench/bench_llm.py;
# profile: build infernoc and the runtime only + tools/bench/profile_compare.py (the zoo, and
# BERT-base at batch 64 where the bound classes apply) + tools/gpu/profile_check.py (PASS/FAIL),
# within PROFILE_BUDGET_S seconds (default 570: the device tool's 10 minutes per command).
# gpu-tests: build + the gpu-labelled tests only; runtime-gpu: the runtime's GPU tests only;
# python: build + tools/bench/bench_python.py (inferno.compile, the call path's overhead) and
# tools/bench/compile_times.py on the zoo; llm-bench: build infernoc and the runtime only +
# tools/bench/launch_gap_bench.cu, tools/bench/attention_decode_bench.cu (the decode attention's
# key splits) and bench_llm.py with its ncu and --profile decode-step profiles (LLM_MODELS names
# the models);
# llm-check: the same build + tools/gpu/llm_check.py (greedy tokens against transformers);
# compile-times: the same build + tools/bench/compile_times.py on the zoo (python runs it too);
# dynamic-bench: the same build + tools/bench/bench_dynamic.py (DYNAMIC_MODELS names the models);
# dynamic-gpu: the same build + the dynamic fixtures' GPU tests;
# conv-gpu: the same build and the GPU tests' binaries + the conv kernel tests and the conv paths
# of the generated code (test_gpu_kernels conv, test_gpu_codegen "*conv*") and
# tools/bench/conv_f16_bench.cu (every 16-bit igemm variant against cuBLAS; CONV_BATCHES, default
# "1 32"; CONV_F16_BENCH=0 skips it) and tools/bench/depthwise_bench.cu (the zoo's depthwise
# shapes, generic against strip);
# cnn-fp16-bench: the same build + tools/bench/bench_cnn_fp16.py (the zoo's CNNs in fp16 against
# model.half() eager and torch.compile), stopping within CNN_FP16_BUDGET_S seconds (default 570); the
# whole zoo takes longer: name a few per call in CNN_FP16_MODELS. Several
# modes may share one call (check.sh gpu-tests python); they run in this file's order. Knobs: PROFILE_PROBE=0 skips the batch-64 probe,
# PROFILE_NO_COMPILE=1 torch.compile, PROFILE_MODELS names the profiled models (profile_compare.py's
# --models), BENCH_PYTHON_MODELS bench_python.py's, COMPILE_TIMES=0 skips the compile times,
# LLM_MODELS and LLM_COMPILE_MODES bench_llm.py's --models and --compile-modes, LLM_NCU=0 its ncu;
# CNN_FP16_MODELS, CNN_FP16_BATCHES and CNN_FP16_COMPILE_MODES bench_cnn_fp16.py's --models,
# --batches and --compile-modes, CNN_FP16_MAX_AUTOTUNE=1 its --max-autotune, CNN_FP16_ARCH its --arch, CNN_FP16_PROFILE=1 its --profile.
modes=("${@:-tests}")
has() { [[ " ${modes[*]} " == *" $1 "* ]]; }
started=$(date +%s)
# Modes that need no test binary but the runtime's build only what they run.
targets=()
if ! has tests && ! has all && ! has gpu-tests && ! has bench && ! has llm; then  # e.g. llm-bench
  targets=(--target infernoc inferno-run inferno_runtime)
  has runtime-gpu && targets+=(test_runtime_gpu)
  has python && targets+=(inferno_python_native inferno_bench_timer)
  has dynamic-bench && targets+=(inferno_python_native)
  has cnn-fp16-bench && targets+=(inferno_python_native)
  has conv-gpu && targets+=(test_gpu_kernels test_gpu_codegen)
  has dynamic-gpu && targets+=(npy_compare)
fi
torch_dir=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch
step configure configure.log cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTorch_DIR="$torch_dir" -DINFERNO_ZOO_PYTHON="$(command -v python3)" &&
  step build build.log cmake --build "$build" --parallel "$(nproc)" "${targets[@]}" -- -k 0
# The torch wheel's libtorch.so must come after libstdc++ in our binaries (docs/gpu-build.md).
echo "infernoc's first libraries: $(readelf -d "$build/src/infernoc" 2>/dev/null | grep NEEDED | head -4 | grep -o '\[.*\]' | tr '\n' ' ')"
if has tests || has all; then
  step "ctest -LE gpu" ctest.log ctest --test-dir "$build" -LE gpu --output-on-failure --parallel 8 --timeout 600
  step "ctest -L gpu" ctest-gpu.log ctest --test-dir "$build" -L gpu --output-on-failure --timeout 900
fi
if has runtime-gpu; then
  step "ctest runtime gpu" ctest-gpu.log ctest --test-dir "$build" -R '^runtime gpu:' --output-on-failure --timeout 300
fi
if has dynamic-gpu; then
  step "ctest dynamic gpu" ctest-gpu.log ctest --test-dir "$build" -R '^dynamic gpu:' --output-on-failure --parallel 3 --timeout 300
fi
if has gpu-tests; then
  step "ctest -L gpu" ctest-gpu.log ctest --test-dir "$build" -L gpu --output-on-failure --parallel 4 --timeout 600
fi
if has bench || has all; then
  bench_env=(env PYTHONPATH="$root/tools/python:$build/python:$root/tools/bench"
             INFERNO_RUNTIME_LIB="$build/runtime/libinferno_runtime.so")
  tools=(--infernoc "$build/src/infernoc" --inferno-run "$build/runtime/inferno-run" --out "$out")
  step "bench mm_relu" bench_mm_relu.log "${bench_env[@]}" python3 "$root/tools/bench/bench_mm_relu.py" "${tools[@]}"
  step "bench mlp" bench_mlp.log "${bench_env[@]}" python3 "$root/tools/bench/bench_mlp.py" "${tools[@]}"
  step "bench cnn" bench_cnn.log "${bench_env[@]}" python3 "$root/tools/bench/bench_cnn.py" "${tools[@]}"
  step "bench transformer" bench_transformer.log "${bench_env[@]}" python3 "$root/tools/bench/bench_transformer.py" \
    "${tools[@]}"
  step "ncu mm_relu" ncu.log "${bench_env[@]}" python3 "$root/tools/bench/ncu_mm_relu.py" \
    --infernoc "$build/src/infernoc" --out "$out"
  for table in bench_mm_relu.md bench_mlp.md bench_cnn.md bench_transformer.md ncu_mm_relu.md; do
    [[ -f "$out/$table" ]] && { echo; cat "$out/$table"; }
  done
fi

if has compile-times && ! has python; then
  [[ -d "$build/zoo-times" ]] || step "zoo export" zoo_export.log python3 "$root/tools/export_zoo.py" \
    --pt2 --out "$build/zoo-times" --only "${COMPILE_TIME_MODELS:-resnet18,resnet50,convnext_tiny,densenet121,bert,gpt2}"
  step "compile times" compile_times.log python3 "$root/tools/bench/compile_times.py" --infernoc "$build/src/infernoc" \
    --zoo "$build/zoo-times" --out "$out" --only "${COMPILE_TIME_MODELS:-resnet18,resnet50,convnext_tiny,densenet121,bert,gpt2}"
  [[ -f "$out/compile_times.md" ]] && { echo; cat "$out/compile_times.md"; }
fi

if has python; then
  python_env=(env PYTHONPATH="$root/tools/python:$build/python:$root/tools/bench" PYTHONUNBUFFERED=1
              INFERNOC="$build/src/infernoc")
  step "bench python" bench_python.log "${python_env[@]}" python3 "$root/tools/bench/bench_python.py" \
    --infernoc "$build/src/infernoc" --inferno-run "$build/runtime/inferno-run" --out "$out" \
    --timer "$build/runtime/inferno_bench_timer.so" \
    ${BENCH_PYTHON_MODELS:+--models $BENCH_PYTHON_MODELS}
  [[ ${COMPILE_TIMES:-1} == 0 ]] || [[ -d "$build/zoo-times" ]] || step "zoo export" zoo_export.log python3 "$root/tools/export_zoo.py" \
    --pt2 --out "$build/zoo-times" --only "${COMPILE_TIME_MODELS:-resnet18,resnet50,convnext_tiny,densenet121,bert,gpt2}"
  [[ ${COMPILE_TIMES:-1} == 0 ]] || step "compile times" compile_times.log python3 "$root/tools/bench/compile_times.py" --infernoc "$build/src/infernoc" \
    --zoo "$build/zoo-times" --out "$out" --only "${COMPILE_TIME_MODELS:-resnet18,resnet50,convnext_tiny,densenet121,bert,gpt2}"
  for table in bench_python.md compile_times.md; do [[ -f "$out/$table" ]] && { echo; cat "$out/$table"; }; done
fi

if has dynamic-bench; then
  step "bench dynamic" bench_dynamic.log env PYTHONPATH="$root/tools/python:$build/python:$root/tools/bench" \
    PYTHONUNBUFFERED=1 INFERNO_RUNTIME_LIB="$build/runtime/libinferno_runtime.so" \
    python3 "$root/tools/bench/bench_dynamic.py" --infernoc "$build/src/infernoc" \
    --inferno-run "$build/runtime/inferno-run" --out "$out" ${DYNAMIC_MODELS:+--models $DYNAMIC_MODELS}
  [[ -f "$out/bench_dynamic.md" ]] && { echo; cat "$out/bench_dynamic.md"; }
fi

if has conv-gpu; then
  step "gpu conv kernels" conv_kernels.log "$build/test/gpu/test_gpu_kernels" conv
  step "gpu conv paths" conv_paths.log "$build/test/gpu/test_gpu_codegen" "*conv*"
  [[ ${CONV_F16_BENCH:-1} == 0 ]] || step "conv f16 bench build" conv_f16_bench_build.log nvcc -std=c++17 -O3 \
    -gencode=arch=compute_90a,code=sm_90a -I"$root" "$root/tools/bench/conv_f16_bench.cu" -lcublas \
    -o "$build/conv_f16_bench" &&
    echo "HGMMA instructions in conv_f16_bench: $(cuobjdump --dump-sass "$build/conv_f16_bench" | grep -c HGMMA)" &&
    step "conv f16 bench" conv_f16_bench.md timeout 300 "$build/conv_f16_bench" ${CONV_BATCHES:-1 32}
  step "depthwise bench build" depthwise_bench_build.log nvcc -std=c++17 -O3 -arch=sm_90 \
    -I"$root" "$root/tools/bench/depthwise_bench.cu" -o "$build/depthwise_bench" &&
    step "depthwise bench" depthwise_bench.md timeout 120 "$build/depthwise_bench" ${CONV_BATCHES:-1 32}
  [[ -f "$out/conv_f16_bench.md" ]] && { echo; cat "$out/conv_f16_bench.md"; }
  [[ -f "$out/depthwise_bench.md" ]] && { echo; cat "$out/depthwise_bench.md"; }
fi

if has cnn-fp16-bench; then
  cnn_fp16_args=(--deadline "$((started + ${CNN_FP16_BUDGET_S:-570}))")
  [[ ${CNN_FP16_MAX_AUTOTUNE:-0} == 1 ]] && cnn_fp16_args+=(--max-autotune)
  step "bench cnn fp16" bench_cnn_fp16.log env PYTHONPATH="$root/tools/python:$build/python:$root/tools/bench" \
    PYTHONUNBUFFERED=1 INFERNO_RUNTIME_LIB="$build/runtime/libinferno_runtime.so" \
    python3 "$root/tools/bench/bench_cnn_fp16.py" --infernoc "$build/src/infernoc" \
    --inferno-run "$build/runtime/inferno-run" --out "$out" "${cnn_fp16_args[@]}" ${CNN_FP16_MODELS:+--models $CNN_FP16_MODELS} \
    ${CNN_FP16_BATCHES:+--batches $CNN_FP16_BATCHES} ${CNN_FP16_COMPILE_MODES:+--compile-modes $CNN_FP16_COMPILE_MODES} \
    ${CNN_FP16_ARCH:+--arch $CNN_FP16_ARCH} $([[ ${CNN_FP16_PROFILE:-0} == 1 ]] && echo --profile)
  # One archive for the --profile tables: the device tool returns only so many files.
  compgen -G "$out/profile_*.txt" >/dev/null &&
    tar czf "$out/profiles.tgz" -C "$out" $(cd "$out" && ls profile_*.txt) && rm -f "$out"/profile_*.txt
  [[ -f "$out/bench_cnn_fp16.md" ]] && { echo; cat "$out/bench_cnn_fp16.md"; }
fi

llm_env=(env PYTHONPATH="$root/tools/python" INFERNO_RUNTIME_LIB="$build/runtime/libinferno_runtime.so"
         PYTHONUNBUFFERED=1)
if has llm-check; then
  step "llm check" llm_check.log "${llm_env[@]}" python3 "$root/tools/gpu/llm_check.py" \
    --infernoc "$build/src/infernoc" --out /tmp/llm-check
  cp /tmp/llm-check/llm_check.md "$out/" 2>/dev/null
  [[ -f "$out/llm_check.md" ]] && { echo; cat "$out/llm_check.md"; }
fi

if has llm-bench; then
  step "launch gap bench" launch_gap.log bash -c "nvcc -O2 -std=c++17 -arch=sm_90 -I'$root' '$root/tools/bench/launch_gap_bench.cu' \
    -o /tmp/launch_gap && /tmp/launch_gap"
  cat "$out/launch_gap.log"
  step "attention decode bench" attention_decode.md bash -c "nvcc -O3 -std=c++17 -arch=sm_90 -I'$root' \
    -I'$root/tools/bench' '$root/tools/bench/attention_decode_bench.cu' -o /tmp/attention_decode && /tmp/attention_decode"
  cat "$out/attention_decode.md"
  ncu_flag=--ncu
  [[ ${LLM_NCU:-1} == 0 ]] && ncu_flag=
  step "bench llm" bench_llm.log "${llm_env[@]}" python3 "$root/tools/bench/bench_llm.py" $ncu_flag \
    --infernoc "$build/src/infernoc" --inferno-run "$build/runtime/inferno-run" --out "$out" ${LLM_MODELS:+--models $LLM_MODELS} \
    ${LLM_COMPILE_MODES:+--compile-modes $LLM_COMPILE_MODES}
  for table in bench_llm.md decode_kernels.md; do [[ -f "$out/$table" ]] && { echo; cat "$out/$table"; }; done
fi

if has llm; then
  step "ctest -L gpu" ctest-gpu.log ctest --test-dir "$build" -L gpu --output-on-failure --timeout 900
  step "llm check" llm_check.log "${llm_env[@]}" python3 "$root/tools/gpu/llm_check.py" \
    --infernoc "$build/src/infernoc" --out /tmp/llm-check
  cp /tmp/llm-check/llm_check.md "$out/" 2>/dev/null
  step "bench llm" bench_llm.log "${llm_env[@]}" python3 "$root/tools/bench/bench_llm.py" \
    --infernoc "$build/src/infernoc" --inferno-run "$build/runtime/inferno-run" --out "$out" ${LLM_MODELS:+--models $LLM_MODELS}
  for table in llm_check.md bench_llm.md; do [[ -f "$out/$table" ]] && { echo; cat "$out/$table"; }; done
fi

if has profile; then
  profile_env=(env PYTHONPATH="$root/tools/python:$root/tools/bench:$root/tools"
               INFERNO_RUNTIME_LIB="$build/runtime/libinferno_runtime.so" PYTHONUNBUFFERED=1)
  tools=(--infernoc "$build/src/infernoc" --inferno-run "$build/runtime/inferno-run")
  # The checker's verify builds need about two minutes of the budget.
  deadline=$((started + ${PROFILE_BUDGET_S:-570} - 130))
  [[ ${PROFILE_PROBE:-1} == 1 ]] && step "profile probe (BERT b64)" profile_probe.log "${profile_env[@]}" python3 "$root/tools/bench/profile_compare.py" \
    "${tools[@]}" --out "$out/probe" --work /tmp/inferno-profile-probe --models bert_base --batch 64 --no-compile --iters 20
  step "profile compare" profile_compare.log "${profile_env[@]}" python3 "$root/tools/bench/profile_compare.py" \
    "${tools[@]}" --out "$out" --work /tmp/inferno-profile-work --deadline "$deadline" \
    ${PROFILE_NO_COMPILE:+--no-compile} ${PROFILE_MODELS:+--models $PROFILE_MODELS}
  results=()
  for json in "$out/profile_compare.json" "$out/probe/profile_compare.json"; do [[ -f $json ]] && results+=("$json"); done
  if (( ${#results[@]} )); then
    step "profile check" profile_check.log "${profile_env[@]}" python3 "$root/tools/gpu/profile_check.py" "${results[@]}" \
      --infernoc "$build/src/infernoc" --out "$out" --deadline "$((started + ${PROFILE_BUDGET_S:-570}))"
  fi
  # The side-by-side kernel tables are in profile_compare.md (and .log); the device tool returns only
  # the last 12,000 characters of output, so this prints the latency tables and the verdicts.
  for table in "$out/probe/profile_compare.md" "$out/profile_compare.md"; do
    [[ -f $table ]] && { echo; sed -n '/^| model | precision | infernoc ms/,/^$/p' "$table"; }
  done
  grep -h '^FAILED' "$out/profile_probe.log" "$out/profile_compare.log" 2>/dev/null | cut -c1-300
  [[ -f "$out/profile_check.log" ]] && { echo; cat "$out/profile_check.log"; }
fi

echo "build warnings: $(grep -c 'warning:' "$out/build.log" 2>/dev/null || echo 0)"
for log in ctest.log ctest-gpu.log; do
  [[ -f "$out/$log" ]] && echo "$log: $(grep -E 'tests passed|tests failed' "$out/$log" | tail -1)"
done
grep -hE '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted)\)' "$out"/ctest*.log 2>/dev/null | sort -u
echo
echo "| step | result | time | log |"
echo "|---|---|---|---|"
printf '%s\n' "${summary[@]}"
