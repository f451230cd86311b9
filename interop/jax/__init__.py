"""jax as a frontend of hlograph: ``from_jax(f, *specs)`` traces a jax function to a
jaxpr and interprets it into an hlograph Graph (see docs/jax_interop.md).

- ``from_jax`` / ``explain_import``: the Graph of a function and the report of its
  translation (which primitives jax computes through the fallback);
- ``jit(f)``: ``from_jax`` + ``hlograph.compile``, called with pytrees;
- ``register``: the rule registry (``@register("exp")``), ``Unsupported`` for the
  params a rule declines; ``JaxPrimitiveOp``: the fallback's Op;
- ``jax_op(f)``: a jax function as an Op inside an hlograph graph (``JaxOp``);
- ``to_jax(graph)``: an hlograph graph as a jax function (jit, vmap, grad, jvp and
  their compositions).
"""

from . import rules  # registers the rules
from .api import jit
from .fallback import JaxPrimitiveOp
from .interpreter import (DROPPED, ImportedGraph, ImportReport, JaxTraceError, RuleError, eval_jaxpr,
                          explain_import, fallback, from_jax)
from .jax_op import JaxOp, JaxOpError, jax_op
from .registry import Unsupported, lookup, register, registered
from .to_jax import ToJaxError, to_jax

__all__ = ["from_jax", "explain_import", "jit", "eval_jaxpr", "fallback", "register", "lookup",
           "registered", "Unsupported", "JaxPrimitiveOp", "ImportedGraph", "ImportReport",
           "JaxTraceError", "RuleError", "DROPPED", "rules", "jax_op", "JaxOp", "JaxOpError",
           "to_jax", "ToJaxError"]
