"""The key of a graph: a warm process finds the optimized module and the
executable of a graph without lowering it, running the pass pipeline or XLA.

``graph_key`` hashes what the optimized module is a function of:

- the graph's structure: every node's Op (its class, the lowering rule the
  platform uses for it, its ``__props__``, inner graphs included), its inputs
  (graph inputs, outputs of earlier nodes, constants: dtype, shape and the
  SHA-256 of their bytes) and the (file, line) that built it (the module's
  source locations), the graph's input types and outputs (the types of the
  nodes' outputs follow from the Op and its input types);
- the pass pipeline (its text and the class of every hlograph pass in it),
  the donated inputs, the ``HLOGRAPH_*`` environment variables lowering reads;
- the device (platform, kind, id), jax, jaxlib, the PJRT plugin and Python
  versions, and hlograph's own version: the sizes and modification times of its
  source files, so that editing a lowering rule or a pass gives new keys (a
  lowering rule is identified by its code as well: one defined outside
  hlograph changes the key when it changes, though not when only a helper it
  calls does).

The key maps to a ``runtime.cache.ModuleEntry`` on disk (``<key>.hlgmod``):
the optimized module's bytecode, its fingerprint (the executable's key), its
matrix products (the compile options) and its custom-call targets.

Graphs that are not keyed (``Unkeyable``, counted as ``module_skipped`` and
logged on ``hlograph.cache`` with the reason) take the usual way: a node placed
on the host (host segments, in-module host calls: the code they call is
compiled in the process), an Op property that has no stable value across
processes (a Python function, a jax primitive), symbolic dims, a mesh. A graph
split into segments keys each device segment on its own when it is lowered.
A module calling host kernels compiled in the process is not stored.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import os
import sys
import threading
from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Constant, Graph, Op, Variable
from ..frontend.types import TensorType, dtype_name
from ..lowering.registry import lookup as rule_lookup
from ..runtime import cache, executables
from ..xla import pjrt

__all__ = ["Unkeyable", "graph_key", "source_fingerprint", "KEY_VERSION"]

#: bumped when what the key covers changes
KEY_VERSION = 2

#: custom-call targets of this prefix call kernels compiled in the process (runtime/host)
HOST_TARGET_PREFIX = "hlograph_"

#: hlograph's folders whose sources the optimized module depends on
_SOURCE_DIRS = ("xla", "frontend", "lowering", "passes", "runtime", "compiler", "interop")
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Unkeyable(Exception):
    """The graph has no key: the message says why."""


@functools.lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """The SHA-256 of the path, size and modification time of hlograph's source
    files (its top-level modules and every ``.py`` and ``.c`` file under its
    layers), computed once per process."""
    lines = []

    def add(directory: str, relative: str, recurse: bool) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if e.name.endswith((".py", ".c")) and e.is_file():
                st = e.stat()
                lines.append(f"{relative}{e.name}|{st.st_size}|{st.st_mtime_ns}")
            elif recurse and e.name != "__pycache__" and e.is_dir():
                add(e.path, f"{relative}{e.name}/", True)

    add(_PACKAGE_DIR, "", False)
    for d in _SOURCE_DIRS:
        add(os.path.join(_PACKAGE_DIR, d), d + "/", True)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


_runtime_lock = threading.Lock()
_runtime_parts: dict[str, str] = {}


def _runtime_part(device) -> str:
    """The versions the module and executable depend on, for ``device``'s platform."""
    platform = device.platform
    with _runtime_lock:
        part = _runtime_parts.get(platform)
    if part is None:
        client = executables.get_client(platform)
        part = "|".join((pjrt.runtime_fingerprint(client), "python", sys.version, "hlograph",
                         source_fingerprint()))
        with _runtime_lock:
            _runtime_parts[platform] = part
    return part


def _const_id(c: Any) -> Any:
    if hasattr(c, "co_code"):
        return _code_id(c)
    if isinstance(c, frozenset):  # printed in an order that changes between processes
        return ("frozenset", sorted(map(repr, c)))
    return repr(c)


