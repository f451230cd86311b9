"""Control flow: ``ifelse`` (two branches), ``switch`` (n branches), and the loops
``while_loop`` and ``scan``.

Only the taken branch is evaluated, on every backend. Design:

- A conditional node holds one inner ``Graph`` per branch. Its inputs are
  ``[selector, *free variables]``: the free variables are the values the
  branches read from the enclosing graph, and every inner graph takes all of
  them as its inputs (a branch may ignore some), so input ``i + 1`` of the node
  feeds input ``i`` of each inner graph.
- The builders extract each branch's subgraph from the ancestors of its
  outputs. The walk stops at graph inputs, at ancestors of the selector (they
  are computed anyway), and at variables that every branch uses (computed
  once, outside); those become free variables. Constants stay in the branch
  (each region embeds its own). Everything else the branch needs is moved
  into its inner graph, so it runs only when the branch is taken. A value
  that is also used elsewhere in the enclosing graph after the conditional
  is then computed in both places.
- Branch outputs must agree in number and rank; dtypes are promoted NEP 50
  style (Python scalars are weak) by casts inside the branches. An unknown
  dim on either side makes the output dim unknown; two different static dims
  are an error.
- ``make_node`` with re-typed free variables (``Graph.clone(input_types)``
  when a graph with unknown dims is specialized) re-specializes the inner
  graphs with ``Graph.clone`` and returns a node of a new Op holding them.
- ``perform`` evaluates only the taken inner graph (``evaluate``); the
  lowering emits ``stablehlo.if`` / ``stablehlo.case`` whose regions hold the
  inner graphs' ops, reading the free variables from the enclosing scope.

Loops hold one inner ``Graph`` per function (``WhileLoop``: the condition and
the body; ``Scan``: the step). The builders call the user's Python function
once, on fresh placeholder Variables, and capture what it reads from the
enclosing graph the same way: a value that does not depend on the
placeholders (and is not a Constant) becomes a free variable, an extra input
of the node that every iteration reads unchanged. ``perform`` runs a Python
loop over ``evaluate`` of the inner graphs; the lowering emits one
``stablehlo.while``.

``scan`` maps PyTensor's taps and updates onto Scan: each tap of a sequence is a
shifted slice of it (one more sequence); an output read at several past steps
carries a window of its last values as an unstacked state, shifted by one row
per step; an updated variable is an unstacked state whose final value is an
extra output of the node.

``composite`` (PyTensor's OpFromGraph) wraps a graph as one Op: each use is one
node; ``perform`` evaluates the inner graph, and the lowering emits the graph
once per module as a private ``func.func`` that every use ``func.call``s.

``switch`` clamps its integer index to ``[0, n - 1]``, as ``jax.lax.switch``.
Branches are given as a Variable, a list/tuple of Variables (or values that
become constants), or a zero-argument callable returning one of those; the
callable is called once, while building, and lets the branch be written where
it is used.

Derivatives are control flow too. A conditional's pullback (pushforward) is a
conditional on the same selector whose branches are the vector-Jacobian
(Jacobian-vector) products of the branches; cotangents reach the free variables,
so values closed over from the enclosing graph get theirs. A composite's are
composites (``<name>_vjp``, ``<name>_jvp``). A scan's pullback is a reverse scan
over the states entering each step, whose step is the step's vector-Jacobian
product; its pushforward a scan carrying tangents. A while loop's pushforward is a
while loop carrying tangents; its pullback exists only for a static trip count (a
counter from a constant, read alone by the condition), as a scan of the body.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..evaluate import perform_graph
from ..graph import Apply, Constant, Graph, Op, UndefinedGradient, Variable, subgraph
from ..types import TensorType, is_inexact, is_integer
from .basic import as_variable, result_type
from .elemwise import not_equal
from .indexing import getitem
from .shape import concatenate, expand_dims, zeros_like

__all__ = ["Conditional", "IfElse", "Switch", "WhileLoop", "Scan", "Composite", "ifelse", "switch",
           "while_loop", "scan", "composite"]


# --- the Ops -------------------------------------------------------------------
def _join_types(name: str, graphs: Sequence[Graph]) -> list[TensorType]:
    """The output types of a conditional: every branch's outputs must agree."""
    counts = {len(g.outputs) for g in graphs}
    if len(counts) != 1:
        raise TypeError(
            f"{name}: branches must have the same number of outputs, got "
            f"{', '.join(str(len(g.outputs)) for g in graphs)}"
        )
    out = []
    for j in range(len(graphs[0].outputs)):
        types = [g.outputs[j].type for g in graphs]
        listed = ", ".join(str(t) for t in types)
        if len({t.dtype for t in types}) != 1:
            raise TypeError(f"{name}: output {j} has different dtypes in the branches: {listed}")
        if len({t.ndim for t in types}) != 1:
            raise TypeError(f"{name}: output {j} has different ranks in the branches: {listed}")
        shape = []
        for dims in zip(*(t.shape for t in types)):
            if any(d is None for d in dims):
                shape.append(None)
            elif len(set(dims)) == 1:
                shape.append(dims[0])
            else:
                raise ValueError(f"{name}: output {j} has different shapes in the branches: {listed}")
        out.append(TensorType(types[0].dtype, shape))
    return out


class Conditional(Op):
    """Base of IfElse and Switch: runs one of ``branches`` (inner Graphs that all
    take the node's free variables as inputs), chosen by the first input."""

    __props__ = ("branches",)

    @property
    def inner_graphs(self) -> tuple[Graph, ...]:
        return tuple(self.branches)

    def __init__(self, branches: Sequence[Graph]):
        branches = tuple(branches)
        if not branches or not all(isinstance(g, Graph) for g in branches):
            raise TypeError(f"{type(self).__name__}: branches must be a non-empty sequence of Graphs")
        if len({tuple(g.input_types) for g in branches}) != 1:
            raise TypeError(f"{type(self).__name__}: every branch graph must take the same inputs")
        self.branches = branches
        _join_types(type(self).__name__, branches)

    @property
    def n_outs(self) -> int:
        return len(self.branches[0].outputs)

    def check_selector(self, selector: Variable) -> None:
        raise NotImplementedError

    def branch_index(self, selector: np.ndarray) -> int:
        raise NotImplementedError

    def make_node(self, selector: Any, *free: Variable) -> Apply:
        name = str(self)
        selector = as_variable(selector)
        if selector.ndim != 0:
            raise ValueError(f"{name}: the selector must be a scalar (0-d), got {selector.type}")
        self.check_selector(selector)
        inner = self.branches[0].inputs
        if len(free) != len(inner):
            raise TypeError(f"{name}: expected {len(inner)} free variables, got {len(free)}")
        for i, (v, p) in enumerate(zip(free, inner)):
            if not isinstance(v, Variable):
                raise TypeError(f"{name}: free variable {i} must be a Variable, got {type(v).__name__}")
            if v.dtype != p.dtype or v.ndim != p.ndim:
                raise TypeError(
                    f"{name}: free variable {i} ({p.name or 'unnamed'}) must be "
                    f"{p.dtype}[rank {p.ndim}], got {v.type}"
                )
        types = [v.type for v in free]
        op = self
        if types != self.branches[0].input_types:
            op = type(self).from_branches(tuple(g.clone(types) for g in self.branches))
        out_types = _join_types(name, op.branches)
        return Apply(op, [selector, *free], out_types)

    @classmethod
    def from_branches(cls, branches: Sequence[Graph]) -> "Conditional":
        return cls(branches)

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        graph = self.branches[self.branch_index(inputs[0])]
        return [np.asarray(v) for v in perform_graph(graph, inputs[1:])]

    # derivatives: a conditional on the same selector whose branches are the vector-
    # Jacobian (Jacobian-vector) products of the branches; inputs [selector, *free
    # variables, *cotangents (tangents)]; the selector has no derivative
    def pullback(self, node, cotangents):
        free = node.inputs[1:]
        seeds = _seeds(node.outputs, cotangents)
        reach = 0
        for g in self.branches:
            reach |= _reached(_dependence(g), seeds)
        wrt = [bool(reach >> i & 1) for i in range(len(free))]
        if not any(wrt):
            return [None] * len(node.inputs)
        graphs = [_vjp_graph(g, [None if s is None else s.type for s in seeds], wrt) for g in self.branches]
        outs = type(self).from_branches(graphs).make_node(
            node.inputs[0], *free, *(s for s in seeds if s is not None)).outputs
        it = iter(outs)
        return [None] + [next(it) if w else None for w in wrt]

    def pushforward(self, node, tangents):
        free, ts = node.inputs[1:], tangents[1:]
        given = sum(1 << i for i, t in enumerate(ts) if t is not None)
        deps = [_dependence(g) for g in self.branches]
        sel = [is_inexact(o.dtype) and any(d[j] & given for d in deps) for j, o in enumerate(node.outputs)]
        if not any(sel):
            return [None] * len(node.outputs)
        graphs = []
        for g in self.branches:
            clone, tph, touts = _jvp_parts(g, [None if t is None else t.type for t in ts], sel)
            graphs.append(subgraph([*clone.inputs, *(p for p in tph if p is not None)], touts))
        outs = type(self).from_branches(graphs).make_node(
            node.inputs[0], *free, *(t for t in ts if t is not None)).outputs
        it = iter(outs)
        return [next(it) if s else None for s in sel]


