"""The one module that imports jax/jaxlib MLIR and PJRT APIs.

Everything else in hlograph imports ``ir``, ``hlo``, ``chlo``, ``func``,
``passmanager`` and the runtime entry points from here, so that a jax upgrade
(the tested range is pinned in pyproject.toml) touches this file only.
"""

from __future__ import annotations

import hashlib

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
    "tensor_type", "dense_attr", "i64_array", "module_to_bytecode", "module_fingerprint", "jax", "xc",
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


def module_fingerprint(module: ir.Module) -> bytes:
    """The SHA-256 of ``module``'s text without source locations: equal for the
    same program whatever code (file, line) built it. The executable caches key
    on it (as jax's compilation cache leaves locations out of its key)."""
    with module.context:
        text = module.operation.get_asm(enable_debug_info=False)
    return hashlib.sha256(text.encode()).digest()


def get_backend(platform: str | None):
    """The PJRT client for ``platform`` ("cpu", "gpu", "tpu"; None = jax's default)."""
    return jax.extend.backend.get_backend(platform)


def compile_options(device=None) -> "xc.CompileOptions":
    """Options for a single-device executable, on ``device`` (default: the
    client's first device)."""
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = 1
    if device is not None:
        opts.device_assignment = _xc.DeviceAssignment.create(np.array([[device.id]]))
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


def jax_stablehlo_text(fn, arg_types, platform: str | None = None) -> str:
    """The StableHLO module (text) that ``jax.jit(fn)`` lowers to for arguments of
    ``arg_types`` (TensorTypes) on ``platform`` (None: jax's default backend), with
    64-bit types enabled for this thread only."""
    specs = [jax.ShapeDtypeStruct(tuple(t.shape), t.dtype) for t in arg_types]
    platforms = None if platform is None else (platform,)
    prev = swap_x64_local(True)
    try:
        lowered = jax.jit(fn).trace(*specs).lower(lowering_platforms=platforms)
    finally:
        set_x64_local(prev)
    # the full text (no elided constants), without jax's source locations
    return lowered.compiler_ir("stablehlo").operation.get_asm(large_elements_limit=None)


lax = jax.lax

__all__ += ["jnp", "jsp_linalg", "lax", "merge_mlir_modules", "jax_stablehlo_text"]


# --- Persistent executable cache (runtime/cache.py) ----------------------------------

def serialize_executable(loaded) -> bytes:
    """The bytes of a compiled executable, for ``deserialize_executable``."""
    if hasattr(loaded, "serialize"):
        return loaded.serialize()
    return loaded.client.serialize_executable(loaded)


def deserialize_executable(client, payload: bytes, devices, options):
    """The loaded executable that ``serialize_executable`` turned into ``payload``,
    on ``devices`` (the devices it was compiled for). Raises on bytes it cannot read."""
    return client.deserialize_executable(payload, xc.DeviceList(tuple(devices)), options)


def compile_options_fingerprint(options) -> bytes:
    """The serialized ``options`` without the settings that do not change the
    compiled code (the virtual host device count and dump flags), as jax's cache
    key does."""
    import copy

    opts = copy.deepcopy(options)
    debug = opts.executable_build_options.debug_options
    debug.xla_force_host_platform_device_count = 0
    debug.xla_dump_to = ""
    debug.xla_dump_hlo_module_re = ""
    debug.xla_dump_hlo_pass_re = ""
    debug.xla_dump_hlo_as_text = False
    debug.xla_dump_hlo_as_proto = False
    return opts.SerializeAsString()


def runtime_fingerprint(client) -> str:
    """The versions a compiled executable depends on: jax, jaxlib, the XLA client
    API and the PJRT plugin of ``client``."""
    import jaxlib

    return "|".join(("jax", JAX_VERSION, "jaxlib", jaxlib.__version__, "xla_client", str(xc._version),
                     "platform", client.platform, str(client.platform_version)))


__all__ += ["serialize_executable", "deserialize_executable", "compile_options_fingerprint",
            "runtime_fingerprint"]


