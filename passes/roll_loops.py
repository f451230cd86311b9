"""hlograph-roll-loops: runs of repeated ops become ``stablehlo.while`` loops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from ..xla.mlir import dot_shape, hlo, ir
from ..xla.pjrt import LOOP_ROLL_BODY_OPS, LOOP_ROLL_DOT_WORK, LOOP_ROLL_MIN_OPS, contraction_safe, excess_precision
from .cut_fusion import materialize
from .registry import ModulePass, register

__all__ = ["RollLoopsPass", "roll_loops"]

#: ops never rolled: side effects, tokens, collectives, symbols, constants (CSE
#: leaves one of each anyway) and the cuts of ``hlograph-cut-fusion``
_NOT_ROLLED = frozenset("stablehlo." + name for name in (
    "constant", "custom_call", "rng", "rng_bit_generator", "infeed", "outfeed", "send", "recv",
    "after_all", "create_token", "all_reduce", "all_gather", "all_to_all", "reduce_scatter",
    "collective_permute", "collective_broadcast", "partition_id", "replica_id",
    "optimization_barrier", "composite",
)) | {"func.call", "func.return", "stablehlo.return"}

#: candidate runs checked per search before giving up on a function
_MAX_CHECKS = 16


@register
@dataclass(frozen=True)
class RollLoopsPass(ModulePass):
    """Rolls runs of the same ops repeated in a function into ``stablehlo.while`` loops.

    Traced code unrolls its loops: ``for i in range(n): v = f(v, w)`` leaves
    ``n`` copies of ``f``'s ops, and XLA's compile time grows with every one
    (a chain of 10k sin/cos/add ops on float32[8]: 1.7-2.5 s) while a loop of
    the same ops compiles once (0.1-0.2 s) and runs as fast.

    A run is ``R`` repetitions of a sequence of ``p`` ops of a function's body
    (no ops with regions, side effects or constants) in which every op of
    repetition ``r`` is its counterpart of repetition 0 (same name, attributes
    and types) and takes, operand by operand, the same: a value of its own
    repetition from the same place, a value of repetition ``r - 1`` from the
    same place (the loop carries it; repetition 0 takes one value from before
    the run there), or the same value from before the run (an invariant);
    values of every repetition but the last are used inside the run only.
    Runs of at least ``min-ops`` ops are rolled, the longest first: ``K``
    repetitions (about ``body-ops`` ops; one, when a repetition's matrix
    products do ``xla.pjrt.LOOP_ROLL_DOT_WORK`` or more) are one iteration,
    run ``R // K`` times, and the repetitions left over stay after the loop,
    which feeds them.

    Exact, as far as XLA's code goes too: XLA:CPU contracts a multiply and the
    add that uses it into one fused multiply-add inside a kernel, so values
    that the loop carries or takes must be ``xla.pjrt.contraction_safe`` (a
    run that would carry another value is not rolled), except invariants used
    several times: those go through ``hlograph-cut-fusion``'s identity custom
    call (``xla.ffi.fusion_cut``, XLA:CPU only) where they are defined, so no
    kernel multiplies them again. A module in which XLA may keep excess
    precision (``xla.pjrt.excess_precision``: converts to narrower floats,
    16-bit floats) is left alone: there, where a kernel ends decides where
    values are rounded.

    ``runtime.compile_plan`` applies the pass to the big modules it compiles on
    XLA:CPU (``xla.pjrt.LOOP_ROLL_MIN_OPS``); it is in no named pipeline, whose
    modules are those a user sees and serializes, for any platform.

    Options:
        min-ops: the fewest ops a run must have to be rolled.
        body-ops: about how many ops one iteration runs (whole repetitions).
        max-period: the longest repeated sequence looked for, in ops.
    """

    name: ClassVar[str] = "hlograph-roll-loops"
    min_ops: int = LOOP_ROLL_MIN_OPS
    """The fewest ops a run must have to be rolled."""
    body_ops: int = LOOP_ROLL_BODY_OPS
    """About how many ops one iteration runs (whole repetitions, at least one)."""
    max_period: int = 1000
    """The longest repeated sequence looked for, in ops."""

    def __post_init__(self) -> None:
        if self.min_ops < 2 or self.body_ops < 1 or self.max_period < 1:
            raise ValueError(f"min-ops must be >= 2, body-ops and max-period >= 1, got min-ops={self.min_ops}, "
                             f"body-ops={self.body_ops}, max-period={self.max_period}")

    def apply(self, module: ir.Module) -> None:
        roll_loops(module, self.min_ops, self.body_ops, self.max_period)


class Rolled(NamedTuple):
    """One rolled run: ``period`` ops repeated ``repetitions`` times from op
    ``start`` of the function's body (as it was then), ``per_iteration``
    repetitions per iteration of a loop of ``trips`` iterations."""

    function: str
    start: int
    period: int
    repetitions: int
    per_iteration: int
    trips: int


def roll_loops(module: ir.Module, min_ops: int = LOOP_ROLL_MIN_OPS, body_ops: int = LOOP_ROLL_BODY_OPS,
               max_period: int = 1000, max_loops: int = 8) -> list[Rolled]:
    """Rolls ``module`` in place as ``RollLoopsPass`` does (at most ``max_loops``
    runs per function); returns what it rolled."""
    rolled: list[Rolled] = []
    with module.context, ir.Location.unknown():
        if excess_precision(module):
            return rolled
        for f in list(module.body.operations):
            f = f.operation
            if f.name != "func.func" or len(f.regions[0].blocks) != 1:
                continue
            name = ir.StringAttr(f.attributes["sym_name"]).value
            for _ in range(max_loops):
                done = _roll_one(f.regions[0].blocks[0], min_ops, body_ops, max_period)
                if done is None:
                    break
                rolled.append(Rolled(name, *done))
    return rolled


# --- finding runs ----------------------------------------------------------------------

def _scan(ops) -> tuple[np.ndarray, dict]:
    """An id per op, equal for ops that may be counterparts (name, result types,
    attributes), -1-i for op i (never equal to another) when it cannot be
    rolled; and where each result is, ``(op index, result number)`` by value."""
    ids = np.empty(len(ops), np.int64)
    vpos: dict = {}
    known: dict = {}
    static: dict = {}  # result types -> all statically shaped tensors
    ranked = ir.RankedTensorType
    for i, op in enumerate(ops):
        results = op.results
        n = len(results)
        if n == 1:
            r = results[0]
            vpos[r] = (i, 0)
            types = (r.type,)
        else:
            types = []
            for k in range(n):
                r = results[k]
                vpos[r] = (i, k)
                types.append(r.type)
            types = tuple(types)
        name = op.name
        if name in _NOT_ROLLED or len(op.regions):
            ids[i] = -1 - i
            continue
        ok = static.get(types)
        if ok is None:
            ok = static[types] = all(isinstance(t, ranked) and t.has_static_shape for t in types)
        if not ok:
            ids[i] = -1 - i
            continue
        attrs = op.attributes
        n_attrs = len(attrs)
        key = (name, types, tuple(str(attrs[j]) for j in range(n_attrs)) if n_attrs else ())
        ids[i] = known.setdefault(key, len(known))
    return ids, vpos


def _candidates(ids: np.ndarray, min_ops: int, max_period: int) -> list[tuple[int, int, int, int]]:
    """(ops covered, period, start, repetitions) of every maximal periodic stretch
    of at least ``min_ops`` ops and two repetitions, the most ops first."""
    m = len(ids)
    found = []
    valid = ids >= 0
    covered: list[tuple[int, int]] = []  # (period, most ops one of its stretches covers)
    for p in range(1, min(max_period, m // 2) + 1):
        eq = (ids[:-p] == ids[p:]) & valid[:-p]
        total = int(eq.sum())
        if total + p < min_ops or any(p % q == 0 and c >= total for q, c in covered):
            continue  # (a multiple of a period repeats what that period does)
        edges = np.diff(np.concatenate(([0], eq.view(np.int8), [0])))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        best = 0
        for a, e in zip(starts, ends):
            reps = (e - a + p) // p
            if reps >= 2 and reps * p >= min_ops:
                found.append((int(reps * p), p, int(a), int(reps)))
                best = max(best, int(e - a))
        if best:
            covered.append((p, best))
    found.sort(key=lambda c: (-c[0], c[1], c[2]))
    return found


class _Plan(NamedTuple):
    start: int
    period: int
    reps: int
    #: per op of a repetition, per operand: ("in", j, k), ("prev", slot) or ("inv", index)
    operands: list
    #: the carried values: (place j, result k) in a repetition, and their values before the run
    slots: list
    inits: list
    invariants: list
    #: the places (j, k) of the last repetition's values used after the run
    external: set


def _check(ops, vpos: dict, a: int, p: int, reps: int) -> _Plan | None:
    end = a + reps * p

    def classify(v, r):
        where = vpos.get(v)
        if where is None or where[0] < a:
            return ("out", v)
        rr, j = divmod(where[0] - a, p)
        if rr == r:
            return ("in", j, where[1])
        if rr == r - 1:
            return ("prev", j, where[1])
        return None

    slots: dict = {}
    inits: list = []
    invariants: dict = {}
    plan_operands = []
    # what repetitions 2, 3, ... must take, per (place, operand): the op index
    # relative to their own start and the result number, or an outer value
    expect: list = [[] for _ in range(p)]
    for j in range(p):
        first, second = list(ops[a + j].operands), list(ops[a + p + j].operands)
        got = []
        for k in range(len(first)):
            c0, c1 = classify(first[k], 0), classify(second[k], 1)
            if c0 is None or c1 is None:
                return None
            if c0[0] == "in":
                if c1 != c0:
                    return None
                got.append(c0)
                expect[j].append((k, c0[1], c0[2], None))
            elif c1[0] == "out":
                if c1[1] != c0[1]:
                    return None
                got.append(("inv", invariants.setdefault(c0[1], len(invariants))))
                expect[j].append((k, None, None, c1[1]))
            elif c1[0] == "prev":
                slot = (c1[1], c1[2])
                if slot in slots:
                    if inits[slots[slot]] != c0[1]:
                        return None
                else:
                    slots[slot] = len(inits)
                    inits.append(c0[1])
                got.append(("prev", slots[slot]))
                expect[j].append((k, c1[1] - p, c1[2], None))
            else:
                return None
        plan_operands.append(got)
    for r in range(2, reps):
        base = a + r * p
        for j in range(p):
            operands = list(ops[base + j].operands)
            for k, rel, res, outer in expect[j]:
                v = operands[k]
                where = vpos.get(v)
                if outer is not None:
                    if (where is not None and where[0] >= a) or v != outer:
                        return None
                elif where != (base + rel, res):
                    return None
    # values of every repetition but the last are used inside the run only: ops
    # before it cannot use them, those inside take what ``classify`` allowed
    last = a + (reps - 1) * p
    external = set()
    ok = True

    def after(op):
        nonlocal ok
        for v in op.operands:
            where = vpos.get(v)
            if where is not None and a <= where[0] < end:
                if where[0] < last:
                    ok = False
                external.add((where[0] - last, where[1]))
        return ir.WalkResult.ADVANCE

    for op in ops[end:]:
        if len(op.regions):
            op.walk(after)
        else:
            after(op)
        if not ok:
            return None
    slot_list = sorted(slots, key=slots.get)
    # what crosses the loop's boundary must keep its bits (no FMA lost)
    for (j, k), init in zip(slot_list, inits):
        value = ops[a + j].results[k]
        if value.type != init.type or not contraction_safe(value):
            return None
    if not all(contraction_safe(v) for v in inits):
        return None
    inv_list = sorted(invariants, key=invariants.get)
    for v in inv_list:  # an unsafe one is cut where it is defined (``_rewrite``)
        if not contraction_safe(v) and not (isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape):
            return None
    return _Plan(a, p, reps, plan_operands, slot_list, inits, inv_list, external)


def _roll_one(block: ir.Block, min_ops: int, body_ops: int, max_period: int):
    ops = [op.operation for op in block.operations]
    if len(ops) < min_ops:
        return None
    ids, vpos = _scan(ops)
    checks = 0
    tried = set()
    for covered, p, a, reps in _candidates(ids, min_ops, max_period):
        # where a repetition starts: first where the op before it (the last of a
        # repetition, whose value the loop likely carries) is safe to carry
        end = a + reps * p
        phases = sorted(range(min(p, 64)), key=lambda t: (not contraction_safe(ops[a + t + p - 1].results[0])
                                                          if len(ops[a + t + p - 1].results) else True, t))
        for t in phases:
            start = a + t
            n = (end - start) // p
            if n < 2 or n * p < min_ops or (start, p, n) in tried:
                continue
            tried.add((start, p, n))
            checks += 1
            plan = _check(ops, vpos, start, p, n)
            if plan is not None:
                layout = _layout(plan, body_ops, _dot_work(ops[start:start + p]))
                if layout is not None:
                    _rewrite(ops, plan, *layout)
                    return (int(start), int(p), int(n), *(int(x) for x in layout))
            if checks >= _MAX_CHECKS:
                return None
    return None


def _dot_work(ops) -> int:
    """The work (batch * m * n * k) of the matrix products among ``ops``."""
    shapes = [dot_shape(op) for op in ops]
    return sum(s.work for s in shapes if s is not None)


def _layout(plan: _Plan, body_ops: int, dot_work: int = 0) -> tuple[int, int] | None:
    """(repetitions per iteration, iterations), or None when a loop would not pay;
    one repetition an iteration when its products do ``LOOP_ROLL_DOT_WORK`` or more."""
    reps, p = plan.reps, plan.period
    per = 1 if dot_work >= LOOP_ROLL_DOT_WORK else max(1, min(body_ops // p, reps // 2))
    trips = reps // per
    left = reps - trips * per
    carried = set(plan.slots)
    if left == 0 and not plan.external <= carried:
        trips -= 1  # the last repetition stays after the loop: its values are used there
    if trips < 2:
        return None
    return per, trips


# --- rewriting -------------------------------------------------------------------------

def _rewrite(ops, plan: _Plan, per: int, trips: int) -> None:
    a, p, reps = plan.start, plan.period, plan.reps
    looped = trips * per  # repetitions 0 .. looped - 1 run in the loop
    invariants = [v if contraction_safe(v) else materialize(v) for v in plan.invariants]
    after = ops[a + looped * p]  # the first op left after the loop (a repetition's or the run's next)
    i32 = ir.IntegerType.get_signless(32)
    scalar = ir.RankedTensorType.get([], i32)
    with ir.InsertionPoint(after), after.location:
        zero = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(0, np.int32), type=scalar)).result
        carry = [zero, *plan.inits, *invariants]
        types = [v.type for v in carry]
        loop = hlo.WhileOp(types, carry)
        cond = loop.cond.blocks.append(*types)
        with ir.InsertionPoint(cond):
            bound = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(trips, np.int32), type=scalar)).result
            hlo.return_([hlo.compare(cond.arguments[0], bound,
                                     hlo.ComparisonDirectionAttr.get("LT"),
                                     compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))])
        body = loop.body.blocks.append(*types)
        n_slots = len(plan.slots)
        with ir.InsertionPoint(body):
            args = list(body.arguments)
            prev = args[1: 1 + n_slots]
            inv = args[1 + n_slots:]
            for _ in range(per):
                cur: dict = {}
                for j in range(p):
                    new = ops[a + j].clone()
                    for k, how in enumerate(plan.operands[j]):
                        if how[0] == "in":
                            new.operands[k] = cur[(how[1], how[2])]
                        elif how[0] == "prev":
                            new.operands[k] = prev[how[1]]
                        else:
                            new.operands[k] = inv[how[1]]
                    for k, r in enumerate(new.results):
                        cur[(j, k)] = r
                prev = [cur[slot] for slot in plan.slots]
            one = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(1, np.int32), type=scalar)).result
            hlo.return_([hlo.add(args[0], one), *prev, *inv])
    results = list(loop.results)
    last = a + (looped - 1) * p
    for s, (j, k) in enumerate(plan.slots):
        ops[last + j].results[k].replace_all_uses_with(results[1 + s])
    for op in reversed(ops[a: a + looped * p]):
        op.erase()