class IfElse(Conditional):
    """``then_graph`` when the bool scalar input is true, else ``else_graph``."""

    def __init__(self, then_graph: Graph, else_graph: Graph):
        super().__init__((then_graph, else_graph))

    @classmethod
    def from_branches(cls, branches: Sequence[Graph]) -> "IfElse":
        return cls(*branches)

    @property
    def then_graph(self) -> Graph:
        return self.branches[0]

    @property
    def else_graph(self) -> Graph:
        return self.branches[1]

    def check_selector(self, selector: Variable) -> None:
        if selector.dtype != np.bool_:
            raise TypeError(f"{self}: the condition must be bool, got {selector.type} (ifelse converts)")

    def branch_index(self, selector: np.ndarray) -> int:
        return 0 if bool(selector) else 1

    def __str__(self) -> str:
        return f"IfElse{{n_outs={self.n_outs}}}"

    __repr__ = __str__


class Switch(Conditional):
    """Branch ``clip(index, 0, n - 1)`` of ``branches``, for an integer scalar index."""

    def check_selector(self, selector: Variable) -> None:
        if not is_integer(selector.dtype):
            raise TypeError(f"{self}: the index must be an integer scalar, got {selector.type}")

    def branch_index(self, selector: np.ndarray) -> int:
        return min(max(int(selector), 0), len(self.branches) - 1)

    def __str__(self) -> str:
        return f"Switch{{n_branches={len(self.branches)}, n_outs={self.n_outs}}}"

    __repr__ = __str__


# --- branch extraction ---------------------------------------------------------
def _reachable(outputs: Sequence[Variable], stop: Callable[[Variable], bool]) -> set[int]:
    """ids of the Variables ``outputs`` depend on, not walking past ``stop``."""
    seen: set[int] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v.owner is not None and not stop(v):
            stack.extend(v.owner.inputs)
    return seen


def _branch_nodes(outputs: Sequence[Variable], is_free: Callable[[Variable], bool],
                  free: list[Variable], free_ids: set[int]) -> list[Apply]:
    """The nodes computing ``outputs`` inside a branch, inputs before users; the
    values read from outside are appended to ``free``."""
    order: list[Apply] = []
    done: set[int] = set()

    def boundary(v: Variable) -> bool:
        if isinstance(v, Constant):
            return True
        if v.owner is None or is_free(v):
            if id(v) not in free_ids:
                free_ids.add(id(v))
                free.append(v)
            return True
        return False

    for out in outputs:
        if boundary(out) or id(out.owner) in done:
            continue
        stack = [(out.owner, 0)]
        done.add(id(out.owner))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                v = node.inputs[i]
                if not boundary(v) and id(v.owner) not in done:
                    done.add(id(v.owner))
                    stack.append((v.owner, 0))
            else:
                order.append(node)
    return order


def _branch_outputs(name: str, branch: Any, which: str) -> tuple[list[Any], bool]:
    """(outputs, is_sequence) of a branch given as a value, a sequence or a callable."""
    if callable(branch) and not isinstance(branch, Variable):
        branch = branch()
    if isinstance(branch, (list, tuple)):
        if not branch:
            raise ValueError(f"{name}: {which} has no outputs")
        return list(branch), True
    return [branch], False


def _build(name: str, op_factory: Callable[[list[Graph]], Conditional], selector: Variable,
           branches: Sequence[Any]) -> Variable | list[Variable]:
    outs, seqs = zip(*(_branch_outputs(name, b, f"branch {k}") for k, b in enumerate(branches)))
    if len(set(seqs)) != 1:
        raise TypeError(
            f"{name}: every branch must give a single value or every branch a sequence; got "
            + ", ".join("a sequence" if s else "a single value" for s in seqs)
        )
    if len({len(o) for o in outs}) != 1:
        raise TypeError(
            f"{name}: branches must have the same number of outputs, got "
            + ", ".join(str(len(o)) for o in outs)
        )
    # NEP 50 promotion per output; the casts become part of each branch
    columns = []
    for j, vals in enumerate(zip(*outs)):
        try:
            dt = result_type(*vals)
        except TypeError as e:
            raise TypeError(f"{name}: output {j} of the branches has no common dtype: {e}") from e
        columns.append([as_variable(v, dt) for v in vals])
    outs = [list(col) for col in zip(*columns)]
    for j, vals in enumerate(columns):
        if len({v.ndim for v in vals}) != 1:
            raise TypeError(
                f"{name}: output {j} has different ranks in the branches: "
                + ", ".join(str(v.type) for v in vals)
            )

    selector_side = _reachable([selector], lambda v: False)
    reach = [_reachable(o, lambda v: id(v) in selector_side) for o in outs]
    shared = set.intersection(*reach)
    is_free = lambda v: id(v) in selector_side or id(v) in shared

    free: list[Variable] = []
    free_ids: set[int] = set()
    for o in outs:
        _branch_nodes(o, is_free, free, free_ids)
    graphs = [subgraph(free, o) for o in outs]
    _join_types(name, graphs)
    node = op_factory(graphs).make_node(selector, *free)
    return node.outputs if seqs[0] else node.outputs[0]


# --- builders ------------------------------------------------------------------
def ifelse(cond: Any, then_branch: Any, else_branch: Any) -> Variable | list[Variable]:
    """``then_branch`` if ``cond`` else ``else_branch``, evaluating only the taken one.

    Args:
        cond: a scalar graph value; non-bool values are tested with ``!= 0``.
        then_branch, else_branch: a Variable (or a value that becomes a
            constant), a list/tuple of them, or a zero-argument callable
            returning either. Both must give the same number of outputs with
            matching ranks; dtypes are promoted (NEP 50).

    Returns:
        A Variable for single-value branches, else a list of Variables.

    Raises:
        TypeError: branches that disagree in structure, count, rank or dtype kind.
        ValueError: a non-scalar ``cond``, or static dims that differ between branches.
    """
    cond = as_variable(cond)
    if cond.ndim != 0:
        raise ValueError(f"ifelse: cond must be a scalar (0-d), got {cond.type}")
    if cond.dtype != np.bool_:
        cond = not_equal(cond, 0)
    return _build("ifelse", lambda gs: IfElse(*gs), cond, [then_branch, else_branch])