# --- multi-device SPMD (lowering/sharded.py, runtime/sharding.py, lowering/rules/sharding.py) ---
# Modules compiled for a mesh carry Shardy annotations (jaxlib 0.10.2 defaults to
# Shardy: ``jax_use_shardy_partitioner``): ``sdy.sharding`` on @main's arguments
# and results, ``sdy.sharding_constraint`` inside, one ``sdy.mesh @mesh``; XLA's
# SPMD partitioner splits the program over ``num_partitions`` devices, with the
# build options jax.jit uses (jax/_src/interpreters/pxla.py create_compile_options).
from jax.extend.mlir.dialects import sdy  # noqa: E402
from jax._src import sharding_impls as _sharding_impls  # noqa: E402

#: jax's mesh and sharding types (accepted from users as they are)
JaxMesh = jax.sharding.Mesh
NamedSharding = jax.sharding.NamedSharding
PartitionSpec = jax.sharding.PartitionSpec


def platform_devices(platform: str | None) -> list:
    """Every device of ``platform``, of all processes (``jax.distributed``), by id."""
    return sorted(get_backend(platform).devices(), key=lambda d: d.id)


def make_jax_mesh(devices: np.ndarray, axis_names) -> "JaxMesh":
    """A jax mesh over ``devices`` (an array of devices, one dimension per axis)."""
    return JaxMesh(devices, tuple(axis_names))


def sdy_sharding(mesh_axes, dims) -> ir.Attribute:
    """A ``#sdy.sharding`` with an inlined mesh (``mesh_axes``: (name, size)
    pairs) and closed dimensions (``dims``: per dimension, the axis names it is
    split over; empty = replicated). ``lift_inlined_meshes`` replaces the
    inlined mesh by ``@mesh``."""
    mesh = sdy.MeshAttr.get([sdy.MeshAxisAttr.get(n, int(s)) for n, s in mesh_axes])
    return sdy.TensorShardingAttr.get(
        mesh, [sdy.DimensionShardingAttr.get([sdy.AxisRefAttr.get(a) for a in axes], is_closed=True)
               for axes in dims])


def sharding_constraint(x: ir.Value, sharding: ir.Attribute) -> ir.Value:
    """``sdy.sharding_constraint``: ``x`` with the given sharding."""
    return sdy.sharding_constraint(x, sharding)


def lift_inlined_meshes(module: ir.Module) -> None:
    """Moves the inlined meshes of ``module`` into ``sdy.mesh`` symbols, as jax does."""
    with module.context:
        passmanager.PassManager.parse("builtin.module(sdy-lift-inlined-meshes)").run(module.operation)


def spmd_compile_options(device_ids, num_args: int, propagate_to_outputs) -> "xc.CompileOptions":
    """Compile options for one program partitioned over ``device_ids`` (the mesh's
    devices in order) by XLA's SPMD partitioner; the ``num_args`` arguments keep
    their annotated shardings; ``propagate_to_outputs``: per result, whether XLA
    picks its sharding (results without an annotation)."""
    n = len(device_ids)
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = n
    build = opts.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    opts.device_assignment = xc.DeviceAssignment.create(np.asarray(device_ids, dtype=int).reshape(1, n))
    build.allow_spmd_sharding_propagation_to_parameters = [False] * num_args
    build.allow_spmd_sharding_propagation_to_output = [bool(p) for p in propagate_to_outputs]
    return opts


def put_sharded(value, sharding: "NamedSharding"):
    """``value`` (a NumPy or jax array) as a jax array laid out by ``sharding``; a
    jax array that already is stays as it is. 64-bit types stay 64-bit."""
    if type(value) is DeviceArray and value.sharding.is_equivalent_to(sharding, value.ndim):
        return value
    prev = swap_x64_local(True)
    try:
        return jax.device_put(value, sharding)
    finally:
        set_x64_local(prev)


def execute_sharded(loaded, arrays, shapes, shardings) -> list:
    """Runs a partitioned executable on jax arrays (one per argument, laid out as
    compiled); returns one jax array per result, of global shape ``shapes[i]``
    laid out by ``shardings[i]``."""
    results = loaded.execute_sharded(arrays).disassemble_into_single_device_arrays()
    prev = swap_x64_local(True)
    try:
        return [jax.make_array_from_single_device_arrays(tuple(shape), s, shards)
                for shape, s, shards in zip(shapes, shardings, results)]
    finally:
        set_x64_local(prev)


