"""In-module host calls: host ops with static output types run inside the PJRT executable.

On the CPU, a host op whose output types are static once the graph is
specialized (``mask_assign``, ``isin``, a user op registered with
``hlograph.host.register`` whose outputs have known shapes) needs no host
segment: its Numba implementation is compiled, together with a small wrapper,
into a C function with the typed XLA FFI signature (ffi_abi.py) and registered
as a custom-call target. Lowering emits ``stablehlo.custom_call
@hlograph_host_<hash>`` for it (lowering asks ``HOST_CALLS``, the
``lowering.context.HostCalls`` this module provides, for the target's name), so
no Python runs on the call path and the graph is not split. Which ops run this
way is the placement policy's decision (compiler/placement.py).

One wrapper serves every shape of a structure (op, props, input and output
dtypes and ranks): a device segment re-specialized per run-time shape compiles
no new Numba code.

An exception raised by the host implementation becomes an XLA error: the
wrapper catches it, runs the implementation again through Python on a copy
of the inputs to recover the message (the error path is the only one that
touches Python), and returns ``XLA_FFI_Error_Create(INVALID_ARGUMENT, message)``
through the API table in the call frame; the message names the op. jaxlib
raises an INVALID_ARGUMENT status as a ``ValueError``
("INVALID_ARGUMENT: MaskAssign: values do not broadcast ..."), the same type
the host segment raises.

Set ``HLOGRAPH_HOST_FFI=0`` to run these ops in host segments instead (for
comparison); the variable is read when a graph is partitioned and lowered.

Registered targets live for the whole process (XLA keeps the function
pointer), so the compiled wrappers are kept in a module-level table, one per
structure, compiled once; their modules are cached on disk (generated.py).

The same mechanism runs library kernels: fixed Numba loops that some device
ops use on the CPU where a plain compiled loop beats any StableHLO XLA:CPU
compiles (running reductions along an axis).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...frontend.graph import Apply, Constant, Op
from ...frontend.types import DTYPES, TensorType
from ...xla.ffi import register_host_call_target
from .ffi_abi import FRAME_WORDS, buffer_source, handler_head, handler_source, read_buffers
from .generated import HostCompileError, code_version, load_generated, numba_module, numba_reason
from .registry import get_impl, has_impl

__all__ = ["ENV_VAR", "SUPPORTED_DTYPES", "enabled", "can_call", "host_call_target", "HostCallTarget",
           "kernel_target", "cumulative_supported", "cumulative_target", "NumbaHostCalls", "HOST_CALLS"]

#: ``HLOGRAPH_HOST_FFI=0`` turns in-module host calls off (host segments instead)
ENV_VAR = "HLOGRAPH_HOST_FFI"

#: dtypes both Numba and the XLA FFI buffers have (no float16/bfloat16 in Numba)
SUPPORTED_DTYPES = frozenset(DTYPES[n] for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128"))


def enabled() -> bool:
    """Whether in-module host calls are on (``HLOGRAPH_HOST_FFI`` is not ``0``)."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no", "off")


def can_call(op: Op) -> bool:
    """Whether ``op`` can run as an in-module host call: in-module calls are on, it has
    a Numba implementation and does not opt out (``in_module_host_call = False``)."""
    return enabled() and has_impl(op) and getattr(op, "in_module_host_call", True)


# --- compiled targets ---------------------------------------------------------------------
@dataclass
class HostCallTarget:
    """One registered FFI target: the wrapper of one op structure (op, props, input and
    output dtypes and ranks); it reads the dims of each call from the buffers."""

    #: the custom-call target name, ``hlograph_host_<op>_<hash>``
    name: str
    op: Op
    #: the target's id in ``_BY_KEY`` (the wrapper passes it on its error path); derived
    #: from ``name``, so the same in every process that loads the wrapper from disk
    key: int
    #: the input and output dtypes
    in_dtypes: tuple[np.dtype, ...]
    out_dtypes: tuple[np.dtype, ...]
    #: the host implementation, compiled by ``numba.njit`` (also run to explain a failure)
    jitted: Any
    #: the ``numba.cfunc`` registered with XLA (kept alive for the process)
    handler: Any
    #: the generated wrapper source
    source: str


_TARGETS: dict[Any, HostCallTarget] = {}
_BY_NAME: dict[str, HostCallTarget] = {}
_BY_KEY: dict[int, HostCallTarget] = {}
_LOCK = threading.Lock()


def _structure(node: Apply) -> tuple:
    """Equal for two nodes that one wrapper runs: host implementations specialize on
    dtypes and ranks (as host segments do), never on dims."""
    ins = tuple(("const", v.dtype.str, v.data.shape, v.data.tobytes()) if isinstance(v, Constant)
                else (v.dtype, v.ndim) for v in node.inputs)
    return (type(node.op), node.op, ins, tuple((v.dtype, v.ndim) for v in node.outputs))


