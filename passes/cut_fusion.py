"""hlograph-cut-fusion: identity custom calls cut fused chains deeper than a bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from ..xla.ffi import fusion_cut
from ..xla.mlir import ir
from ..xla.pjrt import FUSION_BOUNDARIES, FUSION_CUT_DEPTH, contraction_safe, excess_precision
from .registry import ModulePass, register

__all__ = ["CutFusionPass", "CutResult", "cut_fusion", "materialize"]


@register
@dataclass(frozen=True)
class CutFusionPass(ModulePass):
    """Cuts chains of fusible ops deeper than ``max-depth`` with identity custom calls.

    XLA fuses a chain of elementwise ops (and reshapes, broadcasts, slices,
    reductions, ...: every op but the fusion boundaries of
    ``xla.pjrt.FUSION_BOUNDARIES``: products, custom calls, control flow, ...)
    into one kernel, however long. Its elemental IR emitter recurses once per
    fused op and overflows a compiler thread's stack on chains of ~7500.

    The depth of an op is that of ``xla.pjrt.module_size``: one more than the
    deepest of its operands, 0 for a fusion boundary, through calls (XLA
    inlines them). Where an op reaches ``max-depth``, each of its results that
    ops other than terminators use goes through ``xla.ffi.fusion_cut`` (a
    custom call to jaxlib's ``dce_sink`` whose result is its operand's buffer:
    it computes nothing) and every use takes the cut's result, whose depth is
    0. A call's operands are cut first where its callee's chains would take
    them deeper. No other op (``stablehlo.optimization_barrier`` included,
    which XLA removes before it fuses) keeps XLA:CPU (jaxlib 0.10.2) from
    fusing across it at no cost.

    Results keep every bit, as far as XLA's code goes too: XLA:CPU contracts a
    multiply and the add that uses it into one fused multiply-add inside a
    kernel, so a multiply's value may not cross a new kernel boundary. Only
    values ``xla.pjrt.contraction_safe`` accepts (results of adds, subtracts,
    selects, ..., integers) are cut (a chain of other ops goes on deeper until
    one), and a value the safety rule rejects that has several users on both
    sides of a cut is put through a cut right where it is defined, so that no
    kernel multiplies it again (its users, in one kernel before, were several:
    nothing was contracted). Only statically shaped tensors are cut. A module
    in which XLA may keep excess precision (``xla.pjrt.excess_precision``:
    converts to narrower floats, 16-bit floats) is left alone: there, where a
    kernel ends decides where values are rounded.

    The custom call exists on XLA:CPU only: ``runtime.compile_plan`` applies the
    pass to the modules it compiles there when their chains are too deep for the
    elemental IR emitter and otherwise small (``xla.pjrt.fusion_cuts_wanted``);
    it is in no named pipeline, whose modules are those a user sees and
    serializes, for any platform.

    Options:
        max-depth: where chains are cut.
    """

    name: ClassVar[str] = "hlograph-cut-fusion"
    max_depth: int = FUSION_CUT_DEPTH
    """The depth at which a chain of fusible ops is cut (at its next safe value)."""

    def __post_init__(self) -> None:
        if self.max_depth < 1:
            raise ValueError(f"max-depth must be >= 1, got {self.max_depth}")

    def apply(self, module: ir.Module) -> None:
        cut_fusion(module, self.max_depth)


class CutResult(NamedTuple):
    """``cuts``: the custom calls added; ``depth``: the deepest chain after
    cutting, as ``xla.pjrt.module_size`` counts it (an upper bound)."""

    cuts: int
    depth: int


def cut_fusion(module: ir.Module, max_depth: int = FUSION_CUT_DEPTH) -> CutResult:
    """Cuts ``module`` in place as ``CutFusionPass`` does."""
    if max_depth < 1:
        raise ValueError(f"max-depth must be >= 1, got {max_depth}")
    with module.context, ir.Location.unknown():
        if excess_precision(module):
            return CutResult(0, _Cutter(module, max_depth, dry=True).run().depth)
        return _Cutter(module, max_depth).run()


def materialize(value: ir.Value) -> ir.Value:
    """Puts ``value`` (an op's result, a statically shaped tensor) through a
    ``fusion_cut`` built right after its op; every other use takes the cut's
    result, which is returned."""
    owner = value.owner.operation
    with ir.InsertionPoint.after(owner), owner.location:
        new = fusion_cut(value)
    value.replace_all_uses_except(new, new.owner.operation)
    return new


class _Cutter:
    def __init__(self, module: ir.Module, max_depth: int, dry: bool = False):
        self.module = module
        #: ``dry``: no cuts (the depth as it is)
        self.max_depth = 1 << 62 if dry else max_depth
        self.cuts = 0
        self.funcs: dict[str, ir.Operation] = {}
        self.callee_depth: dict[str, int] = {}

    def run(self) -> CutResult:
        body = self.module.body.operations
        for op in body:
            op = op.operation
            if "sym_name" in op.attributes:
                self.funcs[ir.StringAttr(op.attributes["sym_name"]).value] = op
        depth = 0
        for op in body:
            op = op.operation
            if op.name == "func.func":
                depth = max(depth, self.function_depth(ir.StringAttr(op.attributes["sym_name"]).value))
        return CutResult(self.cuts, depth)

    def function_depth(self, name: str) -> int:
        if name not in self.callee_depth:
            self.callee_depth[name] = 0  # a recursive call (not valid StableHLO) stops here
            func = self.funcs.get(name)
            self.callee_depth[name] = 0 if func is None else max(
                (self.block_depth(b) for r in func.regions for b in r.blocks), default=0)
        return self.callee_depth[name]

    def block_depth(self, block: ir.Block) -> int:
        """Cuts the chains of ``block`` (and of the regions inside it); returns the
        deepest chain left. Operands from enclosing blocks and block arguments
        count 0, as they are parameters of XLA's computations.

        ``seg`` numbers the kernels a cut separates: a value's is the highest of
        its operands', a cut's result one more than its operand's."""
        boundaries = FUSION_BOUNDARIES
        max_depth = self.max_depth
        depth: dict = {}
        seg: dict = {}
        op_seg: dict = {}
        deepest = 0
        cuts_before = self.cuts
        ops = [op.operation for op in block.operations]
        for i, op in enumerate(ops):
            regions = op.regions
            if len(regions):
                for region in regions:
                    for b in region.blocks:
                        deepest = max(deepest, self.block_depth(b))
            d = s = 0
            for v in op.operands:
                x = depth.get(v, 0)
                if x > d:
                    d = x
                x = seg.get(v, 0)
                if x > s:
                    s = x
            op_seg[op] = s
            results = op.results
            name = op.name
            if name in boundaries:
                if s:
                    for r in results:
                        seg[r] = s
                continue
            if name == "func.call":
                callee = self.function_depth(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
                if d > 0 and d + 1 + callee > max_depth:
                    # once XLA inlines the call, its callee's chains continue its operands'
                    seen = []
                    for v in op.operands:
                        if depth.get(v, 0) > 0 and v not in seen:
                            seen.append(v)
                    d = 0
                    for v in seen:
                        new = self.cut_before(v, op)
                        if new is None:
                            d = max(d, depth[v])
                        else:
                            seg[new] = seg.get(v, 0) + 1
                    s = max((seg.get(v, 0) for v in op.operands), default=0)
                    op_seg[op] = s
                d += callee
            d += 1
            if d >= max_depth and i + 1 < len(ops):
                for r in results:
                    new = self.cut_after(r, ops[i + 1])
                    if new is None:
                        depth[r] = d
                        seg[r] = s
                    else:
                        seg[new] = s + 1
            else:
                for r in results:
                    depth[r] = d
                    if s:
                        seg[r] = s
            if d > deepest:
                deepest = d
        if self.cuts > cuts_before:
            self.materialize_spanning(ops, block, seg, op_seg)
        return deepest

    def cut_after(self, value: ir.Value, next_op: ir.Operation) -> ir.Value | None:
        """Puts ``value`` through a cut built before ``next_op`` and returns the cut's
        result, which every use takes; None: not cut (not safe, a type
        ``fusion_cut`` does not take, or no use but terminators and fusion
        boundaries, where a chain ends anyway)."""
        if not _cuttable(value) or not _used_in_chains(value) or not contraction_safe(value):
            return None
        with ir.InsertionPoint(next_op), value.owner.location:
            new = fusion_cut(value)
        value.replace_all_uses_except(new, new.owner.operation)
        self.cuts += 1
        return new

    def cut_before(self, value: ir.Value, user: ir.Operation) -> ir.Value | None:
        """Puts ``value`` through a cut built right before ``user``, for ``user``'s
        uses only (other users keep ``value``); None: not cut."""
        if not _cuttable(value) or not contraction_safe(value):
            return None
        with ir.InsertionPoint(user), user.location:
            new = fusion_cut(value)
        user.replace_uses_of_with(value, new)
        self.cuts += 1
        return new

    def materialize_spanning(self, ops, block: ir.Block, seg: dict, op_seg: dict) -> None:
        """Cuts, where they are defined, the unsafe values of ``block`` with several
        users (terminators aside) of which some are on the other side of a cut."""
        for op in ops:
            if op.name in FUSION_BOUNDARIES:
                continue
            for r in op.results:
                if not _cuttable(r) or contraction_safe(r):
                    continue
                own = seg.get(r, 0)
                users = 0
                spans = False
                for use in r.uses:
                    user = use.owner.operation
                    if user.name in _TERMINATORS:
                        continue
                    users += 1
                    top = _top_level(user, block)
                    if top is not None and op_seg.get(top, own) != own:
                        spans = True
                if spans and users > 1:
                    materialize(r)
                    self.cuts += 1


def _top_level(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The ancestor of ``op`` (or ``op``) in ``block``; None if there is none."""
    while op.block != block:
        parent = op.parent
        if parent is None:
            return None
        op = parent.operation
    return op


def _cuttable(value: ir.Value) -> bool:
    t = value.type
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


_TERMINATORS = frozenset(("func.return", "stablehlo.return"))


def _used_in_chains(value: ir.Value) -> bool:
    """Whether ``value`` has a use other than by a terminator or a fusion boundary
    (both take their operands from memory anyway)."""
    for use in value.uses:
        name = use.owner.operation.name
        if name not in _TERMINATORS and name not in FUSION_BOUNDARIES:
            return True
    return False
