"""Pytrees: nested containers of leaves, flattened in a fixed order, as jax's.

A graph's inputs and outputs may be pytrees of Variables (``hg.Graph({"x": x,
"params": {"w": w, "b": b}}, {"y": y, "aux": (a, b)})``); a compiled function
then takes and returns the same structures. The containers and their order:

- ``tuple``, ``list``: in order; a ``namedtuple``: in field order;
- ``dict``: in sorted key order (as jax; keys of one dict must be comparable);
- ``None``: a node with no leaves;
- a dataclass registered with ``register_dataclass``: its fields in order;
- any class registered with ``register_pytree_node(cls, flatten, unflatten)``.

Everything else is a leaf. Each leaf has a path (``['params']['w']``, ``[0].b``)
that error messages use.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Hashable, Iterable, Sequence

__all__ = ["PyTreeDef", "tree_flatten", "tree_unflatten", "tree_leaves", "register_pytree_node",
           "register_dataclass", "flatten_like", "Parameters", "LEAF_DEF", "is_container"]

#: cls -> (flatten(obj) -> (children, aux), unflatten(aux, children) -> obj)
_REGISTRY: dict[type, tuple[Callable, Callable]] = {}


def register_pytree_node(cls: type, flatten: Callable[[Any], tuple[Iterable[Any], Hashable]],
                         unflatten: Callable[[Hashable, Sequence[Any]], Any]) -> type:
    """Makes instances of ``cls`` pytree nodes: ``flatten(obj)`` returns
    ``(children, aux)`` (``aux`` hashable, compared between structures) and
    ``unflatten(aux, children)`` rebuilds the object. Returns ``cls``."""
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree_node takes a class, got {cls!r}")
    if cls in _REGISTRY or cls in (tuple, list, dict, type(None)):
        raise ValueError(f"{cls.__name__} is already a pytree node type")
    _REGISTRY[cls] = (flatten, unflatten)
    return cls


def register_dataclass(cls: type) -> type:
    """Makes a dataclass a pytree node whose children are its fields, in order
    (usable as a decorator, below ``@dataclasses.dataclass``)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"register_dataclass takes a dataclass, got {cls!r}")
    names = tuple(f.name for f in dataclasses.fields(cls))

    def flatten(obj):
        return [getattr(obj, n) for n in names], names

    def unflatten(aux, children):
        return cls(**dict(zip(aux, children)))

    return register_pytree_node(cls, flatten, unflatten)


class PyTreeDef:
    """The structure of a pytree: ``kind`` (a container type, or None for a leaf),
    ``aux`` (dict keys, field names, a registered node's aux data) and the child
    structures. Equal structures flatten and unflatten alike."""

    __slots__ = ("kind", "aux", "children", "num_leaves", "_hash")

    def __init__(self, kind: type | None, aux: Any, children: tuple["PyTreeDef", ...]):
        self.kind = kind
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)
        self._hash = hash((kind, aux, children))

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, PyTreeDef) and self._hash == other._hash and self.kind is other.kind
                and self.aux == other.aux and self.children == other.children)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({self._show()})"

    def _show(self) -> str:
        k = self.kind
        if k is None:
            return "*"
        inner = [c._show() for c in self.children]
        if k is dict:
            return "{" + ", ".join(f"{key!r}: {s}" for key, s in zip(self.aux, inner)) + "}"
        if k is list:
            return "[" + ", ".join(inner) + "]"
        if k is tuple:
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        if k is type(None):
            return "None"
        return f"{k.__name__}(" + ", ".join(inner) + ")"

    def child_keys(self) -> list[str]:
        """The path step to each child: ``[0]``, ``['w']``, ``.field``."""
        k = self.kind
        if k is dict:
            return [f"[{key!r}]" for key in self.aux]
        if _is_namedtuple(k) or (k in _REGISTRY and isinstance(self.aux, tuple)
                                 and all(isinstance(a, str) for a in self.aux)
                                 and len(self.aux) == len(self.children)):
            names = k._fields if _is_namedtuple(k) else self.aux
            return [f".{n}" for n in names]
        return [f"[{i}]" for i in range(len(self.children))]

    def paths(self, prefix: str = "") -> list[str]:
        """The path of each leaf, in flattening order."""
        if self.kind is None:
            return [prefix]
        out: list[str] = []
        for key, c in zip(self.child_keys(), self.children):
            out.extend(c.paths(prefix + key))
        return out

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """The tree of this structure holding ``leaves`` (in flattening order)."""
        it = iter(leaves)
        out = self._build(it)
        if next(it, _END) is not _END:
            raise ValueError(f"too many leaves for {self!r}")
        return out

    def _build(self, it) -> Any:
        k = self.kind
        if k is None:
            v = next(it, _END)
            if v is _END:
                raise ValueError(f"too few leaves for a tree of {self.num_leaves}")
            return v
        kids = [c._build(it) for c in self.children]
        if k is tuple or k is list:
            return k(kids)
        if k is dict:
            return dict(zip(self.aux, kids))
        if k is type(None):
            return None
        if _is_namedtuple(k):
            return k(*kids)
        return _REGISTRY[k][1](self.aux, kids)


_END = object()


def _is_namedtuple(k: Any) -> bool:
    return isinstance(k, type) and issubclass(k, tuple) and hasattr(k, "_fields")


