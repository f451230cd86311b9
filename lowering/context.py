"""What a lowering rule sees: the node being lowered and the module being built."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
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


class LoweringContext(tuple):
    """Passed to every rule: ``rule(ctx, *operands) -> list[ir.Value]``.

    Result types come from ``ctx.out_types`` (the frontend owns shape
    inference); parameters come from ``ctx.op``.

    Immutable: the pair (``module``, ``node``), a tuple underneath (one is built
    per node lowered, so building it costs no more than a tuple).
    """

    __slots__ = ()

    def __new__(cls, module: ModuleContext, node: Apply):
        return tuple.__new__(cls, (module, node))

    module: ModuleContext = property(itemgetter(0), doc="The module being built.")  # type: ignore[assignment]
    node: Apply = property(itemgetter(1), doc="The node being lowered.")  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LoweringContext(module={self[0]!r}, node={self[1]!r})"

    @property
    def op(self) -> Op:
        return self[1].op

    @property
    def in_types(self) -> list[TensorType]:
        inputs = self[1].inputs
        if len(inputs) == 1:  # (rules ask often: one input without a comprehension's frame)
            return [inputs[0].type]
        return [v.type for v in inputs]

    @property
    def out_types(self) -> list[TensorType]:
        outputs = self[1].outputs
        if len(outputs) == 1:
            return [outputs[0].type]
        return [v.type for v in outputs]

    @property
    def out_type(self) -> TensorType:
        (v,) = self[1].outputs
        return v.type

    def broadcast_operands(self, operands) -> list[ir.Value]:
        """``operands`` (one per input) broadcast NumPy-style to the (single) output's shape."""
        node = self[1]
        (out,) = node.outputs
        shape = out.type.shape
        inputs = node.inputs
        if len(operands) == len(inputs):
            for v in inputs:
                if v.type.shape != shape:
                    break
            else:
                return list(operands)  # (the common case: nothing to broadcast)
        return [broadcast_to(x, v.type, shape) for x, v in zip(operands, inputs)]

    def ir_out_types(self) -> list[ir.RankedTensorType]:
        ir_type = self[0].ir_type
        return [ir_type(v.type) for v in self[1].outputs]
