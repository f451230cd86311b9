"""The one module that imports jax/jaxlib MLIR and PJRT APIs.

Everything else in hlograph imports ``ir``, ``hlo``, ``chlo``, ``func``,
``passmanager`` and the runtime entry points from here, so that a jax upgrade
(the tested range is pinned in pyproject.toml) touches this file only.
"""

from __future__ import annotations

import numpy as np

import jax
from jax.extend.mlir import ir, passmanager  # noqa: F401
from jax.extend.mlir.dialects import chlo, func  # noqa: F401
from jax.extend.mlir.dialects import stablehlo as hlo  # noqa: F401
from jax.interpreters import mlir as _jax_mlir
from jax._src import config as _jax_config
from jax._src import core as _jax_core
from jax._src import tree_util as _jax_tree_util
from jax._src.interpreters import pxla as _pxla
from jax._src.lib import _jax
from jax._src.lib import xla_client as _xc
from jax.sharding import SingleDeviceSharding

from ..frontend.types import DTYPES, TensorType

__all__ = [
    "ir", "hlo", "chlo", "func", "passmanager", "make_context", "element_type",
    "tensor_type", "dense_attr", "i64_array", "module_to_bytecode", "jax", "xc",
    "JaxRuntimeError", "JAX_VERSION", "get_backend", "compile_options", "compile_and_load",
    "device_putter", "DeviceArray", "swap_x64_local", "set_x64_local", "make_dispatcher",
    "fastpath_data", "HostConversion", "execute", "array_device",
]

xc = _xc
JAX_VERSION = jax.__version__
JaxRuntimeError = jax.errors.JaxRuntimeError

_ELEMENT_TYPES = {
    DTYPES["bool"]: lambda: ir.IntegerType.get_signless(1),
    DTYPES["int8"]: lambda: ir.IntegerType.get_signless(8),
    DTYPES["int16"]: lambda: ir.IntegerType.get_signless(16),
    DTYPES["int32"]: lambda: ir.IntegerType.get_signless(32),
    DTYPES["int64"]: lambda: ir.IntegerType.get_signless(64),
    DTYPES["uint8"]: lambda: ir.IntegerType.get_unsigned(8),
    DTYPES["uint16"]: lambda: ir.IntegerType.get_unsigned(16),
    DTYPES["uint32"]: lambda: ir.IntegerType.get_unsigned(32),
    DTYPES["uint64"]: lambda: ir.IntegerType.get_unsigned(64),
    DTYPES["float16"]: ir.F16Type.get,
    DTYPES["bfloat16"]: ir.BF16Type.get,
    DTYPES["float32"]: ir.F32Type.get,
    DTYPES["float64"]: ir.F64Type.get,
    DTYPES["complex64"]: lambda: ir.ComplexType.get(ir.F32Type.get()),
    DTYPES["complex128"]: lambda: ir.ComplexType.get(ir.F64Type.get()),
}


def make_context() -> ir.Context:
    """A fresh MLIR context with the stablehlo, chlo and func dialects loaded."""
    return _jax_mlir.make_ir_context()


def element_type(dtype: np.dtype) -> ir.Type:
    return _ELEMENT_TYPES[dtype]()


def tensor_type(t: TensorType) -> ir.RankedTensorType:
    if not t.is_static:
        raise ValueError(f"cannot lower the non-static type {t}; give concrete shapes to lower()")
    return ir.RankedTensorType.get(t.shape, element_type(t.dtype))


def dense_attr(value: np.ndarray) -> ir.DenseElementsAttr:
    if not value.flags.c_contiguous:
        value = value.copy(order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)
    return ir.DenseElementsAttr.get(value, type=element_type(value.dtype), shape=value.shape)