def _target_name(node: Apply) -> tuple[str, bool]:
    """The target's name (a hash of the op's class, props, input constants, dtypes and
    ranks) and whether that text identifies the wrapper alone (then it may be loaded
    from disk in another process)."""
    cls = type(node.op)
    text = repr((cls.__module__, cls.__qualname__, str(node.op),
                 [(v.dtype.str, v.ndim, hashlib.sha1(v.data.tobytes()).hexdigest()
                   if isinstance(v, Constant) else None) for v in node.inputs],
                 [(v.dtype.str, v.ndim) for v in node.outputs]))
    base = f"hlograph_host_{cls.__name__.lower()}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    name, i = base, 1
    while name in _BY_NAME:  # the same text for another structure (props str() does not show)
        i += 1
        name = f"{base}_{i}"
    return name, i == 1


def _target_key(name: str) -> int:
    return int.from_bytes(hashlib.sha1(name.encode()).digest()[:7], "little")


def host_call_target(node: Apply) -> HostCallTarget:
    """The registered FFI target running ``node``'s host implementation (compiled on
    first use for this structure: op, props, input and output dtypes and ranks).

    Raises:
        HostCompileError: Numba cannot compile the implementation (names the op).
    """
    key = _structure(node)
    structural = True
    try:
        hash(key)
    except TypeError:  # an Op with unhashable props: compiled for this node alone
        key = ("node", id(node), node)
        structural = False
    with _LOCK:
        target = _TARGETS.get(key)
        if target is None:
            name, unique = _target_name(node)
            target = _compile(node, name, cache=structural and unique)
            register_host_call_target(target.name, target.handler.address)
            _TARGETS[key] = _BY_NAME[target.name] = _BY_KEY[target.key] = target
    return target


def _compile(node: Apply, name: str, cache: bool) -> HostCallTarget:
    """Generates the wrapper of ``node``'s host implementation and compiles it (with
    ``cache``: loads it from Numba's disk cache when an earlier process compiled it)."""
    numba = numba_module()
    op = node.op
    factory = get_impl(op)
    try:
        jitted = numba.njit(factory(op, node))
    except Exception as e:  # noqa: BLE001 - report any failure against the op
        raise HostCompileError(f"host implementation of {op} failed: {e}") from e
    key = _target_key(name)
    n_in, n_out = len(node.inputs), len(node.outputs)
    ins = [f"a{i}" for i in range(n_in)]
    glb: dict[str, Any] = {"impl": jitted}
    lines = handler_head(n_in, n_out)
    for i, v in enumerate(node.inputs):
        glb[f"t{i}"] = v.dtype.type
        lines += buffer_source(f"a{i}", "args", i, v.ndim, f"t{i}")
    for j, v in enumerate(node.outputs):
        glb[f"u{j}"] = v.dtype.type
        lines += buffer_source(f"o{j}", "rets", j, v.ndim, f"u{j}")
    # the implementation (an exception from its own checks takes the error path), then
    # checked copies into the result buffers (a wrong result shape takes it too). Only
    # the call sits in the try block: Numba compiles code inside one several times slower.
    # The key goes to ``fail`` as a run-time int64: a literal would make Numba compile
    # ``fail`` (and its objmode block) once per wrapper.
    failed = f"        return fail(frame[2], address(frame_p), np.int64({key}))"
    lines += ["    ok = True",
              "    try:",
              f"        r = impl({', '.join(ins)})",
              "    except Exception:",
              "        ok = False",
              "    if not ok:",
              failed]
    for j in range(n_out):
        got = "r" if n_out == 1 else f"r[{j}]"
        lines += [f"    r{j} = np.asarray({got})",
                  f"    if r{j}.shape != o{j}.shape:",
                  failed,
                  f"    o{j}.reshape(o{j}.size)[:] = r{j}.ravel()"]
    lines += ["    return ptr(0)"]
    # the file name covers the code the machine code comes from: the wrapper's structure
    # (``name``), hlograph's host runtime and the module defining the implementation
    version = code_version([factory]) if cache else None
    cache = version is not None
    file_name = f"{name}_{version}" if cache else name
    try:
        module = load_generated(file_name, handler_source(file_name, lines, cache), glb, cache)
    except Exception as e:  # noqa: BLE001
        raise HostCompileError(f"Numba cannot compile the in-module host call of {op}: "
                               f"{numba_reason(e)}") from e
    return HostCallTarget(name, op, key, tuple(v.dtype for v in node.inputs),
                          tuple(v.dtype for v in node.outputs), jitted, module.handler,
                          module.__source__)