def switch(index: Any, branches: Sequence[Any]) -> Variable | list[Variable]:
    """Branch ``index`` of ``branches``, evaluating only that one, as jax.lax.switch.

    Args:
        index: an integer scalar graph value, clamped to ``[0, len(branches) - 1]``.
        branches: a non-empty sequence of branches, each as for ``ifelse``.

    Returns:
        A Variable for single-value branches, else a list of Variables.

    Raises:
        TypeError: a non-integer index, or branches that disagree.
        ValueError: a non-scalar index, no branches, or static dims that differ.
    """
    index = as_variable(index)
    if index.ndim != 0:
        raise ValueError(f"switch: index must be a scalar (0-d), got {index.type}")
    if not is_integer(index.dtype):
        raise TypeError(f"switch: index must be an integer scalar, got {index.type}")
    if callable(branches) or isinstance(branches, Variable) or not isinstance(branches, Sequence):
        raise TypeError(f"switch: branches must be a list of branches, got {type(branches).__name__}")
    if len(branches) == 0:
        raise ValueError("switch: needs at least one branch")
    return _build("switch", Switch, index, list(branches))


# --- loops -------------------------------------------------------------------------
def _same_types(name: str, what: str, got: Sequence[TensorType], want: Sequence[TensorType]) -> None:
    """``got[i]`` must have ``want[i]``'s dtype and rank, and equal static dims."""
    for i, (g, w) in enumerate(zip(got, want)):
        dims_differ = any(a is not None and b is not None and a != b for a, b in zip(g.shape, w.shape))
        if g.dtype != w.dtype or g.ndim != w.ndim or dims_differ:
            raise TypeError(f"{name}: {what} {i} must be {w}, got {g}")


def _retyped(graph: Graph, types: Sequence[TensorType]) -> Graph:
    return graph if list(types) == graph.input_types else graph.clone(types)


class WhileLoop(Op):
    """Runs ``body`` while ``cond`` is true, as jax.lax.while_loop. Both inner graphs
    take ``[*carried values, *free variables]``; ``cond`` gives a bool scalar and
    ``body`` the next carried values (same types). The node's inputs are the
    initial carried values, then the free variables; its outputs the final values."""

    __props__ = ("cond", "body", "n_carry")

    @property
    def inner_graphs(self) -> tuple[Graph, ...]:
        return (self.cond, self.body)

    def __init__(self, cond: Graph, body: Graph, n_carry: int):
        if cond.input_types != body.input_types:
            raise TypeError("WhileLoop: cond and body must take the same inputs")
        (c,) = cond.outputs
        if c.dtype != np.bool_ or c.ndim != 0:
            raise TypeError(f"WhileLoop: cond must give a bool scalar, got {c.type}")
        if len(body.outputs) != n_carry:
            raise TypeError(f"WhileLoop: body gives {len(body.outputs)} values for {n_carry} carried values")
        _same_types("WhileLoop", "body output", body.output_types, body.input_types[:n_carry])
        self.cond, self.body, self.n_carry = cond, body, n_carry

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_variable(v) for v in inputs]
        if len(inputs) != len(self.body.inputs):
            raise TypeError(f"{self}: expected {len(self.body.inputs)} inputs, got {len(inputs)}")
        types = [v.type for v in inputs]
        _same_types(str(self), "input", types, self.body.input_types)
        op = self
        if types != self.body.input_types:
            op = WhileLoop(_retyped(self.cond, types), _retyped(self.body, types), self.n_carry)
        return Apply(op, inputs, op.body.input_types[: self.n_carry])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        carry, free = list(inputs[: self.n_carry]), list(inputs[self.n_carry:])
        while bool(perform_graph(self.cond, [*carry, *free])[0]):
            carry = [np.asarray(v) for v in perform_graph(self.body, [*carry, *free])]
        return [np.array(v, dtype=o.dtype) for v, o in zip(carry, node.outputs)]

    # derivatives: forward mode is a while loop carrying the primal values and their
    # tangents. Reverse mode stores every iteration: it needs a static trip count, known
    # when the condition reads only a counter that starts from a constant and that the
    # body updates from itself alone (a fori_loop); the loop is then a scan of the body.
    def trip_count(self, node: Apply, limit: int = 100_000) -> int | None:
        """The number of iterations when the loop counts from a constant (else None)."""
        reads = _reads(self.cond, self.cond.outputs)
        if len(reads) != 1:
            return None
        (k,) = reads
        if k >= self.n_carry or not isinstance(node.inputs[k], Constant) \
                or _reads(self.body, [self.body.outputs[k]]) != {k}:
            return None
        cond = subgraph([self.cond.inputs[k]], self.cond.outputs)
        step = subgraph([self.body.inputs[k]], [self.body.outputs[k]])
        value, n = node.inputs[k].data, 0
        while bool(perform_graph(cond, [value])[0]):
            value, n = perform_graph(step, [value])[0], n + 1
            if n > limit:
                return None
        return n

    def pullback(self, node, cotangents):
        n = self.trip_count(node)
        if n is not None:
            nc = self.n_carry
            scan = Scan(self.body, n, 0, [True] * nc, [False] * nc)
            return scan.pullback(scan.make_node(*node.inputs), cotangents)
        reason = UndefinedGradient(
            "reverse mode through a while loop needs the values of every iteration, and the "
            "number of iterations is not static (the condition reads values computed at run time, "
            "not only a counter with a constant start); write the loop as hlograph.scan with a "
            "static n_steps, or use forward mode (hlograph.jvp)")
        return [reason if is_inexact(v.dtype) else None for v in node.inputs]

    def pushforward(self, node, tangents):
        nc = self.n_carry
        carry, free = node.inputs[:nc], node.inputs[nc:]
        given = sum(1 << i for i, t in enumerate(tangents) if t is not None)
        # a carried value has a tangent when its initial value has one or the body makes it
        # depend on a value that has one (a fixed point over the iterations)
        dep = _dependence(self.body)
        active = given
        while True:
            new = active | sum(1 << k for k in range(nc) if dep[k] & active and is_inexact(carry[k].dtype))
            if new == active:
                break
            active = new
        act = [k for k in range(nc) if active >> k & 1]
        if not act:
            return [None] * nc
        t_types = [carry[k].type if active >> k & 1 else None for k in range(nc)]
        t_types += [None if t is None else t.type for t in tangents[nc:]]
        body, tph, touts = _jvp_parts(self.body, t_types, [bool(active >> k & 1) for k in range(nc)])
        t_carry, t_free = [p for p in tph[:nc] if p is not None], [p for p in tph[nc:] if p is not None]
        cond_out = _inline(self.cond, body.inputs)  # the condition reads the body's inputs
        ins = [*body.inputs[:nc], *t_carry, *body.inputs[nc:], *t_free]
        new_cond = subgraph(ins, cond_out)
        new_body = subgraph(ins, [*body.outputs, *touts])
        init_t = [tangents[k] if tangents[k] is not None else zeros_like(carry[k]) for k in act]
        loop = WhileLoop(new_cond, new_body, nc + len(act)).make_node(
            *carry, *init_t, *free, *(t for t in tangents[nc:] if t is not None))
        it = iter(loop.outputs[nc:])
        return [next(it) if active >> k & 1 else None for k in range(nc)]

    def __str__(self) -> str:
        return f"WhileLoop{{n_carry={self.n_carry}}}"

    __repr__ = __str__


