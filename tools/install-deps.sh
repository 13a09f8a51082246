#!/usr/bin/env bash
# Installs infernoc's build and test dependencies from Debian's packages.
# Idempotent and quiet: packages already present are skipped, and apt is not touched at all when
# nothing is missing. The CUDA toolkit is expected at /usr/local/cuda (or $CUDA_HOME); it is not a
# Debian package here, so this script only checks for it.
set -euo pipefail
# INFERNO_SKIP_DEPS=1: a machine whose dependencies come from elsewhere (the GPU machine has no
# package access and brings LibTorch through the torch wheel).
[[ "${INFERNO_SKIP_DEPS:-}" == 1 ]] && exit 0

packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev          # TorchScript frontend (LibTorch 1.13, CPU) and the .pt2 zip reader
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  catch2                # Catch2 2.x; the GPU machine has 3.x, both are supported
  clang-format          # clang-format 14: tools/check-style.sh, run by tools/test.sh
  clang libclang-rt-14-dev  # the sanitizer and libFuzzer build (tools/sanitize.sh)
  # The zoo tests (test/zoo, label zoo) export torchvision models with /usr/bin/python3:
  python3-torch python3-torchvision python3-numpy
  python3-dev           # the Python loader's native extension (inferno._native)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install packages" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -x "$cuda_home/bin/nvcc" ]]; then
  echo "install-deps: note: no nvcc at $cuda_home/bin/nvcc; the CUDA backend needs the CUDA toolkit" >&2
fi
