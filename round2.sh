#!/bin/bash
set -u
root=$PWD; b=$root/build-gpu; t0=$SECONDS
cmake --build $b --parallel 16 -- -k 0 > $OUT/build2.log 2>&1 || { grep -B2 -A10 error $OUT/build2.log | head -40; }
echo "build done at $((SECONDS-t0)) s"
timeout $((590 - (SECONDS - t0))) ctest --test-dir $b -L gpu --output-on-failure --parallel 4 --timeout 500 > $OUT/ctest-gpu.log 2>&1
echo "ctest rc=$? at $((SECONDS-t0)) s"
grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run|Timeout" $OUT/ctest-gpu.log | head -30