def i64_array(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def module_to_bytecode(module: ir.Module) -> bytes:
    return _jax_mlir.module_to_bytecode(module)


def get_backend(platform: str | None):
    """The PJRT client for ``platform`` ("cpu", "gpu", "tpu"; None = jax's default)."""
    return jax.extend.backend.get_backend(platform)


def compile_options() -> "xc.CompileOptions":
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = 1
    return opts


def compile_and_load(client, bytecode: bytes, devices, options):
    return client.compile_and_load(bytecode, xc.DeviceList(tuple(devices)), options)


def device_putter(dtype: np.dtype, shape: tuple[int, ...], device):
    """A fast host-to-device transfer for arrays of one dtype and shape (no dtype
    canonicalization: 64-bit values stay 64-bit, unlike ``jax.device_put``)."""
    aval = _jax_core.ShapedArray(shape, dtype)
    sharding = SingleDeviceSharding(device)
    devices = [device]
    put = xc.batched_device_put

    def device_put(value):
        return put(aval, sharding, [value], devices, True, enable_x64=True)

    return device_put


# --- Running StableHLO modules from outside hlograph (runtime/load.py, passes/validation.py) ---

def eval_module(module: ir.Module, args: list[ir.Attribute]) -> list[ir.Attribute]:
    """Runs ``@main`` of ``module`` in StableHLO's reference interpreter; arguments and
    results are DenseElementsAttrs."""
    return hlo.eval_module(module, args)


def legalize_chlo(module: ir.Module) -> None:
    """Rewrites the CHLO ops of ``module`` into StableHLO, in place
    (``chlo-legalize-to-stablehlo``; the reference interpreter runs no CHLO)."""
    hlo.register_stablehlo_passes()  # idempotent
    with module.context:
        pm = passmanager.PassManager.parse("builtin.module(func.func(chlo-legalize-to-stablehlo))")
        pm.run(module.operation)


def deserialize_portable_artifact(data: bytes, context: ir.Context) -> ir.Module:
    """Reads a versioned StableHLO artifact (VHLO bytecode) into ``context``."""
    return hlo.deserialize_portable_artifact(context, data)


def serialize_portable_artifact(module: ir.Module, target: str | None = None) -> bytes:
    """Writes ``module`` as a versioned StableHLO artifact (VHLO bytecode); ``module``
    is left as it was (the binding converts its argument to VHLO in place)."""
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True, binary=True))
    return hlo.serialize_portable_artifact(copy, target or hlo.get_current_version())


# MLIR's pattern rewrite API (used by hlograph.passes.patterns). jaxlib 0.10.2
# exposes it only under this private module, so it is imported here alone.
from jaxlib.mlir._mlir_libs._mlir.rewrite import (  # noqa: E402,F401
    GreedyRewriteConfig,
    GreedyRewriteStrictness,
    PatternRewriter,
    RewritePatternSet,
    apply_patterns_and_fold_greedily,
    walk_and_apply_patterns,
)

__all__ += [
    "GreedyRewriteConfig", "GreedyRewriteStrictness", "PatternRewriter", "RewritePatternSet",
    "apply_patterns_and_fold_greedily", "walk_and_apply_patterns",
]


# --- runtime: the per-call path ------------------------------------------------
#
# A call runs through jaxlib's C++ jit entry point (``PjitFunction``, the object
# behind ``jax.jit``): it computes the call signature (dtype, shape, weak type,
# sharding of every argument), looks it up in its own cache and, on a hit,
# transfers NumPy arguments, executes and wraps the results without running any
# Python. On a miss it calls back into Python (``cache_miss``), which checks and
# runs the call and returns the data the C++ side caches for that signature
# (``MeshExecutableFastpathData``), or None to keep that signature on the Python
# path.
#
# With jax's default ``jax_enable_x64=False`` the C++ signature of a float64
# NumPy array is float32 and the transfer narrows it. hlograph keeps 64-bit
# types exact, so callers run the dispatcher with x64 enabled for the current
# thread only (``swap_x64_local(True)`` ... ``set_x64_local(prev)``); jax's
# global setting and other threads are untouched.

#: jax's array type: arguments of this type go to the executable without a copy
DeviceArray = _xc.ArrayImpl

_x64_state = _jax_config.enable_x64
#: ``prev = swap_x64_local(True)``: enables 64-bit types for this thread only
swap_x64_local = _x64_state.swap_local
#: ``set_x64_local(prev)``: restores this thread's previous setting
set_x64_local = _x64_state.set_local

#: the LRU list shared by every hlograph dispatcher (entries: one per call signature)
_DISPATCH_CACHE = _jax.PjitFunctionCache(capacity=4096)


