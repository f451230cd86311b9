"""Op families: one module per family, each defining its Op classes and the
NumPy-named builders that construct them, listed in its ``__all__``; ``basic``
holds the helpers they share (graph inputs, constants, dtype promotion, axes).
``frontend.builders`` gathers every family's builders with those of
``frontend.numpy`` (re-exported from ``hlograph``); the family modules keep
their names here (``ops.sort`` is the sort family, ``builders.sort`` the function)."""

import importlib as _importlib

#: family name -> module
FAMILIES = {
    name: _importlib.import_module(f"{__name__}.{name}")
    for name in ("elemwise", "special", "reduction", "shape", "construct", "indexing", "linalg", "conv",
                 "blockwise", "control", "dynamic", "sort", "assertion", "random", "sharding",
                 "fft", "autodiff", "bitcast")
}

__all__ = ["FAMILIES"]
