#!/usr/bin/env bash
# On the lent GPU machine: install the carried wheels, execute EVERY page in parallel with the book's own
# executor (16 processes), and pack the executed notebooks into $OUT/executed.tar.gz.
# Back here: tar xzf executed.tar.gz && make   (imports the new outputs; nothing executes again).
# Test on CPU first: OUT=/tmp/out STUDYGUIDE_ROOT=<a copy of tests/fixtures/minibook> tools/gpu/run.sh --local
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:?set OUT to the folder that comes back}
if [ "${1:-}" = "--local" ]; then
  python=.venv/bin/python
else
  python=python3
  for wheels in .whl/*/; do  # the parts carried by this call (earlier parts are already in .site)
    ls "$wheels"*.whl >/dev/null 2>&1 && "$python" -m pip install -q --no-index --no-deps --no-compile --target .site "$wheels"*.whl
    mkdir -p "$HOME/.local/share/fonts" && cp "$wheels"*.otf "$HOME/.local/share/fonts/" 2>/dev/null || true
  done
  export PYTHONPATH="$PWD/.site:$PWD/tools"
  [ "${1:-}" = "--install-only" ] && { echo "installed: $(ls .site | wc -l) entries in .site"; exit 0; }
fi
"$python" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'device', torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'cpu')" | tee "$out/device.txt"
start=$(date +%s)
root=${STUDYGUIDE_ROOT:-$PWD}
status=0
"$python" -m studyguide.cli --root "$root" execute --force --jobs "${JOBS:-16}" 2>&1 | tee "$out/execute.log" || status=$?
echo "wall seconds: $(( $(date +%s) - start ))" | tee -a "$out/execute.log"
tar czf "$out/executed.tar.gz" -C "$root" book/_executed
exit "$status"
