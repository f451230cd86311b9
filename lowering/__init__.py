"""Lowering graphs to StableHLO modules: the rule registry, the context rules
see, and ``lower_graph`` (graph -> module). Nothing here runs a module: that is
the runtime's job, and ``hlograph.compile`` (compiler/) drives both."""

from .context import LoweringContext, ModuleContext
from .registry import get_rule, has_rule, register, registered_ops
from . import rules  # noqa: F401  (registers every family's rules)
from .lower import CompileError, LoweringError, lower_graph

__all__ = [
    "register", "get_rule", "has_rule", "registered_ops", "LoweringContext", "ModuleContext",
    "lower_graph", "LoweringError", "CompileError",
]
