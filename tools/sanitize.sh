#!/usr/bin/env bash
# The sanitizer and fuzzing stage of the tests (run by tools/test.sh after the main build; see
# docs/fuzzing.md): configures build-asan/ (or $INFERNO_ASAN_BUILD_DIR) with clang,
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation (no CUDA
# runtime: nothing here runs on a GPU), builds it, runs every CPU test that needs no nvcc under the
# sanitizers (the fuzz corpus replays included; each Catch2 executable as one process, see
# cmake/InfernoCatch.cmake), then each fuzz target for
# $INFERNO_FUZZ_SECONDS (default 30) from its seeds. Any sanitizer report, crash, leak or internal
# error fails the stage; libFuzzer leaves the input that caused it in build-asan/test/fuzz/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_ASAN_BUILD_DIR:-$root/build-asan}
seconds=${INFERNO_FUZZ_SECONDS:-30}

echo "sanitize: $build (clang, ASan + UBSan, libFuzzer)" >&2
CC=clang CXX=clang++ INFERNO_BUILD_DIR=$build bash "$root/tools/build.sh" \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DINFERNO_SANITIZE=ON \
  -DINFERNO_FUZZ=ON -DINFERNO_BUILD_RUNTIME=OFF
cmake "$build" -DINFERNO_FUZZ_SECONDS="$seconds" >/dev/null
cd "$build"
# Reports are fatal and name their source; LeakSanitizer runs at every exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "sanitize: CPU tests under ASan + UBSan" >&2
ctest --output-on-failure --parallel "$(nproc)" -L unit -LE nvcc
echo "sanitize: fuzzing each target for ${seconds} s" >&2
ctest --output-on-failure --parallel "$(nproc)" -L fuzz
