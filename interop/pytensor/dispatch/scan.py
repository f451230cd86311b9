"""Loops: PyTensor's ``Scan`` (``pytensor.scan``) on hlograph's ``Scan`` Op, and
``ScalarLoop`` (``pytensor.scalar.loop``, inside an ``Elemwise``) on its while loop.

A ``Scan`` node's inner FunctionGraph, rewritten with the HLOGRAPH mode's rewrites
(once, in place, as the JAX and Numba backends do), is converted recursively into
the step graph of one hlograph ``Scan`` (``n_steps`` must be static: it is once the graph is
specialized to the argument shapes, when it is a length). As PyTensor's JAX backend
does, the buffers PyTensor allocates for recurrent outputs are not used as storage:

- sequences: their first ``n_steps`` rows;
- MIT-MOT (the outputs of gradient scans, read and written at several taps): the
  whole buffer is carried, with a step counter; step ``i`` reads ``buffer[i + tap]``
  and writes ``buffer[i + out tap]``; the output is the final buffer;
- MIT-SOT (several past values): a window of the last ``-min(taps)`` values is
  carried, the new values are stacked;
- SIT-SOT (the previous value): carried and stacked;
- NIT-SOT (no recurrence): stacked;
- untraced SIT-SOT (shared variables updated by the loop): carried, final value.

The traces come back as long as PyTensor's buffers: the last rows when PyTensor
keeps only the last few (its memory-saving rewrite), with the initial values in
front when it keeps them. A ``Scan`` that runs ``while`` a condition holds becomes a
``while_loop`` over a step counter (at most ``n_steps`` steps; the step whose condition
is true is the last one, and it is kept): its traces are carried in buffers of
``n_steps`` rows, and each PyTensor output buffer is cut from them as PyTensor's
perform leaves it (the last rows when the buffer is shorter than the steps run, else
the rows written when the loop stopped early: a length known only at run time, cut
on the host). A ``Scan`` whose buffers or step count are known only at run time
runs its PyTensor perform on the host instead. Random generators the loop updates (a random walk drawing from a shared
generator) are untraced states: keys, as everywhere (``dispatch/random.py``).
"""

from __future__ import annotations

import numpy as np
from pytensor.scan.op import Scan as PtScan

from ....frontend import builders as hb
from ....frontend.graph import Constant, Variable, subgraph
from ....frontend.ops.control import Scan as HgScan
from ....frontend.ops.control import WhileLoop, _capture
from ....frontend.types import TensorType
from ..convert import NotConvertible, NotStatic, cast, hlograph_convert, input_type
from .scalar import register_scalar

__all__ = ["convert_scan"]


def _conform_state(x: Variable, t: TensorType) -> Variable:
    """A step output with exactly the type ``t`` of the state it feeds back."""
    x = cast(x, t.dtype)
    if x.ndim != t.ndim:
        raise NotConvertible(f"a recurrent output of type {x.type} feeds back a state of type {t}")
    if x.shape != t.shape:
        for a, b in zip(x.shape, t.shape):
            if a is not None and b is not None and a != b:
                raise NotConvertible(f"a recurrent output of type {x.type} feeds back a state of type {t}")
        if None in t.shape:
            raise NotStatic("the shape of a loop state is known only at run time")
        x = hb.specify_shape(x, t.shape)
    return x


def _static_len(ctx, x: Variable, what: str) -> int:
    n = x.shape[0] if isinstance(x, Variable) and x.ndim else None
    if n is None:
        ctx.mark_shape_dependent()
        raise NotStatic(f"the length of {what} is known only at run time")
    return int(n)


def _trace(stacked: Variable, n: int, init: Variable | None, length: int) -> Variable:
    """The ``length`` rows of a PyTensor output buffer from the ``n`` stacked values and
    the initial rows ``init`` (None for an output without them)."""
    if length == n:
        return stacked
    if length < n:
        return hb.getitem(stacked, slice(n - length, None))
    need = length - n
    if init is None or need > init.shape[0]:
        raise NotConvertible(f"an output buffer of {length} rows for {n} steps")
    head = hb.getitem(init, slice(init.shape[0] - need, None))
    return hb.concatenate([head, stacked], 0) if n else head


