"""Build question page texts for the tests: a valid page, with chosen fields replaced."""

from __future__ import annotations

import yaml

TOPICS_YML = """tensor:
  label: 张量
autograd:
  label: 自动求导
precision:
  label: 混合精度
"""

BODY = """
# 标题

## 题目

问法。

## 考点

为什么问。

## 先给结论

- 结论。{{proof}}`sum`

## 详解

```{{index}} torch.Tensor
```

```{{code-cell}} python
:tags: [cheatsheet]
:label: sum
import math
x = math.fsum([1, 1])
assert x == 2
```

## 易错点

- 错误说法。{{proof}}`sum`

## 追问

- 追问。

## 关联

- {{ref}}`{ref}`
"""


UNTAGGED_BODY = BODY.replace(":tags: [cheatsheet]\n", "")  # the same page without a cheat-sheet cell


def meta(**changes: object) -> dict:
    """Valid studyguide metadata; a value of ``None`` deletes the field."""
    data = {"id": "q1", "tier": "basics", "topics": ["tensor"], "frequent": False,
            "answer": "一句话的答案。", "needs_gpu": False}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def page(body: str | None = None, ref: str = "q1", **changes: object) -> str:
    """A page text with metadata ``meta(**changes)`` and the standard body."""
    front = {"file_format": "mystnb", "kernelspec": {"name": "python3", "display_name": "Python 3"},
             "studyguide": meta(**changes)}
    head = yaml.safe_dump(front, allow_unicode=True, sort_keys=False)
    return f"---\n{head}---\n" + (body if body is not None else BODY.format(ref=ref))
