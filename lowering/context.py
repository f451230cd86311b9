"""What a lowering rule sees: the node being lowered and the module being built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..frontend.graph import Apply, Op
from ..frontend.types import TensorType
from .emit import broadcast_to
from ..xla.mlir import ir, tensor_type

__all__ = ["ModuleContext", "LoweringContext", "HostCalls"]


class HostCalls(Protocol):
    """What lowering needs from a host backend to call host code from inside a
    device module (``stablehlo.custom_call`` to an XLA FFI target). The runtime
    provides one (runtime/host/calls.py); the compiler hands it to ``lower_graph``.
    Lowering only asks for target names: it never compiles or runs host code."""

    def can_call(self, op: Op) -> bool:
        """Whether ``op`` (no device lowering) can run as an in-module host call."""

    def target(self, node: Apply) -> str:
        """The name of the registered FFI target running ``node`` (compiled on first use)."""

    def cumulative(self, kind: str, dtype: np.dtype) -> str | None:
        """The FFI target of a running reduction loop (kind "add", "mul", "max", "min")
        over ``dtype``, or None where there is none."""


@dataclass
class ModuleContext:
    """State shared by all rules while one module is built."""

    context: ir.Context
    module: ir.Module
    symbol_table: ir.SymbolTable
    #: the platform the module is lowered for ("cpu", "gpu", "tpu"; None: jax's default)
    platform: str | None = None
    #: the mesh the module is lowered for (``runtime.mesh.Mesh``), or None for one device
    mesh: Any = None
    #: host code callable from the module (in-module host calls), or None
    host_calls: HostCalls | None = None
    #: free for rules that emit helper functions: name -> func.FuncOp
    functions: dict[str, Any] = field(default_factory=dict)
    #: source (file, line) -> ir.Location, shared by the nodes built on one line
    file_locations: dict[tuple[str, int], ir.Location] = field(default_factory=dict)
    #: free for rules that keep per-module tallies (e.g. fast_math's budget)
    counters: dict[str, int] = field(default_factory=dict)
    _ir_types: dict[TensorType, ir.RankedTensorType] = field(default_factory=dict)

    def ir_type(self, t: TensorType) -> ir.RankedTensorType:
        """The MLIR tensor type of ``t`` (cached per module)."""
        it = self._ir_types.get(t)
        if it is None:
            it = self._ir_types[t] = tensor_type(t)
        return it

    def unique_symbol(self, base: str) -> str:
        name, i = base, 0
        while name in self.functions:
            i += 1
            name = f"{base}_{i}"
        self.functions[name] = None
        return name


@dataclass(frozen=True, slots=True)
class LoweringContext:
    """Passed to every rule: ``rule(ctx, *operands) -> list[ir.Value]``.

    Result types come from ``ctx.out_types`` (the frontend owns shape
    inference); parameters come from ``ctx.op``.
    """

    module: ModuleContext
    node: Apply

    @property
    def op(self) -> Op:
        return self.node.op

    @property
    def in_types(self) -> list[TensorType]:
        return [v.type for v in self.node.inputs]

    @property
    def out_types(self) -> list[TensorType]:
        return [v.type for v in self.node.outputs]

    @property
    def out_type(self) -> TensorType:
        (t,) = self.out_types
        return t

    def broadcast_operands(self, operands) -> list[ir.Value]:
        """``operands`` (one per input) broadcast NumPy-style to the (single) output's shape."""
        shape = self.out_type.shape
        inputs = self.node.inputs
        if len(operands) == len(inputs) and all(v.type.shape == shape for v in inputs):
            return list(operands)  # (the common case: nothing to broadcast)
        return [broadcast_to(x, v.type, shape) for x, v in zip(operands, inputs)]

    def ir_out_types(self) -> list[ir.RankedTensorType]:
        return [self.module.ir_type(v.type) for v in self.node.outputs]
