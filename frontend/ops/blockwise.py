"""Blockwise: any core Op batched over leading dimensions, as PyTensor's Blockwise
or ``numpy.vectorize`` with a generalized-ufunc signature.

``Blockwise(core_op, "(m,n),(n,p)->(m,p)")`` applies ``core_op`` to the trailing
core dimensions each input's signature names; the leading (batch) dimensions of
the inputs broadcast NumPy-style and lead every output::

    a = hg.tensor("a", (5, 1, 3, 4), "float32")
    b = hg.tensor("b", (2, 4, 6), "float32")
    c = blockwise(hg.matmul, "(m,n),(n,p)->(m,p)")(a, b)  # float32[5, 2, 3, 6]

``blockwise`` takes an Op or a function of Variables (traced into a Composite on
the core types of each call's inputs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..graph import Apply, Graph, Op, Variable, subgraph
from ..types import TensorType
from .basic import as_variable, broadcast_shapes
from .control import Composite

__all__ = ["Blockwise", "blockwise"]

_DIM = r"\w+"
_ARG = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = re.compile(rf"^({_ARGS})->({_ARGS})$")

Signature = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]


def parse_signature(signature: str) -> Signature:
    """``"(m,n),(n)->(m)"`` -> ``((("m", "n"), ("n",)), (("m",),))``, as numpy.vectorize."""
    if not isinstance(signature, str):
        raise TypeError(f"Blockwise: signature must be a str, got {type(signature).__name__}")
    m = _SIGNATURE.match(re.sub(r"\s+", "", signature))
    if m is None:
        raise ValueError(f"Blockwise: not a valid gufunc signature: {signature!r}")

    def args(text: str) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(d for d in a[1:-1].split(",") if d) for a in re.findall(_ARG, text))

    ins, outs = args(m.group(1)), args(m.group(2))
    known = {d for a in ins for d in a}
    for a in outs:
        for d in a:
            if d not in known:
                raise ValueError(f"Blockwise: output dimension {d!r} of {signature!r} names no input dimension")
    return ins, outs


def _core_node(op: Op, core_types: Sequence[TensorType]) -> Apply:
    """The core op's node on fresh Variables of ``core_types``."""
    return op.make_node(*(Variable(t, name=f"core{i}") for i, t in enumerate(core_types)))


