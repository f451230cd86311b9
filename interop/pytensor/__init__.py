"""PyTensor graphs compiled by hlograph.

    import pytensor, pytensor.tensor as pt
    import hlograph.interop.pytensor as hgpt     # registers the "HLOGRAPH" mode

    x = pt.vector("x")
    f = pytensor.function([x], pt.exp(x).sum(), mode="HLOGRAPH")
    f([1.0, 2.0])
    print(hgpt.explain(f))                       # what runs where

- ``from_fgraph(fgraph)`` / ``from_pytensor(inputs, outputs)``: the hlograph Graph
  of a PyTensor graph (``hlograph.compile`` compiles it).
- ``mode(platform=None, pipeline="O2", executor="auto", rng="auto")``: a PyTensor Mode
  compiling with hlograph (``"HLOGRAPH"`` is ``mode()``); ``HlographLinker`` is its
  linker. ``executor="auto"`` runs small CPU graphs on hlograph's host executor
  (``hlograph.runtime.vm``), ``"xla"`` everything through XLA.
- ``hlograph_convert``: the converter registry (``@hlograph_convert.register(OpClass)``),
  one module per PyTensor Op family in ``dispatch/``. A node with no converter runs
  its PyTensor ``perform`` on the host inside the compiled function
  (``FallbackWarning``, once per Op class).
- ``explain(fn)`` / ``hlograph_function(fn)``: the hlograph function behind a
  compiled PyTensor function.
- Random variables draw NumPy's numbers on the CPU (``rng="numpy"``: a Generator goes
  in as its PCG64 state, each variable runs its perform on the host) and hlograph's
  keyed random family elsewhere (``rng="keys"``: a key per call); either way the next
  Generator comes back through ``updates`` (``dispatch/random.py``). ``Scan`` and
  ``ScalarLoop`` become hlograph loops (``dispatch/scan.py``).

PyTensor is imported here only (the package's ``pytensor`` extra).
"""

from __future__ import annotations

from pytensor.compile import mode as _pt_mode

from . import dispatch  # noqa: F401 - registers the converters
from .convert import (Context, NotConvertible, NotStatic, convert_fgraph, from_fgraph, from_pytensor,
                      hlograph_convert, hlograph_type)
from .dispatch.scalar import hlograph_convert_scalar
from .fallback import FallbackWarning, PyTensorPerform
from .linker import (HLOGRAPH_REWRITES, CompiledGraph, HlographLinker, compiled_graph, explain,
                     hlograph_function, mode)

__all__ = [
    "from_fgraph", "from_pytensor", "convert_fgraph", "hlograph_convert", "hlograph_convert_scalar",
    "hlograph_type", "Context", "NotConvertible", "NotStatic", "FallbackWarning", "PyTensorPerform",
    "HlographLinker", "CompiledGraph", "HLOGRAPH_REWRITES", "mode", "explain", "hlograph_function",
    "compiled_graph", "HLOGRAPH",
]

#: the mode registered as "HLOGRAPH"
HLOGRAPH = _pt_mode.predefined_modes.get("HLOGRAPH")
if HLOGRAPH is None:
    HLOGRAPH = mode()
    _pt_mode.register_mode("HLOGRAPH", HLOGRAPH)
if "hlograph" not in getattr(_pt_mode, "predefined_linkers", {"hlograph": None}):
    _pt_mode.register_linker("hlograph", HlographLinker())  # Mode(linker="hlograph", ...)
