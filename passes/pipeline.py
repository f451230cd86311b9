"""Running pass pipelines with MLIR's PassManager.

A pipeline is MLIR's textual pipeline syntax, with or without the
``builtin.module(...)`` wrapper: ``"hlograph-inline-calls,canonicalize,cse"``.
MLIR's parser cannot find Python passes by name, so the pipeline is split into
its top-level items; hlograph passes go into the PassManager as Python passes
(``pm.add(callable, name=..., argument=...)``) and everything else as text, in
order, into ONE PassManager. A named pipeline (``O0``, ``O1``, ``O2``) may stand
for the whole pipeline or for one of its items.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Sequence, TextIO

from ..xla import log
from ..xla.mlir import hlo, ir, make_context, passmanager
from .registry import (
    ModulePass, PassError, close_matches, is_registered, make_pass, pass_names,
)

__all__ = [
    "run", "check_pipeline", "PIPELINES", "build_pass_manager", "split_pipeline",
    "expand", "UPSTREAM_PASSES", "Instrumentation", "parse_module",
]

#: Named pipelines, in MLIR's textual pipeline syntax (top-level items of builtin.module).
PIPELINES: dict[str, str] = {
    # verify only
    "O0": "",
    # cheap cleanups: inline private calls, exact algebraic identities, CSE
    "O1": "hlograph-inline-calls,symbol-dce,hlograph-simplify-algebra,cse",
    # everything that never changes a result (the default of hlograph.compile)
    "O2": "hlograph-inline-calls,symbol-dce,cse,hlograph-simplify,cse",
}

#: Upstream passes known to be registered in jaxlib's MLIR (used for "did you mean").
UPSTREAM_PASSES = [
    "canonicalize", "cse", "inline", "symbol-dce", "symbol-privatize", "sccp",
    "loop-invariant-code-motion", "remove-dead-values", "topological-sort",
    "strip-debuginfo", "print-op-stats", "view-op-graph", "mem2reg", "sroa",
    "stablehlo-refine-shapes", "stablehlo-legalize-to-vhlo", "chlo-legalize-to-stablehlo",
    "stablehlo-compatibility-expander", "stablehlo-canonicalize-dynamism",
    "stablehlo-legalize-deprecated-ops",
]

_registered_stablehlo = False
_dump_counter = itertools.count()


def _register_stablehlo_passes() -> None:
    global _registered_stablehlo
    if not _registered_stablehlo:
        hlo.register_stablehlo_passes()
        _registered_stablehlo = True


@dataclass(frozen=True)
class Instrumentation:
    """What to observe while a pipeline runs.

    The printing and dumping hooks run after each top-level pipeline item (a
    nested item such as ``func.func(cse)`` counts as one).
    """

    verify_each: bool = True
    """Run MLIR's verifier after every pass (a broken module fails at the pass that broke it)."""
    print_ir_after_all: bool = False
    """Print the module after every top-level item."""
    print_ir_after: tuple[str, ...] = ()
    """Print the module after the items with these pass names."""
    timing: bool = False
    """Report per-pass timing (MLIR's pass timing, printed to stderr when the run ends)."""
    dump_dir: str | None = None
    """Write the module before the pipeline and after each item to numbered files
    in this directory (default: the ``HLOGRAPH_DUMP_DIR`` environment variable)."""
    stream: TextIO | None = None
    """Where printed IR goes (default: sys.stderr)."""

    def needs_probes(self) -> bool:
        return bool(self.print_ir_after_all or self.print_ir_after or self.effective_dump_dir())

    def effective_dump_dir(self) -> str | None:
        return self.dump_dir if self.dump_dir is not None else (os.environ.get("HLOGRAPH_DUMP_DIR") or None)


