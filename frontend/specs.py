"""Partition specs: how an array's dimensions are split over the axes of a device mesh.

A spec has one entry per array dimension: ``None`` (the dimension is not split),
an axis name (split over that mesh axis) or a tuple of axis names (split over
their product, major to minor). ``P("x", None)`` splits the rows of a matrix
over the mesh axis ``"x"`` and keeps whole rows on each device. Plain tuples,
``jax.sharding.PartitionSpec`` and ``jax.sharding.NamedSharding`` (its spec) are
accepted wherever a spec is.
"""

from __future__ import annotations

from typing import Any, Iterator

__all__ = ["P", "normalize_spec", "format_spec"]

#: a normalized spec: per dimension, the tuple of mesh axis names it is split over
Spec = tuple[tuple[str, ...], ...]


class P:
    """A partition spec: one entry per array dimension (``None``, an axis name, or
    a tuple of axis names), as ``jax.sharding.PartitionSpec``."""

    __slots__ = ("entries",)

    def __init__(self, *entries: Any):
        self.entries = tuple(entries)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, P) and self.entries == other.entries

    def __hash__(self) -> int:
        return hash(("P", self.entries))

    def __repr__(self) -> str:
        return "P(" + ", ".join(map(repr, self.entries)) + ")"


def is_spec_object(spec: Any) -> bool:
    """True for a ``P``, a jax ``PartitionSpec`` or a ``NamedSharding`` (not a plain tuple)."""
    return isinstance(spec, P) or _jax_kind(spec) is not None


def _jax_kind(spec: Any) -> str | None:
    name = type(spec).__name__
    module = type(spec).__module__ or ""
    if not module.startswith("jax"):
        return None
    if name in ("PartitionSpec", "P"):
        return "spec"
    if name == "NamedSharding":
        return "sharding"
    return None


def normalize_spec(spec: Any, ndim: int | None, where: str) -> Spec:
    """``spec`` as one tuple of axis names per dimension.

    Args:
        spec: ``None`` (replicated), a ``P``, a tuple or list of entries, a jax
            ``PartitionSpec`` or a ``NamedSharding``.
        ndim: the rank of the array it describes (None: not checked); a spec
            shorter than the rank leaves the remaining dimensions unsplit.
        where: names the array in error messages.

    Raises:
        TypeError: an entry is not None, a str or a tuple of str.
        ValueError: more entries than dimensions, or an axis used twice.
    """
    if spec is None:
        entries: tuple = ()
    elif isinstance(spec, P):
        entries = spec.entries
    elif _jax_kind(spec) == "sharding":
        entries = tuple(spec.spec)
    elif _jax_kind(spec) == "spec":
        entries = tuple(spec)
    elif isinstance(spec, (tuple, list)):
        entries = tuple(spec)
    else:
        raise TypeError(
            f"{where}: a partition spec must be None, hg.P(...), a tuple of axis names/None, "
            f"a jax PartitionSpec or NamedSharding; got {spec!r}"
        )
    dims: list[tuple[str, ...]] = []
    for i, e in enumerate(entries):
        if e is None:
            dims.append(())
        elif isinstance(e, str):
            dims.append((e,))
        elif isinstance(e, (tuple, list)) and all(isinstance(a, str) for a in e):
            dims.append(tuple(e))
        else:
            raise TypeError(
                f"{where}: entry {i} of the partition spec {_show(entries)} must be None, "
                f"an axis name or a tuple of axis names; got {e!r}"
            )
    if ndim is not None and len(dims) > ndim:
        raise ValueError(
            f"{where}: the partition spec {_show(entries)} has {len(dims)} entries "
            f"for an array of rank {ndim}"
        )
    seen: set[str] = set()
    for axes in dims:
        for a in axes:
            if a in seen:
                raise ValueError(f"{where}: mesh axis {a!r} appears twice in the partition spec {_show(entries)}")
            seen.add(a)
    if ndim is not None:
        dims.extend([()] * (ndim - len(dims)))
    return tuple(dims)


def format_spec(spec: Spec) -> str:
    """``P('x', None)`` for a normalized spec."""
    parts = []
    for axes in spec:
        parts.append("None" if not axes else repr(axes[0]) if len(axes) == 1 else repr(axes))
    return "P(" + ", ".join(parts) + ")"


def _show(entries: tuple) -> str:
    return "P(" + ", ".join(map(repr, entries)) + ")"
