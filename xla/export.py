"""Programs made elsewhere, at the jax boundary: jax.export's serialized
``Exported`` (read with ``jax.export.deserialize``), shape refinement of
modules whose inputs have symbolic dimensions, and the custom-call targets
jaxlib registers only when jax itself lowers a program (LAPACK on the CPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from jax._src.interpreters import mlir as _jax_mlir
from jax._src.lib import _jax

from .mlir import element_dtype, hlo, ir, passmanager

__all__ = ["ExportedProgram", "looks_like_exported", "deserialize_exported", "refine_arguments",
           "fold_argument", "custom_call_targets", "prepare_custom_call_targets"]

_BYTECODE_MAGIC = b"ML\xefR"


@dataclass(frozen=True)
class ExportedProgram:
    """What hlograph needs of a jax ``Exported``: its module as MLIR bytecode, the
    (dtype, shape) of every input and output (a symbolic dimension is its name,
    e.g. ``"b"``), and the calling convention of the module's ``@main``."""

    fun_name: str
    module: bytes
    in_types: tuple[tuple[np.dtype, tuple[int | str, ...]], ...]
    out_types: tuple[tuple[np.dtype, tuple[int | str, ...]], ...]
    platforms: tuple[str, ...]
    #: the inputs ``@main`` takes (jax drops the unused ones)
    kept_var_idx: tuple[int, ...]
    nr_devices: int
    has_effects: bool
    calling_convention_version: int
    #: ``@main`` takes the platform index first (several platforms)
    platform_index_arg: bool
    #: the function returns one array (not a tuple or another container)
    single_output: bool


def looks_like_exported(data: bytes) -> bool:
    """True for bytes that may be a serialized ``Exported`` (a flatbuffer holding
    MLIR bytecode, not MLIR bytecode itself)."""
    return not bytes(data[:4]) == _BYTECODE_MAGIC and _BYTECODE_MAGIC in bytes(data)


def _dims(shape) -> tuple[int | str, ...]:
    return tuple(int(d) if isinstance(d, (int, np.integer)) else str(d) for d in shape)


def deserialize_exported(data: bytes) -> ExportedProgram:
    """Reads ``jax.export.export(...)(...).serialize()`` bytes.

    Raises:
        ValueError: the bytes are not a serialized ``Exported`` this jax reads
            (its message says why, e.g. a newer serialization version).
    """
    import jax
    from jax import export

    try:
        exp = export.deserialize(bytearray(data))
    except ImportError as e:
        raise ImportError(f"reading a jax.export artifact needs jax's serialization support: {e}") from None
    except Exception as e:
        raise ValueError(f"not a jax.export artifact this jax version reads: {type(e).__name__}: {e}") from None
    module = exp.mlir_module_serialized
    return ExportedProgram(
        fun_name=exp.fun_name,
        module=bytes(module),
        in_types=tuple((np.dtype(a.dtype), _dims(a.shape)) for a in exp.in_avals),
        out_types=tuple((np.dtype(a.dtype), _dims(a.shape)) for a in exp.out_avals),
        platforms=tuple(exp.platforms),
        kept_var_idx=tuple(exp.module_kept_var_idx),
        nr_devices=int(exp.nr_devices),
        has_effects=bool(exp.ordered_effects or exp.unordered_effects),
        calling_convention_version=int(exp.calling_convention_version),
        platform_index_arg=len(exp.platforms) > 1,
        single_output=jax.tree_util.treedef_is_leaf(exp.out_tree),
    )


def fold_argument(module: ir.Module, index: int, value: int) -> None:
    """Replaces the uses of ``@main``'s argument ``index`` (a 0-d integer, such as the
    platform index of a multi-platform jax.export module) by the constant
    ``value``, so that refinement folds the branches of the other platforms
    away. The argument stays (unused) in the signature."""
    main = _main(module)
    block = main.regions[0].blocks[0]
    arg = block.arguments[index]
    with module.context, ir.Location.unknown():
        dtype = element_dtype(ir.RankedTensorType(arg.type).element_type)
        with ir.InsertionPoint.at_block_begin(block):
            const = hlo.ConstantOp(ir.DenseElementsAttr.get(np.asarray(value, dtype)))
        arg.replace_all_uses_with(const.result)


