"""Running pass pipelines on a module with MLIR's PassManager."""

from __future__ import annotations

from ..lowering.mlir import ir, passmanager

__all__ = ["run", "PIPELINES"]

#: Named pipelines, in MLIR's textual pipeline syntax (top-level items of builtin.module).
PIPELINES = {
    "O0": "",
    "O1": "canonicalize,cse",
    "O2": "canonicalize,cse",
}


def expand(pipeline: str) -> str:
    return PIPELINES.get(pipeline, pipeline)


def run(module: ir.Module, pipeline: str = "O2") -> ir.Module:
    """Runs ``pipeline`` (a name from PIPELINES or a textual pipeline) on ``module`` in place."""
    text = expand(pipeline)
    with module.context:
        if text:
            pm = passmanager.PassManager.parse(f"builtin.module({text})")
            pm.run(module.operation)
        elif not module.operation.verify():
            raise ValueError("the module does not verify")
    return module


def check_pipeline(pipeline: str) -> None:
    """Raises ValueError for a pipeline MLIR cannot parse (before anything is lowered)."""
    text = expand(pipeline)
    if not text:
        return
    from ..lowering.mlir import make_context
    with make_context():
        try:
            passmanager.PassManager.parse(f"builtin.module({text})")
        except ValueError as e:
            raise ValueError(f"invalid pass pipeline {pipeline!r}: {e}") from None
