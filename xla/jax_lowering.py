"""Borrowing jax's own lowering (lowering/bridge.py): where StableHLO has no op
(LAPACK-backed decompositions, some special functions), hlograph lowers a
jax.numpy / jax.scipy function with jax and merges the result into its module."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsp_linalg
# LAPACK's Householder QR (geqrf) and its column-pivoted form (geqp3, 1-based pivots):
# jax's primitives, which jax.lax.linalg does not re-export
from jax._src.lax.linalg import geqp3, geqrf
from jax.interpreters import mlir as _jax_mlir

from .pjrt import set_x64_local, swap_x64_local

__all__ = ["geqp3", "geqrf", "jnp", "jsp_linalg", "lax", "merge_mlir_modules", "jax_stablehlo_text"]

#: ``merge_mlir_modules(dst, sym_name, src)``: moves ``src``'s functions into ``dst``
#: (renamed apart, private) and returns the new name of ``src``'s ``@main``
merge_mlir_modules = _jax_mlir.merge_mlir_modules


def jax_stablehlo_text(fn, arg_types, platform: str | None = None) -> str:
    """The StableHLO module (text) that ``jax.jit(fn)`` lowers to for arguments of
    ``arg_types`` (TensorTypes) on ``platform`` (None: jax's default backend), with
    64-bit types enabled for this thread only. Arguments ``fn`` does not use stay
    arguments of ``@main`` (``keep_unused``), so a call passes every operand."""
    specs = [jax.ShapeDtypeStruct(tuple(t.shape), t.dtype) for t in arg_types]
    platforms = None if platform is None else (platform,)
    prev = swap_x64_local(True)
    try:
        lowered = jax.jit(fn, keep_unused=True).trace(*specs).lower(lowering_platforms=platforms)
    finally:
        set_x64_local(prev)
    # the full text (no elided constants), without jax's source locations
    return lowered.compiler_ir("stablehlo").operation.get_asm(large_elements_limit=None)


lax = jax.lax
