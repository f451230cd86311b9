"""Portable artifacts: ``Lowered.serialize()`` writes a lowered program as a
versioned StableHLO artifact, ``hlograph.load`` reads one back as a callable,
and also plain StableHLO (text or bytecode) and jax.export's serialized
``Exported``. The format is described in docs/artifacts.md.

    data = hg.compile(g).lower(x).serialize()      # bytes (VHLO bytecode)
    f = hg.load(data)                               # or hg.load("model.mlirbc")
    f(x)                                            # as hg.compile(g)(x)
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Variable
from ..frontend.types import TensorType, as_dtype
from ..lowering.lower import CompileError, attribute_dicts, set_attribute_dicts
from ..runtime import executables
from ..runtime.args import check_arguments
from ..runtime.devices import default_platform
from ..runtime.load import check_artifact_version, entry_function, parse_module, prepare, prepare_targets
from .partition import DEVICE
from ..xla import export as xla_export
from ..xla import mlir
from ..xla.mlir import ir
from ..xla.pjrt import JaxRuntimeError

__all__ = ["serialize", "load", "LoadedFunction", "ArtifactError", "ARTIFACT_FORMAT"]

#: the version of hlograph's metadata in an artifact (``hlograph.artifact_format``)
ARTIFACT_FORMAT = 1

_BYTECODE_MAGIC = b"ML\xefR"
_TYPE = re.compile(r"^([A-Za-z0-9_]+)\[([^\]]*)\]$")


class ArtifactError(ValueError):
    """An artifact hlograph cannot write or read, with the reason."""


def _hlograph_version() -> str:
    try:
        return metadata.version("hlograph")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "unknown"


# --------------------------------------------------------------------------- #
# Writing
# --------------------------------------------------------------------------- #

def _host_ops(program) -> list[str]:
    names: dict[str, None] = {}
    for seg in program.segments:
        if seg.kind != DEVICE:
            for node in seg.nodes:
                names[type(node.op).__name__] = None
    return list(names)


def serialize(lowered, target_version: str | None = None) -> bytes:
    """The body of ``Lowered.serialize`` (see there)."""
    if lowered.program is not None:
        ops = _host_ops(lowered.program)
        raise ArtifactError(
            "cannot serialize a program with host segments (ops that run on the host: "
            f"{', '.join(ops) or 'none'}); a portable artifact holds one StableHLO module. "
            "Function.explain() shows what runs where")
    if getattr(lowered, "mesh", None) is not None:
        raise ArtifactError("cannot serialize a program compiled for a mesh: an artifact holds a "
                            "single-device program")
    module = lowered._module
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True, binary=True))
    host_calls = [t for t in xla_export.custom_call_targets(copy) if t.startswith("hlograph_")]
    if host_calls:
        raise ArtifactError(
            f"cannot serialize a module that calls hlograph host functions ({', '.join(host_calls)}): "
            "they are compiled in this process only; compile with HLOGRAPH_HOST_FFI=0 or for "
            "another platform so that no host call is embedded")
    _drop_sharding_rules(copy)
    graph = lowered.graph
    with copy.context:
        attrs = copy.operation.attributes
        attrs["hlograph.version"] = ir.StringAttr.get(_hlograph_version())
        attrs["hlograph.artifact_format"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), ARTIFACT_FORMAT)
        attrs["hlograph.platforms"] = ir.ArrayAttr.get([ir.StringAttr.get(lowered.platform)])
        main = ir.SymbolTable(copy.operation)["main"]
        args = attribute_dicts(main, "arg_attrs")
        for d, v in zip(args, graph.inputs):
            d["hlograph.type"] = ir.StringAttr.get(str(v.type))
            if v.name:
                d["hlograph.name"] = ir.StringAttr.get(v.name)
        set_attribute_dicts(main, "arg_attrs", args)
        results = attribute_dicts(main, "res_attrs")
        for d, v in zip(results, graph.outputs):
            d["hlograph.type"] = ir.StringAttr.get(str(v.type))
            if v.name:
                d["jax.result_info"] = ir.StringAttr.get(v.name)
        set_attribute_dicts(main, "res_attrs", results)
        if graph.single_output:
            attrs["hlograph.single_output"] = ir.BoolAttr.get(True)
    if target_version is None:
        data, _ = mlir.serialize_portable_artifact_oldest(copy)
        return data
    oldest, newest = mlir.stablehlo_versions()
    try:
        wanted = mlir.parse_version(target_version)
    except ValueError as e:
        raise ArtifactError(str(e)) from None
    if not mlir.parse_version(oldest) <= wanted <= mlir.parse_version(newest):
        raise ArtifactError(f"StableHLO version {target_version} is outside the versions this "
                            f"jaxlib writes ({oldest} to {newest})")
    try:
        return mlir.serialize_portable_artifact(copy, target_version)
    except ValueError as e:
        ops = sorted(set(re.findall(r"'vhlo\.(\w+?)_v\d+'", str(e))))
        _, needed = mlir.serialize_portable_artifact_oldest(copy)
        named = f" ({', '.join('stablehlo.' + op for op in ops)})" if ops else ""
        raise ArtifactError(f"the program uses ops that StableHLO {target_version} does not have{named}; "
                            f"the oldest version that has them all is {needed}") from None


def _drop_sharding_rules(module: ir.Module) -> None:
    """Removes Shardy's ``sdy.sharding_rule`` from custom calls (jax's lowering of
    LAPACK calls adds them): a VHLO artifact holds builtin attributes only, and a
    single-device program needs no propagation rule."""
    def visit(op):
        if "sdy.sharding_rule" in op.attributes:
            del op.attributes["sdy.sharding_rule"]
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)


# --------------------------------------------------------------------------- #
# Reading
# --------------------------------------------------------------------------- #

def _parse_type(text: str) -> TensorType | None:
    """``"float32[?,4]"`` (a symbolic dimension may be a name: ``float32[b,4]``)."""
    m = _TYPE.match(text.strip())
    if not m:
        return None
    dims = [d.strip() for d in m.group(2).split(",")] if m.group(2).strip() else []
    try:
        return TensorType(as_dtype(m.group(1)), [int(d) if d.lstrip("-").isdigit() else None for d in dims])
    except (TypeError, ValueError):
        return None


def _mlir_type(t: ir.Type, what: str) -> TensorType:
    try:
        rt = ir.RankedTensorType(t)
    except ValueError:
        raise ArtifactError(f"{what} has type {t}; only ranked tensors can be passed") from None
    try:
        dtype = mlir.element_dtype(rt.element_type)
    except TypeError as e:
        raise ArtifactError(f"{what}: {e}") from None
    return TensorType(dtype, [None if rt.is_dynamic_dim(i) else rt.shape[i] for i in range(rt.rank)])


def _attr_str(d: dict, name: str) -> str | None:
    a = d.get(name)
    if a is None:
        return None
    try:
        return ir.StringAttr(a).value
    except ValueError:
        return None


@dataclass
class _Source:
    """A program to load: its module (in its own context) and calling convention."""

    module: ir.Module
    inputs: list[Variable]
    out_types: list[TensorType]
    out_names: list[str | None]
    single_output: bool
    platforms: tuple[str, ...] | None = None
    #: the user inputs ``@main`` takes, in order
    kept: tuple[int, ...] = ()
    platform_index_arg: bool = False
    kind: str = "stablehlo"
    donated: tuple[int, ...] = ()
    version: str | None = None
    info: dict = field(default_factory=dict)


def _read(source: Any) -> tuple[bytes | str, str | None]:
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
    elif isinstance(source, str) and "\n" not in source and not source.lstrip().startswith(
            ("module", "func.func", "#", "//")) and len(source) < 4096:
        path = source
    else:
        if isinstance(source, (bytearray, memoryview)):
            source = bytes(source)
        if not isinstance(source, (bytes, str)):
            raise TypeError(f"load() takes bytes, MLIR text or a path, got {type(source).__name__}")
        return source, None
    try:
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as e:
        raise FileNotFoundError(f"cannot read {path!r}: {e.strerror or e}") from None


def _from_module(module: ir.Module, version: str | None) -> _Source:
    try:
        entry = entry_function(module)
    except ValueError as e:
        raise ArtifactError(str(e)) from None
    with module.context:
        main = ir.SymbolTable(module.operation)[entry]
        if entry != "main":  # the only function of the module: run it as a public @main
            main.attributes["sym_name"] = ir.StringAttr.get("main")
            if "sym_visibility" in main.attributes:
                del main.attributes["sym_visibility"]
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        args = attribute_dicts(main, "arg_attrs")
        results = attribute_dicts(main, "res_attrs")
        inputs, donated = [], []
        for i, (t, d) in enumerate(zip(ftype.inputs, args)):
            typ = _mlir_type(t, f"argument {i} of @main")
            declared = _parse_type(_attr_str(d, "hlograph.type") or "")
            if declared is not None and declared.ndim == typ.ndim and declared.dtype == typ.dtype:
                typ = declared
            inputs.append(Variable(typ, name=_attr_str(d, "hlograph.name")))
            if "jax.buffer_donor" in d or "tf.aliasing_output" in d:
                donated.append(i)
        out_types = [_mlir_type(t, f"result {i} of @main") for i, t in enumerate(ftype.results)]
        out_names = [_attr_str(d, "jax.result_info") for d in results]
        attrs = module.operation.attributes
        platforms = None
        if "hlograph.platforms" in attrs:
            platforms = tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(attrs["hlograph.platforms"]))
        kind = "hlograph" if "hlograph.version" in attrs else "stablehlo"
        # a graph built with a list of outputs returns a tuple, even of one
        single = "hlograph.single_output" in attrs if kind == "hlograph" else len(out_types) == 1
        info = {"hlograph_version": ir.StringAttr(attrs["hlograph.version"]).value} if kind == "hlograph" else {}
    return _Source(module, inputs, out_types, out_names, single, platforms,
                   tuple(range(len(inputs))), False, kind, tuple(donated), version, info)


def _from_exported(data: bytes) -> _Source:
    exp = xla_export.deserialize_exported(data)
    if exp.has_effects:
        raise ArtifactError(f"the jax.export artifact of {exp.fun_name} has side effects; hlograph "
                            "loads only effect-free exported functions")
    if exp.nr_devices != 1:
        raise ArtifactError(f"the jax.export artifact of {exp.fun_name} was exported for "
                            f"{exp.nr_devices} devices; hlograph loads single-device ones")
    module = _checked_parse(exp.module, None)
    inputs = [Variable(TensorType(dt, [d if isinstance(d, int) else None for d in shape]))
              for dt, shape in exp.in_types]
    out_types = [TensorType(dt, [d if isinstance(d, int) else None for d in shape]) for dt, shape in exp.out_types]
    return _Source(module, inputs, out_types, [None] * len(out_types), exp.single_output, exp.platforms,
                   exp.kept_var_idx, exp.platform_index_arg, "jax.export",
                   info={"fun_name": exp.fun_name, "in_types": exp.in_types})


def _checked_parse(data: bytes | str, filename: str | None) -> ir.Module:
    if isinstance(data, bytes):
        try:
            check_artifact_version(data)
        except ValueError as e:
            raise ArtifactError(str(e)) from None
    return parse_module(data, filename=filename)


def _platform_name(platform: str) -> str:
    return {"gpu": "cuda"}.get(platform, platform)


class LoadedFunction:
    """A loaded program as a callable: ``f(*args, output="numpy")`` takes NumPy
    arrays, jax arrays, Python scalars (for 0-d inputs) and DLPack producers and
    returns NumPy arrays (jax arrays with ``output="device"``): one array for a
    program with a single result, else a tuple. Wrong argument count or dtype
    raise TypeError, a wrong shape ValueError, naming the argument.

    Inputs with symbolic dimensions (``?``, or jax.export's shape polymorphism)
    take any size there: each new argument signature refines the program to the
    call's shapes, then optimizes and compiles it (cached per signature)."""

    def __init__(self, src: _Source, platform: str, pipeline: str | None):
        self._src = src
        self.platform = platform
        self.pipeline = pipeline
        #: the inputs (names and types; symbolic dimensions are None)
        self.inputs = src.inputs
        self.input_types = [v.type for v in src.inputs]
        self.output_types = list(src.out_types)
        self.output_names = list(src.out_names)
        #: "hlograph" (an artifact of Lowered.serialize), "jax.export" or "stablehlo"
        self.kind = src.kind
        #: the platforms the program was lowered for (None: not recorded)
        self.platforms = src.platforms
        #: the StableHLO version of the artifact (None: not an artifact)
        self.stablehlo_version = src.version
        self.donated_inputs = src.donated
        self.info = dict(src.info)
        self._cache: dict[tuple, tuple[executables.Executable, Any]] = {}
        self._lock = threading.Lock()
        with src.module.context:
            self._text = src.module.operation.get_asm(enable_debug_info=True, binary=True)
        if all(t.is_static for t in self.input_types):  # compile now: errors show at load time
            self._compiled(tuple(t.shape for t in self.input_types))

    def _specialized_module(self, shapes: Sequence[tuple[int, ...]]) -> ir.Module:
        src = self._src
        module = parse_module(self._text)
        if src.platform_index_arg:
            xla_export.fold_argument(module, 0, src.platforms.index(_platform_name(self.platform)))
        lead = 1 if src.platform_index_arg else 0
        static = all(t.is_static for t in self.input_types) and not lead
        if not static:
            with module.context:
                main = ir.SymbolTable(module.operation)["main"]
                types = [str(a.type) for a in main.regions[0].blocks[0].arguments][:lead]
            for i in src.kept:
                t = self.input_types[i]
                with module.context, ir.Location.unknown():
                    types.append(str(ir.RankedTensorType.get(shapes[i], mlir.element_type(t.dtype))))
            module = xla_export.refine_arguments(module, types)
        if lead:
            with module.context:
                main = ir.SymbolTable(module.operation)["main"]
                ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
                attrs = attribute_dicts(main, "arg_attrs")
                main.regions[0].blocks[0].erase_argument(0)
                main.attributes["function_type"] = ir.TypeAttr.get(
                    ir.FunctionType.get(list(ftype.inputs)[1:], list(ftype.results)))
                set_attribute_dicts(main, "arg_attrs", attrs[1:])
        return module

    def _compiled(self, shapes: tuple) -> tuple[executables.Executable, Any]:
        entry = self._cache.get(shapes)
        if entry is not None:
            return entry
        with self._lock:
            entry = self._cache.get(shapes)
            if entry is None:
                module = self._specialized_module(shapes)
                prepared = prepare(module, pipeline=self.pipeline)
                if prepared.checks:
                    raise ArtifactError("the program has check.* assertions; run it with hlograph-run")
                prepare_targets(prepared.module, self.platform)
                try:
                    loaded, device = executables.compile_bytecode(
                        mlir.module_to_bytecode(prepared.module), self.platform,
                        fingerprint=mlir.module_fingerprint(prepared.module))
                except JaxRuntimeError as e:
                    raise CompileError(f"XLA could not compile the loaded program for {self.platform}: {e}") from None
                in_types = [TensorType(s.dtype, s.shape) for s in prepared.in_specs]
                out_types = [TensorType(s.dtype, s.shape) for s in prepared.out_specs]
                entry = executables.Executable(loaded, device, in_types, out_types), prepared
                self._cache[shapes] = entry
        return entry

    def __call__(self, *args: Any, output: str = "numpy"):
        if output not in ("numpy", "device"):
            raise ValueError(f"output must be 'numpy' or 'device', got {output!r}")
        values = check_arguments(self.inputs, args)
        exe, _ = self._compiled(tuple(tuple(v.shape) for v in values))
        try:
            outs = exe.run([values[i] for i in self._src.kept])
        except JaxRuntimeError as e:
            raise RuntimeError(f"PJRT failed to run the loaded program: {e}") from None
        if output == "numpy":
            outs = [np.asarray(o) for o in outs]
        return outs[0] if self._src.single_output and len(outs) == 1 else tuple(outs)

    def lower_text(self, *args: Any) -> str:
        """The module compiled for the signature of ``args`` (after refinement
        and the pass pipeline), as MLIR text."""
        values = check_arguments(self.inputs, args)
        _, prepared = self._compiled(tuple(tuple(v.shape) for v in values))
        return prepared.as_text()

    def __repr__(self) -> str:
        ins = ", ".join(f"{v.name}: {v.type}" if v.name else str(v.type) for v in self.inputs)
        outs = ", ".join(map(str, self.output_types))
        return f"<LoadedFunction {self.kind} ({ins}) -> ({outs}) platform={self.platform!r}>"


def load(source: Any, *, platform: str | None = None, pipeline: str | None = "O2") -> LoadedFunction:
    """Loads a program saved elsewhere as a callable.

    Args:
        source: the bytes or the path of a portable artifact (``Lowered.serialize()``),
            plain StableHLO (MLIR text or bytecode, also as a ``str``), or
            jax.export's serialized ``Exported``
            (``jax.export.export(jax.jit(f))(*specs).serialize()``).
        platform: "cpu", "gpu", "tpu" or None: the best available one the program
            was lowered for.
        pipeline: hlograph's pass pipeline to run before compiling ("O2"), or None.

    Returns:
        A :class:`LoadedFunction`, called as a compiled hlograph function.

    Raises:
        ArtifactError (a ValueError): an artifact written at a newer StableHLO
            version than this jaxlib reads, one made for other platforms, a jax
            export with effects or for several devices.
        MLIRDiagnosticError: malformed MLIR.
        FileNotFoundError: a path that cannot be read.
    """
    data, filename = _read(source)
    if isinstance(data, bytes) and xla_export.looks_like_exported(data):
        src = _from_exported(data)
    else:
        version = mlir.artifact_version(data) if isinstance(data, bytes) else None
        src = _from_module(_checked_parse(data, filename), version)
    if platform is None:
        platform = default_platform()
        if src.platforms and _platform_name(platform) not in src.platforms and "cpu" in src.platforms:
            platform = "cpu"
    if src.platforms and _platform_name(platform) not in src.platforms:
        raise ArtifactError(f"the program was lowered for {', '.join(src.platforms)}, not for {platform}")
    for name in xla_export.custom_call_targets(src.module):
        if name.startswith("hlograph_host_"):
            raise ArtifactError(f"the program calls the hlograph host function {name}, which exists only "
                                "in the process that compiled it")
    return LoadedFunction(src, platform, pipeline)
