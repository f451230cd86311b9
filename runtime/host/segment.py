"""Host segments: the ops of one segment compiled together into one Numba
function (not one call per op), or run through ``perform`` when some op has no
Numba implementation."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import warnings
from typing import Any, Sequence

import numpy as np

from ...frontend.graph import Apply, Constant, Variable
from ...xla import log
from .generated import HostCompileError, code_version, load_generated, numba_module
from .registry import get_impl

__all__ = ["HostSegment", "HostCompileError", "compile_segment", "quiet_python_fallback"]


_warned: set[type] = set()
_warn_lock = threading.Lock()


def quiet_python_fallback(op_class: type) -> None:
    """No warning when an Op of ``op_class`` runs its Python perform on the host (a
    wrapper whose creator already warns, naming what it wraps)."""
    with _warn_lock:
        _warned.add(op_class)


def _warn_python_fallback(node: Apply) -> None:
    cls = type(node.op)
    if node.op.inner_graphs:  # control flow whose body needs the host: its perform is the plan
        return
    with _warn_lock:
        if cls in _warned:
            return
        _warned.add(cls)
    warnings.warn(
        f"{cls.__name__} has neither a lowering rule nor a host implementation; it runs "
        f"its Python perform on the host (register one with hlograph.lowering.register or "
        f"hlograph.host.register)",
        RuntimeWarning, stacklevel=4,
    )


def _numba_value(value: Any) -> Any:
    """``value`` as Numba takes it: float16/bfloat16 (which Numba lacks) as float32,
    exactly; results convert back to the node's dtype."""
    arr = np.asarray(value)
    if arr.dtype.itemsize == 2 and arr.dtype.kind not in "iub":  # float16, bfloat16
        return arr.astype(np.float32)
    return arr


class HostSegment:
    """Runs ``nodes`` on the host: ``segment(*input_values) -> output values``."""

    def __init__(self, nodes: Sequence[Apply], inputs: Sequence[Variable], outputs: Sequence[Variable],
                 structure: str | None = None):
        #: a text naming what the segment computes (``_structure_text``): with it, the
        #: compiled function is cached on disk for later processes
        self.structure = structure
        self.nodes = list(nodes)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.impls = [get_impl(n.op) for n in self.nodes]
        self.python = any(i is None for i in self.impls)
        self._fn = None
        self._lock = threading.Lock()

    @property
    def mode(self) -> str:
        return "python" if self.python else "numba"

    def _build(self):
        if self.python:
            numba = numba_module()
            self._jitted = []
            for n, impl in zip(self.nodes, self.impls):
                if impl is None:
                    _warn_python_fallback(n)
                self._jitted.append(None if impl is None else numba.njit(impl(n.op, n)))
            return self._run_python
        return self._compile_numba()

    def _compile_numba(self):
        numba = numba_module()
        names: dict[int, str] = {}
        globs: dict[str, Any] = {}
        for i, v in enumerate(self.inputs):
            names[id(v)] = f"a{i}"
        lines = []
        for k, (node, impl) in enumerate(zip(self.nodes, self.impls)):
            fname = f"{type(node.op).__name__}_{k}"
            try:
                globs[fname] = numba.njit(impl(node.op, node))
            except Exception as e:  # noqa: BLE001 - report any failure against the op
                raise HostCompileError(f"host implementation of {node.op} failed: {e}") from e
            args = []
            for v in node.inputs:
                if isinstance(v, Constant):
                    cname = f"c{len(globs)}"
                    globs[cname] = _numba_value(v.data)
                    names[id(v)] = cname
                args.append(names[id(v)])
            outs = [f"v{k}_{j}" for j in range(len(node.outputs))]
            for o, n in zip(node.outputs, outs):
                names[id(o)] = n
            target = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ",)"
            lines.append(f"    {target} = {fname}({', '.join(args)})")
        params = ", ".join(f"a{i}" for i in range(len(self.inputs)))
        rets = ", ".join(names[id(v)] for v in self.outputs)
        src = f"def host_segment({params}):\n" + "\n".join(lines) + f"\n    return ({rets},)\n"
        self.source = src
        #: the Numba dispatcher of the segment
        self.jitted = jitted = self._load(src, globs)
        nodes = self.nodes

        def run(*values):
            try:
                return jitted(*values)
            except numba.core.errors.NumbaError as e:
                # find the op Numba cannot type, to name it
                first = str(e).strip().splitlines()[0]
                ops = ", ".join(str(n.op) for n in nodes)
                raise HostCompileError(
                    f"Numba cannot compile the host segment ({ops}): {first}"
                ) from None

        return run

    def _load(self, src: str, globs: dict[str, Any]):
        """The jitted ``host_segment`` of ``src``: generated as a module under
        ``<cache dir>/numba`` and compiled with ``njit(cache=True)`` when the segment's
        structure and code are known (a later process loads the machine code), else
        compiled in this process only."""
        version = None if self.structure is None else code_version(self.impls)
        if version is None:
            exec(compile(src, "<hlograph host segment>", "exec"), globs)
            return numba_module().njit(globs["host_segment"])
        digest = hashlib.sha1(self.structure.encode()).hexdigest()[:16]
        name = f"hlograph_segment_{digest}_{version}"
        source = (f'"""Generated by hlograph (runtime/host/segment.py): a host segment."""\n'
                  f"from numba import njit\n\n\n@njit(cache=True)\n{src}")
        return load_generated(name, source, globs).host_segment

    def _run_python(self, *values):
        env = {id(v): val for v, val in zip(self.inputs, values)}
        for node, fn in zip(self.nodes, self._jitted):
            args = [v.data if isinstance(v, Constant) else env[id(v)] for v in node.inputs]
            if fn is not None:
                outs = fn(*(_numba_value(a) for a in args))
                outs = outs if len(node.outputs) > 1 else (outs,)
                outs = [np.asarray(val).astype(o.dtype, copy=False) for o, val in zip(node.outputs, outs)]
            else:
                outs = node.op.perform(node, args)
            for o, val in zip(node.outputs, outs):
                env[id(o)] = val
        return tuple(env[id(v)] for v in self.outputs)

    def __call__(self, *values: Any) -> list[np.ndarray]:
        start = None
        if self._fn is None:
            with self._lock:
                if self._fn is None:
                    start = time.perf_counter()
                    self._fn = self._build()
        convert = np.asarray if self.python else _numba_value
        results = self._fn(*(convert(v) for v in values))
        if start is not None and log.HOST.isEnabledFor(logging.INFO):
            ops = ", ".join(type(n.op).__name__ for n in self.nodes)
            log.HOST.info("host segment (%s; %s) built and run once (Numba compiles on this first "
                          "call) in %.2f ms", ops, "Python perform" if self.python else "Numba",
                          (time.perf_counter() - start) * 1e3)
        out = []
        for var, val in zip(self.outputs, results):
            arr = np.asarray(val)
            if arr.dtype != var.dtype:
                arr = arr.astype(var.dtype)
            if len(arr.shape) != var.ndim or any(s is not None and s != d for s, d in zip(var.shape, arr.shape)):
                raise RuntimeError(
                    f"host implementation of {var.owner.op} returned shape {arr.shape} "
                    f"for an output of type {var.type}"
                )
            out.append(arr)
        return out


