"""Elementwise PyTensor graphs (scalar Ops through Elemwise, Composite, casts) through the
HLOGRAPH mode against PyTensor's Python implementation: dtypes, broadcasting, 0-d and
size-0 inputs, PyTensor's output dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402

import hlograph as hg  # noqa: E402
import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import TOL, compare_hlograph_and_py  # noqa: E402


def _values(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -9
        return rng.integers(lo, 10, size=shape).astype(dt)
    v = rng.normal(size=shape) * 2
    if dt.kind == "c":
        v = v + 1j * rng.normal(size=shape)
    return v.astype(dt)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_float_math(dtype, rng):
    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    ax = abs(x) + 0.5
    outs = [
        x + y, x - y, x * y, x / y, x ** 2, ax ** y, pt.maximum(x, y), pt.minimum(x, y), -x, abs(x),
        pt.sign(x), pt.exp(x), pt.exp2(x), pt.expm1(x), pt.log(ax), pt.log2(ax), pt.log10(ax),
        pt.log1p(ax), pt.sqrt(ax), pt.sqr(x), pt.reciprocal(ax), pt.sin(x), pt.cos(x), pt.tan(x),
        pt.arcsin(x / 10), pt.arccos(x / 10), pt.arctan(x), pt.arctan2(x, y), pt.sinh(x), pt.cosh(x),
        pt.tanh(x), pt.arcsinh(x), pt.arccosh(ax + 1), pt.arctanh(x / 10), pt.deg2rad(x), pt.rad2deg(x),
        pt.floor(x), pt.ceil(x), pt.trunc(x), pt.round(x, mode="half_to_even"),
        pt.round(x, mode="half_away_from_zero"), pt.clip(x, -0.5, 0.5), pt.switch(x > 0, x, y),
        pt.sigmoid(x), pt.softplus(x), pt.log1mexp(-ax), x // y, x % y,
    ]
    xv, yv = _values(rng, (7,), dtype), _values(rng, (7,), dtype)
    xv[:3] = [0.5, -0.5, 2.5]  # ties of the two roundings
    compare_hlograph_and_py([x, y], outs, [xv, yv])


def _xlogy_family(x, ax):
    """``xlogy`` and ``xlog1py`` (PyTensor 3), or 2.x's ``xlogy0`` and ``xlogx``."""
    if hasattr(pt.special, "xlogy"):
        return [pt.special.xlogy(ax, ax), pt.special.xlog1py(x, ax)]
    from pytensor.tensor.xlogx import xlogx, xlogy0
    return [xlogy0(ax, ax), xlogx(ax)]


