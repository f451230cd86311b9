"""NumPy-named compositions (frontend/ops/mathx.py): compiled results and perform against
NumPy itself, over dtypes, 0-d and size-0 shapes, negative axes, NaN and infinities."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import mathx as m
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array


def run(fn, values, numpy_fn=None, *, rtol=None, atol=None, dtypes=None):
    """Builds ``fn`` on graph inputs shaped like ``values``, compiles and evaluates it
    (compare_with_perform), and compares both with ``numpy_fn(*values)`` (default: the NumPy
    function of the same name)."""
    values = [np.asarray(v) for v in values]
    xs = [hg.tensor(f"x{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    out = fn(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    graph = hg.Graph(xs, outs)
    _, expected = compare_with_perform(graph, values, rtol=rtol, atol=atol)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    numpy_fn = numpy_fn or getattr(np, fn.__name__)
    with np.errstate(all="ignore"):
        ref = numpy_fn(*values)
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    assert len(ref) == len(expected)
    for i, (e, r) in enumerate(zip(expected, ref)):
        assert_same(e, np.asarray(r), rtol=rtol, atol=atol, what=f"{fn.__name__} output {i} vs NumPy")
    return expected


def special_values(rng, shape, dtype):
    """Random values with NaN, +-inf and zeros sprinkled in (floats)."""
    x = random_array(rng, shape, dtype)
    if x.size and np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        picks = rng.integers(0, 5, flat.shape)
        flat[picks == 0] = np.nan
        flat[picks == 1] = np.inf
        flat[picks == 2] = -np.inf
    return x


SHAPES = [(), (0,), (7,), (2, 3)]


# --- comparisons -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose(dtype, equal_nan, rng):
    a = special_values(rng, (4, 5), dtype)
    b = a.copy()
    b.reshape(-1)[::3] += (rng.normal(size=b.reshape(-1)[::3].shape) * 1e-5).astype(dtype)
    b.reshape(-1)[1::4] = random_array(rng, b.reshape(-1)[1::4].shape, dtype)
    kw = dict(rtol=1e-4, atol=1e-6, equal_nan=equal_nan)
    run(lambda x, y: m.isclose(x, y, **kw), [a, b], lambda x, y: np.isclose(x, y, **kw))
    run(lambda x, y: m.allclose(x, y, **kw), [a, b], lambda x, y: np.asarray(np.allclose(x, y, **kw)))
    run(lambda x, y: m.allclose(x, y, **kw), [a, a], lambda x, y: np.asarray(np.allclose(x, y, **kw)))


def test_isclose_broadcast_and_scalars(rng):
    a = random_array(rng, (3, 1), "float32")
    b = random_array(rng, (4,), "int32")
    run(m.isclose, [a, b])
    run(lambda x: m.isclose(x, 1), [np.array([1.0, 1.000001, np.inf], np.float32)],
        lambda x: np.isclose(x, 1))
    run(lambda x: m.isclose(2.0, x), [np.zeros((0, 2), np.float64)], lambda x: np.isclose(2.0, x))
    run(lambda x: m.isclose(x, x), [np.array(np.nan)], lambda x: np.isclose(x, x))


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_array_equal_equiv(dtype, rng):
    a = special_values(rng, (2, 3), dtype)
    b = a.copy()
    for equal_nan in (False, True):
        ref = lambda x, y: np.asarray(np.array_equal(x, y, equal_nan=equal_nan))  # noqa: E731
        run(lambda x, y: m.array_equal(x, y, equal_nan=equal_nan), [a, b], ref)
    c = a.copy()
    c.reshape(-1)[0] = not c.reshape(-1)[0] if dtype == "bool" else 7
    run(m.array_equal, [a, c], lambda x, y: np.asarray(np.array_equal(x, y)))
    run(m.array_equal, [a, a[:1]], lambda x, y: np.asarray(np.array_equal(x, y)))
    run(m.array_equiv, [a, a[:1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    run(m.array_equiv, [a[:1], a[:1, :1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    run(m.array_equiv, [a, a[:, :2]], lambda x, y: np.asarray(np.array_equiv(x, y)))


# --- float and integer utilities -------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_floats(dtype, shape, rng):
    x = special_values(rng, shape, dtype)
    if x.size and dtype.startswith("float"):
        x.reshape(-1)[:2] = [2.5, -0.5][: x.size]  # ties round to even
    fns = [m.rint, m.fabs, m.isneginf, m.isposinf, m.iscomplex, m.isreal, m.nan_to_num]
    if dtype != "bool":
        fns += [m.sinc]
    graph_fn = lambda v: tuple(f(v) for f in fns)  # noqa: E731
    graph_fn.__name__ = "unary"
    run(graph_fn, [x], lambda v: tuple(getattr(np, f.__name__)(v) for f in fns))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "uint8", "bool"])
def test_around(dtype, rng):
    x = (random_array(rng, (3, 4), dtype) * 100).astype(dtype)
    if dtype in ("int32", "uint8"):
        x.reshape(-1)[:4] = [50, 150, 250, 45]  # ties at tens and hundreds
    if dtype == "bool":
        run(m.around, [x])
        with pytest.raises(TypeError, match="around"):
            m.around(hg.tensor("b", (2,), "bool"), 1)
        return
    for decimals in (0, 1, 2) if dtype.startswith(("float", "complex")) else (0, 1, -1, -2, -3):
        run(lambda v: m.around(v, decimals), [x], lambda v: np.around(v, decimals), atol=1e-4)


def test_rint_fabs_complex(rng):
    z = random_array(rng, (5,), "complex64")
    run(m.rint, [z])
    run(m.iscomplex, [z])
    run(m.isreal, [np.array([1 + 0j, 1j, 0j], np.complex128)])
    for fn in (m.fabs, m.isneginf, m.isposinf):
        with pytest.raises(TypeError, match=fn.__name__):
            fn(hg.tensor("z", (2,), "complex64"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_nan_to_num(dtype, rng):
    x = special_values(rng, (3, 4), "float64").astype(dtype)
    if dtype == "complex128":
        x.imag = special_values(rng, (3, 4), "float64")
    run(m.nan_to_num, [x])
    kw = dict(nan=-1.5, posinf=9.0, neginf=-9.0)
    run(lambda v: m.nan_to_num(v, **kw), [x], lambda v: np.nan_to_num(v, **kw))


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "int32"), ("int32", "int32"),
                                    ("complex64", "complex64")])
def test_float_power_pow(dtypes, rng):
    a = random_array(rng, (2, 3), dtypes[0], "positive")
    b = random_array(rng, (3,), dtypes[1], "small_int")
    if np.dtype(dtypes[1]).kind == "i":
        b = np.abs(b)
    run(m.float_power, [a, b], rtol=1e-5)
    run(m.pow, [a, b], np.pow, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_frexp_ldexp(dtype, rng):
    x = special_values(rng, (40,), dtype)
    if dtype.startswith("float"):
        info = np.finfo(dtype)
        x = x * np.asarray(2.0, dtype) ** rng.integers(-8, 8, x.shape).astype(dtype)
        x[:6] = [0.0, -0.0, info.max, -info.tiny, 0.75, -1.0]
    run(m.frexp, [x])
    span = 20 if dtype == "float16" else 100
    k = rng.integers(-span, span, x.shape).astype(np.int32)
    k[:3] = [10 ** 6, -(10 ** 6), 0]
    run(m.ldexp, [x, k])
    run(m.ldexp, [x, k.astype(np.int64)])
    mant, e = np.frexp(x)
    run(m.ldexp, [mant, e])  # frexp round trip
    run(m.ldexp, [np.float32(3.0), np.array([2, -3], np.int32)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 5)])
def test_modf(dtype, shape, rng):
    x = special_values(rng, shape, dtype)
    if x.size > 1 and dtype != "int32":
        x.reshape(-1)[:2] = [-2.0, 3.5]
    run(m.modf, [x])


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
def test_divmod(dtype, rng):
    a = random_array(rng, (3, 4), dtype, "small_int" if dtype != "float32" else "normal")
    b = random_array(rng, (4,), dtype, "nonzero")
    run(m.divmod, [a, b])


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16"])
def test_gcd_lcm(dtype, rng):
    hi = 100 if dtype == "int8" else 5000
    lo = 0 if dtype.startswith("u") else -hi
    a = rng.integers(lo, hi, (4, 6)).astype(dtype)
    b = rng.integers(lo, hi, (6,)).astype(dtype)
    a[0, :3] = 0
    b[1:3] = 0
    if dtype != "int8":
        a[1] = a[1] * 12
        b = b * 6
    run(m.gcd, [a, b])
    run(m.lcm, [a[:, :3] % 30, b[:3] % 30])
    run(m.gcd, [np.zeros((0, 6), dtype), b])
    run(m.gcd, [np.array(12, dtype), np.array(18, dtype)])
    with pytest.raises(TypeError, match="gcd"):
        m.gcd(hg.tensor("x", (2,), "float32"), 3)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int32", "int32")])
def test_heaviside(dtypes, rng):
    x = special_values(rng, (3, 5), dtypes[0])
    if np.dtype(dtypes[0]).kind == "f":
        x[0, :2] = 0
    else:
        x[0] = 0
    run(m.heaviside, [x, random_array(rng, (5,), dtypes[1])])
    run(lambda v: m.heaviside(v, 0.5), [x], lambda v: np.heaviside(v, 0.5))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
def test_i0(dtype, shape, rng):
    x = random_array(rng, shape, dtype) * 4
    x = np.asarray(x).astype(dtype)
    if x.size:
        x.reshape(-1)[0] = 0
    run(m.i0, [x], rtol=1e-5 if dtype == "float32" else 1e-12)
    with pytest.raises(TypeError, match="i0"):
        m.i0(hg.tensor("z", (2,), "complex64"))


def test_isscalar():
    for v in (1, 2.5, 1j, True, np.float32(1), "s", [1], np.array(1.0), hg.tensor("x", ()),
              hg.constant(1.0), None):
        assert m.isscalar(v) == (False if isinstance(v, hg.Variable) else np.isscalar(v))


# --- sequences -------------------------------------------------------------------------
def test_logspace_geomspace_constants():
    for args, kw in [((0, 3), {}), ((1, 2), dict(num=5, base=2.0, endpoint=False)),
                     ((0.0, 1.0), dict(num=4, dtype="float32")), (([0, 1], [2, 3]), dict(num=3, axis=-1))]:
        c = m.logspace(*args, **kw)
        assert_same(hg.compile(hg.Graph([], c))(), np.logspace(*args, **kw))
    for args, kw in [((1, 1000), dict(num=4)), ((-1, -16), dict(num=5, endpoint=False)),
                     ((1j, 16j), dict(num=3)), ((2, 3), dict(num=4, dtype="float32"))]:
        c = m.geomspace(*args, **kw)
        assert_same(hg.compile(hg.Graph([], c))(), np.geomspace(*args, **kw))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("num,endpoint", [(6, True), (5, False), (1, True), (0, True)])
def test_logspace_geomspace_graph(dtype, num, endpoint):
    bounds = [np.asarray(v, dtype) for v in (1, 3)]
    run(lambda a, b: m.logspace(a, b, num, endpoint=endpoint, base=2.0), bounds,
        lambda a, b: np.logspace(a, b, num, endpoint=endpoint, base=2.0), rtol=1e-5)
    for lo, hi in [(2, 50), (-3, -24)]:
        bounds = [np.asarray(v, dtype) for v in (lo, hi)]
        run(lambda a, b: m.geomspace(a, b, num, endpoint=endpoint), bounds,
            lambda a, b: np.geomspace(a, b, num, endpoint=endpoint), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="logspace"):
        m.logspace(hg.tensor("a", (2,)), 1.0)


# --- products --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
@pytest.mark.parametrize("mode", ["valid", "same", "full"])
def test_correlate(dtype, mode, rng):
    for n, k in [(7, 3), (3, 7), (4, 4), (5, 1), (4, 5)]:
        a, v = random_array(rng, (n,), dtype), random_array(rng, (k,), dtype)
        run(lambda x, y: m.correlate(x, y, mode), [a, v], lambda x, y: np.correlate(x, y, mode),
            rtol=1e-5, atol=1e-5)
    run(m.correlate, [random_array(rng, (6,), dtype), random_array(rng, (2,), "float64")],
        rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_inner_vdot(dtype, rng):
    for sa, sb in [((3,), (3,)), ((2, 3), (4, 3)), ((), (2, 3)), ((2, 0), (0,)), ((2, 1, 3), (3,))]:
        run(m.inner, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    for sa, sb in [((6,), (2, 3)), ((2, 2), (4,)), ((0,), (0,))]:
        if dtype != "bool":
            run(m.vdot, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    with pytest.raises(ValueError, match="vdot"):
        m.vdot(hg.tensor("a", (3,)), hg.tensor("b", (4,)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex128"])
def test_vecdot_matvec_vecmat(dtype, rng):
    for sa, sb, axis in [((3,), (3,), -1), ((2, 4), (4,), -1), ((4, 2), (4, 1), 0), ((2, 1, 3), (5, 3), -1),
                         ((0, 3), (3,), -1), ((3, 0), (3, 1), 0)]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        run(lambda x, y: m.vecdot(x, y, axis=axis), [a, b], lambda x, y: np.vecdot(x, y, axis=axis),
            atol=1e-5)
    for sa, sb in [((2, 3), (3,)), ((4, 2, 3), (1, 3)), ((0, 2, 3), (3,))]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        run(m.matvec, [a, b], atol=1e-5)
        run(m.vecmat, [random_array(rng, sa[:-2] + sa[-1:], dtype), np.swapaxes(a, -1, -2)], atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_cross(dtype, rng):
    cases = [((3,), (3,), {}), ((4, 3), (3,), {}), ((2, 4), (4, 3), dict(axisa=0)),
             ((3, 2), (2, 3), dict(axisa=0, axisc=0)), ((5, 3), (5, 2), {}), ((2,), (3,), {}),
             ((4, 2), (2,), {}), ((3, 2, 5), (3, 1, 5), dict(axis=0)), ((0, 3), (3,), {})]
    for sa, sb, kw in cases:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            run(lambda x, y: m.cross(x, y, **kw), [a, b], lambda x, y: np.cross(x, y, **kw), atol=1e-5)
    with pytest.raises(ValueError, match="cross"):
        m.cross(hg.tensor("a", (4,)), hg.tensor("b", (3,)))


# --- unique values and set operations ---------------------------------------------------
def run_host(fn, value_sets, numpy_fn, shapes=None):
    """One compiled graph (unknown dims unless ``shapes`` says) run on several inputs,
    against perform and NumPy."""
    first = [np.asarray(v) for v in value_sets[0]]
    shapes = shapes or [(None,) * v.ndim for v in first]
    xs = [hg.tensor(f"x{i}", s, v.dtype) for i, (s, v) in enumerate(zip(shapes, first))]
    out = fn(*xs)
    graph = hg.Graph(xs, list(out) if isinstance(out, tuple) else [out])
    compiled = hg.compile(graph)
    for values in value_sets:
        got = compiled(*values)
        got = got if isinstance(got, tuple) else (got,)
        expected = hg.evaluate(graph, *values)
        expected = expected if isinstance(expected, (list, tuple)) else [expected]
        ref = numpy_fn(*values)
        ref = tuple(ref) if isinstance(ref, tuple) else (ref,)
        for g, e, r in zip(got, expected, ref, strict=True):
            assert_same(g, e)
            assert_same(e, np.asarray(r), what=f"{fn.__name__} vs NumPy")


def test_unique_all_nan(rng):
    samples = [np.array([3.0, 1.0, np.nan, 2.0, 1.0, np.nan]), np.zeros(0), np.full(3, np.nan),
               rng.integers(-3, 3, 30).astype(np.float64)]
    samples[3][::7] = np.nan
    run_host(m.unique_all, [[s] for s in samples], np.unique_all)


def test_unique_int(rng):
    def all_three(x):
        return (*m.unique_counts(x), m.unique_values(x), *m.unique_inverse(x))

    def reference(x):
        # NumPy 2.3+ leaves unique_values unordered; compare sorted
        return (*np.unique_counts(x), np.sort(np.unique_values(x)), *np.unique_inverse(x))

    all_three.__name__ = "unique_counts_values_inverse"
    samples = [[rng.integers(-3, 4, (2, 3, 4)).astype(np.int32)], [np.zeros((2, 0, 3), np.int32)]]
    run_host(all_three, samples, reference)


def test_unique_inverse_nan_2d(rng):
    x = rng.integers(0, 4, (3, 5)).astype(np.float32)
    x[1, 2] = np.nan
    x[2, 0] = np.nan
    run_host(m.unique_inverse, [[x], [np.zeros((0, 5), np.float32)]], np.unique_inverse, [(None, 5)])


def test_setxor1d(rng):
    samples = [[rng.integers(0, 8, 10).astype(np.int32), rng.integers(4, 12, 6).astype(np.float32)],
               [np.array([1, 2], np.int32), np.array([np.nan, 1.0, np.nan], np.float32)],
               [np.zeros(0, np.int32), np.array([2.0, 2.0], np.float32)]]
    run_host(m.setxor1d, samples, np.setxor1d)


def test_errors():
    f = hg.tensor("f", (3,), "float32")
    cases = [
        (ValueError, "correlate", lambda: m.correlate(f, f, "middle")),
        (ValueError, "correlate", lambda: m.correlate(hg.tensor("a", (2, 2)), f)),
        (TypeError, "isclose", lambda: m.isclose(f, f, rtol=hg.scalar("r"))),
        (NotImplementedError, "geomspace", lambda: m.geomspace(hg.scalar("a", "complex64"), 2.0, 3)),
        (TypeError, "ldexp", lambda: m.ldexp(f, f)),
        (TypeError, "frexp", lambda: m.frexp(hg.tensor("z", (2,), "complex64"))),
        (TypeError, "lcm", lambda: m.lcm(f, 2)),
        (ValueError, "vecdot", lambda: m.vecdot(hg.scalar("s"), f)),
        (ValueError, "matvec", lambda: m.matvec(f, f)),
        (ValueError, "vecmat", lambda: m.vecmat(f, f)),
        (TypeError, "cross", lambda: m.cross(hg.tensor("b", (3,), "bool"), hg.tensor("c", (3,), "bool"))),
        (TypeError, "around", lambda: m.around(f, 1.5)),
    ]
    for exc, name, fn in cases:
        with pytest.raises(exc, match=name):
            fn()
