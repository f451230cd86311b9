"""Special functions: compiled results against perform (float64 references)."""

import math
from dataclasses import dataclass

import numpy as np
import pytest

import hlograph as hg
import hlograph.lowering.rules.special  # noqa: F401  (registers the rules)
from hlograph.frontend.ops import special as sp
from hlograph.tests.helpers import compare_with_perform, random_array

SHAPES = [(), (0,), (7,), (2, 3)]
F = ["float32", "float64"]


@dataclass
class Rec:
    name: str
    fn: object
    dtypes: list
    domain: tuple  # (low, high) of the random inputs
    tol: dict


# per-dtype (rtol, atol): the chlo expansions are a few ulp off a correctly rounded result
HALF = {"float16": (4e-3, 2e-3), "bfloat16": (3e-2, 2e-2)}
T = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14), **HALF}
T_ITER = {"float32": (5e-5, 1e-6), "float64": (2e-11, 1e-13), **HALF}
H = ["float16", "bfloat16"]

UNARY = [
    Rec("erfc", sp.erfc, F + H + ["int16"], (-4, 6), T),
    Rec("erfcx", sp.erfcx, F + ["float16"], (-8, 40), T_ITER),
    Rec("erfinv", sp.erfinv, F + ["float16"], (-0.999, 0.999), T_ITER),
    Rec("gammaln", sp.gammaln, F + H, (-8, 12), T_ITER),
    Rec("digamma", sp.digamma, F + ["bfloat16"], (-6, 12), T_ITER),
    Rec("trigamma", sp.trigamma, F, (0.05, 20), T_ITER),
    Rec("softplus", sp.softplus, F + H, (-30, 30), T),
    Rec("log1mexp", sp.log1mexp, F, (-20, -1e-6), T),
    Rec("i0e", sp.i0e, F + ["float16"], (-40, 40), T),
    Rec("i1e", sp.i1e, F + ["float16"], (-40, 40), T),
    Rec("ndtr", sp.ndtr, F + ["float16"], (-12, 12), T),
    Rec("ndtri", sp.ndtri, F + ["bfloat16"], (0, 1), T_ITER),
    Rec("log_ndtr", sp.log_ndtr, F, (-60, 12), T_ITER),
]
BINARY = [
    Rec("xlogy", sp.xlogy, F, (0.01, 5), T),
    Rec("xlog1py", sp.xlog1py, F, (-0.9, 5), T),
]