class Scan(Op):
    """``n_steps`` iterations of ``step``, as pytensor.scan.

    ``step`` takes ``[*sequence slices, *states, *others]`` and gives one output
    per entry of ``recurrent`` (in the user's order); output ``j`` with
    ``recurrent[j]`` is fed back as the next state (states are in the order of
    the recurrent outputs). The node's inputs are ``[*sequences, *initial states,
    *others]`` (others: non-sequences and free variables). Output ``j`` of the
    node is, when ``stacked[j]`` (the default), output ``j`` of every step stacked
    on a new leading axis of length ``n_steps``; otherwise (recurrent outputs
    only) its final state: the value after the last step, the initial state when
    ``n_steps`` is 0.
    """

    __props__ = ("step", "n_steps", "n_seqs", "recurrent", "stacked")

    @property
    def inner_graphs(self) -> tuple[Graph, ...]:
        return (self.step,)

    def __init__(self, step: Graph, n_steps: int, n_seqs: int, recurrent: Sequence[bool],
                 stacked: Sequence[bool] | None = None):
        self.step, self.n_steps, self.n_seqs = step, int(n_steps), int(n_seqs)
        self.recurrent = tuple(bool(r) for r in recurrent)
        self.stacked = (True,) * len(self.recurrent) if stacked is None else tuple(bool(s) for s in stacked)
        if self.n_steps < 0:
            raise ValueError(f"Scan: n_steps must be >= 0, got {n_steps}")
        if len(step.outputs) != len(self.recurrent) or len(self.stacked) != len(self.recurrent):
            raise TypeError(f"Scan: the step gives {len(step.outputs)} outputs, expected {len(self.recurrent)}")
        for j, (r, st) in enumerate(zip(self.recurrent, self.stacked)):
            if not r and not st:
                raise ValueError(f"Scan: output {j} is neither recurrent nor stacked")
        states = step.input_types[self.n_seqs: self.n_seqs + self.n_states]
        rec_out = [t for t, r in zip(step.output_types, self.recurrent) if r]
        _same_types("Scan", "recurrent output", rec_out, states)

    @property
    def n_states(self) -> int:
        return sum(self.recurrent)

    def make_node(self, *inputs: Any) -> Apply:
        name = str(self)
        inputs = [as_variable(v) for v in inputs]
        if len(inputs) != len(self.step.inputs):
            raise TypeError(f"{name}: expected {len(self.step.inputs)} inputs, got {len(inputs)}")
        types = []
        for i, v in enumerate(inputs[: self.n_seqs]):
            if v.ndim == 0:
                raise ValueError(f"{name}: sequence {i} must have a leading axis to iterate over, got {v.type}")
            if v.shape[0] is not None and v.shape[0] < self.n_steps:
                raise ValueError(f"{name}: sequence {i} has {v.shape[0]} steps, fewer than n_steps={self.n_steps}")
            types.append(TensorType(v.dtype, v.shape[1:]))
        types += [v.type for v in inputs[self.n_seqs:]]
        _same_types(name, "input (per step)", types, self.step.input_types)
        op = self
        if types != self.step.input_types:
            op = Scan(self.step.clone(types), self.n_steps, self.n_seqs, self.recurrent, self.stacked)
        outs = [TensorType(t.dtype, (self.n_steps, *t.shape)) if st else t
                for t, st in zip(op.step.output_types, self.stacked)]
        return Apply(op, inputs, outs)

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        seqs = inputs[: self.n_seqs]
        states = list(inputs[self.n_seqs: self.n_seqs + self.n_states])
        others = inputs[self.n_seqs + self.n_states:]
        steps: list[list[np.ndarray]] = [[] for _ in self.recurrent]
        for i in range(self.n_steps):
            res = [np.asarray(v) for v in perform_graph(self.step, [*(s[i] for s in seqs), *states, *others])]
            for j, v in enumerate(res):
                if self.stacked[j]:
                    steps[j].append(v)
            states = [v for v, r in zip(res, self.recurrent) if r]
        out = []
        k = 0
        for j, (vals, o) in enumerate(zip(steps, node.outputs)):
            if not self.stacked[j]:
                out.append(np.array(states[k], dtype=o.dtype))
            else:
                out.append(np.stack(vals).astype(o.dtype) if vals else np.zeros(o.type.shape, o.dtype))
            k += self.recurrent[j]
        return out

    # derivatives. Reverse mode: the states entering each step (the initial state, then
    # the stacked recurrent outputs; a scan stacking every output recomputes them when the
    # node keeps only final states) feed a reverse scan whose step is the vector-Jacobian
    # product of the step: it carries the cotangents of the states and the summed
    # cotangents of the non-sequences, and stacks those of the sequence slices.
    # Forward mode: a scan carrying the states and their tangents.
    def pullback(self, node, cotangents):
        ns, nst, n = self.n_seqs, self.n_states, self.n_steps
        seqs, inits, others = node.inputs[:ns], node.inputs[ns:ns + nst], node.inputs[ns + nst:]
        state_out = [j for j, r in enumerate(self.recurrent) if r]  # state k <- output state_out[k]
        state_of = {j: k for k, j in enumerate(state_out)}
        cts = _seeds(node.outputs, cotangents)
        result: list[Any] = [None] * len(node.inputs)
        if n == 0:  # the outputs that are not stacked are the initial states
            for j, c in enumerate(cts):
                if c is not None and not self.stacked[j]:
                    result[ns + state_of[j]] = c
            return result
        reach = _reached(_loop_dependence(_dependence(self.step), state_out, ns), cts)
        act_seq = [i for i in range(ns) if reach >> i & 1]
        act_state = [k for k in range(nst) if reach >> (ns + k) & 1]
        act_other = [m for m in range(len(others)) if reach >> (ns + nst + m) & 1]
        if not (act_seq or act_state or act_other):
            return result
        # the states entering steps n-1, ..., 0
        stacked_outs = list(node.outputs)
        if not all(self.stacked[j] for j in state_out):
            every = Scan(self.step, n, ns, self.recurrent, (True,) * len(self.recurrent))
            stacked_outs = list(every.make_node(*node.inputs).outputs)
        rev_states = []
        for k, j in enumerate(state_out):
            first = expand_dims(inits[k], 0)
            rev_states.append(first if n == 1 else
                              concatenate([getitem(stacked_outs[j], slice(n - 2, None, -1)), first], 0))
        rev_seqs = [getitem(s, slice(n - 1, None, -1)) for s in seqs]
        ct_stacked = [j for j, c in enumerate(cts) if c is not None and self.stacked[j]]
        rev_cts = [getitem(cts[j], slice(None, None, -1)) for j in ct_stacked]
        # the reverse step
        from ..autodiff import vjp
        from .elemwise import add
        step = self.step.clone()
        seq_ph, st_ph, oth_ph = step.inputs[:ns], step.inputs[ns:ns + nst], step.inputs[ns + nst:]
        ct_ph = {j: Variable(TensorType(c.dtype, c.shape[1:]), name=f"ct{j}")
                 for j, c in zip(ct_stacked, rev_cts)}
        ds_ph = {k: Variable(st_ph[k].type, name=f"ct_state{k}") for k in act_state}
        do_ph = {m: Variable(oth_ph[m].type, name=f"ct_other{m}") for m in act_other}
        seeds: list[Any] = []
        for j, o in enumerate(step.outputs):
            g = ct_ph.get(j)
            k = state_of.get(j)
            if k in ds_ph:
                g = ds_ph[k] if g is None else add(g, ds_ph[k])
            seeds.append(g if is_inexact(o.dtype) else None)
        wrt = [seq_ph[i] for i in act_seq] + [st_ph[k] for k in act_state] + [oth_ph[m] for m in act_other]
        grads = vjp(list(step.outputs), wrt, seeds, disconnected="zero")
        g_seq, g_st = grads[:len(act_seq)], grads[len(act_seq):len(act_seq) + len(act_state)]
        g_oth = [add(do_ph[m], g) for m, g in zip(act_other, grads[len(act_seq) + len(act_state):])]
        bw_step = subgraph([*ct_ph.values(), *seq_ph, *st_ph, *ds_ph.values(), *do_ph.values(), *oth_ph],
                           [*g_st, *g_oth, *g_seq])
        n_carry = len(g_st) + len(g_oth)
        bw = Scan(bw_step, n, len(ct_ph) + ns + nst, [True] * n_carry + [False] * len(g_seq),
                  [False] * n_carry + [True] * len(g_seq))
        final_ct = {state_of[j]: c for j, c in enumerate(cts) if c is not None and not self.stacked[j]}
        ds0 = [final_ct[k] if k in final_ct else zeros_like(inits[k]) for k in act_state]
        do0 = [zeros_like(others[m]) for m in act_other]
        outs = bw.make_node(*rev_cts, *rev_seqs, *rev_states, *ds0, *do0, *others).outputs
        for k, v in zip(act_state, outs):
            result[ns + k] = v
        for m, v in zip(act_other, outs[len(act_state):]):
            result[ns + nst + m] = v
        for i, v in zip(act_seq, outs[n_carry:]):
            result[i] = _unreverse(v, seqs[i], n)
        return result

    def pushforward(self, node, tangents):
        ns, nst, n = self.n_seqs, self.n_states, self.n_steps
        seqs, inits, others = node.inputs[:ns], node.inputs[ns:ns + nst], node.inputs[ns + nst:]
        state_out = [j for j, r in enumerate(self.recurrent) if r]
        if n == 0:  # the outputs that are not stacked are the initial states
            state_of = {j: k for k, j in enumerate(state_out)}
            return [None if st else tangents[ns + state_of[j]] for j, st in enumerate(self.stacked)]
        dep = _dependence(self.step)
        active = sum(1 << i for i, t in enumerate(tangents) if t is not None)
        while True:  # a state has a tangent once its output depends on one (a fixed point)
            new = active | sum(1 << (ns + k) for k, j in enumerate(state_out)
                               if dep[j] & active and is_inexact(inits[k].dtype))
            if new == active:
                break
            active = new
        act_state = [k for k in range(nst) if active >> (ns + k) & 1]
        fed_back = {state_out[k] for k in act_state}
        sel = [is_inexact(o.dtype) and (bool(dep[j] & active) or j in fed_back)
               for j, o in enumerate(self.step.outputs)]
        if not any(sel):
            return [None] * len(node.outputs)
        t_types: list[Any] = [None] * len(node.inputs)
        for i, t in enumerate(tangents):
            if active >> i & 1:  # (a state without an initial tangent starts from zeros)
                t_types[i] = self.step.inputs[i].type if t is None else (
                    TensorType(t.dtype, t.shape[1:]) if i < ns else t.type)
        step, tph, touts = _jvp_parts(self.step, t_types, sel)
        sp = step.inputs
        t_seq = [p for p in tph[:ns] if p is not None]
        t_st = [p for p in tph[ns:ns + nst] if p is not None]
        t_oth = [p for p in tph[ns + nst:] if p is not None]
        # the primal states ride along unstacked; the tangents are stacked as their primals
        keep = [step.outputs[j] for j in state_out]
        sel_j = [j for j, s in enumerate(sel) if s]
        new_step = subgraph([*sp[:ns], *t_seq, *sp[ns:ns + nst], *t_st, *sp[ns + nst:], *t_oth],
                            [*keep, *touts])
        rec = [True] * len(keep) + [self.recurrent[j] for j in sel_j]
        stk = [False] * len(keep) + [self.stacked[j] for j in sel_j]
        t0 = [tangents[ns + k] if tangents[ns + k] is not None else zeros_like(inits[k]) for k in act_state]
        loop = Scan(new_step, n, ns + len(t_seq), rec, stk).make_node(
            *seqs, *(t for t in tangents[:ns] if t is not None), *inits, *t0,
            *others, *(t for t in tangents[ns + nst:] if t is not None))
        it = iter(loop.outputs[len(keep):])
        return [next(it) if s else None for s in sel]

    def __str__(self) -> str:
        extra = "" if all(self.stacked) else f", stacked={self.stacked}"
        return f"Scan{{n_steps={self.n_steps}, n_seqs={self.n_seqs}, recurrent={self.recurrent}{extra}}}"

    __repr__ = __str__


