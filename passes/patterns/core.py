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

from ...xla.mlir import GreedyRewriteConfig, PatternRewriter, RewritePatternSet, apply_patterns_and_fold_greedily, hlo, ir
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
    requires: str | None = None
    """What the pattern needs of the op's operands to match, checked once per op
    for all the patterns of the op that declare it, before they are called:
    ``"a constant operand"`` (some operand is a ``stablehlo.constant`` result) or
    ``"constant operands"`` (every operand is). The pattern must return False
    (without rewriting) on an op that lacks it: the driver then skips the call."""

    @property
    def name(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))

    def __call__(self, op: ir.OpView, rewriter: PatternRewriter) -> bool:
        return self.fn(op, rewriter)



#: ``RewritePattern.requires`` values -> index into ``_constant_operands``' answer
_REQUIRES = {"a constant operand": 0, "constant operands": 1}


def _constant_operands(op: ir.OpView) -> tuple[bool, bool]:
    """(some operand, every operand) of ``op`` is the result of a ``stablehlo.constant``."""
    some, every = False, True
    constant, arg = hlo.ConstantOp, ir.BlockArgument
    for v in op.operation.operands:
        if v.__class__ is not arg and v.owner.__class__ is constant:
            some = True
        else:
            every = False
    return some, every


def _dispatcher(group: Sequence[RewritePattern]) -> Callable[[ir.OpView, PatternRewriter], bool]:
    """One driver callback trying the patterns of one root in order (one call
    from C++ per op instead of one per pattern), skipping those whose
    ``requires`` the op lacks. Returns the binding's convention: falsy when a
    pattern rewrote the op."""
    fns = [(p.fn, p.name, _REQUIRES[p.requires] if p.requires is not None else None) for p in group]

    def callback(op, rewriter):
        constants = None
        for fn, name, need in fns:
            try:
                if need is not None:
                    if constants is None:
                        constants = _constant_operands(op)
                    if not constants[need]:
                        continue
                if fn(op, rewriter):
                    return False
            except PassError:
                raise
            except Exception as e:
                raise PassError(f"pattern {name} failed on {op.operation.name} at {op.location}: "
                                f"{type(e).__name__}: {e}") from e
        return True

    return callback


def rewrite_pattern(root: type, *, benefit: int = 1,
                    requires: str | None = None) -> Callable[[PatternFn], RewritePattern]:
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
    if requires is not None and requires not in _REQUIRES:
        raise ValueError(f"rewrite_pattern(requires=...) takes one of {sorted(_REQUIRES)}, got {requires!r}")

    def wrap(fn: PatternFn) -> RewritePattern:
        return RewritePattern(root, fn, benefit, requires)

    return wrap


#: the frozen pattern sets built last: (context, patterns, set), the newest first. A set
#: belongs to one context; the pipelines that lower one module after another in one
#: context (``lowering_context``) apply the same patterns to each, and building the set
#: (a dispatcher per root op) costs more than applying it to a small module
_FROZEN: list[tuple] = []
_FROZEN_KEPT = 4


def _frozen(context: ir.Context, patterns: tuple[RewritePattern, ...]):
    """The frozen set of ``patterns`` in ``context`` (the one built before, if any)."""
    entries = _FROZEN
    for entry in entries:
        if entry[0] is context and entry[1] == patterns:
            return entry[2]
    groups: dict[type, list[RewritePattern]] = {}
    for p in sorted(patterns, key=lambda p: -p.benefit):
        groups.setdefault(p.root, []).append(p)
    patterns_set = RewritePatternSet()
    for root, group in groups.items():
        patterns_set.add(root, _dispatcher(group), group[0].benefit)
    frozen = patterns_set.freeze()
    # (a new list, swapped in whole: another thread may be reading the old one)
    _FROZEN[:] = [(context, patterns, frozen)] + [e for e in entries if e[0] is context][:_FROZEN_KEPT - 1]
    return frozen


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
    with op.context as context:
        frozen = _frozen(context, tuple(patterns))
        config = GreedyRewriteConfig()
        config.max_iterations = max_iterations
        config.enable_folding = fold
        try:
            apply_patterns_and_fold_greedily(op, frozen, config)
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
