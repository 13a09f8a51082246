#!/usr/bin/env bash
# Configures and builds infernoc into build/ (or $INFERNO_BUILD_DIR). Installs the dependencies
# first (tools/install-deps.sh; a no-op when they are present). `--target NAME` (repeatable)
# builds only those targets, as tools/demo.sh does (infernoc, inferno-run, npy_compare); without
# it, everything, every test included. Other arguments go to cmake's configure step, e.g.
# -DTorch_DIR=... on the GPU machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${INFERNO_BUILD_DIR:-$root/build}

targets=()
configure_args=()
while (($# > 0)); do
  if [[ "$1" == --target ]]; then
    (($# >= 2)) || { echo "build: --target needs a name" >&2; exit 2; }
    targets+=("$2")
    shift 2
  else
    configure_args+=("$1")
    shift
  fi
done

bash "$root/tools/install-deps.sh"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
werror=OFF
ci_flags=()
if [[ "${CI:-}" == "true" ]]; then
  werror=ON
  # CI reads no debug information: without it a fresh build takes about a sixth less time.
  ci_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG")
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "build: configuring $build" >&2
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DINFERNO_WERROR="$werror" "${ci_flags[@]}" "${configure_args[@]}" >"$root/build.configure.log" 2>&1 ||
    { cat "$root/build.configure.log" >&2; exit 1; }
  rm -f "$root/build.configure.log"
fi
# First-build times measured on 2 idle cores; a rebuild compiles only what changed.
if ((${#targets[@]} > 0)); then
  echo "build: compiling ${targets[*]} (about 6 minutes on 2 idle cores the first time)" >&2
  cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"
else
  echo "build: compiling everything, the tests included (12 to 20 minutes on 2 cores the first time)" >&2
  cmake --build "$build" --parallel "$(nproc)"
fi