def _capture(placeholders: Sequence[Variable], outputs: Sequence[Variable]) -> list[Variable]:
    """The free variables of a loop function: the outermost values its ``outputs``
    read that depend on none of the ``placeholders`` (Constants excepted)."""
    ph = {id(v) for v in placeholders}
    depends: dict[int, bool] = {}

    def dep(v: Variable) -> bool:  # iterative: does v depend on a placeholder?
        stack = [v]
        while stack:
            w = stack[-1]
            if id(w) in depends:
                stack.pop()
                continue
            if id(w) in ph:
                depends[id(w)] = True
            elif w.owner is None:
                depends[id(w)] = False
            else:
                todo = [p for p in w.owner.inputs if id(p) not in depends]
                if todo:
                    stack.extend(todo)
                    continue
                depends[id(w)] = any(depends[id(p)] for p in w.owner.inputs)
            stack.pop()
        return depends[id(v)]

    free: list[Variable] = []
    seen: set[int] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if id(v) in seen or id(v) in ph or isinstance(v, Constant):
            continue
        seen.add(id(v))
        if not dep(v):
            free.append(v)
        else:
            stack.extend(v.owner.inputs)
    return free


def _as_outputs(name: str, res: Any) -> tuple[list[Variable], bool]:
    if isinstance(res, (list, tuple)):
        if not res:
            raise ValueError(f"{name}: the function returned no values")
        return [as_variable(v) for v in res], True
    return [as_variable(res)], False


def _placeholder(t: TensorType, name: str) -> Variable:
    return Variable(t, name=name)


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any],
               init_vals: Any) -> Variable | list[Variable]:
    """Repeats ``vals = body_fn(*vals)`` while ``cond_fn(*vals)``, as jax.lax.while_loop.

    Args:
        cond_fn: builds a scalar from the carried values (non-bool is tested ``!= 0``).
        body_fn: builds the next carried values, with the same dtypes and shapes
            (Python scalars in its results take the carried dtype).
        init_vals: a value or a list/tuple of values.

    Returns:
        The final values: a Variable for a single ``init_vals``, else a list.

    Raises:
        TypeError: a body whose results differ in number, dtype or shape.
    """
    inits, is_seq = _as_outputs("while_loop", init_vals)
    ph = [_placeholder(v.type, f"carry{i}") for i, v in enumerate(inits)]
    c = as_variable(cond_fn(*ph))
    if c.ndim != 0:
        raise ValueError(f"while_loop: cond_fn must give a scalar, got {c.type}")
    if c.dtype != np.bool_:
        c = not_equal(c, 0)
    res = body_fn(*ph)
    body_outs = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(body_outs) != len(ph):
        raise TypeError(f"while_loop: body_fn gives {len(body_outs)} values for {len(ph)} carried values")
    body_outs = [as_variable(v, p.dtype) if not isinstance(v, Variable) else v for v, p in zip(body_outs, ph)]
    free = _capture(ph, [c, *body_outs])
    cond_g = subgraph([*ph, *free], [c])
    body_g = subgraph([*ph, *free], body_outs)
    node = WhileLoop(cond_g, body_g, len(ph)).make_node(*inits, *free)
    return node.outputs if is_seq else node.outputs[0]


