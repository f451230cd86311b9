"""NumPy 2's other spellings, index helpers, windows, lexsort, polyval, unstack:
against NumPy through compiled code and perform."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.helpers import compare_with_perform, random_array


def _check(build, numpy_fn, values, rtol=1e-6, atol=0.0):
    xs = [hg.tensor(f"x{i}", v.shape, str(v.dtype)) for i, v in enumerate(values)]
    out = build(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    g = hg.Graph(xs, outs)
    got, _ = compare_with_perform(g, values, rtol=rtol, atol=atol)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    want = numpy_fn(*values)
    want = list(want) if isinstance(want, tuple) else [want]
    for gv, wv in zip(got, want):
        wv = np.asarray(wv)
        assert gv.dtype == wv.dtype and gv.shape == wv.shape
        np.testing.assert_allclose(gv, wv, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name, ref", [("acos", "arccos"), ("acosh", "arccosh"), ("asin", "arcsin"),
                                       ("asinh", "arcsinh"), ("atan", "arctan"), ("atanh", "arctanh")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_array_api_trig_names(name, ref, dtype, rng):
    v = rng.uniform(-0.95, 0.95, size=(3, 4)).astype(dtype)
    if name == "acosh":
        v = np.abs(v) + 1
    _check(getattr(hg, name), getattr(np, ref), [v], rtol=2e-6)


def test_atan2_and_bitwise_names(rng):
    a, b = rng.normal(size=(4,)), rng.normal(size=(3, 1))
    _check(hg.atan2, np.atan2, [a, b])
    i = rng.integers(0, 50, size=(5,)).astype(np.int32)
    s = rng.integers(0, 4, size=(5,)).astype(np.int32)
    _check(hg.bitwise_invert, np.bitwise_invert, [i])
    _check(hg.bitwise_left_shift, np.bitwise_left_shift, [i, s])
    _check(hg.bitwise_right_shift, np.bitwise_right_shift, [i, s])


def test_concat_row_stack_matrix_transpose_unstack(rng):
    a, b = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    _check(lambda x, y: hg.concat([x, y], axis=-2), lambda x, y: np.concat([x, y], axis=-2), [a, b])
    _check(lambda x, y: hg.row_stack([x, y]), lambda x, y: np.vstack([x, y]), [a, b])
    c = rng.normal(size=(2, 3, 5))
    _check(hg.matrix_transpose, np.matrix_transpose, [c])
    _check(lambda x: hg.unstack(x, axis=-1), lambda x: np.unstack(x, axis=-1), [c])
    _check(lambda x: hg.unstack(x), np.unstack, [np.zeros((3, 0))])
    with pytest.raises(ValueError, match="unstack: axis 0 .* unknown size"):
        hg.unstack(hg.tensor("x", (None, 2), "float32"))


def test_copy_asarray_array(rng):
    v = rng.normal(size=(3,)).astype(np.float32)
    _check(lambda x: hg.copy(x) * 2, lambda x: np.copy(x) * 2, [v])
    _check(lambda x: hg.asarray(x, dtype="float64") + hg.array([1.0, 2.0, 3.0]),
           lambda x: np.asarray(x, dtype="float64") + np.array([1.0, 2.0, 3.0]), [v])


def test_index_helpers_from_arrays(rng):
    a = rng.normal(size=(4, 4))
    _check(lambda x: x[hg.diag_indices_from(x)], lambda x: x[np.diag_indices_from(x)], [a])
    b = rng.normal(size=(3, 5))
    for k in (-1, 0, 2):
        _check(lambda x: x[hg.tril_indices_from(x, k=k)], lambda x: x[np.tril_indices_from(x, k=k)], [b])
        _check(lambda x: x[hg.triu_indices_from(x, k=k)], lambda x: x[np.triu_indices_from(x, k=k)], [b])
    with pytest.raises(ValueError, match="diag_indices_from"):
        hg.diag_indices_from(hg.tensor("x", (2, 3), "float32"))


@pytest.mark.parametrize("name, args", [("bartlett", ()), ("blackman", ()), ("hamming", ()),
                                        ("hanning", ()), ("kaiser", (8.6,))])
@pytest.mark.parametrize("m", [0, 1, 7])
def test_windows(name, args, m):
    x = hg.tensor("x", (m,), "float64")
    g = hg.Graph([x], x * getattr(hg, name)(m, *args))
    ones = np.ones(m)
    np.testing.assert_allclose(hg.compile(g)(ones), getattr(np, name)(m, *args), rtol=1e-12)
    with pytest.raises(TypeError, match=f"{name}: M must be a static integer"):
        getattr(hg, name)(x, *args)


@pytest.mark.parametrize("axis", [-1, 0])
def test_lexsort(axis, rng):
    keys = [rng.integers(0, 3, size=(6, 5)).astype(np.int32) for _ in range(3)]
    _check(lambda a, b, c: hg.lexsort([a, b, c], axis=axis),
           lambda a, b, c: np.lexsort([a, b, c], axis=axis), keys)
    k2 = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    _check(lambda k: hg.lexsort(k), np.lexsort, [k2])


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_polyval(dtype, rng):
    x = random_array(rng, (7,), dtype)
    p = [3, -2, 0.5, 1] if dtype == "float64" else [3, -2, 1]
    _check(lambda v: hg.polyval(p, v), lambda v: np.polyval(p, v), [x], rtol=1e-12)
    pc = rng.normal(size=(4,))
    _check(hg.polyval, np.polyval, [pc, x.astype(np.float64)], rtol=1e-12)
    _check(lambda v: hg.polyval([], v), lambda v: np.polyval([], v), [x])
