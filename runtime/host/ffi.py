"""In-module host calls: host ops with static output types run inside the PJRT executable.

On the CPU, a host op whose output types are static once the graph is
specialized (``mask_assign``, ``isin``, a user op registered with
``hlograph.host.register`` whose outputs have known shapes) needs no host
segment: its Numba implementation is compiled, together with a small wrapper,
into a C function with the typed XLA FFI signature
``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)`` and registered as a custom-call
target. The op lowers to ``stablehlo.custom_call @hlograph_host_<hash>``
inside the device module, so no Python runs on the call path and the graph is
not split. Ops whose output shapes depend on values (``unique``, ``nonzero``,
boolean-mask indexing) keep running in host segments, and so does everything
on other platforms.

The wrapper reads the call frame with pointer arithmetic over the C structs of
``xla/ffi/api/c_api.h`` (x86-64/aarch64 layout: 8-byte pointers and sizes,
4-byte enums padded to 8). Dtypes and ranks are baked into the generated code;
dims are read from the buffers, so one wrapper serves every shape of a
structure (a device segment re-specialized per run-time shape compiles no new
Numba code).

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
structure (op, props, input and output types), compiled once. Each wrapper is
generated as a module file under ``<cache dir>/numba`` and compiled with
``numba.cfunc(cache=True)``: a later process loads its machine code (the
implementation inlined) instead of compiling it. The file name holds a hash of
the structure (constant inputs included) and of the sources the code comes from
(this package's host runtime and the module defining the implementation).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...frontend.graph import Apply, Constant, Op, Variable
from ...frontend.types import DTYPES, TensorType
from ...lowering.registry import has_rule
from .registry import get_impl, has_impl
from .segment import HostCompileError, _numba

__all__ = ["ENV_VAR", "enabled", "runs_in_module", "host_call_rule", "host_call_target",
           "HostCallTarget", "lower_host_call"]

#: ``HLOGRAPH_HOST_FFI=0`` turns in-module host calls off (host segments instead)
ENV_VAR = "HLOGRAPH_HOST_FFI"

#: dtypes both Numba and the XLA FFI buffers have (no float16/bfloat16 in Numba)
_SUPPORTED = frozenset(DTYPES[n] for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128"))

#: the size given to unknown dims when probing whether an op's outputs are static
_PROBE_DIM = 7

# XLA_FFI_CallFrame as int64 words: [1] extension_start, [2] api, [4] stage (low 32 bits),
# [9] args.args, [14] rets.rets; XLA_FFI_Buffer: [3] data.
_FRAME_WORDS = 22
_STAGE_EXECUTE = 3
_EXTENSION_METADATA = 1
_ERROR_INVALID_ARGUMENT = 3
_API_ERROR_CREATE = 6            # XLA_FFI_Api: the word holding XLA_FFI_Error_Create
_ERROR_CREATE_ARGS_SIZE = 28     # XLA_FFI_Error_Create_Args_STRUCT_SIZE
_API_VERSION_STRUCT_SIZE = 24    # XLA_FFI_Api_Version_STRUCT_SIZE
_FFI_API_MAJOR, _FFI_API_MINOR = 0, 3  # the c_api.h these structs come from


def enabled() -> bool:
    """Whether in-module host calls are on (``HLOGRAPH_HOST_FFI`` is not ``0``)."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no", "off")


def _runs_on_host(op: Op) -> bool:
    return op.host_only or not has_rule(op)


def _static_outputs(node: Apply) -> bool:
    """True when ``node``'s outputs have static types, or will have once its inputs do.

    For inputs with unknown dims (a graph not yet specialized, or values after
    a value-dependent op), ``make_node`` runs again on inputs whose unknown
    dims are given a size: outputs that come out static then depend on the
    input shapes only. A wrong guess costs nothing: the device segment is
    partitioned again once its shapes are known.
    """
    if all(v.type.is_static for v in node.inputs):
        return all(o.type.is_static for o in node.outputs)
    probe = [v if v.type.is_static else
             Variable(TensorType(v.dtype, [_PROBE_DIM if d is None else d for d in v.shape]))
             for v in node.inputs]
    try:
        outputs = node.op.make_node(*probe).outputs
    except Exception:  # noqa: BLE001 - any refusal means: keep the op in a host segment
        return False
    return all(o.type.is_static for o in outputs)