def _rewrite_inner(op) -> None:
    """Runs the HLOGRAPH mode's rewrites on the inner graph of ``op`` (in place, once), as
    PyTensor's JAX and Numba backends do: scan builds it unoptimized."""
    if getattr(op, "_hlograph_rewritten", False):
        return
    from pytensor.compile.mode import optdb
    from ..linker import HLOGRAPH_REWRITES
    optdb.query(HLOGRAPH_REWRITES).rewrite(op.fgraph)
    op._hlograph_rewritten = True


@hlograph_convert.register(PtScan)
def convert_scan(op, node, inputs, ctx):
    """One hlograph ``Scan`` whose step is the converted inner graph (see the module
    docstring)."""
    info = op.info
    _rewrite_inner(op)
    for v in (*node.inputs, *op.fgraph.inputs, *op.fgraph.outputs):
        if input_type(v.type) is None:
            raise NotConvertible(f"the loop carries a value of PyTensor type {v.type}")
    n = ctx.require_int(inputs[0], "the number of steps")
    if n < 0:
        raise NotConvertible(f"a negative number of steps ({n})")
    if info.as_while:
        return _convert_while_scan(op, node, inputs, ctx, n)
    outer = list(inputs)
    seqs = [hb.getitem(s, slice(0, n)) for s in op.outer_seqs(outer)]
    for s in seqs:
        if _static_len(ctx, s, "a sequence") < n:
            raise NotConvertible("a sequence shorter than the number of steps")
    mm_bufs = list(op.outer_mitmot(outer))
    ms_bufs = list(op.outer_mitsot(outer))
    ss_bufs = list(op.outer_sitsot(outer))
    untraced = list(op.outer_untraced_sit_sot(outer))
    nit_sizes = [ctx.require_int(s, "the length of an output") for s in op.outer_nitsot(outer)]
    non_seqs = list(op.outer_non_seqs(outer))
    for b in (*mm_bufs, *ms_bufs, *ss_bufs):
        _static_len(ctx, b, "an output buffer")

    ms_windows = [hb.getitem(b, slice(0, -min(taps))) for b, taps in zip(ms_bufs, info.mit_sot_in_slices)]
    ss_inits = [hb.getitem(b, 0) for b in ss_bufs]
    counter0 = Constant(np.asarray(0, dtype=np.int64))
    has_mm = bool(mm_bufs)
    inits = ([counter0] if has_mm else []) + mm_bufs + ms_windows + ss_inits + untraced

    # placeholders of the step: [*sequence rows, *states, *non-sequences]
    seq_ph = [Variable(TensorType(s.dtype, s.shape[1:]), name=f"seq{i}") for i, s in enumerate(seqs)]
    state_ph = [Variable(v.type, name=f"state{i}") for i, v in enumerate(inits)]
    ns_ph = [Variable(v.type, name=f"non_seq{i}") for i, v in enumerate(non_seqs)]
    it = iter(state_ph)
    counter = next(it) if has_mm else None
    mm_ph = [next(it) for _ in mm_bufs]
    ms_ph = [next(it) for _ in ms_bufs]
    ss_ph = [next(it) for _ in ss_bufs]
    un_ph = [next(it) for _ in untraced]

    inner_args = list(seq_ph)
    for b, taps in zip(mm_ph, info.normalized_mit_mot_in_slices):
        inner_args += [hb.getitem(b, hb.add(counter, np.int64(t))) for t in taps]
    for w, taps in zip(ms_ph, info.mit_sot_in_slices):
        inner_args += [hb.getitem(w, t - min(taps)) for t in taps]
    inner_args += [*ss_ph, *un_ph, *ns_ph]
    fg = op.fgraph
    if len(inner_args) != len(fg.inputs):
        raise NotConvertible(f"the inner graph takes {len(fg.inputs)} inputs, the loop gives {len(inner_args)}")
    outs = ctx.convert_inner(fg.inputs, fg.outputs, inner_args)
    outs = [o if isinstance(o, Variable) else Constant(np.asarray(o, dtype=v.type.dtype))
            for o, v in zip(outs, fg.outputs)]

    # the step's outputs: [counter, MIT-MOT buffers, MIT-SOT windows] (carried), MIT-SOT
    # values (stacked), SIT-SOT values (carried and stacked), NIT-SOT values (stacked),
    # untraced values (carried)
    mm_vals = op.inner_mitmot_outs_grouped(outs)
    ms_vals = [cast(v, w.dtype) for v, w in zip(op.inner_mitsot_outs(outs), ms_ph)]
    ss_vals = [_conform_state(v, p.type) for v, p in zip(op.inner_sitsot_outs(outs), ss_ph)]
    nit_vals = list(op.inner_nitsot_outs(outs))
    un_vals = [_conform_state(v, p.type) for v, p in zip(op.inner_untraced_sit_sot_outs(outs), un_ph)]
    new_mm = []
    for b, vals, taps in zip(mm_ph, mm_vals, info.normalized_mit_mot_out_slices):
        for v, t in zip(vals, taps):
            b = hb.at(b)[hb.add(counter, np.int64(t))].set(cast(v, b.dtype))
        new_mm.append(_conform_state(b, b.type))
    new_ms = []
    for w, v, taps in zip(ms_ph, ms_vals, info.mit_sot_in_slices):
        row = hb.expand_dims(_conform_state(v, TensorType(w.dtype, w.shape[1:])), 0)
        new_ms.append(row if -min(taps) == 1 else hb.concatenate([hb.getitem(w, slice(1, None)), row], 0))
    step_outs = ([hb.add(counter, np.int64(1))] if has_mm else []) + new_mm + new_ms + ms_vals + ss_vals \
        + nit_vals + un_vals
    n_carry_head = int(has_mm) + len(new_mm) + len(new_ms)
    recurrent = [True] * n_carry_head + [False] * len(ms_vals) + [True] * len(ss_vals) \
        + [False] * len(nit_vals) + [True] * len(un_vals)
    stacked = [False] * n_carry_head + [True] * (len(ms_vals) + len(ss_vals) + len(nit_vals)) \
        + [False] * len(un_vals)
    ph = [*seq_ph, *state_ph, *ns_ph]
    free = _capture(ph, step_outs)
    step = subgraph([*ph, *free], step_outs)
    loop = HgScan(step, n, len(seqs), recurrent, stacked).make_node(*seqs, *inits, *non_seqs, *free)
    res = iter(loop.outputs)
    if has_mm:
        next(res)
    final_mm = [next(res) for _ in mm_bufs]
    for _ in ms_bufs:
        next(res)
    ms_stacked = [next(res) for _ in ms_bufs]
    ss_stacked = [next(res) for _ in ss_bufs]
    nit_stacked = [next(res) for _ in nit_sizes]
    final_un = [next(res) for _ in untraced]

    results = list(final_mm)
    for s, w, b in zip(ms_stacked, ms_windows, ms_bufs):
        results.append(_trace(s, n, w, b.shape[0]))
    for s, init, b in zip(ss_stacked, ss_inits, ss_bufs):
        results.append(_trace(s, n, hb.expand_dims(init, 0), b.shape[0]))
    for s, size in zip(nit_stacked, nit_sizes):
        results.append(_trace(s, n, None, size))
    results += final_un
    return results