def split_pipeline(pipeline: str) -> list[str]:
    """The top-level items of a textual pipeline, without a ``builtin.module(...)`` wrapper.

    Raises:
        ValueError: unbalanced brackets or an empty item.
    """
    text = _strip_module_wrapper(pipeline.strip())
    if not text:
        return []
    items, depth, start, quote = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"invalid pass pipeline {pipeline!r}: unbalanced {ch!r} at offset {i}")
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    if depth != 0 or quote:
        raise ValueError(f"invalid pass pipeline {pipeline!r}: unbalanced brackets or quotes")
    items.append(text[start:].strip())
    if any(not item for item in items):
        raise ValueError(f"invalid pass pipeline {pipeline!r}: empty item")
    return items


def _strip_module_wrapper(text: str) -> str:
    """``builtin.module(a,b)`` -> ``a,b`` when the wrapper encloses the whole text."""
    m = re.match(r"builtin\.module\s*\(", text)
    if not m or not text.endswith(")"):
        return text
    depth = 0
    for i in range(m.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[m.end():-1].strip() if i == len(text) - 1 else text
    return text


def expand(pipeline: str) -> str:
    """The text of a named pipeline, or ``pipeline`` itself."""
    return PIPELINES.get(pipeline.strip(), pipeline)


def _expanded_items(pipeline: str, _depth: int = 0) -> list[str]:
    if _depth > 8:
        raise ValueError(f"named pipelines nest too deeply in {pipeline!r}")
    out = []
    for item in split_pipeline(expand(pipeline)):
        if item in PIPELINES:
            out.extend(_expanded_items(item, _depth + 1))
        else:
            out.append(item)
    return out


_ITEM_RE = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(?:\{(.*)\})?$", re.S)
_WORD_RE = re.compile(r"[A-Za-z0-9_.\-]+")


@dataclass
class _Item:
    text: str
    name: str
    ours: ModulePass | None = None


def _classify(item: str) -> _Item:
    m = _ITEM_RE.match(item)
    if m and (m.group(1).startswith("hlograph-") or is_registered(m.group(1))):
        return _Item(item, m.group(1), make_pass(m.group(1), m.group(2)))
    nested = item.partition("(")[2]
    for word in _WORD_RE.findall(nested):
        if word.startswith("hlograph-") or is_registered(word):
            raise ValueError(
                f"hlograph pass {word!r} inside {item!r}: hlograph passes run on the whole "
                "module; write them at the top level of the pipeline"
            )
    name = m.group(1) if m else item.partition("(")[0].strip()
    return _Item(item, name)


def _unknown_pass_error(item: str, err: Exception) -> ValueError:
    name = (_ITEM_RE.match(item) or re.match(r"([^({]*)", item)).group(1).strip()
    known = pass_names() + UPSTREAM_PASSES + list(PIPELINES)
    words = [name] + _WORD_RE.findall(item.partition("(")[2])
    msg = str(err).strip()
    for w in words:
        matches = close_matches(w, known)
        if w not in known and matches:
            return ValueError(f"unknown pass {w!r} in {item!r}; did you mean {', '.join(matches)}?")
    if "does not refer to a registered pass" in msg:
        return ValueError(f"unknown pass {name!r} in {item!r} (hlograph-opt --list-passes lists hlograph's)")
    return ValueError(f"invalid pipeline item {item!r}: {msg}")


class _PythonPass:
    """The callable MLIR runs for one hlograph pass."""

    def __init__(self, instance: ModulePass):
        self.instance = instance

    def __call__(self, op: ir.Operation, pass_) -> None:
        try:
            self.instance.apply(op.opview)
        except PassError:
            raise
        except Exception as e:
            raise PassError(f"{self.instance.name} failed: {type(e).__name__}: {e}") from e


class _Probe:
    """Runs between pipeline items: prints and dumps the module."""

    def __init__(self, label: str, inst: Instrumentation, printing: bool, state: dict):
        self.label = label
        self.inst = inst
        self.printing = printing
        self.state = state

    def __call__(self, op: ir.Operation, pass_) -> None:
        emit(op, self.label, self.inst, self.printing, self.state)


class _Clock:
    """Runs after a pipeline item while the ``hlograph.passes`` logger is on:
    logs the item with the time since the previous item ended."""

    def __init__(self, item: str, state: dict):
        self.item = item
        self.state = state

    def __call__(self, op: ir.Operation, pass_) -> None:
        now = time.perf_counter()
        start = self.state.get("clock")
        if start is not None:
            log.PASSES.info("pass %s in %.2f ms", self.item, (now - start) * 1e3)
        self.state["clock"] = time.perf_counter()


def emit(op: ir.Operation, label: str, inst: Instrumentation, printing: bool, state: dict) -> None:
    text = None
    if printing:
        text = op.get_asm()
        stream = inst.stream or sys.stderr
        stream.write(f"// -----// IR Dump {label} //----- //\n{text}\n")
        stream.flush()
    dump_dir = inst.effective_dump_dir()
    if dump_dir:
        text = text if text is not None else op.get_asm()
        step = state.setdefault("step", 0)
        state["step"] = step + 1
        safe = re.sub(r"[^A-Za-z0-9_.\-]+", "_", label.replace("After ", "after_").replace("Before ", "before_"))
        os.makedirs(dump_dir, exist_ok=True)
        path = os.path.join(dump_dir, f"{state['prefix']}.{step:04d}.{safe}.mlir")
        with open(path, "w") as f:
            f.write(text)


@dataclass
class BuiltPipeline:
    """A PassManager with the Python objects it calls (kept alive with it)."""

    pm: passmanager.PassManager
    items: list[str]
    keepalive: list = field(default_factory=list)
    state: dict = field(default_factory=dict)


def build_pass_manager(pipeline: str, context: ir.Context | None = None,
                       instrumentation: Instrumentation = Instrumentation()) -> BuiltPipeline:
    """One PassManager on ``builtin.module`` running ``pipeline`` (text or a name).

    Raises:
        ValueError: unknown pass (with close matches), bad options or syntax.
    """
    _register_stablehlo_passes()
    items = [_classify(item) for item in _expanded_items(pipeline)]
    pm = passmanager.PassManager("builtin.module", context=context)
    built = BuiltPipeline(pm, [it.text for it in items])
    probes = instrumentation.needs_probes()
    clocks = log.PASSES.isEnabledFor(logging.INFO)
    after = set(instrumentation.print_ir_after)
    for item in items:
        if item.ours is not None:
            fn = _PythonPass(item.ours)
            built.keepalive.append(fn)
            pm.add(fn, name=type(item.ours).__name__, argument=item.ours.name,
                   description=item.ours.description())
        else:
            try:
                pm.add(item.text)
            except ValueError as e:
                raise _unknown_pass_error(item.text, e) from None
        if probes:
            printing = instrumentation.print_ir_after_all or item.name in after or item.text in after
            probe = _Probe(f"After {item.text}", instrumentation, printing, built.state)
            built.keepalive.append(probe)
            pm.add(probe, name="HlographProbe", argument="hlograph-probe")
        if clocks:
            clock = _Clock(item.text, built.state)
            built.keepalive.append(clock)
            pm.add(clock, name="HlographClock", argument="hlograph-clock")
    unknown = after - {it.name for it in items} - {it.text for it in items}
    if unknown:
        raise ValueError(f"print_ir_after names passes that are not in the pipeline: {sorted(unknown)}")
    pm.enable_verifier(instrumentation.verify_each)
    if instrumentation.timing:
        pm.enable_timing()
    return built


_checked: set[str] = set()


def check_pipeline(pipeline: str) -> None:
    """Raises ValueError for a pipeline that cannot be built (before anything is lowered)."""
    if pipeline in _checked:
        return  # (passes are only ever added to the registry)
    try:
        with make_context():
            build_pass_manager(pipeline)
    except ValueError as e:
        raise ValueError(f"invalid pass pipeline {pipeline!r}: {e}") from None
    _checked.add(pipeline)


def parse_module(text: str, context: ir.Context | None = None, source: str = "<string>") -> ir.Module:
    """Parses MLIR text in ``context`` (default: a fresh one from ``make_context()``).

    Raises:
        ValueError: the text does not parse or verify; the message carries MLIR's
            diagnostics as ``source:line:col: error: ...``.
    """
    ctx = context if context is not None else make_context()
    with ctx:
        try:
            return ir.Module.parse(text)
        except ir.MLIRError as e:
            raise ValueError(format_diagnostics(e, source)) from None


def format_diagnostics(err: ir.MLIRError, source: str = "<string>") -> str:
    """MLIR's diagnostics as ``file:line:col: error: message`` lines."""
    lines = []
    for d in getattr(err, "error_diagnostics", []) or []:
        lines.extend(_format_diagnostic(d, source))
    if not lines:
        lines.append(f"{source}: error: {err}")
    return "\n".join(lines)


_LOC_RE = re.compile(r'loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<col>\d+)')


def _format_diagnostic(d, source: str, severity: str = "error") -> list[str]:
    loc = str(d.location)
    m = _LOC_RE.search(loc)
    if m:
        file = m.group("file")
        where = f"{source if file in ('-', '', '<string>') else file}:{m.group('line')}:{m.group('col')}"
    else:
        where = source
    out = [f"{where}: {severity}: {d.message}"]
    for note in getattr(d, "notes", []) or []:
        out.extend(_format_diagnostic(note, source, "note"))
    return out


def run(module: ir.Module | str, pipeline: str = "O2", *, verify_each: bool = True,
        verify: bool = False, print_ir_after_all: bool = False, print_ir_after: Sequence[str] = (),
        timing: bool = False, dump_dir: str | None = None,
        stream: TextIO | None = None) -> ir.Module:
    """Runs ``pipeline`` (a name from PIPELINES or a textual pipeline) on a module.

    Args:
        module: an ``ir.Module`` (rewritten in place) or MLIR text (parsed in a
            fresh context from ``xla.mlir.make_context()``).
        pipeline: e.g. ``"O2"`` or ``"hlograph-fold-constants,canonicalize"``.
        verify_each: run MLIR's verifier after each pass.
        verify: with ``verify_each`` off, verify the module once, after the last
            pass: a broken module still fails, without naming the pass that
            broke it, at the cost of one verification instead of one per pass.
        print_ir_after_all: print the module after each top-level item.
        print_ir_after: print the module after the items with these names.
        timing: print MLIR's per-pass timing report to stderr.
        dump_dir: write the module before and after each item to numbered files
            (default: ``$HLOGRAPH_DUMP_DIR``).
        stream: where printed IR goes (default: sys.stderr).

    Returns:
        The module (the same object when one was given).

    Raises:
        ValueError: unknown pass or malformed pipeline; text that does not parse.
        PassError: a pass failed, or the module does not verify (after a pass, or
            as given for ``O0``).
    """
    if isinstance(module, str):
        module = parse_module(module)
    inst = Instrumentation(verify_each=verify_each, print_ir_after_all=print_ir_after_all,
                           print_ir_after=tuple(print_ir_after), timing=timing,
                           dump_dir=dump_dir, stream=stream)
    with module.context:
        built = build_pass_manager(pipeline, module.context, inst)
        if inst.needs_probes():
            name = module.operation.attributes["sym_name"].value if "sym_name" in module.operation.attributes else "module"
            built.state["prefix"] = f"module_{next(_dump_counter):04d}.{name}"
            emit(module.operation, "Before pipeline", inst, False, built.state)
        start = built.state["clock"] = time.perf_counter()
        try:
            if built.items:
                built.pm.run(module.operation)
                if verify and not verify_each:
                    module.operation.verify()
            else:
                module.operation.verify()
        except ir.MLIRError as e:
            raise PassError(f"pipeline {pipeline!r} failed:\n{format_diagnostics(e)}") from e
        finally:
            del built
    if log.PASSES.isEnabledFor(logging.INFO):
        log.PASSES.info("pipeline %s in %.2f ms", pipeline, (time.perf_counter() - start) * 1e3)
    return module

