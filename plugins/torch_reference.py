"""The PyTorch book's reference blocks for its cheat sheets (a studyguide plugin, named in pyproject.toml).

Each block is a function returning a title, column heads and rows of strings. Nothing here is typed by
hand: the values come from the installed torch (``torch.finfo``, ``torch.broadcast_shapes``, ``stride()``).
"""

from __future__ import annotations

from studyguide.refblocks import Table

PACKAGE = "torch"  # the sheets print the version of torch that computed these tables


def _num(value: float) -> str:
    return f"{value:.3g}".replace("e+", "e")


def dtypes() -> Table:
    """Bits, range, eps and smallest normal of the common dtypes (``torch.finfo`` / ``torch.iinfo``)."""
    import torch

    rows = []
    for dt in (torch.float64, torch.float32, torch.bfloat16, torch.float16, torch.float8_e4m3fn, torch.float8_e5m2):
        f = torch.finfo(dt)
        rows.append((str(dt).removeprefix("torch."), str(f.bits), _num(f.max), _num(f.eps), _num(f.tiny)))
    for dt in (torch.int64, torch.int32, torch.int8, torch.uint8):
        i = torch.iinfo(dt)
        rows.append((str(dt).removeprefix("torch."), str(i.bits), f"{_num(i.min)}…{_num(i.max)}", "1", "—"))
    return Table("dtype 数值范围", ("dtype", "位", "最大值 / 整数范围", "eps", "最小正规数"), tuple(rows))


def broadcasting() -> Table:
    """Result shapes of ``torch.broadcast_shapes`` for typical pairs, including one that fails."""
    import torch

    pairs = [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((5, 1, 4), (3, 1)), ((8, 1), (8,)), ((2, 3), (3, 2))]
    rows = []
    for a, b in pairs:
        try:  # fallback: an incompatible pair is a row of the table, not an error
            result = str(tuple(torch.broadcast_shapes(a, b)))
        except RuntimeError:
            result = "报错：维度不兼容"
        rows.append((str(a), str(b), result))
    return Table("广播：从右往左对齐，1 可扩展", ("形状 A", "形状 B", "结果"), tuple(rows))


def strides() -> Table:
    """Shape, stride and contiguity of a tensor after common view operations."""
    import torch

    t = torch.empty(2, 3, 4)
    cases = {
        "t = empty(2, 3, 4)": t,
        "t.transpose(0, 2)": t.transpose(0, 2),
        "t.permute(2, 0, 1)": t.permute(2, 0, 1),
        "t[:, ::2]": t[:, ::2],
        "empty(3, 1).expand(3, 4)": torch.empty(3, 1).expand(3, 4),
        "t.transpose(0, 2).contiguous()": t.transpose(0, 2).contiguous(),
    }
    rows = tuple((expr, str(tuple(v.shape)), str(v.stride()), "是" if v.is_contiguous() else "否") for expr, v in cases.items())
    return Table("stride：view 不拷贝，只改 shape 与 stride", ("表达式", "shape", "stride", "连续"), rows)


BLOCKS = {"dtypes": dtypes, "broadcasting": broadcasting, "strides": strides}
