#!/usr/bin/env bash
# Prepare a GPU run (on this machine, which has network): download every wheel the lent H200 machine
# lacks into .whl/ (git-ignored), for its Python 3.12, and copy the Noto CJK font for plot labels.
# Then run tools/gpu/run.sh there with the device tool, carrying .whl (64 MiB at most).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=.whl
mkdir -p "$dest"
reqs=$(mktemp)
grep -v '^#' ../shared/gpu-runner/wheels.txt > "$reqs"
while read -r name; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  pin=$(grep -i -E "^${name//-/[-_]}==" tools/constraints.txt || true)
  [ -n "$pin" ] || { echo "prepare: $name is not pinned in tools/constraints.txt" >&2; exit 1; }
  echo "$pin" >> "$reqs"
done < tools/gpu/wheels-extra.txt
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$dest" -r "$reqs"
cp /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc "$dest/" 2>/dev/null || echo "prepare: no Noto CJK font to carry (plots would lack Chinese glyphs)"
du -sh "$dest"
size=$(du -sm "$dest" | cut -f1)
[ "$size" -le 64 ] || echo "prepare: warning: $dest is ${size} MiB, over the device tool's 64 MiB carry limit: split the run"
