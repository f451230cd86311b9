"""The bridge to jax's own lowering, for computations StableHLO has no op for.

LAPACK-backed decompositions (cholesky, qr, svd, eigh, lu, ...) are custom
calls whose operand layouts, workspace and status conventions belong to jaxlib;
rather than re-deriving them, a rule lowers a ``jax.numpy``/``jax.scipy``
function with jax and calls the result:

    @register(Cholesky)
    def lower_cholesky(ctx, a):
        return lower_with_jax(ctx, lambda a: jnp.linalg.cholesky(a), a)

``lower_with_jax`` runs ``jax.jit(fn).lower`` on the operand types (64-bit types
enabled for the current thread only, so float64 stays float64), parses jax's
module into the module being built, merges its functions as private functions
(``merge_mlir_modules`` renames them apart) and emits one ``func.call``. A
function merged once is reused by later nodes with the same key and operand
types, and jax's text is cached per key across modules.

The lowering targets jax's default backend: the custom calls in the merged
functions are the ones jaxlib registers for that platform (LAPACK on CPU).
This is the only module that runs jax on behalf of a rule; it imports jax
through ``xla/jax_lowering.py`` (the xla package is the only importer of jax).
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence

from ..frontend.types import TensorType
from .context import LoweringContext
from ..xla.jax_lowering import jax_stablehlo_text, merge_mlir_modules
from ..xla.mlir import func, ir

__all__ = ["lower_with_jax"]

#: (key, operand types) -> jax's StableHLO text
_TEXT_CACHE: dict[tuple[Hashable, tuple[TensorType, ...]], str] = {}


def _symbol_names(module: ir.Module) -> set[str]:
    return {ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
            if "sym_name" in op.attributes}


def _merged_function(ctx: LoweringContext, fn: Callable, key: Hashable,
                     in_types: tuple[TensorType, ...]) -> func.FuncOp:
    mctx = ctx.module
    # merged functions are remembered in ``mctx.functions`` under a tuple key,
    # which never collides with a symbol name (a str)
    slot = ("jax-bridge", key, in_types)
    found = mctx.functions.get(slot)
    if found is not None:
        return found
    text_key = (key, in_types, mctx.platform)
    text = _TEXT_CACHE.get(text_key)
    if text is None:
        text = _TEXT_CACHE[text_key] = jax_stablehlo_text(fn, in_types, mctx.platform)
    src = ir.Module.parse(text, context=mctx.context)
    before = _symbol_names(mctx.module)
    base = "jax_" + type(ctx.op).__name__.lower()
    # a fresh symbol table: it sees every function the module holds by now, also
    # those other rules built in place after ``mctx.symbol_table`` was made
    name = merge_mlir_modules(mctx.module, base, src, ir.SymbolTable(mctx.module.operation))
    main = None
    for op in mctx.module.body.operations:
        if "sym_name" not in op.attributes:
            continue
        sym = ir.StringAttr(op.attributes["sym_name"]).value
        if sym in before:
            continue
        mctx.functions.setdefault(sym, op)
        if sym == name:
            main = op
    if main is None:  # pragma: no cover - merge_mlir_modules always moves @main
        raise RuntimeError(f"merging jax's lowering of {ctx.op} lost its main function")
    # jax annotates its entry point for its own runtime; a private helper needs none of it
    for attr in ("arg_attrs", "res_attrs"):
        if attr in main.attributes:
            del main.attributes[attr]
    mctx.functions[slot] = main
    return main


def lower_with_jax(ctx: LoweringContext, fn: Callable[..., Any], *operands: ir.Value,
                   in_types: Sequence[TensorType] | None = None,
                   key: Hashable | None = None) -> list[ir.Value]:
    """Emits a call of jax's lowering of ``fn`` applied to ``operands``.

    Args:
        ctx: the rule's context; the call is emitted at the current insertion point.
        fn: a function of jax arrays returning an array or a tuple/list of arrays
            (``jnp.linalg.qr``, a lambda over ``jax.scipy.linalg`` ...). It must be
            fully determined by ``key``.
        operands: the MLIR values passed to ``fn``.
        in_types: the TensorTypes of ``operands`` (default: the node's input types).
        key: what identifies ``fn`` for reuse and caching (default: ``ctx.op``, whose
            props then determine ``fn``).

    Returns:
        The results of ``fn`` as MLIR values, in order; their types are jax's
        (the caller checks or converts them against ``ctx.out_types``).
    """
    in_types = tuple(ctx.in_types if in_types is None else in_types)
    if len(in_types) != len(operands):
        raise ValueError(f"lower_with_jax: {len(operands)} operands but {len(in_types)} types")
    key = ctx.op if key is None else key
    callee = _merged_function(ctx, fn, key, in_types)
    ftype = ir.FunctionType(ir.TypeAttr(callee.attributes["function_type"]).value)
    call = func.CallOp(list(ftype.results), ir.FlatSymbolRefAttr.get(
        ir.StringAttr(callee.attributes["sym_name"]).value), list(operands))
    return list(call.results)
