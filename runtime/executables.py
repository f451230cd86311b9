"""PJRT clients, compiled executables and their in-memory cache."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from ..frontend.types import TensorType
from ..xla import ffi, log, mlir, pjrt
from ..xla.pjrt import DeviceArray
from . import devices
from .cache import StoredPlan, compile_cached, load_cached, load_plan, store_plan

__all__ = ["get_client", "compile_bytecode", "module_compile_options", "CompilePlan", "compile_plan", "plan_key",
           "Executable", "clear_cache", "cache_size"]

_lock = threading.RLock()
_CACHE_CAPACITY = 512
_cache: "OrderedDict[tuple, Any]" = OrderedDict()


def get_client(platform: str | None = "cpu"):
    """The PJRT client of ``platform`` (None: the best available)."""
    return devices.get_client(platform)


def compile_bytecode(bytecode: bytes, platform: str | None = "cpu", device=None,
                     fingerprint: bytes | None = None, dots=None):
    """Compiles a StableHLO module (bytecode) with PJRT for ``device`` (default:
    the platform's first device); returns (loaded executable, device).

    Cached in memory by ``fingerprint`` (``mlir.module_fingerprint``: the
    program without source locations; default: a hash of the bytecode),
    platform and device (LRU, bounded), then on disk across processes
    (``runtime.cache``: ``HLOGRAPH_CACHE_DIR``). ``dots``: the module's matrix
    products (``mlir.dot_shapes``) when the caller knows them (default: read
    from the bytecode, which parses it)."""
    client = get_client(platform)
    device = device if device is not None else client.local_devices()[0]
    program = hashlib.sha256(bytecode).digest() if fingerprint is None else fingerprint
    key = (program, client.platform, device.id)
    with _lock:
        exe = _cache.get(key)
        if exe is not None:
            _cache.move_to_end(key)
            log.CACHE.info("in-memory hit %s for %s", program.hex(), device)
            return exe, device
    log.CACHE.debug("in-memory miss %s for %s", program.hex(), device)
    exe = None
    # a module compile_plan would parse: what it decided in an earlier process gives
    # the executable's key without parsing the module again (runtime.cache, plans)
    stored_key = (plan_key(client, device, fingerprint)
                  if fingerprint is not None and client.platform == "cpu"
                  and not pjrt.small_for_fusion_policy(bytecode) else None)
    stored = load_plan(stored_key) if stored_key is not None else None
    if stored is not None:
        options = pjrt.compile_options(device, ynn_fusion=stored.ynn_fusion,
                                       fusion_emitters=stored.fusion_emitters)
        exe = load_cached(client, [device], options, _planned(fingerprint, stored.changed))
    if exe is None:
        plan = compile_plan(client, bytecode, device, dots)
        exe = compile_cached(client, plan.bytecode, [device], plan.options,
                             _planned(fingerprint, plan.changed))
        if stored_key is not None and plan.parsed:
            store_plan(stored_key, StoredPlan(plan.ynn_fusion, plan.fusion_emitters, plan.changed))
    with _lock:
        _cache[key] = exe
        while len(_cache) > _CACHE_CAPACITY:
            _cache.popitem(last=False)
    return exe, device


def _planned(fingerprint: bytes | None, changed: bool) -> bytes | None:
    """The executable key's program part for a module of ``fingerprint`` that
    ``compile_plan`` changed (or not): the changes are a function of the module."""
    if changed and fingerprint is not None:
        return hashlib.sha256(_PLAN_KEY + fingerprint).digest()
    return fingerprint


def plan_key(client, device, fingerprint: bytes) -> str:
    """The key of ``compile_plan``'s decisions for the module of ``fingerprint`` on
    ``device``: they depend on the module, the plan's thresholds, the runtime
    (jaxlib's custom-call targets) and ``$HLOGRAPH_XLA_FUSION_EMITTERS``."""
    h = hashlib.sha256(b"hlograph compile plan v1\0" + _PLAN_KEY)
    for part in (pjrt.runtime_fingerprint(client), f"{device.platform}|{device.device_kind}",
                 repr(pjrt.fusion_emitters_setting()), repr((pjrt.FUSION_EMITTERS_MAX_OPS,
                 pjrt.FUSION_EMITTERS_MAX_ELEMENTS, pjrt.FUSION_EMITTERS_MAX_DEPTH,
                 pjrt.YNN_FUSION_FEW_DOTS, pjrt.YNN_FUSION_MAX_WORK, pjrt.YNN_FUSION_MIN_CHAIN_WORK))):
        h.update(part.encode() + b"\0")
    h.update(fingerprint)
    return h.hexdigest()


#: what the on-disk key of an executable compiled from a module ``compile_plan``
#: changed adds to the module's fingerprint (the changes are a function of the
#: module and of this)
_PLAN_KEY = (f"hlograph-roll-loops{{min-ops={pjrt.LOOP_ROLL_MIN_OPS} body-ops={pjrt.LOOP_ROLL_BODY_OPS}}},"
             f"roll-dot-work={pjrt.LOOP_ROLL_DOT_WORK},"
             f"hlograph-cut-fusion{{max-depth={pjrt.FUSION_CUT_DEPTH}}},hlograph-round-compared-sums\0").encode()


class CompilePlan(NamedTuple):
    """What PJRT compiles for one module: ``bytecode`` (the module's own, or, when
    ``changed``, with runs of repeated ops rolled into ``loops`` loops and ``cuts``
    identity custom calls cutting deep chains or rounding the products of compared
    sums) and the compile ``options``."""

    bytecode: bytes
    options: Any
    loops: int = 0
    cuts: int = 0
    #: the two choices ``options`` were made with
    ynn_fusion: bool = True
    fusion_emitters: bool = True
    #: whether the module had to be parsed to decide (a warm process that finds the
    #: plan stored under ``plan_key`` then skips that)
    parsed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.loops or self.cuts)


def compile_plan(client, bytecode: bytes, device, dots=None) -> CompilePlan:
    """The bytecode and PJRT compile options for one module on ``device``.

    On XLA:CPU, whether dots go to YNNPACK fusions depends on the module's matrix
    products (``pjrt.ynn_fusion_wanted``), and whether its fusions go through
    XLA's MLIR fusion emitters on its size (``pjrt.fusion_emitters_for``). A
    module's runs of at least ``pjrt.LOOP_ROLL_MIN_OPS`` repeated ops are rolled
    into loops first (``passes.roll_loops``: XLA compiles a loop's body once),
    and a module the size policy would hand the elemental IR emitter but
    for chains too deep for it (``pjrt.fusion_cuts_wanted``) has them cut at
    ``pjrt.FUSION_CUT_DEPTH`` (``passes.cut_fusion``). Results keep every bit.
    A module that compares sums of products has those products rounded as NumPy
    rounds them (``passes.round_compared_sums``: XLA:CPU would contract them into
    fused multiply-adds). Other modules too short to hold ``LOOP_ROLL_MIN_OPS`` ops or
    more than ``FUSION_EMITTERS_MAX_OPS`` are not parsed; ``$HLOGRAPH_XLA_FUSION_EMITTERS``
    set to on or off decides the emitters for every module, which compiles as it is
    but for that rounding (a matter of results, not of speed).
    The choices are part of the options, so of the executable's cache key
    (``compile_bytecode`` marks a changed module's key too); they are a
    function of the program, so the in-memory key (the program's fingerprint)
    needs nothing more. ``dots``: the module's matrix products if known
    (default: read from ``bytecode``)."""
    if client.platform != "cpu":
        return CompilePlan(bytecode, pjrt.compile_options(device))
    forced = pjrt.fusion_emitters_setting()
    loops = cuts = 0
    parsed = False
    changeable = ffi.fusion_cut_available(client.platform)
    if forced is not None or (pjrt.small_for_fusion_policy(bytecode)
                              and not (changeable and pjrt.may_roll(bytecode))):
        emitters = True if forced is None else forced
        if dots is None:
            dots = mlir.bytecode_dot_shapes(bytecode)
        if _may_compare_sums(bytecode) and changeable:
            from ..passes.round_compared_sums import round_compared_sums

            parsed = True
            with mlir.make_context() as ctx:
                module = mlir.ir.Module.parse(bytes(bytecode), ctx)
                cuts = round_compared_sums(module)
                if cuts:
                    bytecode = mlir.module_to_bytecode(module)
    else:
        parsed = True
        with mlir.make_context() as ctx:
            module = mlir.ir.Module.parse(bytes(bytecode), ctx)
            if changeable:
                from ..passes.roll_loops import roll_loops

                with log.timed(log.COMPILE, "looked for runs of repeated ops (%d bytes)", len(bytecode)):
                    rolled = roll_loops(module, pjrt.LOOP_ROLL_MIN_OPS, pjrt.LOOP_ROLL_BODY_OPS)
                loops = len(rolled)
                if loops:
                    log.COMPILE.info("rolled %s into loops", ", ".join(
                        f"{r.repetitions} x {r.period} ops ({r.trips} x {r.per_iteration})" for r in rolled))
            if loops or dots is None:  # as XLA compiles them: a loop's body once
                dots = mlir.dot_shapes(module) if _may_have_dots(bytecode) else []
            size = pjrt.module_size(module)
            if loops:
                # the emitters are chosen for the ops the module runs, which its loops
                # hold once (the elemental IR emitter compiles a 10k-op chain on
                # float32[8], rolled, in half the time, and it runs as fast)
                size = size._replace(ops=size.ops + sum(
                    (r.trips - 1) * r.per_iteration * r.period for r in rolled))
            if changeable and _may_compare_sums(bytecode):
                from ..passes.round_compared_sums import round_compared_sums

                cuts = round_compared_sums(module)
                size = size._replace(ops=size.ops + cuts)
            if changeable and pjrt.fusion_cuts_wanted(size):
                from ..passes.cut_fusion import cut_fusion

                with log.timed(log.COMPILE, "cut the chains of %d ops deeper than %d", size.ops,
                               pjrt.FUSION_CUT_DEPTH):
                    result = cut_fusion(module, pjrt.FUSION_CUT_DEPTH)
                if result.cuts:
                    cuts += result.cuts
                    size = size._replace(ops=size.ops + result.cuts, depth=result.depth)
                    log.COMPILE.info("%d cuts: chains at most %d deep", cuts, size.depth)
            if loops or cuts:
                bytecode = mlir.module_to_bytecode(module)
            emitters = pjrt.fusion_emitters_for(size)
    ynn = pjrt.ynn_fusion_wanted(dots)
    options = pjrt.compile_options(device, ynn_fusion=ynn, fusion_emitters=emitters)
    return CompilePlan(bytecode, options, loops, cuts, ynn, emitters, parsed)


def _may_compare_sums(bytecode: bytes) -> bool:
    """Whether ``bytecode`` may compare a sum of products (its op names are strings in
    it): ``passes.round_compared_sums`` has work there."""
    data = bytes(bytecode)
    return b"compare" in data and (b"multiply" in data or b"dot" in data)


def _may_have_dots(bytecode: bytes) -> bool:
    data = bytes(bytecode)
    return b"dot" in data or b"convolution" in data


def module_compile_options(client, bytecode: bytes, device, dots=None):
    """The PJRT compile options for one module on ``device`` (``compile_plan``'s,
    for the bytecode it plans, which may be cut)."""
    return compile_plan(client, bytecode, device, dots).options


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def cache_size() -> int:
    return len(_cache)


class Executable:
    """A loaded PJRT executable with its argument and result types.

    ``run(args)`` is the Python path: it takes already-checked arguments (NumPy
    arrays or jax arrays) and returns the results as device arrays.
    ``fastpath_data`` describes the executable to jaxlib's C++ dispatcher, which
    then runs it without Python (see ``xla.pjrt.make_dispatcher``).
    """

    def __init__(self, loaded, device, in_types: Sequence[TensorType], out_types: Sequence[TensorType]):
        self.loaded = loaded
        self.device = device
        self.in_types = list(in_types)
        self.out_types = list(out_types)
        self._puts = [pjrt.device_putter(t.dtype, t.shape, device) for t in in_types]
        #: per input: the Python scalar type the C++ dispatcher transfers to exactly
        #: this dtype (with x64 enabled: bool, int -> int64, float -> float64,
        #: complex -> complex128), or None
        self._exact_scalar = [_EXACT_SCALARS.get(t.dtype) for t in in_types]
        self._fastpath: dict[tuple, Any] = {}

    def run(self, args: Sequence[Any]) -> list[Any]:
        device = self.device
        bufs = [a if type(a) is DeviceArray and _on_device(a, device) else put(np.asarray(a))
                for a, put in zip(args, self._puts)]
        try:
            return pjrt.execute(self.loaded, bufs)
        except pjrt.JaxRuntimeError as e:
            # as on the C++ dispatch path: a bad argument (e.g. reported by an in-module
            # host call) is a ValueError
            if str(e).startswith("INVALID_ARGUMENT"):
                raise ValueError(str(e)) from None
            raise

    def fastpath_data(self, args: Sequence[Any], single_output: bool,
                      convert_scalar: Callable[[int, Any], np.ndarray]):
        """What the C++ dispatcher needs to run calls with the signature of
        ``args`` (already checked) by itself, or None to keep them on the
        Python path.

        The dispatcher transfers NumPy arrays and scalars itself, passes jax
        arrays already on this device as they are, and transfers Python scalars
        to their 64-bit type: when that is not the input's dtype, it hands the
        scalar to ``convert_scalar(i, value)`` (a NumPy array of input ``i``'s
        type, or an error naming the argument), and the result is transferred
        here. Anything else (lists, arrays on other devices) stays on the
        Python path.
        """
        device = self.device
        plan = []
        for i, a in enumerate(args):
            if isinstance(a, (np.ndarray, np.generic)):
                plan.append(False)
            elif type(a) is DeviceArray:
                if pjrt.array_device(a) != device:
                    return None
                plan.append(False)
            elif isinstance(a, (bool, int, float, complex)):
                plan.append(_python_scalar_type(a) is not self._exact_scalar[i])
            else:
                return None
        key = (single_output, tuple(plan))
        data = self._fastpath.get(key)
        if data is None:
            conversions = [pjrt.HostConversion(self._scalar_put(i, convert_scalar)) if convert else None
                           for i, convert in enumerate(plan)]
            data = pjrt.fastpath_data(self.loaded, device, self.in_types, self.out_types,
                                      single_output, conversions)
            self._fastpath[key] = data
        return data

    def _scalar_put(self, i: int, convert_scalar: Callable[[int, Any], np.ndarray]):
        put = self._puts[i]

        def scalar_put(value):
            return put(convert_scalar(i, value))

        return scalar_put


def _python_scalar_type(value: Any) -> type:
    """The Python scalar type jaxlib's dispatcher sees ``value`` as (it looks up
    subclasses, such as IntEnum members, by their bases)."""
    for tp in (bool, int, float, complex):
        if isinstance(value, tp):
            return tp
    raise TypeError(f"not a Python scalar: {value!r}")


_EXACT_SCALARS = {
    np.dtype(np.bool_): bool,
    np.dtype(np.int64): int,
    np.dtype(np.float64): float,
    np.dtype(np.complex128): complex,
}


def _on_device(a: Any, device) -> bool:
    return pjrt.array_device(a) == device


def to_numpy(results: Sequence[Any]) -> list[np.ndarray]:
    return [np.asarray(r) for r in results]
