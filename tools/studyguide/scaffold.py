"""Create a new question page with the full page shape and metadata (``studyguide new``)."""

from __future__ import annotations

from pathlib import Path

from . import page
from .book import Book
from .errors import BookError, Problem, StudyguideError, did_you_mean
from .schema import ID_RE, TIER_BY_ID

TEMPLATE = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
studyguide:
  id: {id}
  tier: {tier}
  topics: [{topic}]
  frequent: false
  answer: 用一句话写出答案。
  needs_gpu: false
---

# {title}

## 题目

面试中的问法。

## 考点

面试官想确认什么。

## 先给结论

- 开口的第一句话。

## 详解

```{{index}} torch.Tensor
```

用运行的代码说明结论；能断言的事实写成 assert。

```{{code-cell}} python
import torch

x = torch.zeros(2, 3)
assert x.shape == (2, 3)
print(x.shape)
```

速记：这道题最该记住的写法。

```{{code-cell}} python
:tags: [cheatsheet]
import torch

assert torch.zeros(2, 3).t().stride() == (1, 3)
```

## 易错点

- 常见的错误说法，以及为什么错。

## 追问

- 面试官可能接着问什么？

## 关联

- {{ref}}`{related}`
"""


def render(question_id: str, tier: str, topic: str, title: str, related: str) -> str:
    """The text of a new page (pure)."""
    body = TEMPLATE.format(id=question_id, tier=tier, topic=topic, title=title or "题目标题", related=related)
    assert [line[3:] for line in body.splitlines() if line.startswith("## ")] == list(page.SECTIONS)
    return body


def create(book_dir: Path, book: Book, question_id: str, tier: str, topic: str, title: str = "") -> Path:
    """Write ``book/<tier>/<topic>/<id>.md``; refuse bad names and existing ids or files."""
    problems = []
    if not ID_RE.match(question_id):
        problems.append(f"studyguide new: id: invalid id {question_id!r} (use lowercase kebab-case)")
    if any(q.id == question_id for q in book.questions):
        problems.append(f"studyguide new: id: {question_id!r} is taken (choose another id)")
    if tier not in TIER_BY_ID:
        problems.append(f"studyguide new: --tier: unknown tier {tier!r} ({did_you_mean(tier, TIER_BY_ID)})")
    topics = {t.id for t in book.topics}
    if topic not in topics:
        problems.append(f"studyguide new: --topic: unknown topic {topic!r} ({did_you_mean(topic, topics)})")
    if problems:
        raise StudyguideError("\n".join(problems))
    path = book_dir / TIER_BY_ID[tier].folder / topic / f"{question_id}.md"
    if path.exists():
        raise BookError([Problem(str(path), 1, "path", "file exists", "choose another id")])
    related = book.questions[0].id if book.questions else question_id
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(question_id, tier, topic, title, related), encoding="utf-8")
    return path
