"""hlograph: graphs of tensor Ops -> StableHLO -> PJRT (CPU, GPU, TPU).

    import hlograph as hg
    x = hg.tensor("x", (3, 4), "float32")
    g = hg.Graph([x], hg.cumsum(hg.exp(x), axis=0))
    print(hg.compile(g).lower().as_text())
"""

from .frontend.graph import Apply, Constant, Graph, GraphError, Op, Variable
from .frontend.types import TensorType
from .frontend.evaluate import evaluate
from .frontend.ops.builders import *  # noqa: F401,F403
from .frontend.ops.builders import __all__ as _ops_all
from .frontend.ops import random  # hg.random.key(seed), hg.random.uniform(key, shape), ...
from .frontend.ops import linalg_namespace as linalg  # hg.linalg.inv, ... (numpy.linalg names)
from . import lowering
from .lowering import compile  # noqa: A004
from . import passes, runtime
from .runtime import host
from .runtime.sharding import Mesh, P, make_mesh

__version__ = "0.1.0"

__all__ = [
    "Apply", "Constant", "Graph", "GraphError", "Op", "Variable", "TensorType",
    "evaluate", "compile", "lowering", "passes", "runtime", "host", "random", "linalg",
    "Mesh", "P", "make_mesh", *_ops_all,
]
