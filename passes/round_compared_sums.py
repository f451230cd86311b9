"""hlograph-round-compared-sums: products summed into a compared value are rounded first.

XLA:CPU contracts a multiply and the add (or subtract) that uses it into one fused
multiply-add inside a kernel: the product is not rounded before it is added. NumPy
(hlograph's reference semantics) rounds it. Both round to within an ulp of each
other, which no tolerance notices, except where a comparison decides on the value:
``x*x - 2*x*x + x*x`` is exactly 0 in NumPy and a tiny negative number with FMA, so
``clip``'s gradient mask ``d >= 0`` (a Gaussian process's squared distances on the
diagonal), ``where(d > 0, ...)`` or ``d == 0`` take the other branch.

For each ``stablehlo.compare`` of floating-point (or complex) values, the pass walks
each operand back through the sums that make it (``add``, ``subtract``, through ops
that move or re-type elements, ``_CONTRACTION_TRANSPARENT_OPS``, and fusion cuts) and
puts every
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

__all__ = ["RoundComparedSumsPass", "round_compared_sums", "PRODUCTS", "SUMS"]

#: ops whose result a fused multiply-add would take unrounded
PRODUCTS = frozenset(("stablehlo.multiply", "stablehlo.dot_general", "stablehlo.dot"))
#: ops whose operands the walk follows (a sum of sums of products)
SUMS = frozenset(("stablehlo.add", "stablehlo.subtract"))
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


def _round_products(value: ir.Value, cut: set) -> None:
    """Cuts each product that the sums making ``value`` add (one that reaches them
    through a cut is rounded already)."""
    stack, seen = [(value, False, False)], set()
    while stack and len(seen) < _BUDGET:
        v, in_sum, rounded = stack.pop()
        op = _producer(v)
        if op is None or op in seen:
            continue
        seen.add(op)
        name = op.name
        if name in PRODUCTS:
            if in_sum and not rounded and op not in cut and _cuttable(v) and _is_float(v):
                cut.add(op)
                materialize(v)
        elif name in SUMS:
            stack.extend((u, True, False) for u in op.operands)
        elif is_fusion_cut(op):
            # (through the cuts ``hlograph-cut-fusion`` makes: a module it cut has the
            # same products rounded as before)
            stack.append((op.operands[0], in_sum, True))
        elif name in _CONTRACTION_TRANSPARENT_OPS:
            stack.append((op.operands[0], in_sum, rounded))
