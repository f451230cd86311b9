"""Any StableHLO module as a callable: ``hlograph.runtime.load(module_or_text)``.

    import hlograph.runtime as rt
    f = rt.load(open("add.mlir").read())
    f(np.ones(3, np.float32), np.ones(3, np.float32))   # -> NumPy array(s)

The module is parsed in a fresh MLIR context (text, MLIR bytecode, a versioned
StableHLO artifact, or an ``ir.Module``), optionally optimized by a pass pipeline,
and its public ``@main`` is compiled with PJRT. Argument and result types come
from ``@main``'s function type. StableHLO's ``check.*`` assertions (see
:mod:`hlograph.runtime.checks`) become extra results compared on the host after
each call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

from ..xla import export, mlir, pjrt
from ..xla.mlir import element_dtype, func, ir
from . import executables
from .args import native_byte_order
from .checks import (Check, CheckError, CheckOutcome, check_kind, count_checks, evaluate_check,
                     extract_checks, format_location, normalize_checks, rewrite_check_syntax, walk_ops)

__all__ = [
    "load", "LoadedModule", "RunResult", "ArraySpec", "CheckFailure", "MLIRDiagnosticError", "ChecksChangedError",
    "Prepared", "prepare", "parse_module", "element_dtype", "bind_call_results", "prepare_targets",
    "check_artifact_version",
]

_BYTECODE_MAGIC = b"ML\xefR"


class MLIRDiagnosticError(ValueError):
    """MLIR rejected a module. ``diagnostics`` are ``(location, message, notes)`` with
    ``location`` as ``file:line:col``; ``str()`` gives one compiler-style line each."""

    def __init__(self, summary: str, diagnostics: Sequence[tuple[str, str, Sequence[tuple[str, str]]]],
                 context: str | None = None):
        self.summary = summary
        self.diagnostics = list(diagnostics)
        self.context = context
        super().__init__(str(self))

    @classmethod
    def from_mlir(cls, error: ir.MLIRError, filename: str | None) -> "MLIRDiagnosticError":
        diags = []
        for d in error.error_diagnostics:
            notes = [(format_location(n.location, filename), n.message) for n in d.notes
                     if not n.message.startswith("see current operation")]  # the op, printed generically
            diags.append((format_location(d.location, filename), d.message, notes))
        summary = str(getattr(error, "message", "") or error).split("\n", 1)[0].rstrip(":")
        return cls(summary, diags)

    def __str__(self) -> str:
        suffix = f" ({self.context})" if self.context else ""
        if not self.diagnostics:
            return f"error: {self.summary}{suffix}"
        lines = []
        for loc, msg, notes in self.diagnostics:
            lines.append(f"{loc}: error: {msg}{suffix}")
            lines += [f"{nloc}: note: {nmsg}" for nloc, nmsg in notes]
        return "\n".join(lines)


class CheckFailure(AssertionError):
    """One or more ``check.*`` assertions of a module failed; ``outcomes`` has all of them."""

    def __init__(self, outcomes: Sequence[CheckOutcome]):
        self.outcomes = list(outcomes)
        failed = [o for o in self.outcomes if not o.passed]
        super().__init__(f"{len(failed)} of {len(self.outcomes)} checks failed:\n"
                         + "\n".join(o.report() for o in failed))


@dataclass(frozen=True)
class ArraySpec:
    """The NumPy dtype and static shape of an argument or result, with its MLIR type."""

    dtype: np.dtype
    shape: tuple[int, ...]
    mlir_type: str

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        name = "bfloat16" if self.dtype == np.dtype(ml_dtypes.bfloat16) else self.dtype.name
        return f"{name}[{','.join(map(str, self.shape))}]"


def _spec(t: ir.Type, what: str) -> ArraySpec:
    try:
        rt = ir.RankedTensorType(t)
    except ValueError:
        raise TypeError(f"{what} has type {t}; only ranked tensors can cross the PJRT boundary") from None
    if not rt.has_static_shape:
        raise TypeError(f"{what} has the dynamic type {t}; give a module with static shapes")
    try:
        dtype = element_dtype(rt.element_type)
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None
    return ArraySpec(dtype, tuple(rt.shape), str(t))


# --------------------------------------------------------------------------- #
# Parsing
# --------------------------------------------------------------------------- #

def _context() -> ir.Context:
    ctx = mlir.make_context()
    ctx.allow_unregistered_dialects = True  # the check dialect, rewritten before compiling
    return ctx


def parse_module(source: str | bytes | ir.Module, *, filename: str | None = None) -> ir.Module:
    """Parses ``source`` into a fresh context: MLIR text, MLIR bytecode, a versioned
    StableHLO artifact, or an ``ir.Module`` (copied, never modified).

    Raises:
        MLIRDiagnosticError: MLIR's diagnostics, located as ``filename:line:col``.
        CheckSyntaxError: a ``check.*`` line that does not parse.
    """
    ctx = _context()
    if isinstance(source, ir.Module):
        with source.context:
            source = source.operation.get_asm(enable_debug_info=True, assume_verified=False)
    try:
        with ctx:
            if isinstance(source, (bytes, bytearray)) and bytes(source[:4]) == _BYTECODE_MAGIC:
                check_artifact_version(bytes(source))
                module = ir.Module.parse(bytes(source))
                if any(op.operation.name.startswith("vhlo.") for op in module.body.operations):
                    module = mlir.deserialize_portable_artifact(bytes(source), ctx)
                return module
            if isinstance(source, (bytes, bytearray)):
                try:
                    source = bytes(source).decode("utf-8")
                except UnicodeDecodeError:
                    raise ValueError("the input is neither MLIR text nor MLIR bytecode") from None
            if not isinstance(source, str):
                raise TypeError(f"expected MLIR text, bytecode or an ir.Module, got {type(source).__name__}")
            return ir.Module.parse(rewrite_check_syntax(source, filename or "-"))
    except ir.MLIRError as e:
        raise MLIRDiagnosticError.from_mlir(e, filename) from None


def check_artifact_version(data: bytes) -> None:
    """Raises ValueError, naming both versions, for a portable artifact written at
    a StableHLO version newer than the newest this jaxlib reads."""
    version = mlir.artifact_version(data)
    if version is None:
        return
    newest = mlir.stablehlo_versions()[1]
    if mlir.parse_version(version) > mlir.parse_version(newest):
        raise ValueError(f"the artifact was written at StableHLO {version}, newer than {newest}, "
                         "the newest this jaxlib reads; load it with a newer jaxlib")


def _functions(module: ir.Module) -> dict[str, Any]:
    return {ir.StringAttr(op.attributes["sym_name"]).value: op
            for op in module.body.operations if op.operation.name == "func.func"}


def _is_public(f) -> bool:
    return "sym_visibility" not in f.attributes or ir.StringAttr(f.attributes["sym_visibility"]).value == "public"


def entry_function(module: ir.Module) -> str:
    """The function hlograph runs: public ``@main``, else the only function of the
    module (the convention of StableHLO's interpreter tests)."""
    funcs = _functions(module)
    if "main" in funcs and _is_public(funcs["main"]):
        return "main"
    if len(funcs) == 1:
        return next(iter(funcs))
    public = [n for n, f in funcs.items() if _is_public(f)]
    listed = ", ".join("@" + n for n in public) or "none"
    raise ValueError(f"the module has no public @main function (public functions: {listed})")


def _unregistered(module: ir.Module, filename: str | None) -> None:
    ctx = module.context
    for op in walk_ops(module.operation):
        name = op.operation.name
        if not ctx.is_registered_operation(name):
            raise MLIRDiagnosticError("unregistered operation", [(
                format_location(op.location, filename),
                f"unregistered operation '{name}' (hlograph runs StableHLO, CHLO and func ops)", [])])


def _verify(module: ir.Module, filename: str | None, when: str) -> None:
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        err = MLIRDiagnosticError.from_mlir(e, filename)
        raise MLIRDiagnosticError(err.summary, err.diagnostics, when) from None


# --------------------------------------------------------------------------- #
# Preparing a module for PJRT
# --------------------------------------------------------------------------- #

@dataclass
class Prepared:
    """A module ready for PJRT: checks turned into extra results of ``@main``."""

    module: ir.Module
    in_specs: list[ArraySpec]
    out_specs: list[ArraySpec]
    check_specs: list[ArraySpec]
    checks: list[Check]
    filename: str | None
    bound_args: list[np.ndarray] | None = None

    @property
    def num_results(self) -> int:
        return len(self.out_specs)

    def as_text(self) -> str:
        with self.module.context:
            return str(self.module)


class ChecksChangedError(RuntimeError):
    """A pass pipeline added or removed ``check.*`` ops."""


def _pipeline_name(pipeline) -> str:
    return repr(pipeline) if isinstance(pipeline, str) else getattr(pipeline, "__name__", "<transform>")


def _run_pipeline(module: ir.Module, pipeline: str | Callable[[ir.Module], object],
                  filename: str | None) -> ir.Module:
    before = count_checks(module)
    try:
        if callable(pipeline):
            out = pipeline(module)
            if isinstance(out, (str, bytes)):
                out = parse_module(out, filename=filename)
        else:
            from ..passes import run as run_pipeline
            out = run_pipeline(module, pipeline)
    except ir.MLIRError as e:
        raise MLIRDiagnosticError.from_mlir(e, filename) from None
    except (MLIRDiagnosticError, CheckError):
        raise
    except (ValueError, TypeError) as e:
        raise ValueError(f"pass pipeline {_pipeline_name(pipeline)}: {e}") from None
    except Exception as e:
        raise RuntimeError(f"the pass pipeline {_pipeline_name(pipeline)} failed: {type(e).__name__}: {e}") from e
    module = out if isinstance(out, ir.Module) else module
    _verify(module, filename, f"after the pass pipeline {_pipeline_name(pipeline)}")
    after = count_checks(module)
    if after != before:
        raise ChecksChangedError(f"the pass pipeline {_pipeline_name(pipeline)} changed the number "
                                 f"of checks from {before} to {after}")
    return module


def _make_entry_main(module: ir.Module, entry: str) -> None:
    """Renames ``@entry`` to a public ``@main`` (the function PJRT runs)."""
    funcs = _functions(module)
    f = funcs[entry]
    with module.context:
        if entry != "main":
            if "main" in funcs:
                raise ValueError(f"cannot run @{entry}: the module also has a private @main")
            f.attributes["sym_name"] = ir.StringAttr.get("main")
        if "sym_visibility" in f.attributes:
            del f.attributes["sym_visibility"]


def _function_type(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)


def prepare(source: str | bytes | ir.Module, *, pipeline: str | Callable[[ir.Module], object] | None = None,
            filename: str | None = None, args_from: str | None = None,
            platform: str | None = "cpu") -> Prepared:
    """Parses ``source``, runs ``pipeline`` (a name such as ``"O2"`` or a textual
    pipeline; or a function that transforms the module in place or returns the
    new module; None: none), and turns its checks into results of ``@main``.

    With ``args_from="inputs"``, the results of ``@main``'s call to ``@inputs()``
    become arguments of ``@main`` before the pipeline runs (see
    :func:`bind_call_results`); their values are in ``Prepared.bound_args``.

    Raises:
        MLIRDiagnosticError, CheckError, ValueError, TypeError: a module hlograph
            cannot run, with the reason and its location.
    """
    module = parse_module(source, filename=filename)
    normalize_checks(module, filename)
    _unregistered(module, filename)
    entry = entry_function(module)
    bound = None
    if args_from:
        bound = bind_call_results(module, entry, args_from, platform=platform, filename=filename)
    if pipeline is not None and pipeline != "":
        module = _run_pipeline(module, pipeline, filename)
        entry = entry_function(module)
    checks = extract_checks(module, entry, filename)
    _make_entry_main(module, entry)
    _verify(module, filename, "after its checks were turned into results")
    ftype = _function_type(_functions(module)["main"])
    in_specs = [_spec(t, f"argument {i} of @{entry}") for i, t in enumerate(ftype.inputs)]
    n_checked = sum(len(c.outputs) for c in checks)
    all_out = [_spec(t, f"result {i} of @{entry}") for i, t in enumerate(ftype.results)]
    n = len(all_out) - n_checked
    return Prepared(module, in_specs, all_out[:n], all_out[n:], checks, filename, bound)


def _find_call(block, callee: str):
    return next((op for op in block.operations if op.operation.name == "func.call" and not len(op.operands)
                 and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == callee), None)


def bind_call_results(module: ir.Module, entry: str = "main", callee: str = "inputs", *,
                      platform: str | None = "cpu", filename: str | None = None) -> list[np.ndarray] | None:
    """Turns the results of ``@entry``'s call to ``@callee()`` into arguments of
    ``@entry`` and returns their values (computed with PJRT). StableHLO's test
    programs compute their inputs in a private ``@inputs()``: as arguments, XLA
    runs the compiled program instead of constant-folding it. Returns None when
    ``@entry`` does not call ``@callee()`` at its top level.

    Raises:
        ValueError: ``@entry`` already takes arguments.
    """
    f = _functions(module)[entry]
    if len(_function_type(f).inputs):
        raise ValueError(f"@{entry} already takes arguments; cannot add those of @{callee}()")
    block = f.regions[0].blocks[0]
    call = _find_call(block, callee)
    if call is None:
        return None
    values = _evaluate_call(module, entry, callee, platform, filename)
    with module.context, ir.Location.unknown():
        args = [block.add_argument(r.type, call.location) for r in call.results]
        for r, a in zip(call.results, args):
            r.replace_all_uses_with(a)
        call.erase()
        ftype = _function_type(f)
        f.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in args], list(ftype.results)))
        if "arg_attrs" in f.attributes:
            del f.attributes["arg_attrs"]
    _verify(module, filename, f"after the results of @{callee} became arguments")
    return values