def _code_id(code) -> tuple:
    """A function's code, as a value equal across processes for the same source."""
    return (code.co_code, code.co_names, code.co_varnames, tuple(_const_id(c) for c in code.co_consts))


@functools.lru_cache(maxsize=4096)
def _code_hash(code) -> str:
    return hashlib.sha256(repr(_code_id(code)).encode()).hexdigest()


def _function_id(fn: Any, what: str) -> tuple:
    """A function (a lowering rule, or one an Op property holds) as a value: its
    module and qualified name, its code and defaults and the values it closes
    over (not the globals it reads: those of hlograph, jax and NumPy are covered
    by their versions)."""
    if isinstance(fn, functools.partial):
        return ("partial", _function_id(fn.func, what), _canon(fn.args, what), _canon(fn.keywords, what))
    if isinstance(fn, np.ufunc):
        return ("ufunc", fn.__name__)
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        raise Unkeyable(f"{what} is a {type(fn).__name__} with no stable name")
    ident: tuple = ("function", module, qualname)
    code = getattr(fn, "__code__", None)
    if code is None:  # a builtin
        return ident
    ident += (_code_hash(code), _canon(fn.__defaults__, what), _canon(fn.__kwdefaults__, what))
    closure = getattr(fn, "__closure__", None)
    if closure:
        try:
            values = [c.cell_contents for c in closure]
        except ValueError:  # a cell not filled yet
            raise Unkeyable(f"{what} closes over a variable that has no value yet") from None
        ident += (tuple(_canon(v, f"{what} (closing over a value)") for v in values),)
    return ident


def _type_id(t: TensorType) -> tuple:
    for d in t.shape:
        if d is not None and type(d) is not int:
            raise Unkeyable(f"the type {t} has a symbolic dim")
    return (dtype_name(t.dtype), t.shape)


_SCALARS = (type(None), bool, int, float, complex, str, bytes)


def _bytes_hash(data: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(data).reshape(-1).view(np.uint8)).hexdigest()


def _canon(value: Any, what: str, enc: "_Encoder | None" = None) -> Any:
    """``value`` (an Op property) as nested tuples of plain scalars: equal values
    give equal results in every process, values of other types or contents give
    different ones. Raises Unkeyable for values with no such form (functions,
    objects of unknown classes). Inner graphs are encoded by ``enc``."""
    tp = type(value)
    if tp in _SCALARS:
        return value
    if tp is tuple or tp is list:
        return (tp.__name__, tuple(_canon(v, what, enc) for v in value))
    if isinstance(value, np.dtype):
        return ("dtype", dtype_name(value), value.str, str(value))
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise Unkeyable(f"{what} is an array of Python objects")
        return ("ndarray", value.dtype.str, str(value.dtype), value.shape, _bytes_hash(value))
    if isinstance(value, np.generic):
        return ("scalar", str(value.dtype), value.tobytes())
    if isinstance(value, enum.Enum):
        return ("enum", tp.__module__, tp.__qualname__, _canon(value.value, what))
    if isinstance(value, (dict,)):
        items = [(_canon(k, what, enc), _canon(v, what, enc)) for k, v in value.items()]
        return ("dict", tuple(sorted(items, key=repr)))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((_canon(v, what, enc) for v in value), key=repr)))
    if tp is slice:
        return ("slice", _canon(value.start, what, enc), _canon(value.stop, what, enc),
                _canon(value.step, what, enc))
    if tp is TensorType:
        return ("type", _type_id(value))
    if isinstance(value, Graph):
        return ("graph", (enc or _Encoder(None)).graph(value))
    if isinstance(value, Op):
        return ("op", tp.__module__, tp.__qualname__,
                tuple((p, _canon(getattr(value, p), f"{tp.__name__}.{p}", enc)) for p in tp.__props__))
    if callable(value) and (hasattr(value, "__code__") or isinstance(value, (functools.partial, np.ufunc))
                            or type(value).__name__ == "builtin_function_or_method"):
        return _function_id(value, what)
    if isinstance(value, type) and value.__module__ is not None:
        return ("class", value.__module__, value.__qualname__)
    if dataclasses.is_dataclass(value):
        return ("dataclass", tp.__module__, tp.__qualname__,
                tuple((f.name, _canon(getattr(value, f.name), what, enc)) for f in dataclasses.fields(value)))
    if isinstance(value, tuple):  # named tuples and other tuple subclasses
        return ("tuple", tp.__module__, tp.__qualname__, tuple(_canon(v, what, enc) for v in value))
    raise Unkeyable(f"{what} is a {tp.__module__}.{tp.__qualname__}, which has no value stable across processes")


