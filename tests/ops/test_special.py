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


# --- inverses of the incomplete gamma and beta functions ---------------------------------
#: float64 (rtol, atol): the inverses amplify the error of jax's igamma/betainc by their
#: condition number; float32 computes in float64 and rounds once (atol: subnormal results)
T_INV = {"gamma": {"float64": (1e-11, 1e-300), "float32": (2e-7, 1e-37)},
         "beta": {"float64": (1e-9, 1e-300), "float32": (2e-7, 1e-37)}}


def _log_uniform(rng, lo, hi, n):
    return np.exp(rng.uniform(math.log(lo), math.log(hi), size=n))


@pytest.mark.parametrize("dtype", F)
def test_gamma_inverses_match_perform(dtype, rng):
    """Random a in [1e-2, 1e3] and y in (0, 1), and far tails of y (1e-300 .. 1e-2 and
    their complements) in float64."""
    n = 300
    av = _log_uniform(rng, 1e-2, 1e3, n)
    yv = rng.uniform(0, 1, size=n)
    if dtype == "float64":
        tail = 10.0 ** rng.uniform(-300, -2, size=n // 3)
        yv[: n // 3], yv[n // 3: 2 * n // 3] = tail, 1 - tail
    a, y = hg.tensor("a", (n,), dtype), hg.tensor("y", (n,), dtype)
    g = hg.Graph([a, y], [sp.gammaincinv(a, y), sp.gammainccinv(a, y)])
    compare_with_perform(g, [av.astype(dtype), yv.astype(dtype)], rtol=T_INV["gamma"][dtype][0],
                         atol=T_INV["gamma"][dtype][1])


@pytest.mark.parametrize("dtype", F)
def test_betaincinv_matches_perform(dtype, rng):
    """Random a, b in [1e-2, 1e3] and y in (0, 1)."""
    n = 300
    vals = [_log_uniform(rng, 1e-2, 1e3, n), _log_uniform(rng, 1e-2, 1e3, n), rng.uniform(0, 1, size=n)]
    a, b, y = (hg.tensor(c, (n,), dtype) for c in "aby")
    g = hg.Graph([a, b, y], sp.betaincinv(a, b, y))
    compare_with_perform(g, [v.astype(dtype) for v in vals], rtol=T_INV["beta"][dtype][0],
                         atol=T_INV["beta"][dtype][1])


def test_incomplete_inverses_round_trip(rng):
    """gammainc, gammaincc and betainc (all compiled) undo the inverses."""
    a, b, y = (hg.tensor(c, (50,), "float64") for c in "aby")
    g = hg.Graph([a, b, y], [sp.gammainc(a, sp.gammaincinv(a, y)), sp.gammaincc(a, sp.gammainccinv(a, y)),
                             sp.betainc(a, b, sp.betaincinv(a, b, y))])
    av, bv, yv = _log_uniform(rng, 0.05, 50, 50), _log_uniform(rng, 0.05, 50, 50), rng.uniform(0, 1, size=50)
    for out in hg.compile(g)(av, bv, yv):
        np.testing.assert_allclose(out, yv, rtol=1e-10)


def test_incomplete_inverses_broadcast_shapes(rng):
    """0-d, broadcast and size-0 operands."""
    a0, y0 = hg.tensor("a0", (), "float64"), hg.tensor("y0", (), "float64")
    a1, y1 = hg.tensor("a1", (2, 1), "float64"), hg.tensor("y1", (1, 3), "float64")
    a2, b2 = hg.tensor("a2", (0, 3), "float64"), hg.tensor("b2", (3,), "float64")
    outs = [sp.gammaincinv(a0, y0), sp.gammainccinv(a1, y1), sp.betaincinv(a1, a0, y1), sp.betaincinv(a2, b2, y0)]
    assert [o.shape for o in outs] == [(), (2, 3), (2, 3), (0, 3)]
    vals = [rng.uniform(0.1, 10, size=()), rng.uniform(0, 1, size=()), rng.uniform(0.1, 10, size=(2, 1)),
            rng.uniform(0, 1, size=(1, 3)), np.ones((0, 3)), rng.uniform(0.1, 10, size=3)]
    compare_with_perform(hg.Graph([a0, y0, a1, y1, a2, b2], outs), vals, rtol=1e-9, atol=1e-300)


#: a, y at 0, 1, far tails, outside [0, 1], infinite or NaN (scipy's results for a = 0
#: with y outside {0, 1/2, 1} vary from call to call: those are left out)
INV_A = np.array([-1.0, 0.5, 3.0, np.inf, -np.inf, np.nan])
INV_Y = np.array([0.0, -0.0, 1.0, 0.5, 1e-300, 1 - 1e-16, -0.5, 1.5, np.inf, np.nan])


def test_incomplete_inverses_edge_values():
    """Parameters zero, negative, infinite or NaN, y at the ends of [0, 1], in the far
    tails, outside [0, 1] or NaN: as scipy.special."""
    av, yv = (v.ravel() for v in np.meshgrid(INV_A, INV_Y))
    av, yv = np.concatenate([av, [0.0, -0.0, 0.0, 0.0]]), np.concatenate([yv, [0.0, 1.0, 0.5, -0.0]])
    bv = np.resize(np.array([0.5, 2.0, 0.0, np.inf, np.nan, -1.0, -0.0]), av.shape)
    a, b, y = (hg.tensor(c, av.shape, "float64") for c in "aby")
    g = hg.Graph([a, b, y], [sp.gammaincinv(a, y), sp.gammainccinv(a, y), sp.betaincinv(a, b, y)])
    compare_with_perform(g, [av, bv, yv], rtol=1e-11, atol=1e-300)


@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_incomplete_inverses_other_dtypes(dtype, rng):
    """float16 rounds the float64 result; integers compute in float64, as scipy's loops."""
    a, b, y = (hg.tensor(c, (6,), dtype) for c in "aby")
    outs = [sp.gammaincinv(a, y), sp.gammainccinv(a, y), sp.betaincinv(a, b, y)]
    assert {o.dtype for o in outs} == {np.dtype(np.float16 if dtype == "float16" else np.float64)}
    if dtype == "int32":  # y in {0, 1}: the endpoints
        vals = [rng.integers(1, 10, size=6), rng.integers(1, 10, size=6), np.array([0, 1, 0, 1, 1, 0])]
    else:
        vals = [rng.uniform(0.5, 10, size=6), rng.uniform(0.5, 10, size=6), rng.uniform(0.05, 0.95, size=6)]
    compare_with_perform(hg.Graph([a, b, y], outs), [v.astype(dtype) for v in vals], rtol=1e-3, atol=1e-7)


def test_incomplete_inverse_builders():
    y = hg.tensor("y", (3,), "float32")
    assert sp.gammaincinv(2, y).dtype == np.float32
    assert sp.gammainccinv(np.float64(2), y).dtype == np.float64
    assert sp.betaincinv(0.5, 2.0, y).dtype == np.float32
    assert hg.betaincinv is sp.betaincinv and hg.gammainccinv is sp.gammainccinv
    with pytest.raises(TypeError, match="Gammaincinv: not defined for complex64"):
        sp.gammaincinv(hg.tensor("z", (3,), "complex64"), y)
    with pytest.raises(ValueError, match="do not broadcast"):
        sp.betaincinv(y, y, hg.tensor("w", (4,), "float32"))


# --- exponentially scaled modified Bessel functions of real order -------------------------
#: float64: scipy's own ive for non-integer v < 0 is good to ~1e-11 (cancellation in its reflection)
T_BESSEL = {"float64": (1e-10, 1e-300), "float32": (2e-6, 1e-37)}


@pytest.mark.parametrize("dtype", F)
def test_bessel_scaled_match_perform(dtype, rng):
    """Orders from -200 to 200 (integers and half-integers among them) and x from 1e-9 to
    1e6: every method's region (I's power series, Temme's series and CF2 for K, CF1,
    Hankel's large x, Debye's large v) and the boundaries between them."""
    n = 400
    v = rng.uniform(-60, 60, size=n)
    v[:40] = rng.integers(-30, 30, size=40)
    v[40:80] = rng.integers(-30, 30, size=40) + 0.5
    v[80:120] = rng.uniform(-200, 200, size=40)
    v[120:140] = rng.uniform(49, 51, size=20)
    x = _log_uniform(rng, 1e-3, 1e6, n)
    x[140:180] = rng.uniform(1.9, 2.1, size=40)
    x[180:220] = v[180:220] ** 2 * rng.uniform(0.9, 1.1, size=40)
    x[220:260] = _log_uniform(rng, 1e-9, 1e-3, 40)
    if dtype == "float32":  # keep the results in float32's normal range
        v = np.clip(v, -25, 25)
    vv, xv = hg.tensor("v", (n,), dtype), hg.tensor("x", (n,), dtype)
    g = hg.Graph([vv, xv], [sp.ive(vv, xv), sp.kve(vv, xv)])
    compare_with_perform(g, [v.astype(dtype), x.astype(dtype)], rtol=T_BESSEL[dtype][0], atol=T_BESSEL[dtype][1])


BESSEL_V = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, -2.5, 7.25, 60.0, -60.5, np.inf, -np.inf, np.nan])
BESSEL_X = np.array([0.0, -0.0, 1.0, -1.0, -2.5, 1e-300, 1e-10, 700.0, 1e5, np.inf, -np.inf, np.nan])