def _evaluate_call(module: ir.Module, entry: str, callee: str, platform: str | None,
                   filename: str | None) -> list[np.ndarray]:
    """Runs ``@entry`` up to its call to ``@callee()`` with PJRT (on a copy)."""
    with module.context:
        text = module.operation.get_asm(enable_debug_info=True)
    clone = parse_module(text, filename=filename)
    f = _functions(clone)[entry]
    block = f.regions[0].blocks[0]
    ops = list(block.operations)
    call = _find_call(block, callee)
    idx = next(i for i, op in enumerate(ops) if op == call)
    with clone.context, ir.Location.unknown():
        for op in reversed(ops[idx + 1:]):
            op.erase()
        for op in [op for op in walk_ops(clone.operation) if check_kind(op) is not None]:
            op.erase()
        with ir.InsertionPoint(block):
            func.ReturnOp(list(call.results))
        f.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([], [r.type for r in call.results]))
        if "res_attrs" in f.attributes:
            del f.attributes["res_attrs"]
    _make_entry_main(clone, entry)
    specs = [_spec(r.type, f"result {i} of @{callee}") for i, r in enumerate(call.results)]
    exe = _compile(clone, [], specs, platform)
    return [np.asarray(r) for r in exe.run([])]


def _compile(module: ir.Module, in_specs, out_specs, platform: str | None) -> executables.Executable:
    prepare_targets(module, platform)
    bytecode = mlir.module_to_bytecode(module)
    try:
        loaded, device = executables.compile_bytecode(bytecode, platform, fingerprint=mlir.module_fingerprint(module))
    except pjrt.JaxRuntimeError as e:
        raise RuntimeError(f"PJRT could not compile the module: {e}") from None
    return executables.Executable(loaded, device, in_specs, out_specs)