def sharded_fastpath_data(loaded, in_shardings, out_shardings, out_types, single_output: bool):
    """What the C++ dispatcher (``make_dispatcher``) caches to run a partitioned
    executable by itself: arguments laid out by ``in_shardings`` (NumPy arrays
    are split and transferred by it), results as jax arrays laid out by
    ``out_shardings``."""
    structure = 0 if single_output else tuple(range(len(out_types)))
    out_tree = _jax_tree_util.dispatch_registry.flatten(structure, None)[1]
    out_avals = [_jax_core.ShapedArray(tuple(t.shape), t.dtype) for t in out_types]
    n_in, n_out = len(in_shardings), len(out_shardings)
    return _pxla.MeshExecutableFastpathData(
        loaded, out_tree, list(in_shardings), list(out_shardings), out_avals,
        [True] * n_out, [True] * n_in, [None] * n_in, [])


def output_partition_specs(loaded, mesh: "JaxMesh", count: int) -> list | None:
    """The partition specs XLA chose for the ``count`` results of ``loaded`` (on
    ``mesh``), or None when the executable does not say."""
    shardings = loaded.get_output_shardings()
    if shardings is None:
        return None
    specs: list = []
    for s in shardings:
        specs.extend(_sharding_impls.parse_flatten_op_sharding(s, mesh))
    if len(specs) == 1 and count > 1:  # one sharding shared by every result
        specs = specs * count
    return specs if len(specs) == count else None


__all__ += ["sdy", "JaxMesh", "NamedSharding", "PartitionSpec", "platform_devices", "make_jax_mesh",
            "sdy_sharding", "sharding_constraint", "lift_inlined_meshes", "spmd_compile_options",
            "put_sharded", "execute_sharded", "sharded_fastpath_data", "output_partition_specs"]


# --- Platforms, devices and array interop (runtime/devices.py, runtime/args.py) ---
import jax.dlpack as _jax_dlpack  # noqa: E402

_Device = _xc.Device


def default_platform() -> str:
    """jax's default backend: the best platform available (GPU/TPU before CPU)."""
    return jax.default_backend()


def is_device(value) -> bool:
    return isinstance(value, _Device)


def from_dlpack(value):
    """A jax array sharing the memory of a DLPack producer (a torch tensor, a
    CuPy array, ...) where the producer's device allows it; 64-bit types stay
    64-bit."""
    prev = swap_x64_local(True)
    try:
        return _jax_dlpack.from_dlpack(value)
    finally:
        set_x64_local(prev)


__all__ += ["default_platform", "is_device", "from_dlpack"]


# --- In-module host calls: Numba functions as typed XLA FFI targets (runtime/host/ffi.py) ---

def register_host_call_target(name: str, address: int) -> None:
    """Registers the C function at ``address`` (``XLA_FFI_Error* f(XLA_FFI_CallFrame*)``)
    as the typed XLA FFI custom-call target ``name`` on the CPU, for the rest of the process."""
    jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(address), platform="cpu", api_version=1)


def host_call_platform(platform: str | None) -> str:
    """``platform`` with None resolved to jax's default backend ("cpu", "gpu", "tpu")."""
    return default_platform() if platform is None else platform


def _row_major_layouts(types) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.arange(ir.RankedTensorType(t).rank - 1, -1, -1, dtype=np.int64),
                                    type=ir.IndexType.get())
        for t in types])


def host_call(name: str, operands, result_types) -> list[ir.Value]:
    """``stablehlo.custom_call @name(operands)`` in the typed FFI form, as
    ``jax.ffi.ffi_lowering`` builds it: ``api_version = 4``, an empty dictionary
    as ``backend_config``, row-major operand and result layouts."""
    operands = list(operands)
    attributes = {
        "call_target_name": ir.StringAttr.get(name),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        "backend_config": ir.DictAttr.get({}),
        "operand_layouts": _row_major_layouts([v.type for v in operands]),
        "result_layouts": _row_major_layouts(result_types),
    }
    op = hlo.CustomCallOp.build_generic(results=list(result_types), operands=operands,
                                        attributes=attributes)
    return list(op.results)


__all__ += ["register_host_call_target", "host_call_platform", "host_call"]