def _while_output(trace: Variable, init: Variable | None, steps: Variable, n: int, length: int) -> Variable:
    """The ``length`` rows PyTensor's perform leaves in the buffer of a traced output of a
    while-Scan that ran ``steps`` of at most ``n`` steps: ``trace`` holds the ``n`` step
    values (rows past ``steps`` are zeros), ``init`` the initial rows or None."""
    front = 0 if init is None else init.shape[0]
    parts = ([init] if init is not None else []) + [trace]
    pad = length - (front + n)
    if pad > 0:
        parts.append(hb.zeros((pad, *trace.shape[1:]), trace.dtype))
    full = hb.concatenate(parts, 0) if len(parts) > 1 else trace
    end = hb.add(steps, np.int64(front))
    start = hb.maximum(hb.subtract(end, np.int64(length)), np.int64(0))
    out = hb.dynamic_slice(full, [start] + [0] * (full.ndim - 1), (length, *full.shape[1:]))
    if length <= front + 1:  # at least one step runs: the buffer is never cut
        return out
    # a loop that stopped early leaves only the rows it wrote (as PyTensor's perform on a
    # whole buffer and the Numba backend on any buffer; PyTensor's perform cuts a
    # shortened buffer by the steps not run, past its written rows)
    short = hb.logical_and(hb.greater(np.int64(length), end), hb.less(steps, np.int64(n)))
    keep = hb.where(short, end, np.int64(length))
    return hb.compress(hb.less(hb.arange(length, dtype="int64"), keep), out, axis=0)


