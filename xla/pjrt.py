"""The PJRT side of the jax boundary: clients and devices, compiling and
(de)serializing executables, host-to-device transfers, DLPack, and jaxlib's C++
dispatcher (the per-call path behind ``jax.jit``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import jax
import jax.dlpack as _jax_dlpack
from jax._src import config as _jax_config
from jax._src import core as _jax_core
from jax._src import tree_util as _jax_tree_util
from jax._src.interpreters import pxla as _pxla
from jax._src.lib import _jax
from jax._src.lib import xla_client as _xc
from jax.sharding import SingleDeviceSharding

__all__ = [
    "xc", "JaxRuntimeError", "JAX_VERSION", "get_backend", "compile_options", "compile_and_load",
    "device_putter", "DeviceArray", "swap_x64_local", "set_x64_local", "make_dispatcher",
    "fastpath_data", "HostConversion", "execute", "array_device", "serialize_executable",
    "deserialize_executable", "compile_options_fingerprint", "runtime_fingerprint",
    "default_platform", "resolve_platform", "platform_devices", "is_device", "from_dlpack",
    "executable_hlo_text", "executable_cost_analysis", "executable_memory_analysis",
    "module_cost_analysis", "ynn_fusion_wanted", "YNN_FUSION_FEW_DOTS",
    "YNN_FUSION_MAX_WORK", "YNN_FUSION_MIN_CHAIN_WORK", "fusion_emitters_wanted",
    "FUSION_EMITTERS_MAX_OPS", "FUSION_EMITTERS_MAX_ELEMENTS", "FUSION_EMITTERS_MAX_DEPTH", "FUSION_EMITTERS_ENV", "ModuleSize",
    "module_size", "FUSION_BOUNDARIES", "FUSION_CUT_DEPTH", "fusion_emitters_setting", "small_for_fusion_policy",
    "fusion_emitters_for", "fusion_cuts_wanted", "CONTRACTION_SAFE_OPS", "contraction_safe", "excess_precision",
    "LOOP_ROLL_MIN_OPS", "LOOP_ROLL_BODY_OPS", "LOOP_ROLL_DOT_WORK", "may_roll",
]

xc = _xc
JAX_VERSION = jax.__version__
JaxRuntimeError = jax.errors.JaxRuntimeError


def get_backend(platform: str | None):
    """The PJRT client for ``platform`` ("cpu", "gpu", "tpu"; None = jax's default)."""
    return jax.extend.backend.get_backend(platform)


def compile_options(device=None, *, ynn_fusion: bool = True,
                    fusion_emitters: bool = True) -> "xc.CompileOptions":
    """Options for a single-device executable, on ``device`` (default: the
    client's first device). ``ynn_fusion=False`` keeps XLA:CPU from handing
    dots to YNNPACK fusions (``xla_cpu_experimental_ynn_fusion_type=""``; see
    ``ynn_fusion_wanted``); ``fusion_emitters=False`` has XLA:CPU emit its
    fusions with its elemental IR emitter instead of its MLIR fusion emitters
    (``xla_cpu_use_fusion_emitters=False``; see ``fusion_emitters_wanted``).
    The overrides are part of the serialized options, so of
    ``compile_options_fingerprint``. Other platforms ignore them."""
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = 1
    if device is not None:
        opts.device_assignment = _xc.DeviceAssignment.create(np.array([[device.id]]))
    overrides = []
    if not ynn_fusion:
        overrides.append(("xla_cpu_experimental_ynn_fusion_type", ""))
    if not fusion_emitters:
        overrides.append(("xla_cpu_use_fusion_emitters", False))
    if overrides:
        opts.env_option_overrides = overrides
    return opts


#: YNNPACK dot fusions are kept for a module with at most this many matrix
#: products: it sets each one up on the first execution of an executable (about
#: 0.5 ms), where XLA's own dot kernels have oneDNN generate its matrix-product
#: code on the first product of each process (13-23 ms on this CPU for float32
#: m = 8-64, 1-4 products: bench/xla_policy.py --fresh), and per call the two
#: run the same (a fresh process restarting from the cache pays the first)
YNN_FUSION_FEW_DOTS = 4

#: YNNPACK dot fusions are turned off for a module with more than
#: ``YNN_FUSION_FEW_DOTS`` float32 products, all of at most this much work
#: (batch * m * n * k) ...
YNN_FUSION_MAX_WORK = 64 ** 3

#: ... and each above this: per call XLA's kernels run those as fast as YNNPACK
#: (m = 64: 0.88-1.01x for chains of 3-300), while YNNPACK's setup makes the
#: first execution 10-30x slower (a 300-dot chain: 120-190 ms); with 10 or more
#: smaller ones (m = 8-32) XLA's kernels run up to 2x slower per call
YNN_FUSION_MIN_CHAIN_WORK = 32 ** 3


def ynn_fusion_wanted(dots) -> bool:
    """Whether XLA:CPU should hand a module's dots to YNNPACK (its default).

    ``dots`` are the module's matrix products as XLA compiles them
    (``mlir.dot_shapes``: a loop's body counts once). YNNPACK sets each fused
    dot up on the first execution of an executable (after compiling it or
    loading it from the cache), which makes that execution 10-30x slower for
    long chains of small products, but it runs chains of tiny products,
    float64 ones and large float32 ones as fast or faster per call than XLA's
    own kernels, and a few products of any size start faster with it in a new
    process. So, to stay no slower per call: off for a module of more than
    ``YNN_FUSION_FEW_DOTS`` float32 products, each of work above
    ``YNN_FUSION_MIN_CHAIN_WORK`` and at most ``YNN_FUSION_MAX_WORK``; XLA's
    default otherwise (no products included)."""
    dots = list(dots)
    if not dots:
        return True
    works = [d.work for d in dots]
    if not all(d.dtype == "f32" for d in dots) or max(works) > YNN_FUSION_MAX_WORK:
        return True
    return len(dots) <= YNN_FUSION_FEW_DOTS or min(works) <= YNN_FUSION_MIN_CHAIN_WORK


#: XLA:CPU's MLIR fusion emitters are turned off for a module of more than this
#: many ops (every function and region included)... Their elementwise fusion
#: (``FuseElementwisePass``) and the LLVM code generation of the kernels they
#: make grow superlinearly with the size of a module: the elemental IR emitter
#: compiles a chain of 1800 sin/cos/add ops on float32[8] 7x faster, and the
#: executable runs as fast (README, "XLA:CPU compile options per module")
FUSION_EMITTERS_MAX_OPS = 1000

#: ... whose values all have at most this many elements. On bigger values the
#: elemental IR emitter's kernels run slower (the same chain on float32[16]:
#: up to 1.3x per call, float32[1024]: 1.7x) and, with arithmetic of 64x64
#: values between matrix products, it compiles 5x slower than the fusion emitters
FUSION_EMITTERS_MAX_ELEMENTS = 8

#: ... whose longest chain of ops fused into one kernel is at most this long.
#: The elemental IR emitter recurses once per fused op on a compiler thread's
#: stack: a chain of 7500 sin/cos/add ops on float32[8] overflows it (6000 do
#: not), so deeper chains keep XLA's fusion emitters
FUSION_EMITTERS_MAX_DEPTH = 2000

#: the environment variable that overrides ``fusion_emitters_wanted``: ``on``
#: (or ``1``) keeps XLA's fusion emitters for every module, ``off`` (or ``0``)
#: turns them off for every module (a chain deeper than
#: ``FUSION_EMITTERS_MAX_DEPTH`` may then crash the compiler), ``auto`` (or
#: unset) decides by size
FUSION_EMITTERS_ENV = "HLOGRAPH_XLA_FUSION_EMITTERS"

_ENV_SETTINGS = {"": None, "auto": None, "on": True, "1": True, "off": False, "0": False}

#: a StableHLO op takes at least this many bytes of bytecode, so a module of
#: at most ``FUSION_EMITTERS_MAX_OPS`` times this many bytes is small without
#: being parsed
_MIN_BYTES_PER_OP = 4

#: ops that XLA:CPU fuses no elementwise op through: a chain of fused ops ends there
#: (every custom call included: ``ffi.fusion_cut`` is one)
FUSION_BOUNDARIES = frozenset("stablehlo." + name for name in (
    "dot_general", "dot", "convolution", "custom_call", "while", "if", "case", "sort", "fft",
    "triangular_solve", "cholesky", "rng_bit_generator", "all_reduce", "all_gather", "all_to_all",
    "reduce_scatter", "collective_permute", "infeed", "outfeed", "send", "recv",
))
_FUSION_BOUNDARIES = FUSION_BOUNDARIES

#: a module compiled on XLA:CPU has its runs of repeated ops of at least this
#: many ops rolled into loops (``passes.roll_loops``, applied by
#: ``runtime.compile_plan``): XLA's compile time grows with every op it sees
#: (HLO passes and code generation alike) and a loop's body compiles once; an
#: iteration costs less than the code a flat chain of ten thousand ops runs
#: through (a 10k-op sin/cos/add chain on float32[8]: 2.4 s to compile, 0.56 ms
#: per call; rolled, 100 ops an iteration: 0.14 s, 0.43 ms)
LOOP_ROLL_MIN_OPS = 500

#: ... each iteration running about this many ops (whole repetitions; bodies
#: of 30-1000 ops measured the same to compile, and ran faster the smaller)
LOOP_ROLL_BODY_OPS = 100

#: ... but one repetition an iteration when a repetition's matrix products do
#: at least this much work (batch * m * n * k): an iteration then costs far more
#: than the loop's step, and the body holds one copy of each product, which XLA
#: compiles, loads and sets up once (a 300-layer ``tanh(x @ w)`` chain on
#: float32[64, 64]: deserialized in 4 ms instead of 25, first execution 5 ms
#: instead of 25, per call as fast)
LOOP_ROLL_DOT_WORK = 16 ** 3


#: ops whose result XLA:CPU's code does not end with a multiplication. XLA lets
#: LLVM contract a multiply and the add or subtract that uses it into one fused
#: multiply-add (FMA) inside a kernel ("Always allow FMA fusion"), when the
#: multiply has no other use there: a value of a multiply that crosses a fusion
#: boundary (its kernel's result, its users' argument) is rounded where it was
#: not, and bits change. These ops' results can cross one unchanged
CONTRACTION_SAFE_OPS = frozenset("stablehlo." + name for name in (
    "add", "subtract", "maximum", "minimum", "clamp", "select", "abs", "compare", "constant",
    "iota", "floor", "ceil", "round_nearest_even", "round_nearest_afz", "sign",
))

#: ops that move or re-type their operand's elements (a multiply folds through
#: them into an FMA): their result is safe when their operand is
_CONTRACTION_TRANSPARENT_OPS = frozenset("stablehlo." + name for name in (
    "reshape", "broadcast_in_dim", "transpose", "slice", "reverse", "negate", "convert",
))


def contraction_safe(value) -> bool:
    """Whether ``value`` (an MLIR value) can go from one XLA:CPU kernel to another
    without changing a bit of what its users compute, as far as FMA contraction
    goes (``CONTRACTION_SAFE_OPS``): not a floating-point or complex value, a block
    argument, a fusion boundary's result, or a result of a safe op (through ops
    that move elements: ``_CONTRACTION_TRANSPARENT_OPS``)."""
    from . import mlir

    ir = mlir.ir
    for _ in range(16):
        t = value.type
        if isinstance(t, ir.ShapedType) and not isinstance(t.element_type, (ir.FloatType, ir.ComplexType)):
            return True
        owner = value.owner
        if isinstance(owner, ir.Block):
            return True
        name = owner.operation.name
        if name in CONTRACTION_SAFE_OPS or name in FUSION_BOUNDARIES:
            return True
        if name not in _CONTRACTION_TRANSPARENT_OPS:
            return False
        value = owner.operation.operands[0]
    return False


def _float_width(t) -> int:
    """The bits of a (complex) floating-point element type, 0 for other types."""
    from . import mlir

    ir = mlir.ir
    if isinstance(t, ir.ShapedType):
        t = t.element_type
    if isinstance(t, ir.ComplexType):
        t = t.element_type
    return t.width if isinstance(t, ir.FloatType) else 0


def excess_precision(op) -> bool:
    """Whether XLA:CPU may compute some values under ``op`` (a module or any op)
    in more precision than their types have, so that where its kernels begin and
    end changes bits: with ``xla_allow_excess_precision`` (on by default) it
    drops the rounding of a convert to a narrower floating-point type and
    computes what a kernel does with the value in the wider type, and it
    computes 16- and 8-bit floats in float32 inside a kernel. Passes that move
    kernel boundaries leave such modules alone."""
    from . import mlir

    ir = mlir.ir
    widths: dict = {}
    found = False

    def width(value) -> int:
        t = value.type
        w = widths.get(t)
        if w is None:
            w = widths[t] = _float_width(t)
        return w

    def visit(o):
        nonlocal found
        o = o.operation
        for r in o.results:
            if 0 < width(r) < 32:
                found = True
        if o.name == "stablehlo.convert" and 0 < width(o.results[0]) < width(o.operands[0]):
            found = True
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    op = op.operation
    op.walk(visit)
    return found


#: chains deeper than ``FUSION_EMITTERS_MAX_DEPTH`` in a module the size policy
#: would otherwise hand the elemental IR emitter are cut this deep
#: (``passes.cut_fusion``, applied by ``runtime.compile_plan``): XLA:CPU then
#: compiles them with its elemental IR emitter too, each cut costing one
#: custom-call thunk that does nothing per call
FUSION_CUT_DEPTH = 1000


class ModuleSize(NamedTuple):
    """``ops``: every op of every function and region, functions included;
    ``depth``: the longest chain of dependent ops that ends at no fusion
    boundary (a dot, a convolution, a custom call, control flow, ...), through
    calls (XLA inlines them): an upper bound on the depth of a fused kernel;
    ``elements``: the most elements of any value, op result or argument (a
    dynamic shape counts as ``2**62``)."""

    ops: int
    depth: int
    elements: int


def module_size(module) -> ModuleSize:
    """The ``ModuleSize`` of a StableHLO module given as bytecode (or text), or
    of an ``ir.Module`` (read, not changed)."""
    from . import mlir

    ir = mlir.ir
    if isinstance(module, ir.Module):
        return _module_size(module, ir)
    with mlir.make_context() as ctx:
        return _module_size(ir.Module.parse(bytes(module), ctx), ir)


def _module_size(module, ir) -> ModuleSize:
    ops = 0
    elements = 0
    callee_depth: dict[str, int] = {}
    funcs: dict[str, "ir.Operation"] = {}
    type_elements: dict = {}  # type -> its elements (or -1: not a ranked tensor)
    boundaries = FUSION_BOUNDARIES
    ranked = ir.RankedTensorType

    def count_elements(values) -> None:
        nonlocal elements
        for value in values:
            t = value.type
            n = type_elements.get(t)
            if n is None:
                if isinstance(t, ranked):
                    n = int(np.prod(t.shape)) if t.has_static_shape else 2 ** 62
                else:
                    n = -1
                type_elements[t] = n
            if n > elements:
                elements = n

    def block_depth(block) -> int:
        # the depth of a block's values keyed by value: operands from enclosing
        # blocks (parameters of XLA's computation) and block arguments count 0
        nonlocal ops
        depth: dict = {}
        deepest = 0
        count_elements(block.arguments)
        for op in block.operations:
            op = op.operation
            ops += 1
            results = op.results
            count_elements(results)
            regions = op.regions
            if len(regions):  # (iterating an empty sequence costs more than asking its length)
                for region in regions:
                    for b in region.blocks:
                        inner = block_depth(b)
                        if inner > deepest:
                            deepest = inner
            name = op.name
            if name in boundaries:
                continue  # its results: depth 0
            d = 0
            for v in op.operands:
                x = depth.get(v, 0)
                if x > d:
                    d = x
            d += 1
            if name == "func.call":
                d += function_depth(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
            for r in results:
                depth[r] = d
            if d > deepest:
                deepest = d
        return deepest

    def function_depth(name: str) -> int:
        if name not in callee_depth:
            callee_depth[name] = 0  # a recursive call (not valid StableHLO) stops here
            func = funcs.get(name)
            callee_depth[name] = 0 if func is None else max(
                (block_depth(b) for r in func.regions for b in r.blocks), default=0)
        return callee_depth[name]

    for op in module.body.operations:
        if "sym_name" in op.operation.attributes:
            funcs[ir.StringAttr(op.operation.attributes["sym_name"]).value] = op.operation
    depth = 0
    for op in module.body.operations:
        ops += 1
        depth = max(depth, function_depth(ir.StringAttr(op.operation.attributes["sym_name"]).value)
                    if op.operation.name == "func.func" else 0)
    return ModuleSize(ops, depth, elements)


def env_setting(name: str) -> bool | None:
    """The environment variable ``name`` as a setting: True (``on``, ``1``), False
    (``off``, ``0``) or None (``auto``, unset).

    Raises:
        ValueError: any other value.
    """
    import os

    setting = os.environ.get(name, "").strip().lower()
    if setting not in _ENV_SETTINGS:
        raise ValueError(f"{name}={os.environ[name]!r}: expected auto, on, off, 1 or 0")
    return _ENV_SETTINGS[setting]


def fusion_emitters_setting() -> bool | None:
    """``$HLOGRAPH_XLA_FUSION_EMITTERS`` (``FUSION_EMITTERS_ENV``): True (``on``,
    ``1``), False (``off``, ``0``) or None (``auto``, unset).

    Raises:
        ValueError: any other value.
    """
    return env_setting(FUSION_EMITTERS_ENV)


#: set to on (1) to keep jax's asynchronous dispatch on the CPU client hlograph creates
CPU_ASYNC_DISPATCH_ENV = "HLOGRAPH_CPU_ASYNC_DISPATCH"


def _sync_cpu_dispatch() -> None:
    """Before jax creates its clients, when hlograph is imported: the CPU client runs a
    computation on the calling thread (``jax_cpu_enable_async_dispatch=False``)
    instead of handing it to a worker thread and waiting for it. hlograph's calls wait
    for their results anyway (NumPy arrays), so the hand-off is pure cost on small
    graphs (measured in bench/pytensor_modes.py and bench/peers.py). Left alone once
    jax has clients (jax was used first: its setting stays) or with
    ``$HLOGRAPH_CPU_ASYNC_DISPATCH=1``."""
    from jax._src import xla_bridge

    if env_setting(CPU_ASYNC_DISPATCH_ENV):
        return
    if getattr(xla_bridge, "_backends", None):
        return
    jax.config.update("jax_cpu_enable_async_dispatch", False)


_sync_cpu_dispatch()  # when hlograph is imported (before it lowers anything through jax)




def small_for_fusion_policy(bytecode: bytes) -> bool:
    """Whether ``bytecode`` is too short to hold more than ``FUSION_EMITTERS_MAX_OPS``
    ops (so that the size policy keeps XLA's defaults without parsing it)."""
    return len(bytecode) <= FUSION_EMITTERS_MAX_OPS * _MIN_BYTES_PER_OP


def may_roll(bytecode: bytes) -> bool:
    """Whether ``bytecode`` may hold ``LOOP_ROLL_MIN_OPS`` ops (so it is parsed to
    look for runs to roll)."""
    return len(bytecode) >= LOOP_ROLL_MIN_OPS * _MIN_BYTES_PER_OP


def fusion_emitters_for(size: ModuleSize) -> bool:
    """The size policy of ``fusion_emitters_wanted`` for a module of ``size``."""
    return (size.ops <= FUSION_EMITTERS_MAX_OPS or size.elements > FUSION_EMITTERS_MAX_ELEMENTS
            or size.depth > FUSION_EMITTERS_MAX_DEPTH)


def fusion_cuts_wanted(size: ModuleSize) -> bool:
    """Whether a module of ``size`` keeps XLA's fusion emitters only because a chain
    is too deep for the elemental IR emitter: cut at ``FUSION_CUT_DEPTH``, it
    would not."""
    return (size.ops > FUSION_EMITTERS_MAX_OPS and size.elements <= FUSION_EMITTERS_MAX_ELEMENTS
            and size.depth > FUSION_EMITTERS_MAX_DEPTH)


def fusion_emitters_wanted(bytecode: bytes) -> bool:
    """Whether XLA:CPU should emit a module's fusions with its MLIR fusion
    emitters (its default), decided from the module's bytecode as it is (no cuts:
    ``runtime.compile_plan`` cuts chains too deep first, see ``fusion_cuts_wanted``).

    They are turned off (the elemental IR emitter compiles the fusions) only for
    a module of more than ``FUSION_EMITTERS_MAX_OPS`` ops whose values have at
    most ``FUSION_EMITTERS_MAX_ELEMENTS`` elements and whose fused chains are
    at most ``FUSION_EMITTERS_MAX_DEPTH`` deep (``ModuleSize``,
    ``module_size``, ``fusion_emitters_for``). Small modules compile exactly as XLA's defaults have
    them (and are not parsed when their bytecode is short enough to tell). ``$HLOGRAPH_XLA_FUSION_EMITTERS``
    (``FUSION_EMITTERS_ENV``) overrides the choice for every module.

    Raises:
        ValueError: the environment variable has a value other than auto, on,
            off, 1 or 0.
    """
    forced = fusion_emitters_setting()
    if forced is not None:
        return forced
    if small_for_fusion_policy(bytecode):
        return True
    return fusion_emitters_for(module_size(bytecode))


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


def serialize_executable(loaded) -> bytes:
    """The bytes of a compiled executable, for ``deserialize_executable``."""
    if hasattr(loaded, "serialize"):
        return loaded.serialize()
    return loaded.client.serialize_executable(loaded)


def deserialize_executable(client, payload: bytes, devices, options):
    """The loaded executable that ``serialize_executable`` turned into ``payload``,
    on ``devices`` (the devices it was compiled for). Raises on bytes it cannot read."""
    return client.deserialize_executable(payload, xc.DeviceList(tuple(devices)), options)


# --- introspection: what XLA made of a module ----------------------------------


def executable_hlo_text(loaded) -> str:
    """The optimized HLO of a compiled executable (after XLA's passes: fusions,
    layouts, the schedule), as XLA prints it; one module per program it runs."""
    return "\n".join(m.to_string() for m in loaded.hlo_modules())


def executable_cost_analysis(loaded) -> dict[str, float]:
    """XLA's cost estimates for a compiled executable (``flops``,
    ``transcendentals``, ``bytes accessed``, per-operand ``bytes accessed{i}{}``,
    ...), as ``jax.stages.Compiled.cost_analysis`` reports them.

    Raises:
        NotImplementedError: the platform's compiler does not provide them.
    """
    try:
        return dict(loaded.cost_analysis())
    except JaxRuntimeError as e:
        if str(e).startswith("UNIMPLEMENTED"):
            raise NotImplementedError(f"XLA offers no cost analysis on {loaded.client.platform}: {e}") from None
        raise


_MEMORY_FIELDS = (
    "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes",
    "generated_code_size_in_bytes", "host_argument_size_in_bytes", "host_output_size_in_bytes",
    "host_alias_size_in_bytes", "host_temp_size_in_bytes", "host_generated_code_size_in_bytes",
)


def executable_memory_analysis(loaded) -> dict[str, int]:
    """The sizes in bytes XLA reserves for a compiled executable: arguments,
    outputs, outputs aliasing arguments, temporaries and generated code (device
    and host memory), the fields of jaxlib's ``CompiledMemoryStats``.

    Raises:
        NotImplementedError: the platform's runtime does not report them.
    """
    try:
        stats = loaded.get_compiled_memory_stats()
    except JaxRuntimeError as e:
        if str(e).startswith("UNIMPLEMENTED"):
            raise NotImplementedError(f"XLA offers no memory analysis on {loaded.client.platform}: {e}") from None
        raise
    return {name: int(getattr(stats, name)) for name in _MEMORY_FIELDS if hasattr(stats, name)}


def module_cost_analysis(client, bytecode: bytes) -> dict[str, float]:
    """XLA's cost estimates for a StableHLO module before compiling it (the HLO
    as converted, before XLA's optimizations), as ``jax.stages.Lowered.cost_analysis``
    computes them.

    Raises:
        NotImplementedError: ``client`` is a PJRT C API plugin (GPU, TPU
            plugins), where only the compiled executable has estimates.
    """
    from jax._src import xla_bridge as _xb

    if _xb.using_pjrt_c_api(client):
        raise NotImplementedError(
            f"cost analysis before compiling is not available on {client.platform!r}; "
            "use .compile().cost_analysis()")
    computation = _jax.mlir.mlir_module_to_xla_computation(bytecode, use_tuple_args=False,
                                                            return_tuple=False)
    return dict(_jax.hlo_module_cost_analysis(client, computation.get_hlo_module()))


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


# --- Platforms, devices and array interop -------------------------------------

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


def resolve_platform(platform: str | None) -> str:
    """``platform`` with None resolved to jax's default backend ("cpu", "gpu", "tpu")."""
    return default_platform() if platform is None else platform


def platform_devices(platform: str | None) -> list:
    """Every device of ``platform``, of all processes (``jax.distributed``), by id."""
    return sorted(get_backend(platform).devices(), key=lambda d: d.id)
