#!/usr/bin/env bash
# Prepare a GPU run (on this machine, which has network): download every wheel the lent H200 machine
# lacks into .whl/ (git-ignored), for its Python 3.12, and copy the Noto CJK font for plot labels.
# Then run tools/gpu/run.sh there with the device tool, carrying .whl (64 MiB at most).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=.whl
mkdir -p "$dest"
reqs=$(mktemp)
grep -v '^#' tools/gpu/wheels-base.txt > "$reqs"  # kept in the repository: nothing outside it is read
while read -r name; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  pin=$(grep -i -E "^${name//-/[-_]}==" tools/constraints.txt || true)
  [ -n "$pin" ] || { echo "prepare: $name is not pinned in tools/constraints.txt" >&2; exit 1; }
  echo "$pin" >> "$reqs"
done < tools/gpu/wheels-extra.txt
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$dest" -r "$reqs"
# Plot labels need a CJK font: carry Noto Sans CJK SC cut down to the characters the book uses.
.venv/bin/python - "$dest" <<'PY'
import pathlib, sys
from fontTools import subset
text = "".join(p.read_text(encoding="utf-8") for p in pathlib.Path("book").rglob("*.md"))
opts = subset.Options(); opts.font_number = 2  # the SC face of the collection
font = subset.load_font("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", opts)
sub = subset.Subsetter(opts); sub.populate(text="".join(sorted(set(text)))); sub.subset(font)
subset.save_font(font, f"{sys.argv[1]}/NotoSansCJKsc-book.otf", opts)
PY
# The device tool carries at most 64 MiB per call: pack the files into parts a, b, ... of <= 60 MiB
# (first fit, largest first).
.venv/bin/python - "$dest" <<'PY'
import pathlib, shutil, string, sys
dest = pathlib.Path(sys.argv[1])
files = sorted([*dest.glob("*.whl"), *dest.glob("*.otf")], key=lambda p: -p.stat().st_size)
parts: list[int] = []
for f in files:
    size = f.stat().st_size
    i = next((i for i, used in enumerate(parts) if used + size <= 60 << 20), len(parts))
    parts[i:i + 1] = [parts[i] + size] if i < len(parts) else [size]
    (dest / string.ascii_lowercase[i]).mkdir(exist_ok=True)
    shutil.move(f, dest / string.ascii_lowercase[i] / f.name)
PY
du -sm "$dest"/*/ | sed 's/^/prepare: carry part /'
echo "prepare: call tools/gpu/run.sh --install-only once per part except the last (carry=['.whl/<part>']),"
echo "prepare: then tools/gpu/run.sh with the last part; .site persists while the machine stays warm."
