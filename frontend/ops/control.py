"""Control flow: ``ifelse`` (two branches) and ``switch`` (n branches).

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

__all__ = ["Conditional", "IfElse", "Switch", "ifelse", "switch"]


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