def _main(module: ir.Module):
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise ValueError("the module has no @main function")


def refine_arguments(module: ir.Module, arg_types: Sequence[str]) -> ir.Module:
    """A new module: ``module`` with ``@main``'s arguments given the static types
    ``arg_types`` (MLIR spellings such as ``tensor<5x4xf32>``) and every dynamic
    shape inside refined from them (StableHLO's ``stablehlo-refine-arguments``,
    then jax's refinement, which also checks and drops jax.export's
    ``shape_assertion`` calls).

    Raises:
        ValueError: the types do not fit the module's symbolic shapes (the
            module's own assertion message, when it has one).
    """
    hlo.register_stablehlo_passes()  # idempotent
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True, binary=True))
        types = ",".join(arg_types)
        pm = passmanager.PassManager.parse(f"builtin.module(stablehlo-refine-arguments{{types='{types}'}})")
        try:
            pm.run(copy.operation)
        except ir.MLIRError as e:
            raise ValueError(f"cannot give @main the argument types ({types}): {e}") from None
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            _jax_mlir.module_to_bytecode(copy), enable_shape_assertions=True,
            validate_static_shapes=True, enable_shardy=False)
    except Exception as e:
        raise ValueError(f"the argument shapes do not fit the program's symbolic shapes: {e}") from None
    with module.context:
        return ir.Module.parse(refined)


def refine_to_static(module: ir.Module, arg_types: Sequence[str]) -> ir.Module:
    """A copy of ``module`` (in its context) specialized to the static argument types
    ``arg_types``: StableHLO's ``stablehlo-refine-arguments``, ``-refine-shapes`` and
    ``-canonicalize-dynamism`` in one pipeline. For modules hlograph lowered with
    symbolic dims (no shape assertions: ``refine_arguments`` handles jax.export's).

    Raises:
        ValueError: the types do not fit the module (MLIR's diagnostic).
    """
    hlo.register_stablehlo_passes()  # idempotent
    with module.context:
        copy = module.operation.clone()
        types = ",".join(arg_types)
        pm = passmanager.PassManager.parse(
            f"builtin.module(stablehlo-refine-arguments{{types='{types}'}},stablehlo-refine-shapes,"
            "func.func(stablehlo-canonicalize-dynamism))")
        try:
            pm.run(copy)
            copy.verify()
        except ir.MLIRError as e:
            raise ValueError(f"the module does not refine to the argument types ({types}): {e}") from None
        # (a clone is a ModuleOp; the rest of the pipeline takes an ir.Module)
        return ir.Module.parse(copy.get_asm(binary=True, enable_debug_info=True))


def custom_call_targets(module: ir.Module) -> list[str]:
    """The ``call_target_name`` of every ``stablehlo.custom_call`` in ``module``,
    in order of first appearance."""
    names: dict[str, None] = {}

    def visit(op):
        if op.operation.name == "stablehlo.custom_call":
            names[ir.StringAttr(op.attributes["call_target_name"]).value] = None
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return list(names)


_lapack_ready = False


def prepare_custom_call_targets(names: Sequence[str], platform: str) -> None:
    """Makes the jaxlib custom-call targets among ``names`` runnable in this process.

    jaxlib registers its LAPACK targets (``lapack_dpotrf_ffi``, ...) when jax is
    imported but binds them to SciPy's LAPACK only when jax lowers a linear
    algebra op; a module compiled without that (a loaded file) would call a null
    function. This binds them first, and the GPU solver's hybrid kernels likewise.
    """
    global _lapack_ready
    if platform == "cpu" and not _lapack_ready and any(n.startswith("lapack_") for n in names):
        from jax._src.lax import linalg  # registers jaxlib's targets on import

        linalg.initialize_lapack()
        _lapack_ready = True
    if platform != "cpu" and any("hybrid" in n for n in names):
        from jax._src.lib import gpu_solver

        if gpu_solver is not None:
            gpu_solver.initialize_hybrid_kernels()