def test_bessel_scaled_edge_values():
    """x at 0, negative (ive: defined for integer v only), tiny, huge, infinite or NaN,
    v negative, infinite or NaN: as scipy.special (overflows included)."""
    v, x = (a.ravel() for a in np.meshgrid(BESSEL_V, BESSEL_X))
    vv, xv = hg.tensor("v", v.shape, "float64"), hg.tensor("x", x.shape, "float64")
    g = hg.Graph([vv, xv], [sp.ive(vv, xv), sp.kve(vv, xv)])
    compare_with_perform(g, [v, x], rtol=1e-10, atol=1e-300)


def test_bessel_scaled_shapes_and_dtypes(rng):
    """0-d, broadcast and size-0 operands; float16 rounds the float64 result, integer
    orders and arguments compute in float64."""
    v0, x0 = hg.tensor("v0", (), "float64"), hg.tensor("x0", (), "float64")
    v1, x1 = hg.tensor("v1", (2, 1), "float16"), hg.tensor("x1", (1, 3), "float16")
    v2, x2 = hg.tensor("v2", (0, 3), "int32"), hg.tensor("x2", (3,), "int32")
    i3, x3 = hg.tensor("i3", (4,), "int32"), hg.tensor("x3", (4,), "int32")
    outs = [sp.ive(v0, x0), sp.kve(v1, x1), sp.ive(v2, x2), sp.ive(i3, x3), sp.kve(i3, x3)]
    assert [(o.shape, o.dtype) for o in outs] == [((), np.float64), ((2, 3), np.float16), ((0, 3), np.float64),
                                                  ((4,), np.float64), ((4,), np.float64)]
    vals = [rng.uniform(-5, 5, size=()), rng.uniform(0.1, 10, size=()), np.array([[0.5], [3.0]], "float16"),
            rng.uniform(0.5, 8, size=(1, 3)).astype("float16"), np.zeros((0, 3), "int32"),
            np.array([1, 2, 3], "int32"), np.array([-3, 0, 2, 5], "int32"), np.array([-2, 3, 0, 7], "int32")]
    compare_with_perform(hg.Graph([v0, x0, v1, x1, v2, x2, i3, x3], outs), vals, rtol=1e-3, atol=1e-300)


