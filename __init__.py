"""hlograph: graphs of tensor Ops -> StableHLO -> PJRT (CPU, GPU, TPU).

    import hlograph as hg
    x = hg.tensor("x", (3, 4), "float32")
    g = hg.Graph([x], hg.cumsum(hg.exp(x), axis=0))
    print(hg.compile(g).lower().as_text())
"""

from .frontend.graph import Apply, Constant, Graph, GraphError, Op, Variable
from .frontend.types import TensorType
from .frontend.pytree import register_dataclass, register_pytree_node
from .frontend.autodiff import (GradientError, NotDifferentiableError, UndefinedGradient,
                                custom_vjp, grad, hessian, jacobian, jvp, stop_gradient,
                                value_and_grad, vjp)
from .frontend.vectorize import vectorize_graph, vmap
from .frontend.builders import *  # noqa: F401,F403
from .frontend.builders import __all__ as _ops_all
from .frontend.ops import random  # hg.random.key(seed), hg.random.uniform(key, shape), ...
from .frontend.numpy import linalg  # hg.linalg.inv, ... (numpy.linalg names)
from .frontend.numpy import fft  # hg.fft.fft, hg.fft.rfftn, ... (numpy.fft names)
from . import lowering
from .compiler import compile  # noqa: A004
from .compiler.reference import evaluate
from .compiler.picture import to_dot  # hg.to_dot(graph or function): Graphviz DOT source
from .compiler.trace import function  # hg.function: a NumPy function compiled per signature
from .frontend.numpy.trace import trace_numpy
from .compiler.artifact import load
from .compiler.symbolic import SymbolicShapeError
from .frontend.symbolic import SymDim, SymbolicDimError
from . import passes, runtime
from .runtime import host
from .runtime.mesh import Mesh, P, make_mesh

__version__ = "0.1.0"

# the objects of the libraries imported so far stay out of the collector's full passes
# (graph building's share; HLOGRAPH_GC_FREEZE=off keeps Python's default)
from .compiler.collector import freeze_imported as _freeze_imported  # noqa: E402
_freeze_imported()

#: jax's bridge, both ways: names of hlograph.interop.jax imported on first use, so
#: ``import hlograph`` does not import the interop package
_JAX_BRIDGE = ("from_jax", "jax_op", "to_jax")


def __getattr__(name: str):
    if name in _JAX_BRIDGE:
        from .interop import jax as _jax_interop
        return getattr(_jax_interop, name)
    raise AttributeError(f"module 'hlograph' has no attribute {name!r}")

__all__ = [
    "Apply", "Constant", "Graph", "GraphError", "Op", "Variable", "TensorType",
    "register_dataclass", "register_pytree_node",
    "evaluate", "compile", "function", "trace_numpy", "load", "lowering", "passes", "runtime", "host", "random", "linalg", "fft",
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "stop_gradient", "custom_vjp",
    "vmap", "vectorize_graph",
    "GradientError", "NotDifferentiableError", "UndefinedGradient",
    "SymDim", "SymbolicDimError", "SymbolicShapeError",
    "Mesh", "P", "make_mesh", "to_dot", *_ops_all,
]