def test_special_functions(rng):
    """(The incomplete gamma/beta inverses, ive and kve map to hlograph's functions the
    same way; their XLA compile takes seconds each.)"""
    x = pt.vector("x")
    ax = abs(x) + 0.5
    p = pt.sigmoid(x)
    outs = [pt.erf(x), pt.erfc(x), pt.erfcx(ax), pt.erfinv(p * 1.8 - 0.9), pt.erfcinv(p),
            pt.gammaln(ax), pt.psi(ax), pt.tri_gamma(ax), pt.polygamma(2, ax), pt.gammau(ax, ax),
            pt.betainc(ax, ax + 1, p), pt.i0(x), pt.i1(x), *_xlogy_family(x, ax)]
    compare_hlograph_and_py([x], outs, [_values(rng, (6,), "float64")], rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64"])
def test_integer_math(dtype, rng):
    """PyTensor's output dtypes: ``exp`` of int8 is float32, true division float64;
    ``//`` and ``%`` floor (Python's semantics), by negative divisors too."""
    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    outs = [x + y, x * y, x // 3, x % 3, pt.exp(x), pt.sqrt(x * x + 1), x / y, pt.maximum(x, y),
            x > y, pt.eq(x, y), x & y, x | y, x ^ y, ~x, abs(x), x ** 2, pt.cast(x, "float32")]
    if np.dtype(dtype).kind == "i":
        outs += [x // -2, x % -3, -x]
    xv, yv = _values(rng, (9,), dtype), _values(rng, (9,), dtype)
    yv[yv == 0] = 1
    compare_hlograph_and_py([x, y], outs, [xv, yv])


def test_mixed_dtypes_compute_in_pytensor_dtypes(rng):
    """int32 + float32 is float64 in PyTensor (NumPy 2 would say float64 too, but int8 *
    float16 -> float16 and uint8 exp -> float32 are PyTensor's choices)."""
    i8, i32 = pt.vector("i8", dtype="int8"), pt.vector("i32", dtype="int32")
    u8, f16 = pt.vector("u8", dtype="uint8"), pt.vector("f16", dtype="float16")
    f32, f64 = pt.vector("f32", dtype="float32"), pt.vector("f64", dtype="float64")
    outs = [i32 + f32, i8 * f16, pt.exp(u8), i8 + i32, u8 - i8, f32 * f64, pt.true_div(i8, i8 + 20),
            pt.cast(f64, "int16"), pt.cast(i32, "bool"), pt.cast(f32, "complex64"), pt.cast(u8, "float16")]
    vals = [_values(rng, (5,), d) for d in ("int8", "int32", "uint8", "float16", "float32", "float64")]
    fn, res = compare_hlograph_and_py([i8, i32, u8, f16, f32, f64], outs, vals)
    assert [r.dtype for r in res[:3]] == [np.float64, np.float16, np.float32]


def test_bool_and_comparisons(rng):
    b, c = pt.vector("b", dtype="bool"), pt.vector("c", dtype="bool")
    x, i = pt.vector("x"), pt.vector("i", dtype="int64")
    outs = [b & c, b | c, pt.xor(b, c), ~b, pt.eq(b, c), x > i, x <= i, pt.neq(x, i), pt.isnan(pt.sqrt(x)),
            pt.isinf(pt.log(abs(x))), pt.isnan(i), pt.switch(b, x, i), pt.switch(i, i, -i), pt.any(b), pt.all(c)]
    xv = _values(rng, (6,), "float64")
    xv[0] = 0.0
    compare_hlograph_and_py([b, c, x, i], outs, [_values(rng, (6,), "bool"), _values(rng, (6,), "bool"), xv,
                                                 _values(rng, (6,), "int64")])


def test_complex(rng):
    z, w = pt.vector("z", dtype="complex128"), pt.vector("w", dtype="complex64")
    x = pt.vector("x")
    outs = [z + w, z * z, abs(z), pt.real(z), pt.imag(w), pt.angle(z), pt.conj(z), pt.exp(w),
            pt.complex(x, x * 2), pt.complex_from_polar(abs(x), x), z / 2]
    compare_hlograph_and_py([z, w, x], outs, [_values(rng, (4,), "complex128"), _values(rng, (4,), "complex64"),
                                              _values(rng, (4,), "float64")])


def test_broadcasting_patterns(rng):
    """Broadcastable (static 1) dims, rows, columns, 0-d values and leading new dims."""
    row, col = pt.row("row"), pt.col("col")
    m, s = pt.matrix("m"), pt.scalar("s")
    t = pt.tensor("t", shape=(None, 1, 3))
    outs = [row + col, m * row, m - col, m + s, (row + col).sum(axis=0), t + m, t * s, s * 2, pt.fill(m, s)]
    vals = [_values(rng, (1, 3), "float64"), _values(rng, (4, 1), "float64"), _values(rng, (4, 3), "float64"),
            np.float64(1.5), _values(rng, (2, 1, 3), "float64")]
    compare_hlograph_and_py([row, col, m, s, t], outs, vals)


@pytest.mark.parametrize("dtype", ["float32", "int16", "bool"])
def test_zero_d_and_size_zero(dtype, rng):
    s, e, v = pt.scalar("s", dtype=dtype), pt.matrix("e", dtype=dtype), pt.vector("v", dtype=dtype)
    two = pt.constant(np.asarray(2, dtype if dtype != "bool" else "int8"))
    outs = [s * two, e + s, e.T, v * two, pt.maximum(v, s), pt.eq(e, s), e.sum(axis=0), v.sum()]
    vals = [_values(rng, (), dtype), _values(rng, (0, 3), dtype), _values(rng, (0,), dtype)]
    fn, res = compare_hlograph_and_py([s, e, v], outs, vals)
    assert res[1].shape == (0, 3) and res[2].shape == (3, 0)


def test_composite_from_a_fused_graph(rng):
    """PyTensor's fusion (other modes) makes Composite Ops: their scalar graphs convert."""
    x, i = pt.vector("x"), pt.vector("i", dtype="int32")
    outs = [pt.exp(x) * 2 + pt.sin(x) ** 2, pt.switch(x > 0, x, 0).sum(), (i // 2 + x) * (i % 3)]
    fused = pytensor.function([x, i], outs, mode="FAST_RUN")
    assert any(type(getattr(n.op, "scalar_op", None)).__name__ == "Composite" for n in fused.maker.fgraph.apply_nodes)
    graph = hgpt.from_fgraph(fused.maker.fgraph)
    xv, iv = _values(rng, (5,), "float64"), _values(rng, (5,), "int32")
    got = hg.compile(graph)(xv, iv)
    want = fused(xv, iv)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, *TOL["float64"])


def test_runtime_values_match_for_every_call(rng):
    """One compiled function serves arguments of other lengths (None dims specialize per
    call: one conversion per combination of argument shapes)."""
    x = pt.vector("x")
    fn = pytensor.function([x], [pt.exp(x) * 2, x.sum()], mode="HLOGRAPH")
    for n in (3, 0, 8):
        xv = _values(rng, (n,), "float64")
        got = fn(xv)
        np.testing.assert_allclose(got[0], np.exp(xv) * 2, *TOL["float64"])
        np.testing.assert_allclose(got[1], xv.sum(), *TOL["float64"])
    cg = hgpt.compiled_graph(fn)
    assert cg.specialized and len(cg.conversions()) == 3
    # each is a static function: no host segment, nothing checked on the host per call
    assert all(all(t.is_static for t in c.graph.input_types) for c in cg.conversions())


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint8"])
def test_gammaln_is_exact_at_its_zeros(dtype):
    # gammaln(1) = gammaln(2) = 0 exactly, as PyTensor computes it, in float32 too
    x = pt.vector("x", dtype=dtype)
    vals = np.array([1, 2, 3, 5], dtype=dtype)
    fn, res = compare_hlograph_and_py([x], pt.gammaln(x), [vals], rtol=1e-6, atol=0)
    assert res.dtype == np.float32
    assert res[0] == 0 and res[1] == 0


def test_squeezing_a_dim_that_is_not_one_is_pytensors_error(rng):
    """A DimShuffle dropping a dim whose size (known only at run time) is not 1 raises
    PyTensor's ValueError, with the message of its C and Numba backends."""
    x = pt.tensor3("x", shape=(4, None, 5))
    out = pt.squeeze(x, axis=1)
    fn, _ = compare_hlograph_and_py([x], [out], [rng.normal(size=(4, 1, 5))])
    with pytest.raises(ValueError, match="Attempting to squeeze axes with size not equal to one"):
        fn(np.zeros((4, 2, 5)))


def test_runtime_broadcast_is_pytensors_error(rng):
    """As PyTensor's Elemwise: a dim not marked broadcastable in its type that is 1 at run
    time against another length is a ValueError, not a broadcast, for the lengths of the
    arguments and for lengths computed in the graph (an indexed read)."""
    x, y, idx, col = pt.vector("x"), pt.vector("y"), pt.lvector("idx"), pt.col("col")
    outs = [x + y, pt.exp(x) * col]
    fn, _ = compare_hlograph_and_py([x, y, col], outs, [np.ones(3), np.ones(3), np.ones((2, 1))])
    assert hgpt.compiled_graph(fn).specialized
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.ones(1), np.ones(5), np.ones((2, 1)))
    # equal lengths of 1, and dims broadcastable in their types, broadcast as in PyTensor
    compare_hlograph_and_py([x, y, col], outs, [np.ones(1), np.ones(1), rng.normal(size=(4, 1))])
    fn, _ = compare_hlograph_and_py([x, idx, y], [x[idx] + y],
                                    [rng.normal(size=10), np.array([1, 3]), rng.normal(size=2)])
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.zeros(10), np.zeros(1, dtype="int64"), np.zeros(5))


def test_runtime_broadcast_check_only_where_it_can_fail():
    """``from_pytensor`` keeps unknown dims: the run-time broadcast check is in the graph
    only where two inputs' run-time lengths can disagree (``x + y``), not against a
    length-1 constant (``x + 1``: a host check there would split every call)."""
    from hlograph.frontend.ops.assertion import Check

    x, y = pt.vector("x"), pt.vector("y")

    def checks(g):
        return [n for n in g.toposort() if isinstance(n.op, Check)]

    assert not checks(hgpt.from_pytensor([x], x + 1.0))
    assert not checks(hgpt.from_pytensor([x], pt.exp(x) * pt.ones((1,))))
    assert len(checks(hgpt.from_pytensor([x, y], x + y))) == 1
