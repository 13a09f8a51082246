#!/usr/bin/env bash
# The README's second command: installs the dependencies, checks the style (tools/check-style.sh,
# first, so a formatting slip fails in seconds rather than after the build), builds, runs every
# test that this machine can run (GPU tests carry the ctest label 'gpu' and are skipped where there
# is no GPU), then the sanitizer and fuzzing stage (tools/sanitize.sh; INFERNO_SKIP_SANITIZE=1
# skips it for a quicker local run).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}
bash "$root/tools/install-deps.sh"  # clang-format for the style check
if ! bash "$root/tools/check-style.sh"; then
  echo "test: the style check failed (above); nothing was built or tested" >&2
  exit 1
fi
bash "$root/tools/build.sh" "$@"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)"
if [[ "${INFERNO_SKIP_SANITIZE:-}" != 1 ]]; then
  bash "$root/tools/sanitize.sh"
fi
