"""Pass pipelines over StableHLO modules.

``run(module_or_text, pipeline)`` runs a textual MLIR pipeline that mixes
upstream passes (canonicalize, cse, symbol-dce, ...) and hlograph passes in one
PassManager; ``PIPELINES`` holds the named ones (O0, O1, O2). New passes are
frozen dataclasses subclassing ``ModulePass`` and decorated with ``register``.
"""

from .pipeline import PIPELINES, check_pipeline, run
from .registry import ModulePass, PassError, get_pass, pass_names, register

__all__ = [
    "run", "check_pipeline", "PIPELINES", "ModulePass", "PassError", "register",
    "get_pass", "pass_names",
]