def _taps(name: str, taps: Any, default: Sequence[int]) -> list[int]:
    """A list of int taps (a single int is one tap; None gives ``default``)."""
    if taps is None:
        return list(default)
    if not isinstance(taps, (list, tuple, np.ndarray)):
        taps = [taps]
    out = []
    for t in taps:
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, np.integer)):
            raise TypeError(f"scan: {name} taps must be ints, got {taps!r}")
        out.append(int(t))
    if not out:
        raise ValueError(f"scan: {name} has an empty list of taps")
    return out


def _replace(outputs: Sequence[Variable], mapping: dict[int, Variable], mark: int) -> list[Variable]:
    """``outputs`` recomputed with the Variables of ids in ``mapping`` replaced. Only nodes
    whose outputs were created at or after ``mark`` (a Variable serial number) are rebuilt,
    with ``make_node``; values computed before stay as they are."""
    new: dict[int, Variable] = dict(mapping)
    order: list[Apply] = []
    seen: set[int] = set()
    for out in outputs:
        if id(out) in new or out.owner is None or out._id < mark or id(out.owner) in seen:
            continue
        stack = [(out.owner, 0)]
        seen.add(id(out.owner))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                v = node.inputs[i]
                if id(v) not in new and v.owner is not None and v._id >= mark and id(v.owner) not in seen:
                    seen.add(id(v.owner))
                    stack.append((v.owner, 0))
            else:
                order.append(node)
    for node in order:
        inputs = [new.get(id(v), v) for v in node.inputs]
        if any(a is not b for a, b in zip(inputs, node.inputs)):
            rebuilt = node.op.make_node(*inputs)
            for old, v in zip(node.outputs, rebuilt.outputs):
                new.setdefault(id(old), v)
    return [new.get(id(v), v) for v in outputs]


def _split_updates(res: Any) -> tuple[Any, dict | None]:
    """(outputs, updates) from what ``fn`` returned: outputs, an updates dict, or a pair of
    both in either order."""
    if isinstance(res, Mapping):
        return [], dict(res)
    if isinstance(res, (list, tuple)) and len(res) == 2:
        a, b = res
        if isinstance(b, Mapping) and not isinstance(a, Mapping):
            return a, dict(b)
        if isinstance(a, Mapping) and not isinstance(b, Mapping):
            return b, dict(a)
    return res, None


def _label(v: Variable) -> str:
    return f"'{v.name}' ({v.type})" if v.name else f"a {v.type} value"


def _depends_on(v: Variable, ids: set[int]) -> bool:
    return bool(_reachable([v], lambda w: id(w) in ids) & ids)


