"""Rewrite patterns on MLIR's greedy pattern driver.

A pattern is a function ``(op, rewriter) -> bool`` registered on the op class
it matches; it returns True when it rewrote something. (The binding underneath
works the other way round: a falsy return means "matched". ``rewrite_pattern``
flips it.) Every change goes through the rewriter: build new ops under
``rewriter.ip`` (see :func:`building`), then ``rewriter.replace_op`` or
``rewriter.erase_op``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol, Sequence

from ...xla.mlir import GreedyRewriteConfig, PatternRewriter, RewritePatternSet, apply_patterns_and_fold_greedily, ir
from ..registry import PassError

__all__ = ["RewritePattern", "rewrite_pattern", "apply_patterns", "building", "PatternFn"]


class PatternFn(Protocol):
    def __call__(self, op: ir.OpView, rewriter: PatternRewriter) -> bool: ...


@dataclass(frozen=True)
class RewritePattern:
    """A pattern function bound to the op class it matches."""

    root: type
    """The op class (e.g. ``hlo.NegOp``) whose instances the driver offers to ``fn``."""
    fn: PatternFn
    """``(op, rewriter) -> bool``: True when it rewrote ``op``."""
    benefit: int = 1
    """Patterns with a higher benefit are tried first on the same op."""

    @property
    def name(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))

    def __call__(self, op: ir.OpView, rewriter: PatternRewriter) -> bool:
        return self.fn(op, rewriter)



def _dispatcher(group: Sequence[RewritePattern]) -> Callable[[ir.OpView, PatternRewriter], bool]:
    """One driver callback trying the patterns of one root in order (one call
    from C++ per op instead of one per pattern). Returns the binding's
    convention: falsy when a pattern rewrote the op."""
    fns = [(p.fn, p.name) for p in group]

    def callback(op, rewriter):
        for fn, name in fns:
            try:
                if fn(op, rewriter):
                    return False
            except PassError:
                raise
            except Exception as e:
                raise PassError(f"pattern {name} failed on {op.operation.name} at {op.location}: "
                                f"{type(e).__name__}: {e}") from e
        return True

    return callback


def rewrite_pattern(root: type, *, benefit: int = 1) -> Callable[[PatternFn], RewritePattern]:
    """Decorator: makes ``fn(op, rewriter) -> bool`` a pattern on ``root`` ops.

    Example::

        @rewrite_pattern(hlo.NegOp)
        def fold_double_negate(op, rewriter):
            inner = op.operand.owner
            if not isinstance(inner, hlo.NegOp):
                return False
            rewriter.replace_op(op, [inner.operand])
            return True
    """
    if not isinstance(root, type):
        raise TypeError(f"rewrite_pattern() takes an op class such as hlo.NegOp, got {root!r}")

    def wrap(fn: PatternFn) -> RewritePattern:
        return RewritePattern(root, fn, benefit)

    return wrap


def apply_patterns(module, patterns: Sequence[RewritePattern], *, max_iterations: int = 10,
                   fold: bool = True) -> None:
    """Applies ``patterns`` to ``module`` (an ``ir.Module``, ``ModuleOp`` or any op)
    with MLIR's greedy driver until nothing matches (or ``max_iterations`` sweeps).

    The driver also erases ops whose results are unused and have no side effects,
    and, when ``fold`` is true, runs the ops' own MLIR folders.

    Raises:
        PassError: a pattern raised; the message names the pattern and the op.
    """
    op = module.operation if hasattr(module, "operation") else module
    with op.context:
        groups: dict[type, list[RewritePattern]] = {}
        for p in sorted(patterns, key=lambda p: -p.benefit):
            groups.setdefault(p.root, []).append(p)
        patterns_set = RewritePatternSet()
        for root, group in groups.items():
            patterns_set.add(root, _dispatcher(group), group[0].benefit)
        config = GreedyRewriteConfig()
        config.max_iterations = max_iterations
        config.enable_folding = fold
        try:
            apply_patterns_and_fold_greedily(op, patterns_set.freeze(), config)
        except ir.MLIRError as e:
            # Not converging within max_iterations is not an error: the IR is valid.
            if "converge" not in str(e):
                raise


@contextlib.contextmanager
def building(rewriter: PatternRewriter, op: ir.OpView) -> Iterator[None]:
    """Builds new ops right before ``op``, with ``op``'s location::

        with building(rewriter, op):
            new = hlo.NegOp(x).result
    """
    with rewriter.ip, op.location:
        yield
