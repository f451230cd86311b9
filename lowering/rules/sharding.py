"""Sharding constraints. Lowered for a mesh (inside ``mesh_scope``), a
``ShardingConstraint`` becomes ``sdy.sharding_constraint`` with the mesh inlined
(the sharded compile lifts it into ``sdy.mesh @mesh``); otherwise it lowers to
its operand."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

from ...frontend.ops.sharding import ShardingConstraint
from ..context import LoweringContext
from ...xla.mlir import ir
from ...xla.sdy import sdy_sharding, sharding_constraint
from ..registry import register

__all__ = ["mesh_scope", "current_mesh"]

_MESH: contextvars.ContextVar[Any] = contextvars.ContextVar("hlograph_mesh", default=None)


@contextlib.contextmanager
def mesh_scope(mesh: Any) -> Iterator[None]:
    """Lowers the graphs of this block for ``mesh`` (a ``runtime.sharding.Mesh``)."""
    token = _MESH.set(mesh)
    try:
        yield
    finally:
        _MESH.reset(token)


def current_mesh() -> Any:
    """The mesh being lowered for, or None."""
    return _MESH.get()


@register(ShardingConstraint)
def lower_sharding_constraint(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    mesh = _MESH.get()
    if mesh is None:
        return [x]
    spec = mesh.check_spec(ctx.op.spec, "with_sharding")
    return [sharding_constraint(x, sdy_sharding(mesh.axes, spec))]