def scan(fn: Callable[..., Any], sequences: Any = None, outputs_info: Any = None,
         non_sequences: Any = None, n_steps: int | None = None) -> Any:
    """A loop over the leading axis of ``sequences``, as pytensor.scan.

    ``fn`` is called once, while building, as ``fn(*sequence taps, *output taps,
    *non_sequences)``:

    - per sequence, in order, one slice per tap: ``seq[t + k]`` at step ``t`` for
      tap ``k``. A sequence is a Variable (tap 0) or ``dict(input=x, taps=[-1, 0,
      1])``; with taps, step ``t`` reads ``x[t - min(taps, 0) + k]``, so ``x``
      provides ``len(x) - (max(taps, 0) - min(taps, 0))`` steps.
    - per recurrent output (in the order of ``outputs_info``), one value per tap:
      the output ``k`` steps back (taps are negative and distinct). An entry of
      ``outputs_info`` is None or ``dict()`` (not fed back), a value (the initial
      state, tap -1), ``dict(initial=x0)`` (tap -1), or ``dict(initial=x0,
      taps=[-2, -1])``: for taps other than ``[-1]``, ``x0`` holds the
      ``-min(taps)`` values before step 0 along its leading axis (oldest first;
      extra leading entries are ignored), and tap ``k`` at step 0 reads
      ``x0[-min(taps) + k]``.
    - the non-sequences.

    ``fn`` returns its outputs (one value per entry of ``outputs_info``, or a
    list of them; a recurrent output keeps the dtype and shape of its state;
    Python scalars take the state's dtype), optionally with a dict of updates
    ``{variable: new value}`` (``return outputs, updates``, ``return updates,
    outputs`` or just ``return updates``). An updated variable is a non-sequence
    (as passed to ``scan`` or as ``fn`` received it) or another value from the
    enclosing graph that ``fn`` reads: it becomes state carried across steps,
    starting from its value outside the loop; every read of it inside ``fn``
    (through the argument or directly) sees its value at the current step, while
    values computed from it before ``scan`` was called keep their values. Its
    new value must keep its dtype and shape.

    Args:
        sequences: a Variable, a dict(input=, taps=), or a list of them; iterated
            over their first axis.
        outputs_info: per output, as above; None means every output is not
            recurrent.
        non_sequences: values passed unchanged to every step.
        n_steps: the number of steps (a static int >= 0); by default the (static)
            number of steps the shortest sequence provides.

    Returns:
        Without updates: each output of every step, stacked on a new leading axis
        (a Variable for a single output, else a list); the last step of a
        recurrent output is its final state. With updates: the pair ``(outputs,
        updates)``, where ``outputs`` is as without updates (``[]`` when ``fn``
        returns only updates) and ``updates`` maps each updated variable (the one
        from the enclosing graph) to its value after the last step (its initial
        value when ``n_steps`` is 0), an extra output of the Scan node.

    Raises:
        TypeError: outputs or updates that do not match their states, bad taps.
        ValueError: no static step count, sequences shorter than ``n_steps``
            needs, output taps that are not negative and distinct, initial values
            shorter than their taps need.
    """
    as_list = lambda v: [] if v is None else list(v) if isinstance(v, (list, tuple)) else [v]
    # sequences and their taps
    seq_entries = []
    for i, entry in enumerate(as_list(sequences)):
        if isinstance(entry, Mapping):
            unknown = set(entry) - {"input", "taps"}
            if "input" not in entry or unknown:
                raise ValueError(f"scan: sequence {i} must be a Variable or dict(input=..., taps=[...]), "
                                 f"got keys {sorted(entry)}")
            x, taps = as_variable(entry["input"]), _taps(f"sequence {i}", entry.get("taps"), [0])
        else:
            x, taps = as_variable(entry), [0]
        if x.ndim == 0:
            raise ValueError(f"scan: sequence {i} must have a leading axis to iterate over, got {x.type}")
        lo, hi = min(min(taps), 0), max(max(taps), 0)
        if x.shape[0] is not None and x.shape[0] < hi - lo:
            raise ValueError(f"scan: sequence {i} has {x.shape[0]} steps, fewer than its taps {taps} need "
                             f"({hi - lo})")
        seq_entries.append((x, taps, lo, hi))
    non_seqs = [as_variable(v) for v in as_list(non_sequences)]
    if n_steps is None:
        lengths = [None if x.shape[0] is None else x.shape[0] - (hi - lo) for x, _, lo, hi in seq_entries]
        if not lengths or any(n is None for n in lengths):
            raise ValueError("scan: n_steps must be given unless every sequence has a static length")
        n_steps = min(lengths)
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
        raise ValueError(f"scan: n_steps must be a static int >= 0, got {n_steps!r}")
    n_steps = int(n_steps)
    # Variables created from here on belong to the step (updates rewrite only those)
    mark = Variable(TensorType("bool", ()))._id
    seqs: list[Variable] = []   # one per (sequence, tap): the rows step t reads
    seq_ph: list[Variable] = []
    for i, (x, taps, lo, hi) in enumerate(seq_entries):
        for k in taps:
            start = k - lo
            seqs.append(x if (lo, hi) == (0, 0) else getitem(x, slice(start, start + n_steps)))
            seq_ph.append(_placeholder(TensorType(x.dtype, x.shape[1:]), f"seq{i}" + (f"_tap{k}" if k else "")))

    # outputs_info: (kind, initial, taps) with kind None (not fed back), "sit" (tap -1), "mit"
    info = []
    for j, entry in enumerate(as_list(outputs_info)):
        if isinstance(entry, Mapping):
            unknown = set(entry) - {"initial", "taps"}
            if unknown:
                raise ValueError(f"scan: outputs_info entry {j} has unknown keys {sorted(unknown)}")
            init, taps = entry.get("initial"), entry.get("taps")
            if init is None:
                if taps is not None:
                    raise ValueError(f"scan: output {j} has taps {taps!r} but no initial value")
                info.append((None, None, None))
                continue
            taps = _taps(f"output {j}", taps, [-1])
            if len(set(taps)) != len(taps) or any(t >= 0 for t in taps):
                raise ValueError(f"scan: the taps of output {j} must be distinct and negative, got {taps}")
            init = as_variable(init)
            if taps == [-1]:
                info.append(("sit", init, taps))
                continue
            need = -min(taps)
            if init.ndim == 0 or init.shape[0] is not None and init.shape[0] < need:
                raise ValueError(f"scan: the initial value of output {j} must hold {need} steps along its "
                                 f"leading axis for taps {taps}, got {init.type}")
            if init.shape[0] != need:
                init = getitem(init, slice(0, need))
            info.append(("mit", init, taps))
        elif entry is None:
            info.append((None, None, None))
        else:
            info.append(("sit", as_variable(entry), [-1]))
    sit_ph = {j: _placeholder(init.type, f"state{j}") for j, (kind, init, _) in enumerate(info) if kind == "sit"}
    buf_ph = {j: _placeholder(init.type, f"window{j}") for j, (kind, init, _) in enumerate(info) if kind == "mit"}
    out_args: list[Variable] = []
    for j, (kind, init, taps) in enumerate(info):
        if kind == "sit":
            out_args.append(sit_ph[j])
        elif kind == "mit":
            out_args += [getitem(buf_ph[j], k - min(taps)) for k in taps]
    ns_ph = [_placeholder(v.type, f"non_seq{i}") for i, v in enumerate(non_seqs)]

    raw, updates = _split_updates(fn(*seq_ph, *out_args, *ns_ph))
    is_seq = isinstance(raw, (list, tuple))
    raw = list(raw) if is_seq else [raw]
    if not info:
        info = [(None, None, None)] * len(raw)
    if (not raw and not updates) or len(raw) != len(info):
        raise TypeError(f"scan: fn gives {len(raw)} outputs for {len(info)} entries of outputs_info")
    # Python scalars in a recurrent output take the state's dtype
    outs = []
    for j, (o, (kind, init, _)) in enumerate(zip(raw, info)):
        o = as_variable(o, init.dtype) if kind and not isinstance(o, Variable) else as_variable(o)
        if kind == "mit":
            want = TensorType(init.dtype, init.shape[1:])
            if o.dtype != want.dtype or o.ndim != want.ndim or any(
                    a is not None and b is not None and a != b for a, b in zip(o.shape, want.shape)):
                raise TypeError(f"scan: output {j} must be {want} (its initial values' rows), got {o.type}")
        outs.append(o)
    # a window of the last -min(taps) values carries each multi-tap output
    windows = []
    for j, (kind, init, taps) in enumerate(info):
        if kind == "mit":
            row = expand_dims(outs[j], 0)
            windows.append(row if min(taps) == -1 else concatenate([getitem(buf_ph[j], slice(1, None)), row], 0))

    # updates: carried state that fn's reads of the variable see
    placeholders = [*seq_ph, *sit_ph.values(), *buf_ph.values(), *ns_ph]
    ph_ids = {id(v) for v in placeholders}
    ns_index = {id(v): i for i, v in enumerate(ns_ph)} | {id(v): i for i, v in enumerate(non_seqs)}
    upd_targets: list[Variable] = []
    upd_ph: list[Variable] = []
    upd_values: list[Variable] = []
    mapping: dict[int, Variable] = {}
    updated_ns: set[int] = set()
    for key, value in (updates or {}).items():
        if not isinstance(key, Variable) or isinstance(key, Constant):
            raise TypeError(f"scan: update targets must be non-constant Variables, got {key!r}")
        k = ns_index.get(id(key))
        if k is not None:
            aliases, target = [ns_ph[k], non_seqs[k]], non_seqs[k]
            if k in updated_ns:
                raise ValueError(f"scan: non-sequence {k} is updated twice")
            updated_ns.add(k)
        else:
            if id(key) in ph_ids or _depends_on(key, ph_ids):
                raise ValueError(f"scan: the update target {_label(key)} is computed inside the step; updates must "
                                 f"target non-sequences or values of the enclosing graph")
            aliases, target = [key], key
        if any(id(a) in mapping for a in aliases):
            raise ValueError(f"scan: {_label(target)} is updated twice")
        value = as_variable(value, target.dtype) if not isinstance(value, Variable) else value
        if value.dtype != target.dtype or value.ndim != target.ndim or any(
                a is not None and b is not None and a != b for a, b in zip(value.shape, target.shape)):
            raise TypeError(f"scan: the update of {_label(target)} must be {target.type}, got {value.type}")
        ph = _placeholder(target.type, f"update{len(upd_ph)}")
        for a in aliases:
            mapping[id(a)] = ph
        upd_targets.append(target)
        upd_ph.append(ph)
        upd_values.append(value)

    n_user = len(outs)
    step_outs = [*outs, *windows, *upd_values]
    if mapping:
        step_outs = _replace(step_outs, mapping, mark)
    recurrent = [kind == "sit" for kind, _, _ in info] + [True] * (len(windows) + len(upd_values))
    stacked = [True] * n_user + [False] * (len(windows) + len(upd_values))
    others_ph = [p for i, p in enumerate(ns_ph) if i not in updated_ns]
    others = [v for i, v in enumerate(non_seqs) if i not in updated_ns]
    ph = [*seq_ph, *sit_ph.values(), *buf_ph.values(), *upd_ph, *others_ph]
    free = _capture(ph, step_outs)
    step = subgraph([*ph, *free], step_outs)
    op = Scan(step, n_steps, len(seqs), recurrent, stacked)
    inits = [init for kind, init, _ in info if kind == "sit"] + [init for kind, init, _ in info if kind == "mit"]
    node = op.make_node(*seqs, *inits, *upd_targets, *others, *free)
    user = node.outputs[:n_user]
    result = user if is_seq or len(user) != 1 else user[0]
    if updates is None:
        return result
    return result, dict(zip(upd_targets, node.outputs[len(step_outs) - len(upd_values):]))


