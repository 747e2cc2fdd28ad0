#!/usr/bin/env bash
# Install what the build needs, skipping what is already there:
#   1. Debian packages: TeX Live (xelatex, Chinese), Noto CJK fonts, dvisvgm, epubcheck, poppler, and the reader
#      software the tests open the books with (Chromium, calibre);
#   2. the virtual environment .venv: torch==2.13.0 first and alone (CPU build without a GPU), then deepspeed
#      (built against that torch), then the pinned packages, the test tools and the book's own tools.
# Usage: tools/setup.sh [debian|python|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  texlive-xetex texlive-lang-chinese texlive-latex-extra texlive-fonts-recommended latexmk
  fonts-noto-cjk dvisvgm epubcheck default-jre-headless poppler-utils qpdf chromium calibre
)
PYTHON=${PYTHON:-python3}
TORCH_VERSION=2.13.0
TORCH_INDEX_URL=${TORCH_INDEX_URL-https://download.pytorch.org/whl/cpu}
VENV=.venv
STAMP=$VENV/.installed

debian() {
  local missing=()
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"; else
      echo "setup: error: missing Debian packages ${missing[*]} (install with: sudo apt-get install -y ${missing[*]})" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "setup: error: apt-get not found; install the equivalents of: ${missing[*]}" >&2
    exit 1
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" || {
    echo "setup: error: apt-get could not install ${missing[*]} (run: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  }
}

# torch alone and first, so nothing else pulls a build of its own choosing. Without a GPU the CPU build
# comes from PyTorch's CPU wheel index (TORCH_INDEX_URL; empty: use the default index); when that index
# cannot be reached, the default index is used and a line says so. With a GPU: the default (CUDA) build.
install_torch() {
  local spec="torch==$TORCH_VERSION"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "setup: GPU found: installing $spec (CUDA build) from the default index"
    "$VENV/bin/pip" install -q "$spec"
    return
  fi
  if [ -n "$TORCH_INDEX_URL" ]; then
    echo "setup: no GPU: installing $spec (CPU build) from $TORCH_INDEX_URL"
    "$VENV/bin/pip" install -q --retries 1 --timeout 30 --index-url "$TORCH_INDEX_URL" "$spec" && return
    echo "setup: $TORCH_INDEX_URL could not be reached: installing $spec from the default index instead (on Linux that is the larger CUDA build; it runs on a CPU too)"
  fi
  "$VENV/bin/pip" install -q "$spec"
}

python_env() {
  if [ -f "$STAMP" ] && [ "$STAMP" -nt pyproject.toml ] && [ "$STAMP" -nt tools/constraints.txt ]; then
    return 0
  fi
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  install_torch
  # deepspeed builds from source and imports torch while doing so: no build isolation, no C++ ops
  "$VENV/bin/pip" install -q setuptools==84.2.1
  DS_BUILD_OPS=0 "$VENV/bin/pip" install -q -c tools/constraints.txt --no-build-isolation deepspeed
  "$VENV/bin/pip" install -q -c tools/constraints.txt -e ".[test,book]"
  "$VENV/bin/pip" check
  touch "$STAMP"
}

# The web checkers the tests run, from the npm registry at the versions of tools/node/package-lock.json: Ace by
# DAISY (EPUB accessibility) and Lighthouse (the site's weight, speed and accessibility on a simulated phone).
# --ignore-scripts: Ace's bundled Electron download is not reachable; both drive Debian's Chromium instead.
node_tools() {
  local stamp=tools/node/node_modules/.installed
  [ -f "$stamp" ] && [ "$stamp" -nt tools/node/package-lock.json ] && return 0
  if ! command -v npm >/dev/null; then
    echo "setup: error: npm not found (install Node.js 20 and npm, e.g. sudo apt-get install -y nodejs npm)" >&2
    exit 1
  fi
  echo "setup: installing Ace by DAISY and Lighthouse into tools/node/node_modules"
  npm ci --prefix tools/node --ignore-scripts --no-audit --no-fund --loglevel=error
  touch "$stamp"
}

case "${1:-all}" in
  debian) debian ;;
  python) python_env ;;
  node) node_tools ;;
  all) debian; python_env; node_tools ;;
  *) echo "usage: tools/setup.sh [debian|python|node|all]" >&2; exit 2 ;;
esac
