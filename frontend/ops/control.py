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

``composite`` (PyTensor's OpFromGraph) wraps a graph as one Op: each use is one
node; ``perform`` evaluates the inner graph, and the lowering emits the graph
once per module as a private ``func.func`` that every use ``func.call``s.

``switch`` clamps its integer index to ``[0, n - 1]``, as ``jax.lax.switch``.
Branches are given as a Variable, a list/tuple of Variables (or values that
become constants), or a zero-argument callable returning one of those; the
callable is called once, while building, and lets the branch be written where
it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..evaluate import evaluate
from ..graph import Apply, Constant, Graph, Op, Variable, subgraph
from ..types import TensorType, is_integer
from .basic import as_variable, result_type

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
        return [np.asarray(v) for v in evaluate(graph, *inputs[1:])]


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
        from .elemwise import not_equal
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
        while bool(evaluate(self.cond, *carry, *free)[0]):
            carry = [np.asarray(v) for v in evaluate(self.body, *carry, *free)]
        return [np.array(v, dtype=o.dtype) for v, o in zip(carry, node.outputs)]

    def __str__(self) -> str:
        return f"WhileLoop{{n_carry={self.n_carry}}}"

    __repr__ = __str__


class Scan(Op):
    """``n_steps`` iterations of ``step``, stacking its outputs, as pytensor.scan.

    ``step`` takes ``[*sequence slices, *states, *others]`` and gives one output
    per entry of ``recurrent`` (in the user's order); output ``j`` with
    ``recurrent[j]`` is fed back as the next state (states are in the order of
    the recurrent outputs). The node's inputs are ``[*sequences, *initial states,
    *others]`` (others: non-sequences and free variables); its outputs are the
    outputs of every step, stacked on a new leading axis of length ``n_steps``.
    """

    __props__ = ("step", "n_steps", "n_seqs", "recurrent")

    def __init__(self, step: Graph, n_steps: int, n_seqs: int, recurrent: Sequence[bool]):
        self.step, self.n_steps, self.n_seqs = step, int(n_steps), int(n_seqs)
        self.recurrent = tuple(bool(r) for r in recurrent)
        if self.n_steps < 0:
            raise ValueError(f"Scan: n_steps must be >= 0, got {n_steps}")
        if len(step.outputs) != len(self.recurrent):
            raise TypeError(f"Scan: the step gives {len(step.outputs)} outputs, expected {len(self.recurrent)}")
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
            op = Scan(self.step.clone(types), self.n_steps, self.n_seqs, self.recurrent)
        outs = [TensorType(t.dtype, (self.n_steps, *t.shape)) for t in op.step.output_types]
        return Apply(op, inputs, outs)

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        seqs = inputs[: self.n_seqs]
        states = list(inputs[self.n_seqs: self.n_seqs + self.n_states])
        others = inputs[self.n_seqs + self.n_states:]
        steps: list[list[np.ndarray]] = [[] for _ in self.recurrent]
        for i in range(self.n_steps):
            res = [np.asarray(v) for v in evaluate(self.step, *(s[i] for s in seqs), *states, *others)]
            for j, v in enumerate(res):
                steps[j].append(v)
            states = [v for v, r in zip(res, self.recurrent) if r]
        out = []
        for vals, o in zip(steps, node.outputs):
            out.append(np.stack(vals).astype(o.dtype) if vals else np.zeros(o.type.shape, o.dtype))
        return out

    def __str__(self) -> str:
        return f"Scan{{n_steps={self.n_steps}, n_seqs={self.n_seqs}, recurrent={self.recurrent}}}"

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
        from .elemwise import not_equal
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


def scan(fn: Callable[..., Any], sequences: Any = None, outputs_info: Any = None,
         non_sequences: Any = None, n_steps: int | None = None) -> Variable | list[Variable]:
    """A loop over the leading axis of ``sequences``, as pytensor.scan.

    ``fn`` is called once, while building, as ``fn(*sequence slices, *previous
    outputs, *non_sequences)``: one slice ``seq[i]`` per sequence, then the
    previous value of each recurrent output (the entries of ``outputs_info``
    that are not None), then the non-sequences. It returns one value per entry
    of ``outputs_info`` (or a list of them); each recurrent output must keep the
    dtype and shape of its initial value.

    Args:
        sequences: a Variable or a list of them, iterated over their first axis.
        outputs_info: per output, its initial value (recurrent) or None (not
            fed back); None means every output is not recurrent.
        non_sequences: values passed unchanged to every step.
        n_steps: the number of steps (a static int); by default the (static)
            length of the shortest sequence.

    Returns:
        Each output of every step, stacked on a new leading axis (a Variable for
        a single output, else a list); the last step of a recurrent output is
        its final state.

    Raises:
        TypeError: outputs that do not match ``outputs_info``.
        ValueError: no static step count, or sequences shorter than ``n_steps``.
    """
    as_list = lambda v: [] if v is None else list(v) if isinstance(v, (list, tuple)) else [v]
    seqs = [as_variable(v) for v in as_list(sequences)]
    non_seqs = [as_variable(v) for v in as_list(non_sequences)]
    info = as_list(outputs_info)
    for i, s in enumerate(seqs):
        if s.ndim == 0:
            raise ValueError(f"scan: sequence {i} must have a leading axis to iterate over, got {s.type}")
    if n_steps is None:
        lengths = [s.shape[0] for s in seqs]
        if not lengths or any(n is None for n in lengths):
            raise ValueError("scan: n_steps must be given unless every sequence has a static length")
        n_steps = min(lengths)
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
        raise ValueError(f"scan: n_steps must be a static int >= 0, got {n_steps!r}")
    inits = [None if v is None else as_variable(v) for v in info]
    seq_ph = [_placeholder(TensorType(s.dtype, s.shape[1:]), f"seq{i}") for i, s in enumerate(seqs)]
    state_ph = [_placeholder(v.type, f"state{i}") for i, v in enumerate(inits) if v is not None]
    ns_ph = [_placeholder(v.type, f"non_seq{i}") for i, v in enumerate(non_seqs)]
    res = fn(*seq_ph, *state_ph, *ns_ph)
    is_seq = isinstance(res, (list, tuple))
    raw = list(res) if is_seq else [res]
    if not info:
        inits = [None] * len(raw)
    if not raw or len(raw) != len(inits):
        raise TypeError(f"scan: fn gives {len(raw)} outputs for {len(inits)} entries of outputs_info")
    recurrent = [v is not None for v in inits]
    # Python scalars in a recurrent output take the state's dtype
    outs = [as_variable(o, v.dtype) if v is not None and not isinstance(o, Variable) else as_variable(o)
            for o, v in zip(raw, inits)]
    ph = [*seq_ph, *state_ph, *ns_ph]
    free = _capture(ph, outs)
    step = subgraph([*ph, *free], outs)
    op = Scan(step, int(n_steps), len(seqs), recurrent)
    node = op.make_node(*seqs, *(v for v in inits if v is not None), *non_seqs, *free)
    return node.outputs if is_seq or len(outs) > 1 else node.outputs[0]


# --- composite -------------------------------------------------------------------------
class Composite(Op):
    """A graph used as one Op (PyTensor's OpFromGraph): the node's inputs feed the
    inner graph's inputs, its outputs are the inner graph's outputs. Calling the
    Op on Variables builds a node (one Variable for one output, else a list)."""

    __props__ = ("graph", "name")

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
        res = evaluate(self.graph, *inputs)
        res = [res] if self.graph.single_output else res
        return [np.array(v, dtype=o.dtype) for v, o in zip(res, node.outputs)]

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
