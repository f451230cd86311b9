"""Op families: one module per family, each defining its Op classes and the
NumPy-named builders listed in its ``__all__``. ``builders`` gathers every
family's builders (re-exported from ``hlograph``); the family modules keep
their names here (``ops.sort`` is the sort family, ``builders.sort`` the function)."""

import importlib as _importlib

#: family name -> module
FAMILIES = {
    name: _importlib.import_module(f"{__name__}.{name}")
    for name in ("basic", "elemwise", "special", "reduction", "shape", "construct", "indexing",
                 "linalg", "conv", "blockwise", "control", "dynamic", "sort", "assertion", "random",
                 "sharding", "arrange", "statistics", "mathx", "aliases", "linalg_namespace")
}

from . import builders  # noqa: E402

__all__ = ["FAMILIES", "builders"]