def runs_in_module(node: Apply, platform: str | None) -> bool:
    """Whether ``node`` runs as an in-module host call (an XLA FFI custom call) on ``platform``.

    True for a node that would otherwise run on the host, has a Numba
    implementation, has only dtypes Numba and the FFI both handle, and has
    static output types (given static input types), when ``platform`` (None:
    jax's default) is the CPU and ``HLOGRAPH_HOST_FFI`` is not ``0``.
    """
    op = node.op
    if not enabled() or not _runs_on_host(op) or not has_impl(op):
        return False
    if not getattr(op, "in_module_host_call", True):  # the op opts out (e.g. Check)
        return False
    if any(v.dtype not in _SUPPORTED for v in (*node.inputs, *node.outputs)):
        return False
    from ...xla.pjrt import resolve_platform as host_call_platform
    if host_call_platform(platform) != "cpu":
        return False
    return _static_outputs(node)


# --- the lowering -------------------------------------------------------------------------
def lower_host_call(ctx, *operands):
    """The lowering of a host op as ``stablehlo.custom_call`` to its compiled FFI target."""
    from ...xla.ffi import host_call
    node = ctx.node
    for v in node.outputs:
        if not v.type.is_static:
            raise NotImplementedError(
                f"{node.op}: output of type {v.type} has a value-dependent shape, so it cannot "
                f"run inside a device module; it runs in a host segment (hlograph.compile "
                f"partitions the graph)")
    target = host_call_target(node)
    return host_call(target.name, operands, ctx.ir_out_types())


def host_call_rule(op: Op) -> Callable | None:
    """The lowering rule for ``op`` as an in-module host call, or None when it has no
    Numba implementation, has a device lowering, or in-module host calls are off."""
    if (enabled() and _runs_on_host(op) and has_impl(op)
            and getattr(op, "in_module_host_call", True)):
        return lower_host_call
    return None


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
            from ...xla.ffi import register_host_call_target
            register_host_call_target(target.name, target.handler.address)
            _TARGETS[key] = _BY_NAME[target.name] = _BY_KEY[target.key] = target
    return target


def _handler_head(n_in: int, n_out: int) -> list[str]:
    """Source of a handler's start: answer XLA's metadata query, return at once for
    stages other than execute, and bind ``args``/``rets`` to the buffer pointer tables."""
    lines = ["def handler(frame_p):",
             f"    frame = carray(frame_p, ({_FRAME_WORDS},), np.int64)",
             "    if frame[1] != 0:",
             "        return extension(frame[1])",
             f"    if (frame[4] & 0xFFFFFFFF) != {_STAGE_EXECUTE}:",
             "        return ptr(0)"]
    if n_in:
        lines.append(f"    args = carray(ptr(frame[9]), ({n_in},), np.int64)")
    lines.append(f"    rets = carray(ptr(frame[14]), ({n_out},), np.int64)")
    return lines


def _buffer_source(var: str, table: str, index: int, ndim: int, dtype: str) -> list[str]:
    """Source binding ``var`` to the array in XLA_FFI_Buffer ``table[index]``."""
    lines = [f"    b_{var} = carray(ptr({table}[{index}]), (6,), np.int64)"]
    if ndim:
        lines.append(f"    d_{var} = carray(ptr(b_{var}[5]), ({ndim},), np.int64)")
    shape = "(" + "".join(f"d_{var}[{k}], " for k in range(ndim)) + ")"
    lines.append(f"    {var} = carray(ptr(b_{var}[3]), {shape}, {dtype})")
    return lines


