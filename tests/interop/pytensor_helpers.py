"""Comparing PyTensor functions compiled with the HLOGRAPH mode against PyTensor's
Python implementation (the ``py`` linker, no rewrites), as PyTensor's own
``compare_jax_and_py`` does for its JAX backend. Import after
``pytest.importorskip("pytensor")``."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pytensor
from pytensor.compile.mode import Mode

import hlograph.interop.pytensor as hgpt

__all__ = ["compare_hlograph_and_py", "py_mode", "fallbacks_of", "TOL"]

#: PyTensor's Python implementation: every Op's perform, the graph as written
py_mode = Mode(linker="py", optimizer=None)

#: (rtol, atol) per result dtype
TOL = {
    "float16": (1e-3, 1e-3),
    "float32": (2e-5, 1e-6),
    "complex64": (2e-5, 1e-6),
    "float64": (1e-10, 1e-12),
    "complex128": (1e-10, 1e-12),
}


def fallbacks_of(fn) -> list[tuple[str, str]]:
    """The PyTensor Ops a HLOGRAPH function runs through their perform (every conversion
    made so far)."""
    return [f for c in hgpt.compiled_graph(fn).conversions() for f in c.fallbacks]


def compare_hlograph_and_py(
    graph_inputs: Sequence[Any],
    graph_outputs: Any,
    test_inputs: Sequence[Any],
    *,
    mode: Any = "HLOGRAPH",
    rtol: float | None = None,
    atol: float | None = None,
    assert_fn: Callable[[np.ndarray, np.ndarray], None] | None = None,
    allow_fallback: bool = False,
    updates: Any = None,
):
    """Compiles ``graph_outputs`` of ``graph_inputs`` with ``mode`` and with PyTensor's
    Python implementation, runs both on ``test_inputs`` and checks that each output has
    the same dtype, shape and values (``assert_fn(hlograph_result, python_result)``
    when given, else closeness within ``TOL`` of the dtype, equality for integers and
    bools). Unless ``allow_fallback``, every node must have been converted (none runs
    its PyTensor perform). Returns the HLOGRAPH function and its results."""
    if any(getattr(v, "owner", None) is not None for v in graph_inputs):
        raise ValueError("inputs must be root variables")
    fn = pytensor.function(list(graph_inputs), graph_outputs, mode=mode, updates=updates)
    res = fn(*test_inputs)
    ref_fn = pytensor.function(list(graph_inputs), graph_outputs, mode=py_mode, updates=updates)
    ref = ref_fn(*test_inputs)
    single = not isinstance(graph_outputs, (list, tuple))
    outs, refs = ([res], [ref]) if single else (list(res), list(ref))
    assert len(outs) == len(refs)
    for i, (got, want) in enumerate(zip(outs, refs)):
        got, want = np.asarray(got), np.asarray(want)
        where = f"output {i}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, PyTensor's {want.dtype}"
        assert got.shape == want.shape, f"{where}: shape {got.shape}, PyTensor's {want.shape}"
        if assert_fn is not None:
            assert_fn(got, want)
        elif got.dtype.kind in "fc":
            r, a = TOL.get(got.dtype.name, (1e-6, 1e-8))
            np.testing.assert_allclose(got, want, rtol=r if rtol is None else rtol,
                                       atol=a if atol is None else atol, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    if not allow_fallback:
        assert not fallbacks_of(fn), f"nodes ran their PyTensor perform: {fallbacks_of(fn)}"
    return fn, res
