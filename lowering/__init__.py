"""Lowering graphs to StableHLO: the rule registry, the context rules see, and
the compile API (Function / Lowered / Compiled)."""

from ..xla import mlir  # noqa: F401  (first: the one module importing jax's MLIR)
from .context import LoweringContext, ModuleContext
from .registry import get_rule, has_rule, register, registered_ops
from . import rules  # noqa: F401  (registers every family's rules)
from .api import Compiled, Function, Lowered, compile
from .lower import CompileError, LoweringError, lower_graph

__all__ = [
    "register", "get_rule", "has_rule", "registered_ops", "LoweringContext", "ModuleContext",
    "Function", "Lowered", "Compiled", "compile", "lower_graph", "LoweringError", "CompileError",
]
