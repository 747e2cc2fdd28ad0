"""``studyguide init``: a new, neutral study guide that builds and passes its own tests (pure, then one write)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import locale as locale_mod
from . import scaffold
from .errors import StudyguideError
from .schema import Tier

TOPIC = "python"
TOPIC_LABEL = {"zh": "Python 标准库", "en": "The Python standard library"}
PREFACE = {
    "zh": "# 前言\n\n这本书的每道题都用真实运行的代码回答。先读“题目”，自己作答，再看“先给结论”。\n",
    "en": "# Preface\n\nEvery question in this book is answered with code that really ran. Read the question, answer it yourself, then read the short answer.\n",
}
SAMPLE_TITLE = {"zh": "示例题（{tier}）：把这一行改成问题", "en": "Sample question ({tier}): replace this line with a question"}
README = {
    "zh": """# {title}

一本用 [studyguide](https://pypi.org/project/studyguide/) 生成的学习指南：每个答案都由真实运行的代码支撑。

```sh
make          # 检查每一页、执行代码改过的页，构建网站、PDF、EPUB、速查表和 Anki 题卡（_build/）
make test     # 构建全部格式，并检查产物（EPUB 经 epubcheck、每张速查表一页、每页都有执行记录）
```

加一道题：`studyguide new <id> --tier {tier} --topic {topic} --title "问题？"`，编辑生成的文件，再运行 `make`。
执行过的输出在 `book/_executed/`，和页面一起提交。
""",
    "en": """# {title}

A study guide made with [studyguide](https://pypi.org/project/studyguide/): every answer is backed by code that really ran.

```sh
make          # check every page, execute the pages whose code changed, build the site, PDF, EPUB, cheat sheets and Anki deck (_build/)
make test     # build every format, then check the outputs (the EPUB with epubcheck, every cheat sheet one page, every page's run recorded)
```

To add a question: `studyguide new <id> --tier {tier} --topic {topic} --title "Question?"`, edit the new file, then run `make`.
The executed outputs are in `book/_executed/`: commit them with the pages.
""",
}
MAKEFILE = """# {title}: `make` builds the book, `make test` builds every format and checks the outputs.
SG ?= studyguide

.PHONY: all test check new
all:
\t$(SG) build

test:
\t$(SG) build all
\t$(SG) verify

check:
\t$(SG) check
"""
GITIGNORE = """/_build/
# Pages `studyguide sync` generates at build time: never committed.
/book/index.md
/book/environment.md
/book/changes.md
/book/*/*/index.md
/book/selftest/
/book/quickreview/
/book/topics/
/book/cheatsheets/
"""


def basename_of(title: str) -> str:
    """A file stem from the title's Latin words (``NumPy Interview Questions`` → ``numpy-interview-questions``)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)[:40].strip("-") or "study-guide"


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def files(title: str, language: str, author: str = "") -> dict[str, str]:
    """Every file of a new book, keyed by its path in the project (pure)."""
    words = locale_mod.load(language)
    tiers = [Tier(t["id"], t["label"], t["folder"]) for t in words.tiers]
    config = "\n".join([
        "[tool.studyguide]",
        f"title = {_toml(title)}",
        f"author = {_toml(author)}  # empty: the language's default",
        f"basename = {_toml(basename_of(title))}  # the stem of every output file",
        'edition = "0.1"',
        f"language = {_toml(language)}  # the words the book is printed in: " + ", ".join(locale_mod.available()),
        "# provenance = [\"numpy\"]  # packages whose versions every page records with its outputs",
        "# tiers = [{ id = \"basics\", label = \"Basics\", folder = \"1-basics\" }, ...]  # default: the language's three",
        "",
    ])
    out = {
        "pyproject.toml": config,
        "book/topics.yml": f"{TOPIC}:\n  label: {TOPIC_LABEL[language]}\n",
        "book/preface.md": PREFACE[language],
        "README.md": README[language].format(title=title, tier=tiers[0].id, topic=TOPIC),
        "Makefile": MAKEFILE.format(title=title),
        ".gitignore": GITIGNORE,
    }
    ids = [f"sample-{t.id}" for t in tiers]
    for i, tier in enumerate(tiers):
        related = ids[(i + 1) % len(ids)]
        title_text = SAMPLE_TITLE[language].format(tier=tier.label)
        out[f"book/{tier.folder}/{TOPIC}/{ids[i]}.md"] = scaffold.render(ids[i], tier.id, TOPIC, title_text, related, words, torch=False)
    return out


def create(target: Path, title: str, language: str, author: str = "") -> list[Path]:
    """Write a new book into ``target`` (an empty or missing folder); raise ``StudyguideError`` otherwise."""
    if language not in locale_mod.available():
        raise StudyguideError(f"studyguide init: --language: unknown language {language!r} (choose one of: {', '.join(locale_mod.available())})")
    if not title.strip():
        raise StudyguideError("studyguide init: --title: give the book a title")
    if target.exists() and any(target.iterdir()):
        raise StudyguideError(f"studyguide init: {target} is not empty (give a new folder)")
    written = []
    for rel, text in files(title, language, author).items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
