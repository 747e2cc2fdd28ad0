"""Decision tables for the PyTorch book's cheat sheets (a studyguide plugin, named in pyproject.toml).

Which loss for which target, which dtype for which job, which parallelism for which memory limit. Every row is
computed by the installed torch when the sheets are built, and what a row claims is asserted here: a torch that
behaves otherwise fails the build instead of printing a wrong row.
"""

from __future__ import annotations

import re
import warnings

from studyguide.refblocks import Table

PACKAGE = "torch"  # the sheets print the version of torch that computed these tables
N, C, L, D = 4, 3, 5, 2  # batch, classes, positions, features: distinct sizes, so a shape prints as its letters


def _shape(t: object) -> str:
    """A tensor's shape in letters, e.g. ``(N, C)``."""
    names = {N: "N", C: "C", L: "L", D: "D"}
    dims = [names[s] for s in t.shape]  # type: ignore[attr-defined]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def _accepts(loss: object, x: object, target: object) -> None:
    """The loss takes this input and target: a finite scalar whose gradient has the input's shape."""
    import torch

    x = x.detach().requires_grad_()  # type: ignore[attr-defined]
    out = loss(x, target)  # type: ignore[operator]
    out.backward()
    assert out.shape == () and torch.isfinite(out) and x.grad.shape == x.shape, (loss, out)


def losses() -> Table:
    """Target kind, shape and dtype → the loss module and the input it takes, each row called on such a target."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    x, seq = torch.randn(N, C), torch.randn(N, C, L)
    index, positions = torch.randint(0, C, (N,)), torch.randint(0, C, (N, L))
    soft, multi = torch.softmax(torch.randn(N, C), 1), torch.randint(0, 2, (N, C)).float()
    y, pred = torch.randn(N, D), torch.randn(N, D)
    ce, logp = nn.CrossEntropyLoss(), F.log_softmax(x, 1)
    # what each row says about its input, asserted
    assert torch.allclose(ce(x, index), nn.NLLLoss()(logp, index))  # CrossEntropyLoss takes logits
    assert torch.allclose(ce(x, soft), -(soft * logp).sum(1).mean())  # ... or class probabilities as target
    assert torch.allclose(ce(seq, positions), ce(seq.transpose(1, 2).reshape(-1, C), positions.reshape(-1)))  # classes: dim 1
    assert torch.allclose(nn.BCEWithLogitsLoss()(x, multi), nn.BCELoss()(torch.sigmoid(x), multi))  # logits, not probabilities
    try:
        nn.BCEWithLogitsLoss()(x, multi.long())
    except RuntimeError:
        pass  # an integer 0/1 target is refused: the row says float
    else:
        raise AssertionError("BCEWithLogitsLoss accepted an int64 target")
    kl = nn.KLDivLoss(reduction="batchmean")
    assert torch.allclose(kl(logp, soft), (soft * (soft.log() - logp)).sum() / N)  # input log-probs, target probs
    rows = (
        ("单标签：类别下标", x, index, ce, "logits", "CrossEntropyLoss"),
        ("单标签：类别概率", x, soft, ce, "logits", "CrossEntropyLoss"),
        ("逐位置（序列、分割）：类别在第 1 维", seq, positions, ce, "logits", "CrossEntropyLoss"),
        ("多标签、二分类：0/1 为 float", x, multi, nn.BCEWithLogitsLoss(), "logits", "BCEWithLogitsLoss"),
        ("类别下标，输入已是 log 概率", logp, index, nn.NLLLoss(), "log_softmax", "NLLLoss"),
        ("连续值回归：与输入同形状", pred, y, nn.MSELoss(), "", "MSELoss\nL1Loss\nHuberLoss"),
        ('分布（蒸馏）：reduction="batchmean"', logp, soft, kl, "log_softmax", "KLDivLoss"),
    )
    for _, inp, target, loss, _, _ in rows:
        _accepts(loss, inp, target)
    for loss in (nn.L1Loss(), nn.HuberLoss()):
        _accepts(loss, pred, y)
    with warnings.catch_warnings(record=True) as caught:  # the classic mismatch: output (N, 1), target (N,)
        warnings.simplefilter("always")
        mismatched = nn.MSELoss(reduction="none")(torch.randn(N, 1), torch.randn(N))
    assert mismatched.shape == (N, N) and any("target size" in str(w.message) for w in caught)
    table = tuple((kind, f"{_shape(t)} {str(t.dtype).removeprefix('torch.')}", f"{_shape(i)} {what}".strip(), name)
                  for kind, i, t, _, what, name in rows)
    return Table("损失按 target 选（nn.*；N 批量、C 类、L 位置、D 维；MSELoss 的输出 (N, 1) 配 target (N,) 会广播成 (N, N) 并警告）",
                 ("目标", "target", "输入", "损失"), table)


def _num(value: float) -> str:
    """Three significant digits, the exponent without padding: ``1.19e-7``, ``6.55e4``."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:.3g}")


