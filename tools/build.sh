#!/usr/bin/env bash
# Configures and builds infernoc into build/ (or $INFERNO_BUILD_DIR). Installs the dependencies
# first (tools/install-deps.sh; a no-op when they are present). Extra arguments go to cmake's
# configure step, e.g. -DTorch_DIR=... on the GPU machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}

bash "$root/tools/install-deps.sh"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
werror=OFF
[[ "${CI:-}" == "true" ]] && werror=ON
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "build: configuring $build" >&2
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DINFERNO_WERROR="$werror" "$@" >"$root/build.configure.log" 2>&1 ||
    { cat "$root/build.configure.log" >&2; exit 1; }
  rm -f "$root/build.configure.log"
fi
echo "build: compiling (a few minutes on 2 cores the first time)" >&2
cmake --build "$build" --parallel "$(nproc)"
