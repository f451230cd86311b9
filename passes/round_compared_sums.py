"""hlograph-round-compared-sums: products summed into a compared value are rounded first.

XLA:CPU contracts a multiply and the add (or subtract) that uses it into one fused
multiply-add inside a kernel: the product is not rounded before it is added. NumPy
(hlograph's reference semantics) rounds it. Both round to within an ulp of each
other, which no tolerance notices, except where a comparison decides on the value:
``x*x - 2*x*x + x*x`` is exactly 0 in NumPy and a tiny negative number with FMA, so
``clip``'s gradient mask ``d >= 0`` (a Gaussian process's squared distances on the
diagonal), ``where(d > 0, ...)`` or ``d == 0`` take the other branch.

For each ``stablehlo.compare`` of floating-point (or complex) values, the pass walks
each operand back through the sums that make it (``add``, ``subtract``, reductions
that sum a tensor, through ops that move or re-type elements,
``_CONTRACTION_TRANSPARENT_OPS``, and fusion cuts) and puts every
product such a sum adds (``multiply``, ``dot_general``, ``dot``: a dot with a small
contracting dim becomes a multiply) through ``xla.ffi.fusion_cut``, an identity XLA
cannot fuse across: the product is rounded to its type in memory, and the sum is
NumPy's. A module in which XLA may keep excess precision
(``xla.pjrt.excess_precision``) is left alone.

The custom call exists on XLA:CPU only: ``runtime.compile_plan`` applies the pass to
the modules it compiles there; it is in no named pipeline (their modules are those a
user sees and serializes, for any platform).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.ffi import is_fusion_cut
from ..xla.mlir import ir
from ..xla.pjrt import _CONTRACTION_TRANSPARENT_OPS, excess_precision
from .cut_fusion import _cuttable, materialize
from .registry import ModulePass, register

__all__ = ["RoundComparedSumsPass", "round_compared_sums", "PRODUCTS", "REDUCTIONS", "SUMS"]

#: ops whose result a fused multiply-add would take unrounded
PRODUCTS = frozenset(("stablehlo.multiply", "stablehlo.dot_general", "stablehlo.dot"))
#: ops whose operands the walk follows (a sum of sums of products)
SUMS = frozenset(("stablehlo.add", "stablehlo.subtract"))
#: reductions the walk follows when they sum one tensor (an ``add`` body)
REDUCTIONS = frozenset(("stablehlo.reduce", "stablehlo.reduce_window"))
#: values one comparison's walk looks at, at most
_BUDGET = 64


@register
@dataclass(frozen=True)
class RoundComparedSumsPass(ModulePass):
    """Rounds the products that sums compared by ``stablehlo.compare`` add (XLA:CPU only)."""

    name: ClassVar[str] = "hlograph-round-compared-sums"

    def apply(self, module: ir.Module) -> None:
        round_compared_sums(module)


def round_compared_sums(module: ir.Module) -> int:
    """Rounds ``module``'s compared sums in place as ``RoundComparedSumsPass`` does;
    the number of products put through a cut."""
    with module.context, ir.Location.unknown():
        if excess_precision(module):
            return 0
        compares = []
        _collect(module.operation, compares)
        cut: set = set()
        for op in compares:
            for operand in op.operands:
                if _is_float(operand):
                    _round_products(operand, cut)
        return len(cut)


def _collect(op: ir.Operation, found: list) -> None:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == "stablehlo.compare":
                    found.append(inner)
                elif inner.regions:
                    _collect(inner, found)


def _is_float(value: ir.Value) -> bool:
    t = value.type
    return isinstance(t, ir.ShapedType) and isinstance(t.element_type, (ir.FloatType, ir.ComplexType))


def _producer(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _adds(op: ir.Operation) -> bool:
    """Whether ``op`` (a reduction) sums one tensor: one input, a body that adds."""
    if len(op.operands) != 2 or len(op.regions) != 1:
        return False
    body = [inner.operation.name for inner in op.regions[0].blocks[0].operations]
    return body == ["stablehlo.add", "stablehlo.return"]


def _round_products(value: ir.Value, cut: set) -> None:
    """Cuts each product that the sums making ``value`` add (one that reaches them
    through a cut is rounded already)."""
    # (value, whether a sum adds it, whether a cut rounded it, whether it is a factor
    # of a product the walk met: there only divisions are looked for)
    stack, seen = [(value, False, False, False)], set()
    while stack and len(seen) < _BUDGET:
        v, in_sum, rounded, factor = stack.pop()
        op = _producer(v)
        if op is None or op in seen:
            continue
        seen.add(op)
        name = op.name
        if name in PRODUCTS:
            if in_sum and not rounded and op not in cut and _cuttable(v) and _is_float(v):
                cut.add(op)
                materialize(v)
            stack.extend((u, False, False, True) for u in op.operands)
        elif name == "stablehlo.divide":
            _divide_exactly(op, cut)
            stack.extend((u, False, False, True) for u in op.operands)
        elif factor:
            if name in _CONTRACTION_TRANSPARENT_OPS:
                stack.append((op.operands[0], False, False, True))
        elif name in SUMS:
            stack.extend((u, True, False, False) for u in op.operands)
        elif name in REDUCTIONS and _adds(op):
            # a sum of a tensor's elements: each is added (XLA also turns a sum over
            # dims of size 1 into the element itself, which the consumer's add takes)
            stack.append((op.operands[0], True, False, False))
        elif is_fusion_cut(op):
            # (through the cuts ``hlograph-cut-fusion`` makes: a module it cut has the
            # same products rounded as before)
            stack.append((op.operands[0], in_sum, True, False))
        elif name in _CONTRACTION_TRANSPARENT_OPS:
            stack.append((op.operands[0], in_sum, rounded, False))


def _divide_exactly(op: ir.Operation, cut: set) -> None:
    """XLA's algebraic simplifier turns ``a / broadcast(b)`` into ``a * broadcast(1 / b)``,
    which is off by an ulp where NumPy's quotient is exact (``x / ls`` in a squared
    distance that cancels to 0): the divisor's broadcast goes through a cut, which the
    simplifier does not see through."""
    divisor = op.operands[1]
    owner = _producer(divisor)
    if (owner is not None and owner.name == "stablehlo.broadcast_in_dim" and owner not in cut
            and _is_float(divisor) and _cuttable(divisor)):
        cut.add(owner)
        materialize(divisor)