def dtype_jobs() -> Table:
    """Job → dtype, with bytes, range and eps from ``torch.finfo``/``iinfo`` and the computed fact behind the choice."""
    import torch
    from torch import nn
    from torch.autograd.gradcheck import GradcheckError

    f32, bf16 = torch.finfo(torch.float32), torch.finfo(torch.bfloat16)
    e4, e5 = torch.finfo(torch.float8_e4m3fn), torch.finfo(torch.float8_e5m2)
    one = torch.tensor(1.0)
    kept, lost = (one + 1e-4).item(), (one.bfloat16() + 1e-4).item()
    assert kept > 1 and lost == 1  # an update of 1e-4 to a weight of 1 survives in float32, vanishes in bfloat16
    assert bf16.smallest_normal == f32.smallest_normal and bf16.max > 1e38  # bfloat16: float32's exponent range
    grad = torch.tensor(1e-8)
    assert grad.half() == 0 and (grad * 2**16).half() > 0  # float16: a small gradient underflows; scaled, it survives
    x = torch.linspace(0.1, 1.0, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.sin, (x,))
    with warnings.catch_warnings():  # gradcheck warns that its input is not float64: that is the point
        warnings.simplefilter("ignore")
        try:
            torch.autograd.gradcheck(torch.sin, (x.detach().float().requires_grad_(),))
        except GradcheckError:
            pass
        else:
            raise AssertionError("gradcheck passed in float32")
    try:
        nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 2], dtype=torch.int32))
    except RuntimeError:
        pass
    else:
        raise AssertionError("CrossEntropyLoss accepted an int32 target")
    wrapped = (torch.tensor([200], dtype=torch.uint8) + 100).item()
    assert wrapped == 44  # uint8 arithmetic wraps around
    assert e4.eps < e5.eps and e5.max > e4.max
    jobs = (
        (torch.float32, f"主权重、Adam 状态：1 + 1e-4 得 {kept:.4f}，bf16 得 {lost:g}"),
        (torch.bfloat16, f"autocast，可不配 GradScaler：最小正规数 {_num(bf16.smallest_normal)} 同 fp32"),
        (torch.float16, "autocast 配 GradScaler：梯度 1e-8 下溢为 0，乘 2^16 后保留"),
        (torch.float64, "gradcheck：sin 在 float32 下不过，float64 下通过"),
        (torch.int64, "类别下标 target：CrossEntropyLoss 拒收 int32"),
        (torch.uint8, f"图像像素、原始字节：200 + 100 得 {wrapped}（回绕），先转 float"),
        (torch.int8, "量化权重：1 字节，是 fp32 的 1/4"),
        (torch.float8_e4m3fn, f"FP8 要精度：eps {_num(e4.eps)}，比 e5m2 细"),
        (torch.float8_e5m2, f"FP8 要范围：最大 {_num(e5.max)}，比 e4m3 大"),
    )
    assert torch.empty(0, dtype=torch.int8).element_size() * 4 == torch.empty(0).element_size()
    rows = []
    for dt, job in jobs:
        info = torch.finfo(dt) if dt.is_floating_point else torch.iinfo(dt)
        span = f"±{_num(info.max)} / {_num(info.eps)}" if dt.is_floating_point else f"{_num(info.min)}…{_num(info.max)}"
        rows.append((str(dt).removeprefix("torch."), str(torch.empty(0, dtype=dt).element_size()), span, job))
    return Table("dtype 按用途选（用途后是构建时算出的依据）", ("dtype", "字节", "范围 / eps", "用途：依据"), tuple(rows))


def parallel_memory(params: float = 7e9, world: int = 8) -> Table:
    """Per-GPU bytes of parameters, gradients and Adam state under DDP and ZeRO-1/2/3, for ``params`` on ``world`` GPUs.

    The bytes per parameter are measured: a model's fp32 parameters and gradients, and Adam's state after one step.
    """
    import torch
    from torch import nn

    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(4, 16)).sum().backward()
    opt.step()
    count = sum(p.numel() for p in model.parameters())
    weight = sum(p.numel() * p.element_size() for p in model.parameters()) / count
    grad = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters()) / count
    full = [t for s in opt.state.values() for t in s.values() if t.dim() > 0]  # exp_avg, exp_avg_sq
    assert all(t.numel() == 1 for s in opt.state.values() for t in s.values() if t.dim() == 0)  # step: one scalar per tensor
    state = sum(t.numel() * t.element_size() for t in full) / count
    assert (weight, grad, state) == (4, 4, 8) and len(full) == 2 * len(opt.state)
    share = {"DDP": (1, 1, 1), "ZeRO-1（ZeroRedundancyOptimizer）": (1, 1, world), "ZeRO-2": (1, world, world),
             "ZeRO-3 / FSDP FULL_SHARD": (world, world, world)}
    rows = []
    for name, (p, g, s) in share.items():
        terms = [f"{b:g}P" + ("" if d == 1 else "/N") for b, d in ((weight, p), (grad, g), (state, s))]
        total = params * (weight / p + grad / g + state / s)
        rows.append((name, *terms, f"{total / 1e9:.1f} GB"))
    return Table(f"每卡显存按策略（fp32 参数与 Adam；不含激活、临时收集的参数和通信缓冲；P = {params / 1e9:g}B 参数，N = {world} 卡，GB = 10^9 字节）",
                 ("策略", "参数", "梯度", "Adam 状态", "每卡"), tuple(rows))


BLOCKS = {"losses": losses, "dtype_jobs": dtype_jobs, "parallel_memory": parallel_memory}