def _uniform(rng, shape, dtype, lo, hi):
    if np.dtype(hg.frontend.types.as_dtype(dtype)).kind in "iu":
        return random_array(rng, shape, dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _cases(recs):
    return [pytest.param(r, dt, id=f"{r.name}-{dt}") for r in recs for dt in r.dtypes]


def _tol(rec, dtype):
    return rec.tol.get(dtype, (None, None))


@pytest.mark.parametrize("rec,dtype", _cases(UNARY))
def test_unary_matches_perform(rec, dtype, rng):
    xs = [hg.tensor(f"x{i}", s, dtype) for i, s in enumerate(SHAPES)]
    g = hg.Graph(xs, [rec.fn(x) for x in xs])
    vals = [_uniform(rng, s, dtype, *rec.domain) for s in SHAPES]
    rtol, atol = _tol(rec, dtype)
    compare_with_perform(g, vals, rtol=rtol, atol=atol)


@pytest.mark.parametrize("rec,dtype", _cases(BINARY))
@pytest.mark.parametrize("xshape,yshape", [((), ()), ((2, 1), (1, 3)), ((0, 3), (3,))], ids=str)
def test_binary_matches_perform(rec, dtype, xshape, yshape, rng):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    g = hg.Graph([x, y], rec.fn(x, y))
    xv = rng.normal(size=xshape).astype(dtype)
    xv[rng.random(xshape) < 0.3] = 0
    rtol, atol = _tol(rec, dtype)
    compare_with_perform(g, [xv, _uniform(rng, yshape, dtype, *rec.domain)], rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", F)
def test_polygamma_orders(dtype, rng):
    n = hg.tensor("n", (5, 1), dtype)
    x = hg.tensor("x", (6,), dtype)
    g = hg.Graph([n, x], sp.polygamma(n, x))
    orders = np.arange(5, dtype=dtype).reshape(5, 1)
    compare_with_perform(g, [orders, rng.uniform(0.2, 15, size=6).astype(dtype)], rtol=T_ITER[dtype][0] * 10,
                         atol=T_ITER[dtype][1])


EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1e-30, 50.0, -50.0, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("name", ["erfc", "erfinv", "gammaln", "digamma", "softplus", "log1mexp", "i0e", "i1e",
                                  "ndtr", "ndtri", "log_ndtr", "erfcx"])
def test_edge_values(name):
    """Zeros, poles, infinities and NaN follow scipy.special."""
    values = EDGE
    if name in ("erfinv", "ndtri"):
        values = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.inf, np.nan, 0.25, 0.5, 1e-300, 1e-20, 1e-3,
                           0.135, 0.9, 1 - 1e-12])
    x = hg.tensor("x", values.shape, "float64")
    compare_with_perform(hg.Graph([x], getattr(sp, name)(x)), [values], rtol=T_ITER["float64"][0],
                         atol=T_ITER["float64"][1])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_edge_values(name):
    a = np.array([0.0, -0.0, 1.0, -2.0, np.inf, np.nan, -1.0])
    xs, ys = np.meshgrid(a, a)
    x, y = hg.tensor("x", xs.shape, "float64"), hg.tensor("y", ys.shape, "float64")
    compare_with_perform(hg.Graph([x, y], getattr(sp, name)(x, y)), [xs, ys])


def test_references_against_known_values():
    """The float64 references themselves, on values from tables (Abramowitz & Stegun)."""
    r = lambda op, *v: float(op.reference(*[np.float64(a) for a in v]))  # noqa: E731
    assert r(sp.Digamma, 1.0) == pytest.approx(-0.5772156649015329, rel=1e-15)
    assert r(sp.Digamma, 0.5) == pytest.approx(-0.5772156649015329 - 2 * math.log(2), rel=1e-14)
    assert r(sp.Polygamma, 1.0, 1.0) == pytest.approx(math.pi ** 2 / 6, rel=1e-14)
    assert r(sp.Polygamma, 2.0, 1.0) == pytest.approx(-2 * 1.2020569031595942, rel=1e-14)
    assert r(sp.Erfinv, 0.5) == pytest.approx(0.4769362762044699, rel=1e-14)
    assert r(sp.I0e, 1.0) == pytest.approx(1.2660658777520082 * math.exp(-1), rel=1e-14)
    assert r(sp.I1e, -2.0) == pytest.approx(-1.5906368546373291 * math.exp(-2), rel=1e-14)
    assert r(sp.I0e, 100.0) == pytest.approx(0.03994437929909668, rel=1e-12)


def test_type_errors():
    with pytest.raises(TypeError, match="Erfc: not defined for complex64"):
        sp.erfc(hg.tensor("z", (3,), "complex64"))
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match="do not broadcast"):
        sp.xlogy(x, hg.tensor("y", (4,), "float32"))
    assert sp.gammaln(hg.tensor("i", (3,), "int8")).dtype == np.float16
    assert sp.polygamma(1, x).dtype == np.float32


# --- incomplete gamma and beta (jax's lowering through the bridge) -------------------
T_INC = {"float32": (2e-4, 1e-6), "float64": (1e-10, 1e-13)}


