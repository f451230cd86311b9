"""The driver: ``compile(graph) -> Function``, ``Function.lower() -> Lowered``,
``Lowered.compile() -> Compiled``; planning (one placement policy decides where
each node runs), partitioning into device and host segments, and SPMD
compilation over a mesh."""

from .api import Compiled, Function, Lowered, compile
from .placement import Placement, placement

__all__ = ["compile", "Function", "Lowered", "Compiled", "Placement", "placement"]
