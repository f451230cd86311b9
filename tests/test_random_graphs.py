"""Random graphs built from the op set: compiled results equal evaluate()."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.tests.helpers import compare_with_perform

DTYPES = ["float32", "float64", "int32", "int64"]

UNARY_FLOAT = ["exp", "tanh", "sin", "cos", "sigmoid", "abs", "negative", "floor", "sqrt_abs", "log1p_abs"]
UNARY_ANY = ["negative", "abs", "square", "sign"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "where_greater"]


def _apply_unary(name, v):
    if name == "sqrt_abs":
        return hg.sqrt(hg.abs(v))
    if name == "log1p_abs":
        return hg.log1p(hg.abs(v))
    return getattr(hg, name)(v)


def _apply_binary(name, a, b):
    if name == "where_greater":
        return hg.where(a > b, a, b)
    return getattr(hg, name)(a, b)


@st.composite
def graphs(draw):
    dtype = draw(st.sampled_from(DTYPES))
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    n_inputs = draw(st.integers(1, 3))
    inputs = [hg.tensor(f"x{i}", shape, dtype) for i in range(n_inputs)]
    pool = list(inputs)
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["unary", "binary", "reduce", "transpose", "cumsum", "scalar"]))
        v = draw(st.sampled_from(pool))
        if kind == "unary":
            names = UNARY_FLOAT if v.dtype.kind == "f" else UNARY_ANY
            out = _apply_unary(draw(st.sampled_from(names)), v)
        elif kind == "binary":
            candidates = [p for p in pool if p.ndim <= v.ndim]
            w = draw(st.sampled_from(candidates))
            # broadcast a lower-rank value against v (NumPy rules)
            if w.shape != v.shape[v.ndim - w.ndim:]:
                w = v
            out = _apply_binary(draw(st.sampled_from(BINARY)), v, w)
        elif kind == "reduce" and v.ndim > 0:
            axis = draw(st.integers(-v.ndim, v.ndim - 1))
            name = draw(st.sampled_from(["sum", "max", "min", "mean", "prod"]))
            if name in ("max", "min") and v.shape[axis] == 0:
                name = "sum"
            out = getattr(hg, name)(v, axis=axis, keepdims=draw(st.booleans()))
        elif kind == "transpose" and v.ndim > 1:
            perm = draw(st.permutations(range(v.ndim)))
            out = hg.transpose(v, tuple(perm))
        elif kind == "cumsum" and v.ndim > 0:
            out = hg.cumsum(v, axis=draw(st.integers(-v.ndim, v.ndim - 1)))
        else:
            c = draw(st.sampled_from([0.5, 2, -1.5, 3])) if v.dtype.kind == "f" else draw(st.sampled_from([2, -3]))
            out = v * c + c
        pool.append(out)
    n_out = draw(st.integers(1, min(3, len(pool) - n_inputs)))
    outputs = pool[-n_out:]
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    values = []
    for x in inputs:
        if x.dtype.kind == "f":
            values.append(rng.normal(size=shape).astype(x.dtype))
        else:
            values.append(rng.integers(-4, 5, size=shape).astype(x.dtype))
    return hg.Graph(inputs, outputs), values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_random_graph_matches_evaluate(case):
    graph, values = case
    # products and sums of random draws can reach float32's rounding noise; ints must be exact
    compare_with_perform(graph, values, rtol=1e-4, atol=1e-5)
