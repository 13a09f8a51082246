#!/usr/bin/env bash
# The style checks CI runs before the build (tools/test.sh): every tracked C, C++ and CUDA source is
# as clang-format (the repo's .clang-format) would write it, and no tracked source file is longer
# than 1,000 lines (split it by concept instead). Lists every offender and exits 1 when there is
# one. Golden outputs and fixtures are data, not sources, and are not checked.
#
# Fix formatting with: clang-format -i FILE...   (Debian's clang-format 14, as CI uses)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
max_lines=1000

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-style: not a git checkout; skipped (it checks the files git tracks)" >&2
  exit 0
fi
if ! command -v clang-format >/dev/null; then
  echo "check-style: clang-format not found (bash tools/install-deps.sh installs it)" >&2
  exit 1
fi

# Tracked files matching the given pathspecs, minus data directories and files deleted locally.
tracked() {
  git ls-files -z -- "$@" ':!:test/golden/' ':!:test/fixtures/' |
    while IFS= read -r -d '' f; do [[ -f $f ]] && printf '%s\0' "$f"; done
}
cxx=('*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh' '*.c')
failed=0

# (a) formatting: clang-format names each file and line that differs.
if ! format_log=$(tracked "${cxx[@]}" | xargs -0 -r clang-format --dry-run -Werror 2>&1); then
  echo "check-style: not formatted as .clang-format says ($(clang-format --version)):" >&2
  grep -E '^[^ ].*:[0-9]+:[0-9]+: error:' <<<"$format_log" | cut -d: -f1,2 | sort -u -t: -k1,1 |
    sed 's/^/  /; s/$/ (first difference)/' >&2 || true
  echo "  fix with: clang-format -i FILE..." >&2
  failed=1
fi

# (b) length: one concept a file keeps files short.
long=$(tracked "${cxx[@]}" '*.py' '*.sh' '*.cmake' '*.def' 'CMakeLists.txt' '**/CMakeLists.txt' |
  xargs -0 -r wc -l | awk -v max="$max_lines" '$2 != "total" && $1 > max {print "  " $2 ": " $1 " lines"}')
if [[ -n $long ]]; then
  echo "check-style: files over $max_lines lines (split them):" >&2
  echo "$long" >&2
  failed=1
fi

if ((failed)); then exit 1; fi
echo "check-style: ok (clang-format clean, no source file over $max_lines lines)" >&2
