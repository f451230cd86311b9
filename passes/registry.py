"""The pass registry: ``ModulePass``, ``register`` and lookup by name.

A pass is a frozen dataclass that subclasses :class:`ModulePass`. Its ``name``
is the kebab-case name used in pipelines (``hlograph-<verb>-<object>``), its
docstring's first line is the description shown by ``hlograph-opt
--list-passes``, and its dataclass fields are its options, written in a
pipeline as MLIR writes pass options: ``hlograph-fold-constants{max-elements=64}``
(options separated by spaces, list values by commas).

Built-in passes are registered lazily: looking a name up imports its module.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import re
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from ..xla.mlir import ir

__all__ = [
    "ModulePass", "PassError", "register", "get_pass", "pass_names", "make_pass",
    "all_passes", "close_matches",
]

_NAME_RE = re.compile(r"^hlograph(-[a-z0-9]+)+$")

#: name -> "module:Class" of the passes that ship with hlograph (imported on first use)
_BUILTIN: dict[str, str] = {
    "hlograph-fold-constants": "fold_constants:FoldConstantsPass",
    "hlograph-simplify-algebra": "simplify_algebra:SimplifyAlgebraPass",
    "hlograph-fold-dot-transposes": "fold_dot_transposes:FoldDotTransposesPass",
    "hlograph-sink-broadcasts": "sink_broadcasts:SinkBroadcastsPass",
    "hlograph-inline-calls": "inline_calls:InlineCallsPass",
    "hlograph-simplify": "simplify:SimplifyPass",
    "hlograph-bound-fusion": "bound_fusion:BoundFusionPass",
    "hlograph-cut-fusion": "cut_fusion:CutFusionPass",
    "hlograph-round-compared-sums": "round_compared_sums:RoundComparedSumsPass",
    "hlograph-roll-loops": "roll_loops:RollLoopsPass",
    "hlograph-fold-reductions": "fold_reductions:FoldReductionsPass",
    "hlograph-simplify-power": "simplify_power:SimplifyPowerPass",
    "hlograph-order-operands": "order_operands:OrderOperandsPass",
    "hlograph-sink-into-branches": "sink_into_branches:SinkIntoBranchesPass",
}

_REGISTRY: dict[str, type["ModulePass"]] = {}
#: pass class -> its options (``ModulePass.options``)
_OPTIONS: dict[type, dict[str, Any]] = {}


class PassError(RuntimeError):
    """A pass could not go on; the message names the pass and the op's location.

    It comes out of ``PassManager.run`` (and so ``hlograph.passes.run``) unchanged.
    """


@dataclass(frozen=True)
class ModulePass:
    """Base class of hlograph passes: a frozen dataclass whose fields are its options.

    Subclasses set ``name`` and implement ``apply``; they run on a whole
    ``builtin.module``.
    """

    name: ClassVar[str] = ""

    def apply(self, module: ir.Module) -> None:
        """Rewrites ``module`` in place (an ``ir.Module`` or a builtin ``ModuleOp``)."""
        raise NotImplementedError(f"{type(self).__name__} does not define apply()")

    @classmethod
    def description(cls) -> str:
        """The first line of the docstring."""
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    @classmethod
    def options(cls) -> dict[str, Any]:
        """Option name (kebab case) -> the field's type."""
        found = _OPTIONS.get(cls)
        if found is None:  # (evaluating the annotations costs milliseconds; pipelines ask per run)
            hints = typing.get_type_hints(cls)
            found = _OPTIONS[cls] = {f.name.replace("_", "-"): hints[f.name] for f in dataclasses.fields(cls)}
        return dict(found)

    def pipeline_text(self) -> str:
        """The pass as a pipeline item, with the options that differ from the defaults."""
        opts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.default is not dataclasses.MISSING and value == f.default:
                continue
            opts.append(f"{f.name.replace('_', '-')}={_format_value(value)}")
        return f"{self.name}{{{' '.join(opts)}}}" if opts else self.name


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(_format_value(v) for v in value)
    return str(value)