class Blockwise(Op):
    """``core_op`` applied over the broadcast leading (batch) dimensions of its inputs.

    ``signature`` names the core dimensions of each input and output
    (``"(m,n),(n,p)->(m,p)"``; ``"()"`` for a scalar core). The node's outputs are
    ``batch_shape + core output shape``; the core output types come from
    ``core_op.make_node`` on the core input types.
    """

    __props__ = ("core_op", "signature")

    def __init__(self, core_op: Op, signature: str):
        if not isinstance(core_op, Op):
            raise TypeError(f"Blockwise: core_op must be an Op, got {type(core_op).__name__} "
                            "(blockwise() also takes a function)")
        self.core_op = core_op
        self.in_sigs, self.out_sigs = parse_signature(signature)
        self.signature = signature

    def __str__(self) -> str:
        return f"Blockwise{{{self.core_op}, {self.signature!r}}}"

    __repr__ = __str__

    def split_types(self, types: Sequence[TensorType]) -> tuple[tuple[int | None, ...], list[TensorType]]:
        """(broadcast batch shape, core input types) of inputs of ``types``."""
        name = str(self)
        if len(types) != len(self.in_sigs):
            raise TypeError(f"{name}: expected {len(self.in_sigs)} inputs, got {len(types)}")
        batches, cores, sizes = [], [], {}
        for i, (t, sig) in enumerate(zip(types, self.in_sigs)):
            k = len(sig)
            if t.ndim < k:
                raise ValueError(f"{name}: input {i} needs at least {k} dimensions for its core {sig}, got {t}")
            batches.append(t.shape[: t.ndim - k])
            core = t.shape[t.ndim - k:]
            for d, n in zip(sig, core):
                if n is not None and sizes.setdefault(d, n) != n:
                    raise ValueError(f"{name}: core dimension {d!r} is {sizes[d]} elsewhere but {n} in input {i}")
            cores.append(TensorType(t.dtype, core))
        return broadcast_shapes(*batches, op=name), cores

    def _check_outputs(self, core: Apply) -> None:
        name = str(self)
        if len(core.outputs) != len(self.out_sigs):
            raise TypeError(f"{name}: the core op gives {len(core.outputs)} outputs, the signature "
                            f"{len(self.out_sigs)}")
        sizes = {d: n for v, sig in zip(core.inputs, self.in_sigs) for d, n in zip(sig, v.shape)}
        for j, (v, sig) in enumerate(zip(core.outputs, self.out_sigs)):
            if v.ndim != len(sig):
                raise ValueError(f"{name}: core output {j} is {v.type}, the signature says {len(sig)} dimensions")
            for d, n in zip(sig, v.shape):
                if n is not None and sizes.get(d) is not None and sizes[d] != n:
                    raise ValueError(f"{name}: core output {j} has {d!r} = {n}, the inputs {sizes[d]}")

    def core_node(self, types: Sequence[TensorType]) -> Apply:
        """The core op's node for inputs of ``types`` (the node's full input types)."""
        _, cores = self.split_types(types)
        core = _core_node(self.core_op, cores)
        self._check_outputs(core)
        return core

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_variable(v) for v in inputs]
        types = [v.type for v in inputs]
        batch, _ = self.split_types(types)
        core = self.core_node(types)
        return Apply(self, inputs, [TensorType(v.dtype, batch + v.shape) for v in core.outputs])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        types = [TensorType(v.dtype, np.shape(x)) for v, x in zip(node.inputs, inputs)]
        batch, _ = self.split_types(types)
        core = self.core_node(types)
        args = [np.broadcast_to(x, batch + t.shape[t.ndim - len(sig):])
                for x, t, sig in zip(inputs, types, self.in_sigs)]
        outs = [np.zeros(batch + v.shape, dtype=o.dtype) for v, o in zip(core.outputs, node.outputs)]
        for idx in np.ndindex(*batch):
            res = core.op.perform(core, [a[idx] for a in args])
            for out, r in zip(outs, res):
                out[idx] = r
        return outs

    # --- derivatives: the core op's rule, built once on a core node of fresh core-typed
    # inputs and applied blockwise: a Blockwise of a Composite whose inputs are the core
    # inputs, the core outputs the rule reads (the node's own outputs, not recomputed) and
    # the core cotangents (tangents); cotangents of inputs whose batch dims were broadcast
    # are summed back to their shapes. (A traced function's core is a Composite, whose
    # rules differentiate its graph.)
    def pullback(self, node, cotangents):
        if all(c is None for c in cotangents):
            return [None] * len(node.inputs)
        core = self.core_node([v.type for v in node.inputs])
        cts = [None if c is None else Variable(o.type, name=f"ct{j}")
               for j, (c, o) in enumerate(zip(cotangents, core.outputs))]
        results = core.op.pullback(core, cts)
        batched = self._apply_rule(node, core, cts, cotangents, results, self.in_sigs, "pullback")
        from ..autodiff import sum_to  # function-local: autodiff imports ops modules
        return [sum_to(g, x) if isinstance(g, Variable) else g for g, x in zip(batched, node.inputs)]

    def pushforward(self, node, tangents):
        if all(t is None for t in tangents):
            return [None] * len(node.outputs)
        core = self.core_node([v.type for v in node.inputs])
        ts = [None if t is None else Variable(x.type, name=f"t{i}")
              for i, (t, x) in enumerate(zip(tangents, core.inputs))]
        results = core.op.pushforward(core, ts)
        return self._apply_rule(node, core, ts, tangents, results, self.out_sigs, "pushforward")

    def _apply_rule(self, node: Apply, core: Apply, seeds: list[Variable | None],
                    values: list[Variable | None], results: list, result_sigs, kind: str) -> list:
        """``results`` (built from the core node's inputs and outputs and the ``seeds``)
        batched over the node's batch dims: one Blockwise node whose inputs are the node's
        inputs, the outputs the results read and the ``values`` given for the seeds."""
        wanted = [(j, r) for j, r in enumerate(results) if isinstance(r, Variable)]
        final: list[Any] = [r if not isinstance(r, Variable) else None for r in results]
        if not wanted:
            return final
        roots = [r for _, r in wanted]
        used = _ancestor_ids(roots)
        ins = list(core.inputs)
        sigs = list(self.in_sigs)
        args = list(node.inputs)
        for o, v, sig in zip(core.outputs, node.outputs, self.out_sigs):
            if id(o) in used:
                ins.append(o)
                sigs.append(sig)
                args.append(v)
        seed_sigs = self.out_sigs if kind == "pullback" else self.in_sigs
        for s_, v, sig in zip(seeds, values, seed_sigs):
            if s_ is not None and id(s_) in used:
                ins.append(s_)
                sigs.append(sig)
                args.append(v)
        graph = subgraph(ins, roots)
        name = f"{type(self.core_op).__name__.lower()}_{kind}"
        signature = (",".join("(" + ",".join(sig) + ")" for sig in sigs) + "->"
                     + ",".join("(" + ",".join(result_sigs[j]) + ")" for j, _ in wanted))
        batched = Blockwise(Composite(graph, name if name.isidentifier() else kind), signature)(*args)
        batched = [batched] if isinstance(batched, Variable) else batched
        for (j, _), b in zip(wanted, batched):
            final[j] = b
        return final


