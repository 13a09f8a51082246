#!/bin/bash
# GPU round 1: build, the attention kernel tests, llm_check, and the decode step with and without
# the attention step (bench_llm variants, no HF figures).
set -u
root=$PWD
b=$root/build-gpu
t0=$SECONDS
torch_dir=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch
nvidia-smi -L
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTorch_DIR=$torch_dir \
  -DINFERNO_ZOO_PYTHON=$(command -v python3) > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
cmake --build $b --parallel 16 --target infernoc inferno-run inferno_runtime test_gpu_kernels -- -k 0 > $OUT/build.log 2>&1 || { grep -B2 -A10 error $OUT/build.log | head -60; exit 1; }
echo "build done at $((SECONDS-t0)) s"
$b/test/gpu/test_gpu_kernels attention_step attention > $OUT/kernels.log 2>&1
echo "kernels rc=$? at $((SECONDS-t0)) s"; grep -E "FAIL|checks" $OUT/kernels.log | head -20
env PYTHONPATH=$root/tools/python INFERNO_RUNTIME_LIB=$b/runtime/libinferno_runtime.so PYTHONUNBUFFERED=1 \
  python3 tools/gpu/llm_check.py --infernoc $b/src/infernoc --out /tmp/llm-check > $OUT/llm_check.log 2>&1
echo "llm_check rc=$? at $((SECONDS-t0)) s"; cp /tmp/llm-check/llm_check.md $OUT/ 2>/dev/null; tail -12 /tmp/llm-check/llm_check.md
env PYTHONPATH=$root/tools/python:$b/python:$root/tools/bench INFERNO_RUNTIME_LIB=$b/runtime/libinferno_runtime.so \
  PYTHONUNBUFFERED=1 timeout $((585 - (SECONDS - t0))) python3 tools/bench/bench_llm.py --infernoc $b/src/infernoc \
  --inferno-run $b/runtime/inferno-run --out $OUT --skip-hf --compile-modes none --repeats 3 \
  --variants compile:INFERNO_ATTENTION_STEP=0 run:INFERNO_ATTENTION_DEPENDENT=0 > $OUT/bench.log 2>&1
echo "bench rc=$? at $((SECONDS-t0)) s"
cat $OUT/variants.md 2>/dev/null; tail -8 $OUT/bench_llm.md 2>/dev/null
