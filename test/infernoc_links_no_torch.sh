#!/bin/sh
# infernoc must not link LibTorch (only its TorchScript loader, infernoc-torchscript, does):
# none of its DT_NEEDED entries may be a torch or c10 library.
# Usage: infernoc_links_no_torch.sh INFERNOC [READELF]
set -eu
infernoc=$1
readelf=${2:-readelf}
[ -n "$readelf" ] || readelf=readelf
needed=$("$readelf" -d "$infernoc" | grep '(NEEDED)') || {
  echo "no NEEDED entries read from $infernoc" >&2
  exit 1
}
if printf '%s\n' "$needed" | grep -Ei 'libtorch|libc10|libcaffe2'; then
  echo "infernoc links LibTorch (above); only infernoc-torchscript may" >&2
  exit 1
fi
echo "infernoc's NEEDED entries hold no LibTorch library:"
printf '%s\n' "$needed"