def _convert_while_scan(op, node, inputs, ctx, n: int):
    """A ``Scan`` with a condition (``until``) as one hlograph ``WhileLoop`` carrying
    ``[step, go, *MIT-SOT windows, *SIT-SOT states, *untraced states, *traces]`` (see the
    module docstring)."""
    info = op.info
    outer = list(inputs)
    if info.n_mit_mot:
        raise NotConvertible("a while-Scan with MIT-MOT outputs")
    if n == 0:
        raise NotConvertible("a while-Scan of zero steps")
    seqs = list(op.outer_seqs(outer))
    for s in seqs:
        if _static_len(ctx, s, "a sequence") < n:
            raise NotConvertible("a sequence shorter than the number of steps")
    ms_bufs = list(op.outer_mitsot(outer))
    ss_bufs = list(op.outer_sitsot(outer))
    untraced = list(op.outer_untraced_sit_sot(outer))
    nit_sizes = [ctx.require_int(s, "the length of an output") for s in op.outer_nitsot(outer)]
    non_seqs = list(op.outer_non_seqs(outer))
    for b in (*ms_bufs, *ss_bufs):
        _static_len(ctx, b, "an output buffer")
    ms_windows = [hb.getitem(b, slice(0, -min(taps))) for b, taps in zip(ms_bufs, info.mit_sot_in_slices)]
    ss_inits = [hb.getitem(b, 0) for b in ss_bufs]

    step_ph = Variable(TensorType("int64", ()), name="step")
    go_ph = Variable(TensorType("bool", ()), name="go")
    ms_ph = [Variable(w.type, name=f"window{i}") for i, w in enumerate(ms_windows)]
    ss_ph = [Variable(v.type, name=f"state{i}") for i, v in enumerate(ss_inits)]
    un_ph = [Variable(v.type, name=f"untraced{i}") for i, v in enumerate(untraced)]
    inner_args = [hb.getitem(s, step_ph) for s in seqs]
    for w, taps in zip(ms_ph, info.mit_sot_in_slices):
        inner_args += [hb.getitem(w, t - min(taps)) for t in taps]
    inner_args += [*ss_ph, *un_ph, *non_seqs]
    fg = op.fgraph
    if len(inner_args) != len(fg.inputs):
        raise NotConvertible(f"the inner graph takes {len(fg.inputs)} inputs, the loop gives {len(inner_args)}")
    outs = ctx.convert_inner(fg.inputs, fg.outputs, inner_args)
    outs = [o if isinstance(o, Variable) else Constant(np.asarray(o, dtype=v.type.dtype))
            for o, v in zip(outs, fg.outputs)]
    until = outs[-1]
    ms_vals = [_conform_state(v, TensorType(w.dtype, w.shape[1:]))
               for v, w in zip(op.inner_mitsot_outs(outs), ms_ph)]
    ss_vals = [_conform_state(v, p.type) for v, p in zip(op.inner_sitsot_outs(outs), ss_ph)]
    nit_vals = list(op.inner_nitsot_outs(outs))
    un_vals = [_conform_state(v, p.type) for v, p in zip(op.inner_untraced_sit_sot_outs(outs), un_ph)]
    for v in nit_vals:
        if None in v.shape:
            raise NotStatic("the shape of a loop output is known only at run time")
    traced = [*ms_vals, *ss_vals, *nit_vals]
    trace_ph = [Variable(TensorType(v.dtype, (n, *v.shape)), name=f"trace{i}") for i, v in enumerate(traced)]
    new_ms = []
    for w, v, taps in zip(ms_ph, ms_vals, info.mit_sot_in_slices):
        row = hb.expand_dims(v, 0)
        new_ms.append(row if -min(taps) == 1 else hb.concatenate([hb.getitem(w, slice(1, None)), row], 0))
    new_traces = [hb.at(t)[step_ph].set(v) for t, v in zip(trace_ph, traced)]
    go = hb.logical_not(cast(until, "bool"))
    ph = [step_ph, go_ph, *ms_ph, *ss_ph, *un_ph, *trace_ph]
    body_outs = [hb.add(step_ph, np.int64(1)), go, *new_ms, *ss_vals, *un_vals, *new_traces]
    c = hb.logical_and(hb.less(step_ph, np.int64(n)), go_ph)
    free = _capture(ph, [c, *body_outs])
    cond_g = subgraph([*ph, *free], [c])
    body_g = subgraph([*ph, *free], body_outs)
    inits = [Constant(np.asarray(0, dtype=np.int64)), Constant(np.asarray(True)), *ms_windows, *ss_inits,
             *untraced, *(hb.zeros(t.shape, t.dtype) for t in trace_ph)]
    loop = WhileLoop(cond_g, body_g, len(ph)).make_node(*inits, *free)
    steps = loop.outputs[0]
    final_un = loop.outputs[2 + len(ms_ph) + len(ss_ph):2 + len(ms_ph) + len(ss_ph) + len(un_ph)]
    traces = iter(loop.outputs[2 + len(ms_ph) + len(ss_ph) + len(un_ph):])
    results = []
    for w, b in zip(ms_windows, ms_bufs):
        results.append(_while_output(next(traces), w, steps, n, b.shape[0]))
    for init, b in zip(ss_inits, ss_bufs):
        results.append(_while_output(next(traces), hb.expand_dims(init, 0), steps, n, b.shape[0]))
    for size in nit_sizes:
        results.append(_while_output(next(traces), None, steps, n, size))
    results += list(final_un)
    return results