def _compile(node: Apply, name: str, cache: bool) -> HostCallTarget:
    """Generates the wrapper of ``node``'s host implementation and compiles it (with
    ``cache``: loads it from Numba's disk cache when an earlier process compiled it)."""
    numba = _numba()
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
    lines = _handler_head(n_in, n_out)
    for i, v in enumerate(node.inputs):
        glb[f"t{i}"] = v.dtype.type
        lines += _buffer_source(f"a{i}", "args", i, v.ndim, f"t{i}")
    for j, v in enumerate(node.outputs):
        glb[f"u{j}"] = v.dtype.type
        lines += _buffer_source(f"o{j}", "rets", j, v.ndim, f"u{j}")
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
                               f"{_numba_reason(e)}") from e
    return HostCallTarget(name, op, key, tuple(v.dtype for v in node.inputs),
                          tuple(v.dtype for v in node.outputs), jitted, module.handler,
                          module.__source__)


_FILE_HASHES: dict[str, str | None] = {}


def code_version(factories) -> str | None:
    """A hash of the sources the machine code of generated Numba modules depends
    on: the files of hlograph's host runtime and the files defining the host
    implementations ``factories``; None when one of those cannot be read (code
    typed into a notebook or a REPL): such code is not cached on disk, since an
    edited implementation could not be told apart. (As with Numba's own cache,
    helpers an implementation imports from other files are not covered.)"""
    import inspect
    runtime = _file_hash(os.path.dirname(os.path.abspath(__file__)))
    if runtime is None:
        return None
    h = hashlib.sha1(runtime.encode())
    for factory in factories:
        try:
            where = inspect.getsourcefile(factory)
        except TypeError:
            where = None
        digest = None if where is None else _file_hash(where)
        if digest is None:
            return None
        h.update(digest.encode())
    return h.hexdigest()[:10]


def _file_hash(path: str) -> str | None:
    """sha1 of a file (of the .py files of a directory), remembered per process."""
    if path not in _FILE_HASHES:
        try:
            if os.path.isdir(path):
                files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
            else:
                files = [path]
            h = hashlib.sha1()
            for f in files:
                with open(f, "rb") as fh:
                    h.update(fh.read())
            _FILE_HASHES[path] = h.hexdigest()
        except OSError:
            _FILE_HASHES[path] = None
    return _FILE_HASHES[path]


def _numba_reason(error: Exception) -> str:
    """The informative line of a Numba compile error (not its "Failed in ... pipeline" header)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if not line.startswith(("Failed in ", "During: ")):
            return line
    return lines[0] if lines else type(error).__name__


def _read_buffers(table_addr: int, dtypes) -> list[np.ndarray]:
    """Copies of the arrays of the XLA_FFI_Buffer pointers at ``table_addr``."""
    out = []
    table = (ctypes.c_int64 * len(dtypes)).from_address(table_addr) if dtypes else []
    for buf_addr, dtype in zip(table, dtypes):
        buf = (ctypes.c_int64 * 6).from_address(buf_addr)
        rank = buf[4]
        dims = tuple((ctypes.c_int64 * rank).from_address(buf[5])) if rank else ()
        nbytes = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
        if nbytes == 0:
            out.append(np.zeros(dims, dtype))
        else:
            raw = (ctypes.c_char * nbytes).from_address(buf[3])
            out.append(np.frombuffer(raw, dtype).reshape(dims).copy())
    return out


def failure_message(key: int, frame_addr: int) -> np.ndarray:
    """The error text of a failed call of target ``_BY_KEY[key]`` (call frame at
    ``frame_addr``), as NUL-terminated UTF-8 bytes: the implementation runs again
    on copies of the inputs to recover its exception."""
    target = _BY_KEY[key]
    op = target.op
    frame = (ctypes.c_int64 * _FRAME_WORDS).from_address(frame_addr)
    inputs = _read_buffers(frame[9], target.in_dtypes)
    outputs = _read_buffers(frame[14], target.out_dtypes)
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

_PROLOGUE = '''"""Generated by hlograph (runtime/host/ffi.py): the XLA FFI handler {name}."""
import numpy as np
from numba import carray, cfunc, types

from hlograph.runtime.host.ffi_kernels import address, extension, fail, ptr


@cfunc(types.voidptr(types.voidptr), nopython=True, cache={cache})
'''

_KERNELS: dict[str, Any] = {}
_KERNEL_DIR: list[str] = []


def _kernel_dir(shared: bool = True) -> str:
    """Where generated kernel modules go: ``<cache dir>/numba``, or a directory of
    this process when the cache is off or the module is not to be shared with
    other processes (``shared=False``)."""
    from .. import cache
    base = cache.cache_dir() if shared else None
    if base is not None:
        path = os.path.join(str(base), cache.KERNEL_SUBDIR)
        try:
            os.makedirs(path, exist_ok=True)
            return path
        except OSError:
            pass
    if not _KERNEL_DIR:
        import atexit
        import shutil
        import tempfile
        _KERNEL_DIR.append(tempfile.mkdtemp(prefix="hlograph-kernels-"))
        atexit.register(shutil.rmtree, _KERNEL_DIR[0], ignore_errors=True)
    return _KERNEL_DIR[0]


def _drop_numba_cache(path: str, name: str) -> None:
    """Removes Numba's cache files of the generated module at ``path``."""
    cache = os.path.join(os.path.dirname(path), "__pycache__")
    try:
        entries = os.listdir(cache)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(f"{name}."):
            try:
                os.remove(os.path.join(cache, entry))
            except OSError:
                pass


