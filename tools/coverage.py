"""The op coverage table, generated from the registries: per op family, which
ops lower natively to StableHLO, which borrow jax's lowering through the bridge,
and which run on the host only. ``hlograph coverage`` prints it; the README's
table is checked against it by the tests."""

from __future__ import annotations

import inspect

from ..frontend import ops
from ..compiler.placement import class_placement
from ..frontend.graph import Op
from ..lowering.registry import registered_ops as registered_rules
from ..runtime.host.registry import registered_ops as registered_impls

__all__ = ["op_families", "coverage_rows", "coverage_table"]


def op_families() -> dict[str, list[type[Op]]]:
    """Family name -> its concrete Op classes, in definition order: the leaves of
    the family's class tree, and base classes with a rule or implementation of
    their own (abstract bases such as Elemwise have none)."""
    families: dict[str, list[type[Op]]] = {}
    own = set(registered_rules()) | set(registered_impls())
    for name, mod in sorted(ops.FAMILIES.items()):
        if name == "basic":
            continue
        classes = [c for _, c in inspect.getmembers(mod, inspect.isclass)
                   if issubclass(c, Op) and c is not Op and c.__module__ == mod.__name__]
        leaves = [c for c in classes
                  if c in own or not any(o is not c and issubclass(o, c) for o in classes)]
        if leaves:
            leaves.sort(key=lambda c: inspect.getsourcelines(c)[1])
            families[name] = leaves
    return families


def coverage_rows() -> list[tuple[str, str, list[str]]]:
    """(family, placement, op class names) rows."""
    rows = []
    for family, classes in op_families().items():
        by_place: dict[str, list[str]] = {}
        for cls in classes:
            by_place.setdefault(class_placement(cls), []).append(cls.__name__)
        for place in ("native StableHLO", "jax bridge", "host (Numba)", "host (Python perform)"):
            if place in by_place:
                rows.append((family, place, by_place[place]))
    return rows


def coverage_table() -> str:
    lines = ["| family | runs as | ops |", "|---|---|---|"]
    for family, place, names in coverage_rows():
        lines.append(f"| {family} | {place} | {', '.join(names)} |")
    return "\n".join(lines)