# --- ScalarLoop ----------------------------------------------------------------------------
def convert_scalar_loop(op, node, inputs, ctx):
    """A ``ScalarLoop`` (inputs ``n_steps, *init, *constants``; a loop with a condition
    also stops after the step whose condition output is true, and gives it last) as
    hlograph's while loop over a counter, elementwise over the broadcast inputs: each
    element runs its own number of steps (masked updates)."""
    n_steps, *rest = inputs
    n_update = len(op.fgraph.outputs) - (1 if op.is_while else 0)
    init, consts = list(rest[:n_update]), list(rest[n_update:])
    shape = np.broadcast_shapes(*(tuple(v.shape) for v in (n_steps, *init, *consts)))
    if None in shape:
        raise NotStatic("the shape of an elementwise scalar loop is known only at run time")
    dtypes = [o.type.dtype for o in op.fgraph.outputs[:n_update]]
    init = [hb.broadcast_to(cast(v, d), shape) for v, d in zip(init, dtypes)]
    n_steps = hb.broadcast_to(n_steps, shape)
    consts = [hb.broadcast_to(v, shape) for v in consts]
    n_c = len(consts)
    carry0 = [hb.zeros_like(n_steps), *init, *consts, n_steps]
    if op.is_while:
        carry0.append(hb.full_like(n_steps, True, dtype="bool"))  # not stopped yet

    def parts(vals):
        i, *r = vals
        go = r[n_update + n_c + 1] if op.is_while else None
        return i, r[:n_update], r[n_update:n_update + n_c], r[n_update + n_c], go

    def active_of(i, n, go):
        active = hb.less(i, n)
        return active if go is None else hb.logical_and(active, go)

    def cond(*vals):
        i, _, _, n, go = parts(vals)
        return hb.any(active_of(i, n, go))

    def body(*vals):
        i, state, cs, n, go = parts(vals)
        outs = ctx.convert_inner(op.fgraph.inputs, op.fgraph.outputs, [*state, *cs], elementwise=True)
        outs = [o if isinstance(o, Variable) else Constant(np.asarray(o)) for o in outs]
        active = active_of(i, n, go)
        new = [hb.where(active, cast(o, s.dtype), s) for o, s in zip(outs[:n_update], state)]
        res = [hb.add(i, hb.astype(active, i.dtype)), *new, *cs, n]
        if go is not None:
            until = hb.broadcast_to(cast(outs[-1], "bool"), shape)
            res.append(hb.logical_and(go, hb.logical_not(hb.logical_and(active, until))))
        return res

    final = hb.while_loop(cond, body, carry0)
    out = list(final[1:1 + n_update])
    if op.is_while:
        out.append(hb.logical_not(final[-1]))
    return out


try:
    from pytensor.scalar.loop import ScalarLoop
except ImportError:  # PyTensor without scalar loops
    ScalarLoop = None
if ScalarLoop is not None:
    __all__.append("convert_scalar_loop")
    register_scalar(ScalarLoop)(convert_scalar_loop)
