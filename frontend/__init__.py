"""Graph frontend: types, the graph IR and the op families."""

from .graph import Apply, Constant, Graph, GraphError, Op, Variable
from .types import DTYPES, TensorType, as_dtype

__all__ = ["Apply", "Constant", "Graph", "GraphError", "Op", "Variable", "DTYPES", "TensorType", "as_dtype"]