def make_dispatcher(name: str, python_call, cache_miss):
    """jaxlib's C++ dispatcher for one callable.

    Args:
        name: shown in profiles.
        python_call: ``python_call(*args) -> outputs``; used instead of the C++
            path while ``jax.disable_jit()`` is active.
        cache_miss: ``cache_miss(*args) -> (outputs, fastpath, False)``; called
            for a signature the dispatcher has not seen (or one kept on the
            Python path); ``fastpath`` comes from ``fastpath_data`` or is None.

    Returns:
        A callable ``dispatch(*args) -> outputs`` (a single device array or a
        tuple, as ``fastpath_data``'s ``single_output`` says).
    """
    return _jax.pjit(name, python_call, cache_miss, [], [], ("hlograph-dispatch",),
                     _jax_tree_util.dispatch_registry, _shard_arg, _DISPATCH_CACHE)


class HostConversion:
    """Marks an input whose argument the C++ dispatcher hands back to Python.

    The dispatcher transfers a Python scalar to its natural 64-bit type, which
    is wrong for, say, a float32 input. For such an input the fast-path data
    carries this object where jax puts a layout: the dispatcher then calls
    ``_shard_arg(arg, sharding, marker)``, which returns ``marker.convert(arg)``
    (a device array of the input's type).
    """

    __slots__ = ("convert",)

    def __init__(self, convert):
        self.convert = convert


def _shard_arg(arg, sharding, layout):
    if type(layout) is HostConversion:
        return layout.convert(arg)
    return _pxla.cc_shard_arg(arg, sharding, layout)


def fastpath_data(loaded, device, in_types, out_types, single_output: bool, conversions=None):
    """What the C++ dispatcher caches to run ``loaded`` on ``device`` by itself:
    the executable, the shardings and avals of inputs and outputs, whether the
    outputs come back as one array (``single_output``) or as a tuple, and per
    input None or a ``HostConversion`` (``conversions``; default all None)."""
    sharding = SingleDeviceSharding(device)
    n_in, n_out = len(in_types), len(out_types)
    structure = 0 if single_output else tuple(range(n_out))
    out_tree = _jax_tree_util.dispatch_registry.flatten(structure, None)[1]
    out_avals = [_jax_core.ShapedArray(tuple(t.shape), t.dtype) for t in out_types]
    layouts = [None] * n_in if conversions is None else list(conversions)
    return _pxla.MeshExecutableFastpathData(
        loaded, out_tree, [sharding] * n_in, [sharding] * n_out, out_avals,
        [True] * n_out, [True] * n_in, layouts, [])


def execute(loaded, buffers) -> list:
    """Runs ``loaded`` on device arrays; returns the results as device arrays."""
    return [x[0] for x in loaded.execute_sharded(buffers).disassemble_into_single_device_arrays()]


def array_device(value):
    """The device of a single-device jax array (None for a sharded one)."""
    devices = value.sharding.device_set
    return next(iter(devices)) if len(devices) == 1 else None



# --- Borrowing jax's lowering (lowering/bridge.py) ----------------------------------
# Where StableHLO has no op (LAPACK-backed decompositions), hlograph lowers a
# jax.numpy / jax.scipy function with jax and merges the result into its module.
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsp_linalg  # noqa: E402

#: ``merge_mlir_modules(dst, sym_name, src)``: moves ``src``'s functions into ``dst``
#: (renamed apart, private) and returns the new name of ``src``'s ``@main``
merge_mlir_modules = _jax_mlir.merge_mlir_modules


def jax_stablehlo_text(fn, arg_types) -> str:
    """The StableHLO module (text) that ``jax.jit(fn)`` lowers to for arguments of
    ``arg_types`` (TensorTypes), with 64-bit types enabled for this thread only."""
    specs = [jax.ShapeDtypeStruct(tuple(t.shape), t.dtype) for t in arg_types]
    prev = swap_x64_local(True)
    try:
        lowered = jax.jit(fn).lower(*specs)
    finally:
        set_x64_local(prev)
    # the full text (no elided constants), without jax's source locations
    return lowered.compiler_ir("stablehlo").operation.get_asm(large_elements_limit=None)


lax = jax.lax

__all__ += ["jnp", "jsp_linalg", "lax", "merge_mlir_modules", "jax_stablehlo_text"]
