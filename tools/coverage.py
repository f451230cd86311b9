"""The op coverage tables, generated from the registries and the Op classes.

- Placement (``hlograph coverage``): per op family, which ops lower natively to
  StableHLO, which borrow jax's lowering through the bridge, and which run on
  the host only.
- Gradients (``hlograph coverage --grad``): per op family, how many ops have a
  reverse-mode rule (``Op.pullback``) and which have none.

``hlograph coverage --update-readme`` rewrites both tables in README.md, between
their markers; the tests check that the README's copies are the ones these
functions give.
"""

from __future__ import annotations

import inspect
import pathlib
from typing import Sequence

from ..frontend import ops
from ..compiler.placement import class_placement
from ..frontend.graph import NotDifferentiableError, Op
from ..frontend.ops.basic import tensor
from ..frontend.types import is_inexact
from ..lowering.registry import registered_ops as registered_rules
from ..runtime.host.registry import registered_ops as registered_impls

__all__ = ["op_families", "coverage_rows", "coverage_table", "has_gradient_rule", "gradient_rows",
           "gradient_table", "TABLES", "marked_section", "update_markdown", "default_readme"]


def op_families() -> dict[str, list[type[Op]]]:
    """Family name -> its concrete Op classes, in definition order: the leaves of
    the family's class tree, and base classes with a rule or implementation of
    their own (abstract bases such as Elemwise have none)."""
    families: dict[str, list[type[Op]]] = {}
    own = set(registered_rules()) | set(registered_impls())
    for name, mod in sorted(ops.FAMILIES.items()):
        if name == "basic":
            continue
        # the module's namespace holds its classes in definition order (asking inspect
        # for each class's source line parses the module once per class: seconds)
        classes = list(dict.fromkeys(
            c for c in vars(mod).values()
            if isinstance(c, type) and issubclass(c, Op) and c is not Op and c.__module__ == mod.__name__))
        leaves = [c for c in classes
                  if c in own or not any(o is not c and issubclass(o, c) for o in classes)]
        if leaves:
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


# --- gradients ---------------------------------------------------------------------------
def _pullback_owner(cls: type[Op]) -> type:
    """The class whose ``pullback`` ``cls`` uses."""
    return next(k for k in cls.__mro__ if "pullback" in vars(k))


def _delegates(owner: type) -> bool:
    """Whether ``owner.pullback`` hands some cases to its base class's (``super().pullback``):
    a family's dispatching rule (Elemwise's asks ``partials``; the reductions' handles
    integer results), which raises for the classes that give it nothing to work with."""
    try:
        source = inspect.getsource(vars(owner)["pullback"])
    except (OSError, TypeError):
        return False
    return "super().pullback(" in source


def _probe(cls: type[Op]) -> bool:
    """Asks a dispatching ``pullback`` itself: builds a node of ``cls`` (made with no
    arguments) from float inputs and pulls cotangents back through it. False if that
    raises NotDifferentiableError. Classes that take no float input (bitwise ops,
    shifts) have nothing to differentiate and count as having a rule; so do classes
    that cannot be made without arguments (their own ``pullback`` is trusted)."""
    try:
        op = cls()
    except Exception:  # noqa: BLE001 - a constructor with required arguments
        return True
    nin = getattr(op, "nin", 1)
    for dtype in ("float64", "complex128"):
        try:
            node = op.make_node(*(tensor(f"x{i}", (3,), dtype) for i in range(nin)))
        except (TypeError, ValueError):
            continue
        cts = [tensor("ct", o.shape, o.dtype) if is_inexact(o.dtype) else None for o in node.outputs]
        try:
            op.pullback(node, cts)
        except NotDifferentiableError:
            return False
        return True
    return True


def has_gradient_rule(cls: type[Op]) -> bool:
    """Whether ``hlograph.grad`` can pull a gradient back through ``cls``: it defines
    ``pullback`` (directly or through its family's rule), i.e. not the default
    ``Op.pullback``, which raises NotDifferentiableError. Rules that return no
    gradient on purpose (integer or bool results, comparisons, argmax) count as
    rules; whether a rule returns ``UndefinedGradient`` for some inputs (a step
    function, an unknown shape) is not looked at."""
    owner = _pullback_owner(cls)
    if owner is Op:
        return False
    return not _delegates(owner) or _probe(cls)


def gradient_rows() -> list[tuple[str, int, int, list[str]]]:
    """(family, ops with a gradient rule, ops, names of the ops without one) rows."""
    rows = []
    for family, classes in op_families().items():
        missing = [c.__name__ for c in classes if not has_gradient_rule(c)]
        rows.append((family, len(classes) - len(missing), len(classes), missing))
    return rows


def gradient_table() -> str:
    lines = ["| family | gradient rules | ops without one |", "|---|---|---|"]
    for family, with_rule, total, missing in gradient_rows():
        lines.append(f"| {family} | {with_rule} of {total} | {', '.join(missing) or '-'} |")
    return "\n".join(lines)


# --- the README's copies -----------------------------------------------------------------
#: marker name -> the function generating the table between ``<!-- name -->`` and
#: ``<!-- /name -->``
TABLES = {"coverage-table": coverage_table, "gradient-table": gradient_table}


def default_readme() -> pathlib.Path:
    """README.md of the source tree (the repository root is the package)."""
    return pathlib.Path(__file__).resolve().parent.parent / "README.md"


def marked_section(text: str, name: str) -> str:
    """The text between ``<!-- name -->`` and ``<!-- /name -->`` (stripped)."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    if start not in text or end not in text:
        raise ValueError(f"no {start} ... {end} section")
    return text[text.index(start) + len(start):text.index(end)].strip()


def update_markdown(text: str, names: Sequence[str] = tuple(TABLES)) -> str:
    """``text`` with each table regenerated between its markers."""
    for name in names:
        marked_section(text, name)  # both markers are there
        start = text.index(f"<!-- {name} -->") + len(f"<!-- {name} -->")
        end = text.index(f"<!-- /{name} -->")
        text = text[:start] + "\n" + TABLES[name]() + "\n" + text[end:]
    return text
