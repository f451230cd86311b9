"""The NumPy namespace beyond the Op families: builders under NumPy's names and
signatures that compose the families' Ops and define none, one module per group
of NumPy's documentation (array creation, manipulation, indexing routines,
mathematical functions, logic, sets, sorting, statistics, products, and the
``numpy.linalg`` namespace, which is ``hlograph.linalg``). The ``numpy.fft``
namespace, ``hlograph.fft``, is the module ``fft``: its names are not part of
``hlograph.<name>``, so it is not in ``MODULES``."""

from . import creation, indexing, linalg, logic, manipulation, math, products, sets, sorting, statistics
from . import fft

#: module name -> module
MODULES = {
    "creation": creation, "manipulation": manipulation, "indexing": indexing, "math": math,
    "logic": logic, "sets": sets, "sorting": sorting, "statistics": statistics, "products": products,
    "linalg": linalg,
}

__all__ = ["MODULES"]
