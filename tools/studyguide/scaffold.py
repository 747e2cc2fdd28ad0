"""Create a new question page with the full page shape and metadata (``studyguide new``)."""

from __future__ import annotations

from pathlib import Path

from .book import Book
from .errors import BookError, Problem, StudyguideError, did_you_mean
from .locale import Locale
from .schema import ID_RE

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
  answer: {answer}
---

# {title}

## {s[question]}

{question}

## {s[why-asked]}

{why}

## {s[short-answer]}

- {short}{{proof}}`first-claim`

## {s[details]}

```{{index}} {index}
```

{details}

```{{code-cell}} python
:label: first-claim
{demo}
```

{remember}

```{{code-cell}} python
:tags: [cheatsheet]
{snippet}
```

## {s[pitfalls]}

- {pitfall}{{proof}}`first-claim`

## {s[follow-ups]}

- {follow_up}

## {s[related]}

- {{ref}}`{related}`
"""
# The sample code of a new page: torch for a book that records torch's version, Python's own library otherwise.
TORCH_CODE = ("torch.Tensor", "import torch\n\nx = torch.zeros(2, 3)\nassert x.shape == (2, 3)\nprint(x.shape)",
              "import torch\n\nassert torch.zeros(2, 3).t().stride() == (1, 3)")
PLAIN_CODE = ("statistics.mean", "import statistics\n\nm = statistics.mean([1, 2, 3])\nassert m == 2\nprint(m)",
              "import statistics\n\nassert statistics.median([3, 1, 2]) == 2")


def render(question_id: str, tier: str, topic: str, title: str, related: str, words: Locale, torch: bool = True) -> str:
    """The text of a new page (pure)."""
    index, demo, snippet = TORCH_CODE if torch else PLAIN_CODE
    t = {k.removeprefix("scaffold."): v for k, v in words.strings.items() if k.startswith("scaffold.")}
    body = TEMPLATE.format(id=question_id, tier=tier, topic=topic, related=related, s=dict(words.sections), index=index, demo=demo,
                           snippet=snippet, **{**t, "title": title or t["title"], "follow_up": t["follow_up"]})
    assert [line[3:] for line in body.splitlines() if line.startswith("## ")] == [title for _, title in words.sections]
    return body


def create(book_dir: Path, book: Book, question_id: str, tier: str, topic: str, title: str, words: Locale, torch: bool = False) -> Path:
    """Write ``book/<tier>/<topic>/<id>.md``; refuse bad names and existing ids or files."""
    problems = []
    if not ID_RE.match(question_id):
        problems.append(f"studyguide new: id: invalid id {question_id!r} (use lowercase kebab-case)")
    if any(q.id == question_id for q in book.questions):
        problems.append(f"studyguide new: id: {question_id!r} is taken (choose another id)")
    tiers = {t.id: t for t in book.tiers}
    if tier not in tiers:
        problems.append(f"studyguide new: --tier: unknown tier {tier!r} ({did_you_mean(tier, tiers)})")
    topics = {t.id for t in book.topics}
    if topic not in topics:
        problems.append(f"studyguide new: --topic: unknown topic {topic!r} ({did_you_mean(topic, topics)})")
    if problems:
        raise StudyguideError("\n".join(problems))
    path = book_dir / tiers[tier].folder / topic / f"{question_id}.md"
    if path.exists():
        raise BookError([Problem(str(path), 1, "path", "file exists", "choose another id")])
    related = book.questions[0].id if book.questions else question_id
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(question_id, tier, topic, title, related, words, torch), encoding="utf-8")
    return path