@pytest.mark.parametrize("dtype", F)
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
@pytest.mark.parametrize("ashape,xshape", [((), ()), ((2, 1), (1, 3)), ((0, 3), (3,)), ((7,), (7,))], ids=str)
def test_incomplete_gamma_matches_perform(name, dtype, ashape, xshape, rng):
    a, x = hg.tensor("a", ashape, dtype), hg.tensor("x", xshape, dtype)
    g = hg.Graph([a, x], getattr(sp, name)(a, x))
    av = rng.uniform(0.05, 20, size=ashape).astype(dtype)
    xv = rng.uniform(0, 30, size=xshape).astype(dtype)
    compare_with_perform(g, [av, xv], rtol=T_INC[dtype][0], atol=T_INC[dtype][1])


@pytest.mark.parametrize("dtype", F)
@pytest.mark.parametrize("shapes", [((), (), ()), ((2, 1, 1), (1, 3, 1), (4,)), ((0,), (1,), ()), ((6,),) * 3],
                         ids=str)
def test_betainc_matches_perform(dtype, shapes, rng):
    a, b, x = (hg.tensor(n, s, dtype) for n, s in zip("abx", shapes))
    g = hg.Graph([a, b, x], sp.betainc(a, b, x))
    vals = [rng.uniform(0.1, 10, size=shapes[0]), rng.uniform(0.1, 10, size=shapes[1]),
            rng.uniform(0, 1, size=shapes[2])]
    compare_with_perform(g, [v.astype(dtype) for v in vals], rtol=T_INC[dtype][0], atol=T_INC[dtype][1])


INC_EDGE = np.array([0.0, -0.0, 0.5, 1.0, 2.5, 30.0, -1.0, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("dtype", F)
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_edge_values(name, dtype):
    """a or x at 0, negative, infinite or NaN: as scipy.special (Cephes)."""
    av, xv = (v.astype(dtype) for v in np.meshgrid(INC_EDGE, INC_EDGE))
    a, x = hg.tensor("a", av.shape, dtype), hg.tensor("x", xv.shape, dtype)
    compare_with_perform(hg.Graph([a, x], getattr(sp, name)(a, x)), [av, xv],
                         rtol=T_INC[dtype][0], atol=T_INC[dtype][1])


def test_betainc_edge_values():
    ab = np.array([0.0, 0.5, 1.0, 3.0, np.inf, -1.0, np.nan])
    xs = np.array([0.0, 0.3, 1.0, 1.5, -0.5, np.nan, np.inf])
    vals = [v.ravel() for v in np.meshgrid(ab, ab, xs)]
    a, b, x = (hg.tensor(n, vals[0].shape, "float64") for n in "abx")
    compare_with_perform(hg.Graph([a, b, x], sp.betainc(a, b, x)), vals, rtol=T_INC["float64"][0],
                         atol=T_INC["float64"][1])


@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_incomplete_other_dtypes(dtype, rng):
    """float16 computes in float32; integers compute in float64, as scipy's loops."""
    a, x = hg.tensor("a", (5,), dtype), hg.tensor("x", (5,), dtype)
    y = sp.gammaincc(a, x)
    assert y.dtype == (np.float16 if dtype == "float16" else np.float64)
    av = rng.integers(1, 10, size=5).astype(dtype)
    xv = rng.integers(0, 12, size=5).astype(dtype)
    rtol, atol = (4e-3, 2e-3) if dtype == "float16" else T_INC["float64"]
    compare_with_perform(hg.Graph([a, x], [y, sp.gammainc(a, x)]), [av, xv], rtol=rtol, atol=atol)


def test_incomplete_builders():
    x = hg.tensor("x", (3,), "float32")
    assert sp.gammainc(2, x).dtype == np.float32  # NEP 50: the Python scalar is weak
    assert sp.betainc(0.5, 2.0, x).dtype == np.float32
    assert sp.betainc(np.float64(0.5), 2.0, x).dtype == np.float64
    with pytest.raises(TypeError, match="Gammainc: not defined for complex64"):
        sp.gammainc(hg.tensor("z", (3,), "complex64"), x)
    with pytest.raises(ValueError, match="do not broadcast"):
        sp.betainc(x, x, hg.tensor("y", (4,), "float32"))