class _Encoder:
    """Turns a graph into nested tuples of plain values (``graph``), checking on
    the way that every node runs inside a device module."""

    def __init__(self, platform: str | None):
        self.platform = platform
        self.classes: dict[type, int] = {}
        self.class_table: list[tuple] = []

    def op_class(self, op: Op) -> int:
        cls = type(op)
        index = self.classes.get(cls)
        if index is None:
            name = cls.__name__
            rule = None if cls.host_only else rule_lookup(cls, self.platform)
            if rule is None:
                raise Unkeyable(f"{name} runs on the host (its code is compiled in the process)")
            self.class_table.append((cls.__module__, cls.__qualname__, _function_id(rule, f"the rule of {name}")))
            index = self.classes[cls] = len(self.class_table) - 1
        return index

    def graph(self, graph: Graph) -> tuple:
        refs: dict[int, int] = {}
        types: dict[tuple, int] = {}  # (dtype, shape) -> index: cheaper to hash than a TensorType
        type_table: list[tuple] = []
        props: dict[int, int] = {}  # id(op) -> index of its properties
        props_index: dict[str, int] = {}
        props_table: list[str] = []
        traces: dict[Any, int] = {}
        trace_table: list[Any] = []
        consts: list[tuple] = []
        nodes: list[int] = []

        def type_index(t: TensorType) -> int:
            k = (t.dtype, t.shape)
            i = types.get(k)
            if i is None:
                type_table.append(_type_id(t))
                i = types[k] = len(type_table) - 1
            return i

        def ref(v: Variable) -> int:
            r = refs.get(id(v))
            if r is None:
                if not isinstance(v, Constant):
                    raise Unkeyable(f"{v!r} is neither an input nor computed in the graph")
                consts.append((type_index(v.type), _bytes_hash(v.data)))
                r = refs[id(v)] = -len(consts)
            return r

        def props_of(op: Op) -> int:
            cls = type(op)
            text = repr(tuple(_canon(getattr(op, name), f"{cls.__name__}.{name}", self)
                              for name in cls.__props__))
            i = props_index.get(text)
            if i is None:
                props_table.append(text)
                i = props_index[text] = len(props_table) - 1
            props[id(op)] = i
            return i

        for i, v in enumerate(graph.inputs):
            refs[id(v)] = i
        n = len(graph.inputs)
        classes, op_class = self.classes, self.op_class
        for node in graph.nodes:
            op = node.op
            c = classes.get(type(op))
            if c is None:
                c = op_class(op)
            p = props.get(id(op))
            if p is None:
                p = props_of(op)
            trace = node.trace
            t = traces.get(trace)
            if t is None:
                trace_table.append(trace)
                t = traces[trace] = len(trace_table) - 1
            inputs = node.inputs
            # output types follow from the Op and the input types (make_node): not hashed
            outputs = node.outputs
            n_in = len(inputs)
            nodes += (c, p, t, len(outputs), n_in)
            try:  # (one or two inputs, the common cases, without a comprehension's frame)
                if n_in == 1:
                    nodes.append(refs[id(inputs[0])])
                elif n_in == 2:
                    nodes += (refs[id(inputs[0])], refs[id(inputs[1])])
                else:
                    nodes += [refs[id(v)] for v in inputs]
            except KeyError:
                nodes += [ref(v) for v in inputs]
            for o in outputs:
                refs[id(o)] = n
                n += 1
        outs = tuple(ref(v) for v in graph.outputs)
        # the nodes, one flat run of ints each (class, props, trace, number of outputs,
        # number of inputs, input refs), hashed as int64s: cheaper than their text
        body = hashlib.sha256(np.array(nodes, dtype=np.int64).tobytes()).hexdigest()
        return (tuple(type_index(v.type) for v in graph.inputs), (len(graph.nodes), body), outs,
                tuple(consts), tuple(type_table), tuple(props_table), tuple(trace_table))