def test_bessel_scaled_builders():
    x = hg.tensor("x", (3,), "float32")
    assert sp.ive(0.5, x).dtype == np.float32 and sp.kve(np.float64(2), x).dtype == np.float64
    assert hg.ive is sp.ive and hg.kve is sp.kve
    with pytest.raises(TypeError, match="Kve: not defined for complex64"):
        sp.kve(x, hg.tensor("z", (3,), "complex64"))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_gammaln_rounds_once_from_float64(dtype):
    # scipy's gammaln is exactly 0 at 1 and 2 and correctly rounded to the narrower
    # floats elsewhere; the compiled result is the float64 one rounded once
    x = hg.tensor("x", (9,), dtype)
    values = np.array([1, 2, 3, 0.5, 10, -2.5, 1e-3, 30, 1.5], np.float64).astype(x.dtype)
    got = hg.compile(hg.Graph([x], sp.gammaln(x)))(values)
    assert got.dtype == x.dtype and got[0] == 0 and got[1] == 0
    want = np.asarray(hg.evaluate(hg.Graph([x], sp.gammaln(x)), values), np.float64)
    wide = hg.tensor("w", (9,), "float64")
    ref64 = hg.compile(hg.Graph([wide], sp.gammaln(wide)))(values.astype(np.float64))
    np.testing.assert_array_equal(got, ref64.astype(x.dtype))
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=T[dtype][0])
