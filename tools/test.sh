#!/usr/bin/env bash
# The README's second command: installs the dependencies, builds, and runs every test that this
# machine can run (GPU tests carry the ctest label 'gpu' and are skipped where there is no GPU).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}
bash "$root/tools/build.sh" "$@"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)"