def prepare_targets(module: ir.Module, platform: str | None) -> None:
    """Makes the custom-call targets ``module`` uses runnable before it is compiled:
    jaxlib binds its LAPACK targets only when jax lowers a linear algebra op, so
    a module read from a file would call a null function without this."""
    if platform is None:
        platform = executables.get_client(None).platform
    export.prepare_custom_call_targets(export.custom_call_targets(module), platform)


# --------------------------------------------------------------------------- #
# The callable
# --------------------------------------------------------------------------- #

@dataclass(frozen=True)
class RunResult:
    """What one run produced: ``results`` of ``@main`` and one outcome per check."""

    results: list[np.ndarray]
    outcomes: list[CheckOutcome]

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failures(self) -> list[CheckOutcome]:
        return [o for o in self.outcomes if not o.passed]


_PY_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}


def _check_argument(value: Any, spec: ArraySpec, i: int) -> Any:
    where = f"argument {i}"
    # (NumPy scalars, np.float64 a float subclass among them, are arrays with a dtype)
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        kind = "f" if spec.dtype.kind == "V" else spec.dtype.kind
        ok = kind in _PY_KINDS[type(value)] or (kind in "iufc" and type(value) is bool) or \
            (kind in "fc" and type(value) is int) or (kind == "c" and type(value) is float)
        if not ok:
            raise TypeError(f"{where}: expected {spec} ({spec.mlir_type}), got Python "
                            f"{type(value).__name__} {value!r}")
        if spec.ndim:
            raise ValueError(f"{where}: expected {spec} ({spec.mlir_type}), got a Python scalar")
        try:
            return np.asarray(value, dtype=spec.dtype)
        except OverflowError:
            raise ValueError(f"{where}: {value!r} does not fit {spec}") from None
    value = native_byte_order(value)
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is None or shape is None:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{where}: expected an array of {spec} ({spec.mlir_type}), "
                            f"got {type(value).__name__}")
        value = np.asarray(value)
        dtype, shape = value.dtype, value.shape
    got = ArraySpec(np.dtype(dtype), tuple(shape), "")
    if got.dtype != spec.dtype:
        raise TypeError(f"{where}: expected {spec} ({spec.mlir_type}), got {got}")
    if got.shape != spec.shape:
        raise ValueError(f"{where}: expected {spec} ({spec.mlir_type}), got {got}")
    if type(value) is not np.ndarray and not type(value).__module__.startswith("jax"):
        value = np.asarray(value)
    return value


