"""hlograph: graphs of tensor Ops -> StableHLO -> PJRT (CPU, GPU, TPU).

    import hlograph as hg
    x = hg.tensor("x", (3, 4), "float32")
    g = hg.Graph([x], hg.cumsum(hg.exp(x), axis=0))
    print(hg.compile(g).lower().as_text())
"""

from .frontend.graph import Apply, Constant, Graph, GraphError, Op, Variable
from .frontend.types import TensorType
from .frontend.autodiff import (GradientError, NotDifferentiableError, UndefinedGradient,
                                custom_vjp, grad, hessian, jacobian, jvp, stop_gradient,
                                value_and_grad, vjp)
from .frontend.builders import *  # noqa: F401,F403
from .frontend.builders import __all__ as _ops_all
from .frontend.ops import random  # hg.random.key(seed), hg.random.uniform(key, shape), ...
from .frontend.numpy import linalg  # hg.linalg.inv, ... (numpy.linalg names)
from . import lowering
from .compiler import compile  # noqa: A004
from .compiler.reference import evaluate
from . import passes, runtime
from .runtime import host
from .runtime.mesh import Mesh, P, make_mesh

__version__ = "0.1.0"

__all__ = [
    "Apply", "Constant", "Graph", "GraphError", "Op", "Variable", "TensorType",
    "evaluate", "compile", "lowering", "passes", "runtime", "host", "random", "linalg",
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "stop_gradient", "custom_vjp",
    "GradientError", "NotDifferentiableError", "UndefinedGradient",
    "Mesh", "P", "make_mesh", *_ops_all,
]