def _pipeline_id(pipeline: str) -> tuple:
    """The pipeline's text and the class of each hlograph pass it names."""
    from ..passes import registry
    from ..passes.pipeline import expand, split_pipeline

    items = []
    for item in split_pipeline(expand(pipeline)):
        name = item.partition("{")[0].partition("(")[0].strip()
        cls = registry._REGISTRY.get(name)
        builtin = registry._BUILTIN.get(name)
        if cls is not None:
            items.append((item, f"{cls.__module__}:{cls.__qualname__}"))
        elif builtin is not None:  # a built-in pass not imported yet: named without importing it
            items.append((item, f"{registry.__name__.rpartition('.')[0]}.{builtin}"))
        else:  # an upstream pass
            items.append((item, None))
    return (pipeline, tuple(items))


#: hlograph's environment variables that do not change a module
_ENV_IGNORED = frozenset({"HLOGRAPH_CACHE_DIR", "HLOGRAPH_CACHE_MAX_BYTES", "HLOGRAPH_LOG",
                          "HLOGRAPH_DUMP_DIR", "HLOGRAPH_PURE_PYTHON_DISPATCH"})


def _environment() -> tuple:
    """hlograph's environment variables that lowering reads (``HLOGRAPH_HOST_FFI``,
    ``HLOGRAPH_FAST_MATH_MIN_ELEMENTS``, ...): every ``HLOGRAPH_*`` one but the
    cache's, logging's and dumping's."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("HLOGRAPH_") and k not in _ENV_IGNORED))


def graph_key(graph: Graph, pipeline: str, device, donate_argnums: Sequence[int] = ()) -> str:
    """The hex SHA-256 naming the optimized module of ``graph`` (all types
    static) lowered for ``device`` and optimized with ``pipeline``, with inputs
    ``donate_argnums`` donated.

    Raises:
        Unkeyable: the graph has a node placed on the host, an Op property with no
            value stable across processes, or a symbolic dim (the message says which).
    """
    encoder = _Encoder(device.platform)
    try:
        body = encoder.graph(graph)
    except RecursionError:  # a value that contains itself (a recursive closure, ...)
        raise Unkeyable("an Op property or lowering rule refers to itself") from None
    parts = (
        ("hlograph graph key", KEY_VERSION),
        _runtime_part(device),
        (device.platform, device.device_kind, device.id),
        _pipeline_id(pipeline),
        _environment(),
        tuple(donate_argnums),
        tuple(encoder.class_table),
        body,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def lookup(graph: Graph, pipeline: str, device, donate_argnums: Sequence[int] = (),
           mesh: Any = None) -> tuple[str | None, "cache.ModuleEntry | None"]:
    """(key, stored module) for ``graph``: (None, None) when the cache is off or
    the graph is not keyed (counted and logged with the reason), (key, None) on a miss."""
    if cache.cache_dir() is None:
        return None, None
    if mesh is not None:
        cache.count_module_skip("%r is compiled for a mesh", graph)
        return None, None
    try:
        key = graph_key(graph, pipeline, device, donate_argnums)
    except Unkeyable as e:
        cache.count_module_skip("%r: %s", graph, e)
        return None, None
    return key, cache.load_module(key)


def entry_for(module, bytecode: bytes, fingerprint: bytes) -> "cache.ModuleEntry | None":
    """The entry storing the optimized ``module``, or None when it must not be
    stored (it calls host kernels compiled in this process; counted and logged)."""
    from ..xla import export, mlir

    with module.context:
        targets = export.custom_call_targets(module)
    host = [t for t in targets if t.startswith(HOST_TARGET_PREFIX)]
    if host:
        cache.count_module_skip("the module calls host kernels compiled in this process (%s)",
                                ", ".join(host))
        return None
    return cache.ModuleEntry(bytecode, fingerprint, tuple(mlir.dot_shapes(module)), tuple(targets))
