"""Logic functions (frontend/numpy/logic.py): compiled results and perform against
NumPy itself, over dtypes, broadcasting, NaN and infinities."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import logic as m
from hlograph.tests.helpers import check_against_numpy, random_array, special_values


# --- comparisons -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose(dtype, equal_nan, rng):
    a = special_values(rng, (4, 5), dtype)
    b = a.copy()
    b.reshape(-1)[::3] += (rng.normal(size=b.reshape(-1)[::3].shape) * 1e-5).astype(dtype)
    b.reshape(-1)[1::4] = random_array(rng, b.reshape(-1)[1::4].shape, dtype)
    kw = dict(rtol=1e-4, atol=1e-6, equal_nan=equal_nan)
    check_against_numpy(lambda x, y: m.isclose(x, y, **kw), [a, b], lambda x, y: np.isclose(x, y, **kw))
    check_against_numpy(lambda x, y: m.allclose(x, y, **kw), [a, b], lambda x, y: np.asarray(np.allclose(x, y, **kw)))
    check_against_numpy(lambda x, y: m.allclose(x, y, **kw), [a, a], lambda x, y: np.asarray(np.allclose(x, y, **kw)))


def test_isclose_broadcast_and_scalars(rng):
    a = random_array(rng, (3, 1), "float32")
    b = random_array(rng, (4,), "int32")
    check_against_numpy(m.isclose, [a, b])
    check_against_numpy(lambda x: m.isclose(x, 1), [np.array([1.0, 1.000001, np.inf], np.float32)],
                        lambda x: np.isclose(x, 1))
    check_against_numpy(lambda x: m.isclose(2.0, x), [np.zeros((0, 2), np.float64)], lambda x: np.isclose(2.0, x))
    check_against_numpy(lambda x: m.isclose(x, x), [np.array(np.nan)], lambda x: np.isclose(x, x))


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_array_equal_equiv(dtype, rng):
    a = special_values(rng, (2, 3), dtype)
    b = a.copy()
    for equal_nan in (False, True):
        ref = lambda x, y: np.asarray(np.array_equal(x, y, equal_nan=equal_nan))  # noqa: E731
        check_against_numpy(lambda x, y: m.array_equal(x, y, equal_nan=equal_nan), [a, b], ref)
    c = a.copy()
    c.reshape(-1)[0] = not c.reshape(-1)[0] if dtype == "bool" else 7
    check_against_numpy(m.array_equal, [a, c], lambda x, y: np.asarray(np.array_equal(x, y)))
    check_against_numpy(m.array_equal, [a, a[:1]], lambda x, y: np.asarray(np.array_equal(x, y)))
    check_against_numpy(m.array_equiv, [a, a[:1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    check_against_numpy(m.array_equiv, [a[:1], a[:1, :1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    check_against_numpy(m.array_equiv, [a, a[:, :2]], lambda x, y: np.asarray(np.array_equiv(x, y)))


def test_isscalar():
    for v in (1, 2.5, 1j, True, np.float32(1), "s", [1], np.array(1.0), hg.tensor("x", ()),
              hg.constant(1.0), None):
        assert m.isscalar(v) == (False if isinstance(v, hg.Variable) else np.isscalar(v))


def test_errors():
    f = hg.tensor("f", (3,), "float32")
    with pytest.raises(TypeError, match="isclose"):
        m.isclose(f, f, rtol=hg.scalar("r"))