def _ancestor_ids(roots: Sequence[Variable]) -> set[int]:
    """ids of ``roots`` and of every value they are computed from."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v.owner is not None:
            stack.extend(v.owner.inputs)
    return seen


def _name(fn: Callable) -> str:
    name = re.sub(r"\W", "_", getattr(fn, "__name__", "core"))
    return name if name.isidentifier() else "core"


def blockwise(core: Op | Callable[..., Any], signature: str) -> Callable[..., Variable | list[Variable]]:
    """``core`` batched over leading dimensions, as ``numpy.vectorize(fn, signature=...)``.

    Args:
        core: an Op, or a function of Variables building the core computation
            (traced once per call on the core types of the inputs into a Composite).
        signature: a generalized-ufunc signature such as ``"(m,n),(n,p)->(m,p)"``.

    Returns:
        A function of the batched inputs giving one Variable per output (a list
        for several outputs).
    """
    in_sigs, _ = parse_signature(signature)
    if isinstance(core, Op):
        op = Blockwise(core, signature)

        def apply_op(*inputs: Any) -> Variable | list[Variable]:
            return op(*inputs)

        apply_op.__name__ = apply_op.__qualname__ = f"blockwise_{type(core).__name__.lower()}"
        return apply_op
    if not callable(core):
        raise TypeError(f"blockwise: core must be an Op or a function, got {type(core).__name__}")

    def apply(*inputs: Any) -> Variable | list[Variable]:
        inputs = [as_variable(v) for v in inputs]
        if len(inputs) != len(in_sigs):
            raise TypeError(f"blockwise({_name(core)}): expected {len(in_sigs)} inputs, got {len(inputs)}")
        cores = [Variable(TensorType(v.dtype, v.shape[v.ndim - len(s):] if len(s) <= v.ndim else v.shape))
                 for v, s in zip(inputs, in_sigs)]
        outs = core(*cores)
        graph = Graph(cores, outs)
        return Blockwise(Composite(graph, _name(core)), signature)(*inputs)

    apply.__name__ = apply.__qualname__ = f"blockwise_{_name(core)}"
    return apply