# --- composite -------------------------------------------------------------------------
class Composite(Op):
    """A graph used as one Op (PyTensor's OpFromGraph): the node's inputs feed the
    inner graph's inputs, its outputs are the inner graph's outputs. Calling the
    Op on Variables builds a node (one Variable for one output, else a list)."""

    __props__ = ("graph", "name")

    @property
    def inner_graphs(self) -> tuple[Graph, ...]:
        return (self.graph,)

    def __init__(self, graph: Graph, name: str = "composite"):
        if not isinstance(graph, Graph):
            raise TypeError(f"Composite: graph must be a Graph, got {type(graph).__name__}")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Composite: name must be an identifier, got {name!r}")
        self.graph, self.name = graph, name

    def make_node(self, *inputs: Any) -> Apply:
        want = self.graph.input_types
        if len(inputs) != len(want):
            raise TypeError(f"{self}: expected {len(want)} inputs, got {len(inputs)}")
        inputs = [as_variable(v, t.dtype) if not isinstance(v, Variable) else v for v, t in zip(inputs, want)]
        types = [v.type for v in inputs]
        _same_types(str(self), "input", types, want)
        op = self if types == want else Composite(self.graph.clone(types), self.name)
        return Apply(op, inputs, op.graph.output_types)

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        res = perform_graph(self.graph, inputs)
        res = [res] if self.graph.single_output else res
        return [np.array(v, dtype=o.dtype) for v, o in zip(res, node.outputs)]

    # derivatives: composites of the inner graph's vector-Jacobian product (inputs
    # [*inputs, *cotangents]) and Jacobian-vector product (inputs [*inputs, *tangents])
    def pullback(self, node, cotangents):
        seeds = _seeds(node.outputs, cotangents)
        reach = _reached(_dependence(self.graph), seeds)
        wrt = [bool(reach >> i & 1) for i in range(len(node.inputs))]
        if not any(wrt):
            return [None] * len(node.inputs)
        graph = _vjp_graph(self.graph, [None if s is None else s.type for s in seeds], wrt)
        outs = Composite(graph, f"{self.name}_vjp").make_node(
            *node.inputs, *(s for s in seeds if s is not None)).outputs
        it = iter(outs)
        return [next(it) if w else None for w in wrt]

    def pushforward(self, node, tangents):
        given = sum(1 << i for i, t in enumerate(tangents) if t is not None)
        dep = _dependence(self.graph)
        sel = [is_inexact(o.dtype) and bool(dep[j] & given) for j, o in enumerate(node.outputs)]
        if not any(sel):
            return [None] * len(node.outputs)
        clone, tph, touts = _jvp_parts(self.graph, [None if t is None else t.type for t in tangents], sel)
        graph = subgraph([*clone.inputs, *(p for p in tph if p is not None)], touts)
        outs = Composite(graph, f"{self.name}_jvp").make_node(
            *node.inputs, *(t for t in tangents if t is not None)).outputs
        it = iter(outs)
        return [next(it) if s else None for s in sel]

    def __str__(self) -> str:
        return f"Composite{{name={self.name!r}}}"

    __repr__ = __str__


def composite(inputs: Sequence[Variable], outputs: Variable | Sequence[Variable],
              name: str = "composite") -> Composite:
    """The graph from ``inputs`` to ``outputs`` as a reusable Op (PyTensor's OpFromGraph).

    ``hg.composite([x, y], x * y + 1, name="fma")(a, b)`` builds one node; every
    use lowers to a ``func.call`` of one private function ``@fma`` per module.

    Args:
        inputs: the Variables the outputs are computed from (values outside
            ``inputs`` that the outputs read must be Constants).
        outputs: a Variable (calls give one Variable) or a sequence of them.
        name: the function's name in the module (an identifier).

    Raises:
        GraphError: outputs that read a non-constant value not in ``inputs``.
    """
    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    graph = subgraph(list(inputs), outs)
    if isinstance(outputs, Variable):
        graph = Graph(graph.inputs, graph.outputs[0])
    return Composite(graph, name)


# --- derivatives -------------------------------------------------------------------------
def _seeds(outputs: Sequence[Variable], cotangents: Sequence[Variable | None]) -> list[Variable | None]:
    """The cotangents of the float and complex outputs (None elsewhere)."""
    return [c if c is not None and is_inexact(o.dtype) else None for c, o in zip(cotangents, outputs)]


def _dependence(graph: Graph) -> list[int]:
    """Per output of ``graph``, the bit set of the inputs it depends on through float or
    complex values (integer values and stop_gradient carry no derivative)."""
    from ..autodiff import StopGradient
    masks = {id(v): (1 << i) if is_inexact(v.dtype) else 0 for i, v in enumerate(graph.inputs)}
    for node in graph.nodes:
        m = 0
        if not isinstance(node.op, StopGradient):
            for v in node.inputs:
                m |= masks.get(id(v), 0)
        for o in node.outputs:
            masks[id(o)] = m if is_inexact(o.dtype) else 0
    return [masks.get(id(o), 0) for o in graph.outputs]


def _reads(graph: Graph, outputs: Sequence[Variable]) -> set[int]:
    """The indices of the inputs of ``graph`` that ``outputs`` read (through any value)."""
    index = {id(v): i for i, v in enumerate(graph.inputs)}
    return {index[i] for i in _reachable(outputs, lambda v: False) if i in index}


def _reached(dependence: Sequence[int], seeds: Sequence[Variable | None]) -> int:
    """The inputs (a bit set) that the seeded outputs depend on."""
    reach = 0
    for d, s in zip(dependence, seeds):
        if s is not None:
            reach |= d
    return reach


def _loop_dependence(dependence: Sequence[int], state_out: Sequence[int], first_state: int) -> list[int]:
    """``dependence`` of a loop step closed over the iterations: state ``k`` (input
    ``first_state + k``) is output ``state_out[k]`` of the step before."""
    closed = list(dependence)
    changed = True
    while changed:
        changed = False
        for j, m in enumerate(closed):
            new = m
            for k, jk in enumerate(state_out):
                if new >> (first_state + k) & 1:
                    new |= closed[jk]
            if new != m:
                closed[j], changed = new, True
    return closed


def _vjp_graph(graph: Graph, ct_types: Sequence[TensorType | None], wrt: Sequence[bool]) -> Graph:
    """The vector-Jacobian product of ``graph``: inputs ``[*graph inputs, *one cotangent per
    output of a type in ct_types]`` (None: no cotangent), outputs the cotangents of the
    inputs selected by ``wrt``."""
    from ..autodiff import vjp
    g = graph.clone()
    cts = [None if t is None else Variable(t, name=f"ct{j}") for j, t in enumerate(ct_types)]
    grads = vjp(list(g.outputs), [v for v, w in zip(g.inputs, wrt) if w], cts, disconnected="zero")
    return subgraph([*g.inputs, *(c for c in cts if c is not None)], grads)


def _jvp_parts(graph: Graph, t_types: Sequence[TensorType | None], sel: Sequence[bool]
               ) -> tuple[Graph, list[Variable | None], list[Variable]]:
    """(a copy of ``graph``, one tangent input per input of a type in ``t_types`` (None:
    no tangent), the tangents of the outputs selected by ``sel``)."""
    from ..autodiff import jvp
    g = graph.clone()
    tph = [None if t is None else Variable(t, name=f"tangent{i}") for i, t in enumerate(t_types)]
    wrt = [v for v, p in zip(g.inputs, tph) if p is not None]
    outs = [o for o, s in zip(g.outputs, sel) if s]
    touts = jvp(outs, wrt, [p for p in tph if p is not None], disconnected="zero")
    return g, tph, list(touts)


def _inline(graph: Graph, inputs: Sequence[Variable]) -> list[Variable]:
    """The outputs of ``graph`` computed from ``inputs`` (its nodes copied)."""
    memo: dict[int, Variable] = {id(p): v for p, v in zip(graph.inputs, inputs)}
    for node in graph.nodes:
        new = Apply.__new__(Apply)
        new.op, new.trace = node.op, node.trace
        new.inputs = [memo.get(id(v), v) for v in node.inputs]
        new.outputs = [Variable(o.type, new, o.index, o.name) for o in node.outputs]
        for o, no in zip(node.outputs, new.outputs):
            memo[id(o)] = no
    return [memo.get(id(v), v) for v in graph.outputs]


def _unreverse(ct: Variable, seq: Variable, n: int) -> Variable:
    """The cotangent of a sequence from the stacked cotangents of its first ``n`` rows in
    reverse order (rows past ``n`` get zeros)."""
    ct = getitem(ct, slice(None, None, -1))
    length = seq.shape[0]
    if length == n:
        return ct
    if length is not None:
        from .construct import Pad
        return Pad(((0, length - n),) + ((0, 0),) * (seq.ndim - 1))(ct, Constant(np.zeros((), seq.dtype)))
    from .indexing import at
    return at(zeros_like(seq))[:n].set(ct)
