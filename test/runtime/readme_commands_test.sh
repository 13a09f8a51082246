#!/usr/bin/env bash
# The command lines the README and examples/mlp/README.md show, run as written, so the docs cannot
# drift from the tools: every indented line that starts with infernoc or inferno-run (or their
# build/ paths), and the Install section's `cmake --install`. They run in a scratch directory
# holding the files they name: model.pt2 (the example MLP), model.pt (a TorchScript MLP taking
# x:4x16:f32), x.npy (an f32[4,16] input) and examples/. Lines that compile call nvcc. A run of
# inferno-run other than --check needs a GPU: without one it must exit 4 saying so. Then the
# "Export your model" snippets run with PYTHON (a stand-in MyModel defined first) where its torch
# can: the TorchScript one with any torch, the torch.export one with torch >= 2.8.
# Usage: readme_commands_test.sh INFERNOC INFERNO_RUN SOURCE_DIR BUILD_DIR [PYTHON]
set -euo pipefail
infernoc=$(realpath "$1") runner=$(realpath "$2") source=$(realpath "$3") build=$(realpath "$4")
python=${5:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$source/examples/mlp/mlp.pt2" "$scratch/model.pt2"
cp "$source/test/fixtures/mlp2/model.pt" "$scratch/model.pt"
cp "$source/examples/mlp/input0.npy" "$scratch/x.npy"
ln -s "$source/examples" "$scratch/examples"
mkdir "$scratch/out"
cd "$scratch"

ran=0
declare -A seen=()
fail() {
  echo "FAILED: $1" >&2
  exit 1
}
while IFS= read -r line; do
  line=${line%%&&*}                          # the first command of "a && b"
  # Indentation, comments and the brackets around optional arguments go.
  line=$(sed -E 's/^[[:space:]]+//; s/[[:space:]]+#.*$//; s/[][]//g' <<<"$line")
  read -ra words <<<"$line"
  case "${words[0]}" in
    infernoc | build/src/infernoc) words[0]=$infernoc ;;
    inferno-run | build/runtime/inferno-run) words[0]=$runner ;;
    *) continue ;;
  esac
  key="${words[*]}"
  [[ -n "${seen[$key]:-}" ]] && continue
  seen[$key]=1
  echo "== $line"
  status=0
  "${words[@]}" >out.log 2>err.log || status=$?
  ran=$((ran + 1))
  if [[ "${words[0]}" == "$runner" && " ${words[*]} " != *" --check "* && $status == 4 ]]; then
    grep -q "no NVIDIA GPU or driver found" err.log || fail "$line: exit 4, but: $(head -1 err.log)"
    echo "   (no GPU: $(head -1 err.log | cut -c1-80)...)"
    continue
  fi
  ((status == 0)) || fail "$line: exit $status: $(cat err.log)"
done < <(grep -hE '^    (build/src/|build/runtime/)?(infernoc|inferno-run) ' \
  "$source/README.md" "$source/examples/mlp/README.md")
((ran >= 12)) || fail "only $ran README commands found: has the README's layout changed?"

# Install: the README's `cmake --install build --prefix ~/.local`, into a scratch prefix.
grep -qE '^    cmake --install build --prefix ' "$source/README.md" ||
  fail "the README's Install section has no 'cmake --install build --prefix' line"
echo "== cmake --install build --prefix PREFIX"
cmake --install "$build" --prefix "$scratch/prefix" >install.log 2>&1 || fail "$(cat install.log)"
"$scratch/prefix/bin/infernoc" --version >/dev/null || fail "installed infernoc does not run"
"$scratch/prefix/bin/inferno-run" --help >/dev/null || fail "installed inferno-run does not run"
# The installed compiler finds its kernels under the prefix (--keep-build writes them out).
"$scratch/prefix/bin/infernoc" model.pt2 --emit cu -o model.cu --keep-build kept >/dev/null 2>&1 ||
  fail "installed infernoc cannot write a build directory"
[[ -f kept/kernels/scalar_ops.h ]] || fail "installed infernoc's build directory has no kernels"
# ... and its TorchScript loader in libexec/inferno, where the build has one.
if [[ -x "$(dirname "$infernoc")/infernoc-torchscript" ]]; then
  [[ -x "$scratch/prefix/libexec/inferno/infernoc-torchscript" ]] || fail "no TorchScript loader installed"
  env -u INFERNO_TORCHSCRIPT_LOADER "$scratch/prefix/bin/infernoc" \
    "$source/test/fixtures/mlp2/model.pt" --input x:4x16:f32 --emit ir >/dev/null 2>ts.log ||
    fail "installed infernoc cannot load a TorchScript file: $(cat ts.log)"
fi
[[ -f "$scratch/prefix/lib/python/inferno/__init__.py" ]] || fail "no Python loader installed"

# The export snippets: the first indented block after the paragraph that names the format.
snippet() {
  awk -v header="$1" 'index($0, header) { found = 1; next }
    found && /^    / { print substr($0, 5); block = 1; next }
    found && block { exit }' "$source/README.md"
}
export_and_compile() {  # header, file it writes, infernoc arguments...
  local header=$1 file=$2
  shift 2
  mkdir -p export && rm -f "export/$file"
  {
    echo "import torch"
    echo "class MyModel(torch.nn.Module):  # a stand-in for the user's model"
    echo "    def __init__(self):"
    echo "        super().__init__()"
    echo "        self.conv, self.fc = torch.nn.Conv2d(3, 4, 3, stride=4), torch.nn.Linear(4, 10)"
    echo "    def forward(self, x):"
    echo "        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))"
    snippet "$header"
  } >"export/$file.py"
  grep -q "save(" "export/$file.py" || fail "no export snippet after '$header' in the README"
  (cd export && "$python" "$file.py") >export.log 2>&1 || fail "the $file snippet: $(cat export.log)"
  echo "== $file exported by the README's snippet; infernoc $file $*"
  (cd export && "$infernoc" "$file" "$@" >/dev/null 2>err.log) || fail "$file: $(cat export/err.log)"
}
if [[ -n "$python" ]] && "$python" -c "import torch" 2>/dev/null; then
  export_and_compile "**TorchScript (\`.pt\`)**" model.pt --input x:1x3x224x224:f32 --emit ir
  if "$python" -c "import sys, torch; sys.exit(tuple(map(int, torch.__version__.split('.')[:2])) < (2, 8))"; then
    export_and_compile "**torch.export (\`.pt2\`)**" model.pt2 --emit ir
  else
    snippet "**torch.export (\`.pt2\`)**" >export/pt2_snippet.py
    grep -q "torch.export.save(" export/pt2_snippet.py || fail "no .pt2 export snippet in the README"
    "$python" -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" export/pt2_snippet.py ||
      fail "the .pt2 export snippet is not Python"
    echo "(the .pt2 export snippet was only parsed: $python has torch < 2.8)"
  fi
else
  echo "(skipped the export snippets: no torch for '$python')"
fi
echo "ok: $ran README commands, the install and the export snippets"
