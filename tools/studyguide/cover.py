"""A cover made from the book's title, lead, tiers and edition (a book may ship its own ``_static/cover.png``)."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

INK, PANEL, ACCENT, PAPER = "#1f2a44", "#3a4a70", "#f04e30", "#dfe5f2"


def _wrap(text: str, width: int) -> str:
    """Break a title into short lines: by words for Latin text, every ``width`` characters for CJK."""
    if " " in text.strip():
        return "\n".join(textwrap.wrap(text, width=max(width * 2, 12)))
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def render(title: str, lead: str, tiers: list[str], edition: str, out: Path) -> Path:
    """Draw the cover as a 1200 × 1800 PNG at ``out``; an unchanged cover is not drawn again."""
    digest = hashlib.sha256(json.dumps([title, lead, tiers, edition], ensure_ascii=False).encode()).hexdigest()
    stamp = out.with_suffix(".sha256")
    if out.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return out
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Rectangle

    plt.rcParams["font.family"] = ["Noto Sans CJK SC", "DejaVu Sans"]
    fig = plt.figure(figsize=(8, 12), dpi=150)
    fig.patch.set_facecolor(INK)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 12)
    ax.axis("off")
    ax.text(4, 8.6, _wrap(title, 6), ha="center", va="center", color="white", fontsize=44, fontweight="bold", linespacing=1.3)
    ax.text(4, 6.35, _wrap(lead, 18), ha="center", va="center", color=PAPER, fontsize=15, linespacing=1.4)
    for row in range(3):
        for col in range(6):
            lit = (col + row) % 5 == 2
            ax.add_patch(Rectangle((0.9 + col * 1.05, 2.4 + row * 1.05), 0.85, 0.85, color=ACCENT if lit else PANEL))
    ax.text(4, 1.55, "  ·  ".join(tiers), ha="center", va="center", color=PAPER, fontsize=17)
    ax.text(4, 0.8, edition, ha="center", va="center", color=PAPER, fontsize=12)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, facecolor=INK)
    plt.close(fig)
    stamp.write_text(digest)
    return out