def failure_message(key: int, frame_addr: int) -> np.ndarray:
    """The error text of a failed call of target ``_BY_KEY[key]`` (call frame at
    ``frame_addr``), as NUL-terminated UTF-8 bytes: the implementation runs again
    on copies of the inputs to recover its exception."""
    target = _BY_KEY[key]
    op = target.op
    frame = (ctypes.c_int64 * FRAME_WORDS).from_address(frame_addr)
    inputs = read_buffers(frame[9], target.in_dtypes)
    outputs = read_buffers(frame[14], target.out_dtypes)
    try:
        results = target.jitted(*inputs)
    except Exception as e:  # noqa: BLE001 - this is the message being built
        text = str(e)
        if not text.startswith(type(op).__name__):
            text = f"{op}: {type(e).__name__}: {text}"
    else:
        results = results if len(outputs) > 1 else (results,)
        text = f"{op}: the host implementation failed"
        for j, (r, o) in enumerate(zip(results, outputs)):
            if np.shape(r) != o.shape:
                text = (f"{op}: the host implementation returned shape {np.shape(r)} for output {j} "
                        f"of type {TensorType(o.dtype, o.shape)}")
                break
    return np.frombuffer(text.encode("utf-8", "replace") + b"\0", np.uint8).copy()


# --- library kernels: fixed Numba loops that write straight into the result buffers ----------
# Some device ops run faster on the CPU as a plain compiled loop than as any StableHLO
# XLA:CPU compiles well (a running sum along an axis is a chain of dependent rows).
# Their handlers are generated per (kernel, dtype) into a file under the cache
# directory and compiled with ``numba.cfunc(cache=True)``, so a later process loads
# the machine code instead of compiling it again.

_KERNELS: dict[str, Any] = {}


def kernel_target(name: str, n_in: int, n_out: int, body: list[str]) -> str:
    """Registers (once per process) the FFI target ``name`` whose handler runs ``body``
    (source lines at the handler's indentation, after ``handler_head``: ``args`` and
    ``rets`` hold the buffer pointers, ``buffer_source`` binds arrays to them) and
    returns ``name``."""
    with _LOCK:
        if name in _KERNELS:
            return name
        lines = handler_head(n_in, n_out) + body + ["    return ptr(0)"]
        try:
            module = load_generated(name, handler_source(name, lines, True), {})
        except Exception as e:  # noqa: BLE001
            raise HostCompileError(f"Numba cannot compile the kernel {name}: {numba_reason(e)}") from e
        register_host_call_target(name, module.handler.address)
        _KERNELS[name] = module
    return name


#: per running-reduction kind: the combination of the previous result ``a`` and the
#: next element ``b`` (max/min propagate NaN, as numpy.maximum/minimum.accumulate)
_COMBINE = {"add": "a + b", "mul": "a * b",
            "max": "b if (b > a or b != b) else a", "min": "b if (b < a or b != b) else a"}
_CUMULATIVE_DTYPES = frozenset(DTYPES[n] for n in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128"))


def cumulative_supported(kind: str, dtype: np.dtype) -> bool:
    """Whether ``cumulative_target`` has a kernel for ``kind`` on ``dtype``."""
    if kind not in _COMBINE or dtype not in _CUMULATIVE_DTYPES:
        return False
    return kind in ("add", "mul") or dtype.kind != "c"


def cumulative_target(kind: str, dtype: np.dtype) -> str:
    """The FFI target of the running ``kind`` ("add", "mul", "max", "min") along the
    middle axis of a ``dtype[pre, n, post]`` operand, in NumPy's order: result row
    ``i`` combines row ``i - 1`` of the result with row ``i`` of the operand, the
    inner loop running over contiguous memory."""
    if not cumulative_supported(kind, dtype):
        raise ValueError(f"no cumulative kernel for {kind} on {dtype}")
    t = f"np.{dtype.name}"
    body = buffer_source("x", "args", 0, 3, t) + buffer_source("o", "rets", 0, 3, t)
    body += f"""    pre, n, post = d_x[0], d_x[1], d_x[2]
    for p in range(pre):
        if n == 0:
            break
        for q in range(post):
            o[p, 0, q] = x[p, 0, q]
        for i in range(1, n):
            for q in range(post):
                a = o[p, i - 1, q]
                b = x[p, i, q]
                o[p, i, q] = {_COMBINE[kind]}""".splitlines()
    return kernel_target(f"hlograph_cum{kind}_{dtype.name}", 1, 1, body)


class NumbaHostCalls:
    """The host calls lowering may emit (``lowering.context.HostCalls``): host ops
    through their Numba implementations, and the library kernels."""

    def can_call(self, op: Op) -> bool:
        return can_call(op)

    def target(self, node: Apply) -> str:
        return host_call_target(node).name

    def cumulative(self, kind: str, dtype: np.dtype) -> str | None:
        if not enabled() or not cumulative_supported(kind, dtype):
            return None
        return cumulative_target(kind, dtype)


#: the one provider, handed to ``lowering.lower_graph`` by the compiler
HOST_CALLS = NumbaHostCalls()