def _node(obj: Any) -> tuple[type, Any, list[Any]] | None:
    """(kind, aux, children) of a container, or None for a leaf."""
    k = type(obj)
    if k is tuple or k is list:
        return k, None, list(obj)
    if k is dict:
        try:
            keys = tuple(sorted(obj))
        except TypeError:
            raise TypeError(f"pytree dicts need sortable keys, got {list(obj)!r}") from None
        return dict, keys, [obj[key] for key in keys]
    if obj is None:
        return type(None), None, []
    if _is_namedtuple(k):
        return k, None, list(obj)
    reg = _REGISTRY.get(k)
    if reg is not None:
        children, aux = reg[0](obj)
        return k, aux, list(children)
    return None


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves in order, structure) of ``tree``; ``is_leaf(x)`` True stops at ``x``."""
    leaves: list[Any] = []

    def walk(x: Any) -> PyTreeDef:
        node = None if is_leaf is not None and is_leaf(x) else _node(x)
        if node is None:
            leaves.append(x)
            return LEAF_DEF
        kind, aux, children = node
        return PyTreeDef(kind, aux, tuple(walk(c) for c in children))

    return leaves, walk(tree)


#: the structure of a single leaf
LEAF_DEF = PyTreeDef(None, None, ())


def is_container(x: Any) -> bool:
    """Whether ``x`` is meant as a structure of leaves: a tuple, list or dict (or an
    instance of a subclass), None, or an instance of a registered node class."""
    return isinstance(x, (tuple, list, dict)) or x is None or type(x) in _REGISTRY


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def flatten_like(value: Any, treedef: PyTreeDef, where: str) -> list[Any]:
    """The leaves of ``value``, which must have the structure ``treedef`` (leaves of
    ``treedef`` accept anything); raises TypeError naming the first place that differs."""
    out: list[Any] = []

    def walk(x: Any, d: PyTreeDef, path: str) -> None:
        if d.kind is None:
            out.append(x)
            return
        node = _node(x)
        if node is None or node[0] is not d.kind or (node[1] != d.aux and d.kind is not list
                                                     and d.kind is not tuple):
            raise TypeError(f"{where}{path}: expected {_describe(d)}, got {_describe_value(x)}")
        if len(node[2]) != len(d.children):
            raise TypeError(f"{where}{path}: expected {_describe(d)}, got {_describe_value(x)}")
        for key, c, child in zip(d.child_keys(), d.children, node[2]):
            walk(child, c, path + key)

    walk(value, treedef, "")
    return out


def _describe(d: PyTreeDef) -> str:
    k = d.kind
    if k is dict:
        return f"a dict with keys {list(d.aux)!r}"
    if k is list or k is tuple:
        return f"a {k.__name__} of {len(d.children)}"
    if k is type(None):
        return "None"
    return f"a {k.__name__}"


def _describe_value(x: Any) -> str:
    if isinstance(x, dict):
        return f"a dict with keys {sorted(x, key=repr)!r}"
    if type(x) in (list, tuple):
        return f"a {type(x).__name__} of {len(x)}"
    if x is None:
        return "None"
    shape = getattr(x, "shape", None)
    return f"{type(x).__name__}" + (f" of shape {tuple(shape)}" if shape is not None else "")


_MISSING = object()


class Parameters:
    """The parameters of a graph, one per top-level input: a name (or None) and the
    structure of the argument it takes (a single leaf for a plain input Variable).
    ``bind(args, kwargs)`` matches a call's arguments to them as Python matches a
    function's (positional first, then by name) and returns the leaves in order."""

    __slots__ = ("names", "defs", "num_leaves")

    def __init__(self, names: Sequence[str | None], defs: Sequence[PyTreeDef]):
        self.names = tuple(names)
        self.defs = tuple(defs)
        self.num_leaves = sum(d.num_leaves for d in self.defs)

    def label(self, i: int) -> str:
        """How messages name parameter ``i``."""
        name = self.names[i]
        return f"argument {i} ({name!r})" if name else f"argument {i}"

    def leaf_labels(self) -> list[str]:
        """How messages name each leaf, in order: ``argument 1 ('params')['w']``."""
        out: list[str] = []
        for i, d in enumerate(self.defs):
            out.extend(self.label(i) + p for p in d.paths())
        return out

    def _listing(self) -> str:
        return ", ".join(n or f"#{i}" for i, n in enumerate(self.names))

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
        n = len(self.names)
        if len(args) > n:
            raise TypeError(f"expected {n} arguments ({self._listing()}), got {len(args)}")
        slots = list(args) + [_MISSING] * (n - len(args))
        for key, value in kwargs.items():
            found = [i for i, name in enumerate(self.names) if name == key]
            if not found:
                raise TypeError(f"unexpected keyword argument {key!r}; the inputs are ({self._listing()})")
            if len(found) > 1:
                raise TypeError(f"keyword argument {key!r} is ambiguous: inputs {found} are all named {key!r}")
            i = found[0]
            if slots[i] is not _MISSING:
                raise TypeError(f"got multiple values for argument {key!r}")
            slots[i] = value
        missing = [self.names[i] or f"#{i}" for i, s in enumerate(slots) if s is _MISSING]
        if missing:
            raise TypeError(f"missing {len(missing)} argument{'s' if len(missing) > 1 else ''}: "
                            + ", ".join(repr(m) for m in missing) + f" (the inputs are ({self._listing()}))")
        leaves: list[Any] = []
        for i, (value, d) in enumerate(zip(slots, self.defs)):
            if d.kind is None:
                leaves.append(value)
            else:
                leaves.extend(flatten_like(value, d, self.label(i)))
        return leaves
