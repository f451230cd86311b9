"""Sharding constraints. Lowered for a mesh (``ModuleContext.mesh``), a
``ShardingConstraint`` becomes ``sdy.sharding_constraint`` with the mesh inlined
(the sharded compile lifts it into ``sdy.mesh @mesh``); otherwise it lowers to
its operand."""

from __future__ import annotations

from ...frontend.ops.sharding import ShardingConstraint
from ..context import LoweringContext
from ...xla.mlir import ir
from ...xla.sdy import sdy_sharding, sharding_constraint
from ..registry import register


@register(ShardingConstraint)
def lower_sharding_constraint(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    mesh = ctx.module.mesh
    if mesh is None:
        return [x]
    spec = mesh.check_spec(ctx.op.spec, "with_sharding")
    return [sharding_constraint(x, sdy_sharding(mesh.axes, spec))]