def register(cls: type[ModulePass]) -> type[ModulePass]:
    """Class decorator: files a pass under its ``name``.

    Raises:
        TypeError: ``cls`` is not a frozen dataclass subclassing ``ModulePass``
            or has no docstring.
        ValueError: the name is not ``hlograph-<kebab-case>`` or is taken by another pass.
    """
    if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
        raise TypeError(f"register() takes a ModulePass subclass, got {cls!r}")
    params = getattr(cls, "__dataclass_params__", None)
    if "__dataclass_fields__" not in cls.__dict__ or params is None or not params.frozen:
        raise TypeError(f"pass {cls.__name__} must be a @dataclass(frozen=True)")
    if not _NAME_RE.match(cls.name or ""):
        raise ValueError(
            f"pass {cls.__name__}: name {cls.name!r} must be kebab case starting with 'hlograph-'"
        )
    if not (cls.__doc__ or "").strip() or cls.__doc__ == ModulePass.__doc__:
        raise TypeError(f"pass {cls.__name__} ({cls.name}) needs a docstring saying what it does")
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"pass {cls.name}: option {f.name!r} needs a default value")
    old = _REGISTRY.get(cls.name)
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"pass name {cls.name!r} is already registered by {old.__module__}.{old.__qualname__}")
    _REGISTRY[cls.name] = cls
    return cls


def pass_names() -> list[str]:
    """All registered pass names (built-in and user-registered), sorted."""
    return sorted(set(_BUILTIN) | set(_REGISTRY))


def close_matches(name: str, candidates: list[str]) -> list[str]:
    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)


def is_registered(name: str) -> bool:
    return name in _REGISTRY or name in _BUILTIN


def get_pass(name: str) -> type[ModulePass]:
    """The pass class registered under ``name`` (importing a built-in pass's module).

    Raises:
        ValueError: no pass has that name; the message lists the closest names.
    """
    cls = _REGISTRY.get(name)
    if cls is not None:
        return cls
    target = _BUILTIN.get(name)
    if target is None:
        matches = close_matches(name, pass_names())
        hint = f"; did you mean {', '.join(matches)}?" if matches else ""
        raise ValueError(f"unknown hlograph pass {name!r}{hint} (hlograph-opt --list-passes lists them)")
    module_name, class_name = target.split(":")
    module = importlib.import_module(f"{__package__}.{module_name}")
    cls = getattr(module, class_name)
    _REGISTRY.setdefault(name, cls)
    return cls


def all_passes() -> list[type[ModulePass]]:
    """Every registered pass class, importing the built-in ones."""
    return [get_pass(n) for n in pass_names()]


def make_pass(name: str, options: str | None = None) -> ModulePass:
    """An instance of the pass ``name`` with options parsed from MLIR's option
    syntax (``"max-elements=64 fast-math=true"``).

    Raises:
        ValueError: unknown pass, unknown option (the valid ones are listed) or a bad value.
    """
    cls = get_pass(name)
    kwargs = parse_options(cls, options or "")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: {e}") from e


def parse_options(cls: type[ModulePass], text: str) -> dict[str, Any]:
    types = cls.options()
    kwargs: dict[str, Any] = {}
    for item in _split_options(text):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if key not in types:
            valid = ", ".join(types) or "none"
            raise ValueError(f"{cls.name}: unknown option {key!r}; valid options: {valid}")
        if not sep:
            if types[key] is not bool:
                raise ValueError(f"{cls.name}: option {key!r} needs a value ({key}=...)")
            raw = "true"
        kwargs[key.replace("-", "_")] = _convert(cls.name, key, types[key], raw.strip())
    return kwargs


def _split_options(text: str) -> list[str]:
    """Options are separated by spaces outside quotes and braces."""
    items, cur, depth, quote = [], [], 0, False
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "{[(":
            depth += 1
        elif not quote and ch in "}])":
            depth -= 1
        if ch.isspace() and depth == 0 and not quote:
            if cur:
                items.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        items.append("".join(cur))
    return items


def _convert(pass_name: str, key: str, typ: Any, raw: str) -> Any:
    def bad(expected: str) -> ValueError:
        return ValueError(f"{pass_name}: option {key!r} expects {expected}, got {raw!r}")

    if typ is bool:
        if raw.lower() in ("true", "1", "on"):
            return True
        if raw.lower() in ("false", "0", "off"):
            return False
        raise bad("true or false")
    if typ is int:
        try:
            return int(raw, 0)
        except ValueError:
            raise bad("an integer") from None
    if typ is float:
        try:
            return float(raw)
        except ValueError:
            raise bad("a number") from None
    if typ is str:
        return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == '"' else raw
    origin = typing.get_origin(typ)
    if origin in (tuple, list):
        (elem, *_rest) = typing.get_args(typ) or (str,)
        parts = [p for p in raw.split(",") if p.strip()]
        return tuple(_convert(pass_name, key, elem, p.strip()) for p in parts)
    raise bad(f"a value of type {typ}")
