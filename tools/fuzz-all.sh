#!/usr/bin/env bash
# A fuzzing campaign: every fuzz target of build-asan/ (tools/sanitize.sh builds it) for SECONDS
# each (default 600), as many at a time as there are cores, each continuing from its corpus in
# build-asan/test/fuzz/found/<target>. Prints one row per target: executions, executions per
# second, edges covered, corpus size, CPU seconds and findings; logs and crash inputs stay in
# build-asan/test/fuzz/campaign/<date-time>/. Exit status 1 if any target found something.
#   bash tools/fuzz-all.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fuzz=${INFERNO_ASAN_BUILD_DIR:-$root/build-asan}/test/fuzz
seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]} > 0)) || targets=(pt2 ir_text npy runtime_model codegen_names)
[[ -x "$fuzz/fuzz_${targets[0]}" ]] || { echo "fuzz-all: build the fuzz targets first (bash tools/sanitize.sh)" >&2; exit 2; }
out=$fuzz/campaign/$(date +%Y%m%d-%H%M%S)  # one folder per campaign: earlier findings stay
mkdir -p "$out"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

run_one() {
  local t=$1 extra=()
  [[ $t == pt2 ]] && extra=(-max_len=600000)
  mkdir -p "$fuzz/found/$t"
  local inputs=("$fuzz/found/$t" "$fuzz/seeds/$t")
  for d in "$root/test/fuzz/corpus/$t" "$root/test/fuzz/regressions/$t"; do
    [[ -d $d ]] && inputs+=("$d")
  done
  # A finding ends that target's run; time(1), where installed, gives the CPU seconds it spent.
  local timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%U %S" -o "$out/$t.cpu")
  "${timer[@]}" "$fuzz/fuzz_$t" -max_total_time="$seconds" \
    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}" \
    -artifact_prefix="$out/$t-" "${inputs[@]}" >"$out/$t.log" 2>&1 || true
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if ((running >= $(nproc))); then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-14s %12s %8s %8s %8s %8s %s\n' target executions exec/s edges corpus cpu_s findings
for t in "${targets[@]}"; do
  log=$out/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$fuzz/found/$t" -type f | wc -l)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$out/$t.cpu" 2>/dev/null || echo "?")
  findings=$(find "$out" -maxdepth 1 -name "$t-*" -type f | wc -l)
  ((findings == 0)) || status=1
  printf '%-14s %12s %8s %8s %8s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${edges:-?}" \
    "$corpus" "$cpu" "$findings"
done
exit $status
