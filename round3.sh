#!/usr/bin/env bash
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash tools/gpu/check.sh python > "$out/check3.log" 2>&1; tail -30 "$out/check3.log"
grep "per round" "$out/bench_python.log" | cut -c1-900
