"""Grading helper of the 手撕代码 exercises: the book's cells import it, and the practice pack ships it unchanged.

``expect_close(lambda: impl(x), expected, like="F.softmax(x, dim=-1)")`` fails with ONE line: what was expected
(shape, dtype, the reference it must match) when ``impl`` is still a stub, the shapes or dtypes when they differ,
else the largest absolute difference and where. ``run_tests(globals())`` runs a cell's ``test_*`` functions.
It needs only torch, imported when first used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# torch.testing.assert_close's default (rtol, atol) by dtype; given here so the message counts what it rejects
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
              "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def describe(value: Any) -> str:
    """A tensor's shape and dtype in words, e.g. ``shape (4, 10), dtype torch.float32``."""
    import torch

    if isinstance(value, torch.Tensor):
        return f"shape {tuple(value.shape)}, dtype {value.dtype}"
    return f"a {type(value).__name__}"


def _stub_name(exc: BaseException) -> str:
    """The function that raised: the innermost frame of the traceback."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name if tb is not None else "the function"


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for size in reversed(shape):
        out.append(flat % size)
        flat //= size
    return tuple(reversed(out))


def _difference(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    """Where ``actual`` is farthest from ``expected``: a NaN or infinity first, else the largest absolute difference."""
    import torch

    a, e = actual.detach().cpu().to(torch.float64).reshape(-1), expected.detach().cpu().to(torch.float64).reshape(-1)
    bad = ~torch.isclose(a, e, rtol=rtol, atol=atol)
    count = f"{int(bad.sum())} of {a.numel()} elements differ"
    odd = bad & ~torch.isfinite(a)
    if odd.any():
        i = int(odd.nonzero()[0])
        return f"got {a[i].item()} at index {_index(i, tuple(actual.shape))}, expected {e[i].item():.6g} ({count})"
    diff = (a - e).abs()
    i = int(diff.argmax())
    return (f"largest absolute difference {diff[i].item():.3g} at index {_index(i, tuple(actual.shape))} "
            f"(got {a[i].item():.6g}, expected {e[i].item():.6g}; {count})")


def expect_close(actual: Any, expected: Any, *, like: str = "", rtol: float | None = None, atol: float | None = None) -> None:
    """Assert ``actual`` (a tensor, or a function of no arguments that returns one) is close to ``expected``; one-line failure."""
    __tracebackhide__ = True  # pytest: point at the test, not here
    import torch

    against = f" (like {like})" if like else ""
    if callable(actual):
        try:
            actual = actual()
        except NotImplementedError as exc:
            raise AssertionError(f"{_stub_name(exc)} is not implemented yet: expected a tensor of {describe(expected)}{against}") from None
    if not isinstance(actual, torch.Tensor):
        raise AssertionError(f"expected a tensor of {describe(expected)}{against}, got {describe(actual)}")
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        raise AssertionError(f"expected {describe(expected)}{against}, got {describe(actual)}")
    r, a = TOLERANCES.get(str(expected.dtype).removeprefix("torch."), (0.0, 0.0))
    r, a = (r if rtol is None else rtol), (a if atol is None else atol)
    try:
        torch.testing.assert_close(actual, expected, rtol=r, atol=a)
    except AssertionError:
        raise AssertionError(f"values differ{f' from {like}' if like else ''}: {_difference(actual, expected, r, a)}") from None


def run_tests(namespace: Mapping[str, Any]) -> None:
    """Run every ``test_*`` function of ``namespace`` (a cell's ``globals()``) in order and print their names.

    Returns nothing, so a notebook cell that ends with the call shows one output, not also a list.
    """
    tests: list[tuple[str, Callable[[], Any]]] = [(n, f) for n, f in namespace.items() if n.startswith("test_") and callable(f)]
    if not tests:
        raise AssertionError("no test_* functions to run")
    for name, test in tests:
        try:
            test()
        except AssertionError as err:
            raise AssertionError(f"{name} failed: {err}") from None
    names = [n for n, _ in tests]
    print(f"{len(names)} passed: {', '.join(names)}")
