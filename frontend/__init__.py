"""Graph frontend: types, the graph IR, the Op families (``ops``) and the NumPy compositions (``numpy``)."""

from .graph import Apply, Constant, Graph, GraphError, Op, Variable
from .types import DTYPES, TensorType, as_dtype

__all__ = ["Apply", "Constant", "Graph", "GraphError", "Op", "Variable", "DTYPES", "TensorType", "as_dtype"]