class LoadedModule:
    """A StableHLO module compiled with PJRT. Calling it checks the arguments
    (count, dtype, shape) against ``@main``'s types and returns NumPy arrays (one
    array for a single result, else a tuple); a failed ``check.*`` raises
    :class:`CheckFailure`. ``run()`` returns the results and the check outcomes
    without raising."""

    def __init__(self, prepared: Prepared, platform: str | None = "cpu"):
        self.prepared = prepared
        self.platform = platform
        self.in_specs = list(prepared.in_specs)
        self.out_specs = list(prepared.out_specs)
        self.checks = list(prepared.checks)
        self._exe = _compile(prepared.module, self.in_specs, self.out_specs + prepared.check_specs, platform)

    def check_arguments(self, args: Sequence[Any]) -> list[Any]:
        if len(args) != len(self.in_specs):
            want = ", ".join(map(str, self.in_specs)) or "none"
            raise TypeError(f"@main takes {len(self.in_specs)} arguments ({want}), got {len(args)}")
        return [_check_argument(a, s, i) for i, (a, s) in enumerate(zip(args, self.in_specs))]

    def run(self, *args: Any, probe_dir: str | None = None) -> RunResult:
        values = self.check_arguments(args)
        try:
            outputs = [np.asarray(r) for r in self._exe.run(values)]
        except pjrt.JaxRuntimeError as e:
            raise RuntimeError(f"PJRT failed to run the module: {e}") from None
        n = len(self.out_specs)
        outcomes = [evaluate_check(c, [outputs[i] for i in c.outputs], probe_dir=probe_dir)
                    for c in self.checks]
        return RunResult(outputs[:n], outcomes)

    def run_all(self, *args: Any) -> list[np.ndarray]:
        """Every output of the compiled ``@main``: its results, then the operands of
        its checks (in check order), without comparing them."""
        values = self.check_arguments(args)
        return [np.asarray(r) for r in self._exe.run(values)]

    def __call__(self, *args: Any):
        result = self.run(*args)
        if not result.passed:
            raise CheckFailure(result.outcomes)
        return result.results[0] if len(result.results) == 1 else tuple(result.results)

    def as_text(self) -> str:
        """The module PJRT compiled (after the pipeline, with checks as results)."""
        return self.prepared.as_text()

    def __repr__(self) -> str:
        ins = ", ".join(map(str, self.in_specs))
        outs = ", ".join(map(str, self.out_specs))
        return f"<LoadedModule ({ins}) -> ({outs}), {len(self.checks)} checks, platform={self.platform!r}>"


def load(module_or_text: str | bytes | ir.Module, platform: str | None = "cpu", *,
         pipeline: str | None = None, filename: str | None = None) -> LoadedModule:
    """Compiles any StableHLO module for ``platform`` and returns a callable.

    Args:
        module_or_text: MLIR text, MLIR bytecode, a versioned StableHLO artifact,
            or an ``ir.Module`` (copied into a fresh context, never modified).
        platform: "cpu", "gpu", "tpu", or None for the best available.
        pipeline: a pass pipeline to run first ("O2", or textual); None: none.
        filename: the name diagnostics use for the source.

    Returns:
        A :class:`LoadedModule`: ``f(*args)`` returns NumPy arrays.

    Raises:
        MLIRDiagnosticError: malformed MLIR, with ``file:line:col`` diagnostics.
        ValueError, TypeError: a module without a runnable ``@main``.
        RuntimeError: PJRT could not compile the module.
    """
    return LoadedModule(prepare(module_or_text, pipeline=pipeline, filename=filename), platform)
