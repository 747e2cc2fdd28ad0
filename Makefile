# PyTorch 面试题精讲 — build and test.
#   make          install what is missing, then build the website, PDF and EPUB into _build/
#   make test     build everything (the e-reader PDF too, as a release does), then run the test suite
#   make ereader  the e-reader PDF (6-inch page); not part of plain `make`: it adds a whole LaTeX run
#   make unit     the fast tests only (no kernel, no build)
# Set FROZEN=1 to forbid execution (CI: the stored outputs must already match the code).

VENV   := .venv
SG     := $(VENV)/bin/studyguide
STAMP  := $(VENV)/.installed
FLAGS  := $(if $(FROZEN),--frozen,)
PYTEST ?=

.PHONY: all setup deps node test unit check sync indexes execute sheets deck html epub pdf ereader serve bench status doctor new clean

all: setup
	$(SG) build $(FLAGS)

setup: deps $(STAMP) node

deps:
	@tools/setup.sh debian

node:
	@tools/setup.sh node

$(STAMP): pyproject.toml tools/constraints.txt
	tools/setup.sh python

test: setup
	$(SG) build $(FLAGS) all
	$(VENV)/bin/python -m pytest $(PYTEST)

# the fast tests: schema, checker, parser, generators, math, lint; no kernel, no build
unit: $(STAMP)
	$(VENV)/bin/python -m pytest -m "not build" $(PYTEST)

check: $(STAMP)
	$(SG) check

sync indexes: $(STAMP)
	$(SG) sync

execute: $(STAMP)
	$(SG) execute $(FLAGS)

sheets deck html epub pdf ereader: setup
	$(SG) build $(FLAGS) $@

status: $(STAMP)
	$(SG) status

doctor: $(STAMP)
	$(SG) doctor

# make new ID=view-vs-reshape TIER=basics TOPIC=tensor TITLE="view 与 reshape 有什么区别？"
new: $(STAMP)
	$(SG) new "$(ID)" --tier "$(TIER)" --topic "$(TOPIC)" --title "$(TITLE)"

serve: setup
	$(SG) build html
	STUDYGUIDE_ROOT=$(CURDIR) $(VENV)/bin/sphinx-autobuild -c tools/studyguide/sphinx_project -d _build/doctrees --pre-build "$(SG) execute" \
	  --ignore "*/_executed/*" --watch tools book _build/html

bench: setup
	$(VENV)/bin/python -m studyguide.bench

clean:
	rm -rf _build