def handler_source(name: str, lines: list[str], cache: bool) -> str:
    """The module source of the FFI handler ``lines`` (a ``def handler(frame_p):``)."""
    return _PROLOGUE.format(name=name, cache=cache) + "\n".join(lines) + "\n"


def load_generated(name: str, source: str, glb: dict[str, Any], cache: bool = True):
    """Writes ``source`` (Numba-compiled functions whose decorators say
    ``cache=True``, or ``cache=False`` without ``cache``) as the module
    ``<kernel dir>/<name>.py`` and imports it, with ``glb`` among its globals: Numba
    compiles its functions, or with ``cache`` loads them from its disk cache next to
    the file. A damaged cache entry is dropped and compiled again; an unwritable one
    means no cache. Without ``cache`` the file goes to a directory of this process.
    Returns the module (its ``__source__`` is ``source``)."""
    import importlib.util
    import warnings
    path = os.path.join(_kernel_dir(shared=cache), f"{name}.py")
    try:
        with open(path) as f:
            same = f.read() == source
    except OSError:
        same = False
    if not same:  # (rewriting an identical file would invalidate Numba's cache)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    modname = f"hlograph_kernel_{name}"
    spec = importlib.util.spec_from_file_location(modname, path)

    def load(text: str | None = None):
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(glb)
        module.__source__ = source
        # importable by name: Numba's cached code refers to its module's globals by it
        sys.modules[modname] = module
        with warnings.catch_warnings():
            # code Numba cannot cache (e.g. an implementation holding dynamic
            # globals) is compiled in this process only; that needs no warning
            warnings.simplefilter("ignore", _numba().NumbaWarning)
            if text is None:
                spec.loader.exec_module(module)
            else:
                exec(compile(text, path, "exec"), module.__dict__)
        return module

    try:
        try:
            return load()
        except Exception:  # noqa: BLE001 - e.g. an unreadable cache entry: compile afresh
            _drop_numba_cache(path, name)
            try:
                return load()
            except Exception:  # noqa: BLE001 - an unwritable cache: no cache at all
                return load(source.replace("cache=True", "cache=False"))
    except Exception:
        del sys.modules[modname]
        raise


def kernel_target(name: str, n_in: int, n_out: int, body: list[str]) -> str:
    """Registers (once per process) the FFI target ``name`` whose handler runs ``body``
    (source lines at the handler's indentation, after ``_handler_head``: ``args`` and
    ``rets`` hold the buffer pointers, ``_buffer_source`` binds arrays to them) and
    returns ``name``."""
    with _LOCK:
        if name in _KERNELS:
            return name
        lines = _handler_head(n_in, n_out) + body + ["    return ptr(0)"]
        try:
            module = load_generated(name, handler_source(name, lines, True), {})
        except Exception as e:  # noqa: BLE001
            raise HostCompileError(f"Numba cannot compile the kernel {name}: {_numba_reason(e)}") from e
        from ...xla.ffi import register_host_call_target
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
    body = _buffer_source("x", "args", 0, 3, t) + _buffer_source("o", "rets", 0, 3, t)
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