_SEGMENTS: dict[tuple, HostSegment] = {}
_SEGMENTS_LOCK = threading.Lock()
_SEGMENT_CACHE_CAPACITY = 256


def _structure_key(nodes: Sequence[Apply], inputs: Sequence[Variable], outputs: Sequence[Variable]):
    """Two segments with equal keys compute the same function of their inputs: the
    same Ops wired the same way (Numba then specializes on dtypes and ranks)."""
    where: dict[int, tuple] = {id(v): ("in", i, v.dtype, v.ndim) for i, v in enumerate(inputs)}
    parts = []
    for k, node in enumerate(nodes):
        args = []
        for v in node.inputs:
            if isinstance(v, Constant):
                args.append(("const", v.dtype.str, v.data.shape, v.data.tobytes()))
            else:
                args.append(where[id(v)])
        parts.append((node.op, tuple(args)))
        for j, o in enumerate(node.outputs):
            where[id(o)] = ("node", k, j)
    return tuple(parts), tuple(where[id(v)] for v in outputs), tuple(v.type for v in outputs)


def _structure_text(key: tuple) -> str:
    """``_structure_key`` as text that is the same in every process: ops by class
    and props, constants by a hash of their bytes."""
    parts, outs, types = key

    def arg(a):
        if a[0] == "const":
            return ("const", a[1], a[2], hashlib.sha1(a[3]).hexdigest())
        return a[:2] + (str(a[2]), a[3]) if a[0] == "in" else a

    nodes = [(type(op).__module__, type(op).__qualname__, str(op), [arg(a) for a in args])
             for op, args in parts]
    return repr((nodes, outs, [str(t) for t in types]))


def compile_segment(nodes, inputs, outputs) -> HostSegment:
    """A HostSegment for ``nodes``, shared with any earlier segment of the same
    structure, so that re-specializing a graph does not compile it again."""
    try:
        key = _structure_key(nodes, inputs, outputs)
        hash(key)
    except TypeError:  # an Op with unhashable props
        return HostSegment(nodes, inputs, outputs)
    with _SEGMENTS_LOCK:
        seg = _SEGMENTS.get(key)
        if seg is None:
            if len(_SEGMENTS) >= _SEGMENT_CACHE_CAPACITY:
                _SEGMENTS.pop(next(iter(_SEGMENTS)))
            seg = _SEGMENTS[key] = HostSegment(nodes, inputs, outputs, _structure_text(key))
    return seg
