"""The small-graph executor (runtime/vm.py, runtime/_vm.c) against each Op's ``perform``
(the NumPy reference): every instruction on random inputs (NaN and infinities, empty
and 0-d shapes, broadcasting, strided views), the results' dtypes, shapes and
ownership, what ``assemble`` refuses (``vm.Unsupported``) and how ``Program`` checks
and converts its arguments."""

import itertools
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.frontend.evaluate import perform_graph
from hlograph.frontend.ops import elemwise as ew
from hlograph.frontend.ops import indexing as ix
from hlograph.frontend.ops import linalg as la
from hlograph.runtime import vm

pytestmark = pytest.mark.skipif(not vm.AVAILABLE, reason="the executor's C extension is not built")

FLOATS = ["float64", "float32"]
INTS = ["int64", "int32"]
DTYPES = FLOATS + INTS + ["bool"]

#: (rtol, atol) per result dtype; SUM_TOL for sums and contractions (added in another order)
TOL = {np.dtype(np.float64): (1e-12, 1e-14), np.dtype(np.float32): (1e-5, 1e-6)}
SUM_TOL = {np.dtype(np.float64): (1e-12, 1e-12), np.dtype(np.float32): (1e-5, 1e-3)}
#: for casts and data movement: every value exactly (NaN where the reference has NaN)
EXACT = {np.dtype(np.float64): (0, 0), np.dtype(np.float32): (0, 0)}

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, 1e3, -1e3, 1e-3])


# --- helpers ----------------------------------------------------------------------------
def values(rng, shape, dtype, special=True):
    """Random values of ``dtype``: floats ~N(0, 3) with NaN, infinities, zeros of both
    signs, halves and large values sprinkled in (``special``); ints small, extreme and
    anywhere in the type's range; bools."""
    dt = np.dtype(dtype)
    shape = tuple(shape)
    n = math.prod(shape)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "i":
        info = np.iinfo(dt)
        full = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        small = rng.integers(-5, 6, size=n).astype(dt)
        extreme = rng.choice(np.array([info.min, info.max, 0, -1, 1], dtype=dt), size=n)
        pick = rng.integers(0, 3, size=n)
        return np.choose(pick, [full, small, extreme]).reshape(shape)
    v = rng.normal(size=n) * 3
    if special:
        mask = rng.random(n) < 0.3
        v[mask] = rng.choice(SPECIAL, size=int(mask.sum()))
    return v.astype(dt).reshape(shape)


def reference(graph, args):
    out = perform_graph(graph, [np.asarray(a) for a in args])
    return (out,) if graph.single_output else tuple(out)


def compare(actual, expected, tol=TOL, what="result"):
    """Same dtype and shape; floats within ``tol`` (NaN where the reference has NaN,
    infinities of its signs), everything else exactly."""
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != reference {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != reference {expected.shape}"
    if expected.dtype.kind == "f":
        rtol, atol = tol[expected.dtype]
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def check(graph, *args, tol=TOL, linalg_errors="nan"):
    """Runs ``graph`` on the executor and through perform: equal results (``compare``),
    each a new C-contiguous, writable array that owns its memory (shared with no
    argument and no other result), the arguments unchanged. Returns the results."""
    program = vm.assemble(graph, linalg_errors=linalg_errors)
    copies = [np.array(a, copy=True) for a in args]
    outs = program(*args)
    expected = reference(graph, args)
    assert type(outs) is tuple and len(outs) == len(expected)
    for k, (a, e) in enumerate(zip(outs, expected)):
        assert type(a) is np.ndarray, f"result {k}: {type(a)}"
        compare(a, e, tol, what=f"result {k}")
        assert a.flags.c_contiguous and a.flags.writeable and a.flags.owndata, f"result {k}: {a.flags}"
        for arg in args:
            if isinstance(arg, np.ndarray):
                assert not np.shares_memory(a, arg), f"result {k} shares an argument's memory"
    for (i, a), (j, b) in itertools.combinations(enumerate(outs), 2):
        assert not np.shares_memory(a, b), f"results {i} and {j} share memory"
    for k, (a, c) in enumerate(zip(args, copies)):
        np.testing.assert_array_equal(np.asarray(a), c, err_msg=f"argument {k} was changed")
    return outs


def run_both(build, *specs, rng, tol=TOL, kind=None):
    """``build(*inputs)`` on graph inputs of ``specs`` ((shape, dtype) pairs), checked
    on random values (``values``, or ``kind(rng, shape, dtype)``)."""
    inputs = [hg.tensor(f"x{k}", shape, dtype) for k, (shape, dtype) in enumerate(specs)]
    outs = build(*inputs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    graph = hg.Graph(inputs, outs)
    make = kind or values
    return check(graph, *[make(rng, shape, dtype) for shape, dtype in specs], tol=tol)


def constructible(cls, dtype):
    try:
        cls()(*[hg.tensor("a", (2,), dtype)] * cls.nin)
    except TypeError:
        return False
    return True


def _elemwise_cases(table):
    return [pytest.param(cls, dt, id=f"{cls.__name__}-{dt}")
            for cls in table for dt in DTYPES if constructible(cls, dt)]


def _runs(cls, dtype):
    sub = vm._UNARY.get(cls, vm._BINARY.get(cls))
    return np.dtype(dtype).kind == "f" or sub in vm._INTEGER_OK


# --- elementwise ------------------------------------------------------------------------
UNARY_SHAPES = [(), (7,), (2, 3), (0,), (3, 0, 2), (1, 4, 1)]
BINARY_SHAPES = [((), ()), ((6,), (6,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((4,), ()),
                 ((3, 1, 2), (4, 1)), ((0, 3), (1, 3)), ((2, 0), (2, 1)), ((1,), (0,))]


@pytest.mark.parametrize("cls,dtype", _elemwise_cases(vm._UNARY))
def test_unary(cls, dtype, rng):
    op = cls()
    if not _runs(cls, dtype):
        x = hg.tensor("x", (3,), dtype)
        with pytest.raises(vm.Unsupported, match=cls.__name__):
            vm.assemble(hg.Graph([x], op(x)))
        return
    for shape in UNARY_SHAPES:
        run_both(op, (shape, dtype), rng=rng)
    # on views: a transpose, a reversed and stepped slice, a broadcast
    run_both(lambda x: op(x.T), ((3, 4), dtype), rng=rng)
    run_both(lambda x: op(x[::-2, 1::2]), ((5, 6), dtype), rng=rng)
    run_both(lambda x: op(hg.broadcast_to(x, (3, 2, 4))), ((2, 1), dtype), rng=rng)
    if np.dtype(dtype).kind == "f":  # every special value, each once
        x = hg.tensor("x", SPECIAL.shape, dtype)
        check(hg.Graph([x], op(x)), SPECIAL.astype(dtype))


@pytest.mark.parametrize("cls,dtype", _elemwise_cases(vm._BINARY))
def test_binary(cls, dtype, rng):
    op = cls()
    if not _runs(cls, dtype):
        x = hg.tensor("x", (3,), dtype)
        with pytest.raises(vm.Unsupported, match=cls.__name__):
            vm.assemble(hg.Graph([x], op(x, x)))
        return
    for sa, sb in BINARY_SHAPES:
        run_both(op, (sa, dtype), (sb, dtype), rng=rng)
        run_both(op, (sb, dtype), (sa, dtype), rng=rng)
    run_both(lambda x, y: op(x.T, y[::-1]), ((3, 2), dtype), ((2, 3), dtype), rng=rng)
    run_both(lambda x: op(x, x), ((5,), dtype), rng=rng)
    if np.dtype(dtype).kind == "f":  # every pair of special values
        a, b = np.meshgrid(SPECIAL, SPECIAL)
        x, y = hg.tensor("x", a.shape, dtype), hg.tensor("y", b.shape, dtype)
        check(hg.Graph([x, y], op(x, y)), a.astype(dtype), b.astype(dtype))
        # a constant operand (a Python float adopts the dtype)
        run_both(lambda x: [op(x, hg.constant(np.asarray(1.5, dtype))),
                            op(hg.constant(np.asarray([-2.0, 0.0, 3.0], dtype)), x)], ((2, 3), dtype), rng=rng)


def test_elemwise_tables_are_tested():
    """Every op in the tables runs in the tests above, on each dtype it takes that the
    executor computes (float functions: float64 and float32)."""
    for cls in list(vm._UNARY) + list(vm._BINARY):
        running = [dt for dt in DTYPES if constructible(cls, dt) and _runs(cls, dt)]
        assert running, cls
        if not cls.logical and not issubclass(cls, (ew.BitwiseAnd, ew.BitwiseOr, ew.BitwiseXor)):
            assert set(FLOATS) <= set(running), (cls, running)


def test_builders_and_chains(rng):
    """A few graphs as users build them: NumPy-named builders, Python numbers, chains."""
    def model(x, y, z):
        return [hg.exp(x) * y + 1.0, hg.sigmoid(x - y) ** 2, hg.clip(x, -1.0, 1.0), hg.logaddexp(x, y) / 3,
                hg.where(x > y, x, hg.sqrt(hg.abs(y))), hg.maximum(z, 3) - hg.minimum(z, -2) * z,
                hg.logical_and(x > 0, z < 2), (z & 6) ^ (z | 1), hg.isnan(hg.log(x)), -hg.rsqrt(hg.square(y) + 1)]
    run_both(model, ((2, 3), "float64"), ((3,), "float64"), ((2, 1), "int64"), rng=rng)
    run_both(model, ((2, 3), "float32"), ((3,), "float32"), ((2, 1), "int32"), rng=rng)


@pytest.mark.parametrize("dtype", FLOATS)
def test_power_of_a_scalar_exponent(dtype, rng):
    """x ** 2, x ** 0.5 and x ** -1 of a scalar exponent are NumPy's x * x, sqrt(x) and
    1 / x exactly (not pow's, which may differ in the last bit; -0.0 ** 0.5 is -0.0)."""
    lim = 150 if dtype == "float64" else 18
    a = np.concatenate([SPECIAL, rng.normal(size=500) * 10.0 ** rng.uniform(-lim, lim, 500)]).astype(dtype)
    x = hg.tensor("x", a.shape, dtype)
    g = hg.Graph([x], [x ** 2, x ** 0.5, x ** -1, x ** 1, x ** 0])
    outs = check(g, a, tol=EXACT)
    for out, expected in zip(outs, reference(g, (a,))):
        np.testing.assert_array_equal(np.signbit(out) & ~np.isnan(out), np.signbit(expected) & ~np.isnan(expected))
    # an exponent array, or one broadcast along one dim only, is pow's (as NumPy's here:
    # -inf ** 0.5 is inf; NumPy's pow and the C library's may differ in the last bit)
    c = hg.constant(np.array([[2.0], [-1.0], [0.5]], dtype))
    (out, _) = check(hg.Graph([x], [hg.power(x[None, :], c), hg.power(x, hg.constant(np.full(a.shape, 2, dtype)))]), a)
    assert out[2, list(SPECIAL).index(-np.inf)] == np.inf


def test_integer_wraparound(rng):
    for dt in INTS:
        info = np.iinfo(dt)
        a = np.array([info.min, info.max, info.min, info.max, -1, info.max // 2 + 7], dt)
        b = np.array([-1, 1, info.min, info.max, info.min, 3], dt)
        x, y = hg.tensor("x", a.shape, dt), hg.tensor("y", b.shape, dt)
        g = hg.Graph([x, y], [x + y, x - y, x * y, -x, hg.abs(x), hg.square(x), hg.sign(x)])
        check(g, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_select(dtype, rng):
    for sc, sx, sy in [((), (), ()), ((5,), (5,), (5,)), ((2, 1), (3,), ()), ((), (2, 3), (2, 1)),
                       ((2, 3), (1, 3), (2, 1)), ((0, 2), (2,), ()), ((3, 1, 2), (4, 1), (1,))]:
        run_both(hg.where, (sc, "bool"), (sx, dtype), (sy, dtype), rng=rng, tol=EXACT)
    # a comparison as the condition, a transposed branch, a constant branch
    run_both(lambda x, y: hg.where(x.T > 0, x.T, y) if dtype != "bool" else hg.where(x.T, x.T, y),
             ((3, 2), dtype), ((2, 3), dtype), rng=rng, tol=EXACT)
    run_both(lambda c, x: hg.where(c, hg.constant(np.ones((1, 3), dtype)), x), ((2, 3), "bool"),
             ((3,), dtype), rng=rng, tol=EXACT)


# --- casts ------------------------------------------------------------------------------
CAST_FLOATS = np.array([0.5, -0.5, np.nan, np.inf, -np.inf, 0.0, -0.0, 1.7, -2.9, 1e10, -1e10, 3e9, 2.0 ** 31,
                        -(2.0 ** 31) - 1, 1e19, -1e19, 123456789.9, 2.0 ** 62, 1e-300, 7.0])


def _cast_values(rng, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.concatenate([CAST_FLOATS, rng.normal(size=12) * 1e3]).astype(dt)
    if dt.kind == "i":
        # 2**60 + 2**36 + 1 rounds to float32 once as 2**60 + 2**37 (through float64 twice: 2**60)
        tricky = np.array([2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 53 + 1, 2 ** 24 + 1,
                           16777217, -16777219, 2 ** 31 - 1, -(2 ** 31), 0, 1, -1], dtype=np.int64)
        info = np.iinfo(dt)
        tricky = tricky[(tricky >= info.min) & (tricky <= info.max)].astype(dt)
        return np.concatenate([tricky, values(rng, (21,), dt)])
    return values(rng, (32,), dt)


@pytest.mark.parametrize("src,dst", list(itertools.product(DTYPES, DTYPES)))
def test_cast(src, dst, rng):
    a = _cast_values(rng, src)
    x = hg.tensor("x", a.shape, src)
    y = hg.astype(x, dst)
    (out,) = check(hg.Graph([x], y), a, tol=EXACT)
    assert out.dtype == np.dtype(dst)
    # of a view, and of a value the program computes
    x2 = hg.tensor("x", (4, 3), src)
    check(hg.Graph([x2], [hg.astype(x2.T[::-1], dst), hg.astype(hg.maximum(x2, x2), dst)]),
          _cast_values(rng, src)[:12].reshape(4, 3), tol=EXACT)


def test_cast_to_bool():
    for src in FLOATS:
        x = hg.tensor("x", (6,), src)
        (out,) = vm.assemble(hg.Graph([x], hg.astype(x, "bool")))(
            np.array([0.5, np.nan, -0.0, 0.0, -np.inf, 1e-30], src))
        np.testing.assert_array_equal(out, [True, True, False, False, True, True])


# --- reductions -------------------------------------------------------------------------
REDUCTIONS = {"sum": hg.sum, "prod": hg.prod, "max": hg.max, "min": hg.min, "all": hg.all, "any": hg.any}
AXES = [None, 0, 1, -1, 2, (0, 2), (-1, -3), (1, 2), (), (0, 1, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction(name, dtype, rng):
    fn = REDUCTIONS[name]
    for axis, keepdims in itertools.product(AXES, (False, True)):
        run_both(lambda x: fn(x, axis=axis, keepdims=keepdims), ((3, 4, 5), dtype), rng=rng, tol=SUM_TOL)
    # a view (transposed, stepped), a 0-d input, a single element
    run_both(lambda x: [fn(x.T[::2], axis=0), fn(x[::-1], axis=(0, 1), keepdims=True)], ((5, 4), dtype),
             rng=rng, tol=SUM_TOL)
    run_both(lambda x: [fn(x), fn(x, keepdims=True)], ((), dtype), rng=rng, tol=SUM_TOL)
    run_both(lambda x: [fn(x, axis=1), fn(hg.broadcast_to(x, (3, 1, 4)), axis=(0, 2))], ((1, 1), dtype),
             rng=rng, tol=SUM_TOL)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_empty(dtype, rng):
    for name in ("sum", "prod", "all", "any"):
        fn = REDUCTIONS[name]
        for shape, axis in [((0,), None), ((0, 3), 0), ((0, 3), 1), ((2, 0, 4), (0, 1)), ((2, 0, 4), -1),
                            ((2, 0, 4), None)]:
            for keepdims in (False, True):
                run_both(lambda x: fn(x, axis=axis, keepdims=keepdims), (shape, dtype), rng=rng)
    # an extremum over non-empty axes of an empty value; over an empty axis: refused at build
    for name in ("max", "min"):
        fn = REDUCTIONS[name]
        run_both(lambda x: [fn(x, axis=1), fn(x, axis=(1, 2), keepdims=True)], ((0, 3, 2), dtype), rng=rng)
        with pytest.raises(ValueError):
            fn(hg.tensor("x", (0, 3), dtype), axis=0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_extrema_propagate_nan(dtype):
    a = np.array([[1.0, np.nan, 3.0, -np.inf], [np.nan, -np.inf, 2.0, 5.0], [-np.inf, -np.inf, -np.inf, -np.inf],
                  [np.inf, 0.0, -0.0, np.nan], [4.0, 4.0, 4.0, 4.0]], dtype)
    x = hg.tensor("x", a.shape, dtype)
    outs = check(hg.Graph([x], [hg.max(x, axis=1), hg.min(x, axis=1), hg.max(x, axis=0), hg.min(x, axis=0),
                                hg.max(x), hg.maximum(x[0], x[1]), hg.minimum(x[3], x[0])]), a)
    np.testing.assert_array_equal(np.isnan(outs[0]), [True, True, False, True, False])
    assert np.isnan(outs[4])


def test_reduction_dtypes():
    """sum and prod of ints and bools accumulate in int64; max/min keep the dtype."""
    for dt in ("int32", "bool"):
        x = hg.tensor("x", (3, 4), dt)
        g = hg.Graph([x], [hg.sum(x, axis=0), hg.prod(x), hg.max(x, axis=1), hg.any(x, axis=0)])
        outs = vm.assemble(g)(np.ones((3, 4), dt))
        assert [o.dtype for o in outs] == [np.int64, np.int64, np.dtype(dt), np.bool_]
    x = hg.tensor("x", (3,), "int32")
    big = np.full(3, np.iinfo(np.int32).max, np.int32)
    (s,) = check(hg.Graph([x], hg.sum(x)), big)  # no int32 wrap-around: int64
    assert s == 3 * int(np.iinfo(np.int32).max)


def test_long_float32_sums(rng):
    """float32 sums, products and contractions of many terms accumulate in double and
    round once: as accurate as NumPy's pairwise sums (a float32 accumulator would drift)."""
    n = vm.MAX_ELEMENTS
    x = hg.tensor("x", (n,), "float32")
    a, b = hg.tensor("a", (1, n), "float32"), hg.tensor("b", (n, 1), "float32")
    r = hg.tensor("r", (256, 256), "float32")
    g = hg.Graph([x, a, b, r], [hg.sum(x), (a @ b)[0, 0], hg.softmax(x)[:3], hg.log_softmax(x)[-3:],
                                hg.prod(1 + x[:2048] * 1e-3), hg.sum(r, axis=0), hg.einsum("ij,ij->j", r, r)])
    for v in (np.full(n, 0.1, np.float32), values(rng, (n,), "float32", special=False)):
        args = (v, v[None], np.ones((n, 1), np.float32), v.reshape(256, 256))
        outs = vm.assemble(g)(*args)
        exact = v.astype(np.float64).sum()
        np.testing.assert_allclose(outs[0], exact, rtol=1e-7)
        np.testing.assert_allclose(outs[1], exact, rtol=1e-7)
        for o, e in zip(outs, reference(g, args)):
            compare(o, e, {np.dtype(np.float32): (2e-5, 1e-9)})  # (BLAS sdot is less accurate)


# --- contractions -----------------------------------------------------------------------
def _dot_cases():
    mm = hg.matmul
    return [
        ("matrix", mm, (3, 4), (4, 5)),
        ("vector-matrix", mm, (4,), (4, 5)),
        ("matrix-vector", mm, (3, 4), (4,)),
        ("vector-vector", mm, (4,), (4,)),
        ("batched", mm, (2, 3, 4), (2, 4, 5)),
        ("broadcast-batch", mm, (2, 1, 3, 4), (5, 4, 2)),
        ("size-1-batch", mm, (1, 3, 4), (2, 4, 5)),
        ("matrix-batch", mm, (3, 4), (2, 4, 5)),
        ("batch-vector", mm, (2, 3, 4), (4,)),
        ("empty-contraction", mm, (3, 0), (0, 2)),
        ("empty-free", mm, (0, 4), (4, 2)),
        ("size-1", mm, (1, 1), (1, 1)),
        ("dot-nd", hg.dot, (2, 3, 4), (5, 4, 6)),
        ("dot-scalar", hg.dot, (), (3,)),
        ("tensordot-2", lambda a, b: hg.tensordot(a, b, axes=2), (3, 4, 5), (4, 5, 2)),
        ("tensordot-pairs", lambda a, b: hg.tensordot(a, b, axes=([0, 2], [2, 0])), (3, 4, 5), (5, 2, 3)),
        ("einsum-ij-jk", lambda a, b: hg.einsum("ij,jk->ik", a, b), (3, 4), (4, 2)),
        ("einsum-batch-transposed", lambda a, b: hg.einsum("bij,bkj->bik", a, b), (2, 3, 4), (2, 5, 4)),
        ("einsum-full", lambda a, b: hg.einsum("ij,ij->", a, b), (3, 4), (3, 4)),
        ("einsum-full-transposed", lambda a, b: hg.einsum("ij,ij->", a.T, b), (6, 5), (5, 6)),
        ("einsum-two-contracted", lambda a, b: hg.einsum("ijk,ijk->k", a.T, b), (3, 6, 5), (5, 6, 3)),
        ("tensordot-transposed", lambda a, b: hg.tensordot(a.T, b, axes=2), (6, 5), (5, 6)),
        ("einsum-outer", lambda a, b: hg.einsum("i,j->ij", a, b), (3,), (4,)),
        ("einsum-ijk-jil", lambda a, b: hg.einsum("ijk,jil->kl", a, b), (2, 3, 4), (3, 2, 5)),
        ("outer", hg.outer, (3,), (4,)),
        ("general", hg.dot_general_op(((0,), (1,)), ((2,), (0,))), (4, 3, 2), (2, 4, 5)),
        ("general-broadcast", hg.dot_general_op(((2,), (1,)), ((0,), (0,))), (1, 3, 4), (5, 4, 2)),
        ("general-uneven-batch", hg.dot_general_op(((3,), (1,)), ((0, 1), (0,))), (2, 3, 4, 5), (3, 5, 6)),
        ("general-no-contraction", hg.dot_general_op(((), ()), ((1,), (0,))), (3, 2), (2, 4)),
        ("transposed", lambda a, b: a.T @ b[::-1], (4, 3), (4, 2)),
        ("stepped", lambda a, b: a[::2] @ b[:, ::-1], (5, 3), (3, 4)),
    ]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("case", _dot_cases(), ids=lambda c: c[0])
def test_dot(case, dtype, rng):
    _, fn, sa, sb = case
    run_both(fn, (sa, dtype), (sb, dtype), rng=rng, tol=SUM_TOL,
             kind=lambda rng, s, d: values(rng, s, d, special=False))
    if np.dtype(dtype).kind == "f":  # NaN and infinities too
        run_both(fn, (sa, dtype), (sb, dtype), rng=rng, tol=SUM_TOL)


def _sequential_matmul(a, b):
    """a @ b with each element's terms added in order of the contracted index."""
    out = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]))
    for k in range(a.shape[-1]):
        out = out + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return out


def test_dot_adds_in_order(rng):
    """Each element of a float64 contraction adds its terms in order, whichever loop the
    layout runs (a row of scalar-times-row terms, four at a time, or four dot products):
    exactly a sequential sum."""
    for m, k, n in [(5, 7, 9), (1, 4, 3), (8, 9, 1), (6, 1, 5), (13, 17, 11)]:
        a, b = rng.normal(size=(m, k)), rng.normal(size=(k, n))
        at, bt = hg.tensor("at", (k, m), "float64"), hg.tensor("bt", (n, k), "float64")
        x, y = hg.tensor("a", (m, k), "float64"), hg.tensor("b", (k, n), "float64")
        g = hg.Graph([x, y, at, bt], [x @ y, at.T @ y, x @ bt.T, at.T @ bt.T, y.T @ x.T])
        outs = vm.assemble(g)(a, b, a.T.copy(), b.T.copy())
        expected = _sequential_matmul(a, b)
        for out in outs[:4]:
            np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(outs[4], _sequential_matmul(b.T, a.T))
    a, b = rng.normal(size=(3, 5, 6)), rng.normal(size=(6, 7))
    x, y = hg.tensor("a", a.shape, "float64"), hg.tensor("b", b.shape, "float64")
    (out,) = vm.assemble(hg.Graph([x, y], x @ y))(a, b)
    np.testing.assert_array_equal(out, _sequential_matmul(a, b))


@pytest.mark.parametrize("case", _dot_cases(), ids=lambda c: c[0])
def test_dot_builders_make_dot_general(case):
    """Each case above is a DotGeneral node the executor contracts (not a fallback)."""
    _, fn, sa, sb = case
    a, b = hg.tensor("a", sa, "float64"), hg.tensor("b", sb, "float64")
    nodes = hg.Graph([a, b], fn(a, b)).toposort()
    assert any(isinstance(n.op, la.DotGeneral) for n in nodes)


def test_dot_of_bools_is_unsupported():
    a = hg.tensor("a", (2, 3), "bool")
    b = hg.tensor("b", (3, 2), "bool")
    y = la.DotGeneral(((1,), (0,)))(a, b)
    with pytest.raises(vm.Unsupported, match="bool"):
        vm.assemble(hg.Graph([a, b], y))


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax(dtype, rng):
    for fn in (hg.softmax, hg.log_softmax):
        for axis in (-1, 0, (0, 2), None):
            run_both(lambda x: fn(x, axis=axis), ((3, 4, 5), dtype), rng=rng, tol=SUM_TOL,
                     kind=lambda rng, s, d: values(rng, s, d, special=False))
        # NaN and infinities (rows of -inf, +inf), a view, an empty axis
        a = np.array([[1.0, np.nan, 0.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0], [1e3, -1e3, 0.0],
                      [-np.inf, 0.0, 1.0]], dtype)
        x = hg.tensor("x", a.shape, dtype)
        check(hg.Graph([x], [fn(x, axis=1), fn(x, axis=0), fn(x.T[::-1], axis=1)]), a, tol=SUM_TOL)
        run_both(lambda x: [fn(x, axis=1), fn(x, axis=0)], ((0, 3), dtype), rng=rng)


# --- cumulative sums and products -----------------------------------------------------------
CUMULATIVE = {"cumsum": hg.cumsum, "cumprod": hg.cumprod}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", CUMULATIVE)
def test_cumulative(name, dtype, rng):
    """cumsum and cumprod along each axis (negative ones too) and of the flattened input
    (axis=None: 1-d, n-d, 0-d), of views, empty: as NumPy's, exactly (each element
    accumulates in order; float32 rounds at each step, ints and bool give int64)."""
    fn = CUMULATIVE[name]
    for axis in (0, 1, 2, -1, -2, -3):
        run_both(lambda x: fn(x, axis=axis), ((3, 4, 5), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [fn(x), fn(x, axis=0), fn(x, axis=-1)], ((7,), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [fn(x), fn(x.T), fn(x[::-1, ::2]), fn(x.T[1:], axis=0), fn(x[:, ::-1], axis=1),
                        fn(hg.broadcast_to(x[:1], (3, 4)), axis=0), fn(hg.broadcast_to(x[:, :1], (3, 4)), axis=1)],
             ((3, 4), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [fn(x), fn(hg.reshape(x, (1, 1)), axis=1)], ((), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [fn(x, axis=0), fn(x, axis=1), fn(x)], ((0, 3), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [fn(x, axis=1), fn(x)], ((2, 0), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: fn(x, axis=1), ((4, 1), dtype), rng=rng, tol=EXACT)
    (out,) = run_both(lambda x: fn(x, axis=0), ((3,), dtype), rng=rng, tol=EXACT)
    assert out.dtype == (np.dtype(np.int64) if dtype in ("int32", "bool") else np.dtype(dtype))
    if dtype != "bool":  # used by other instructions; a cast first
        run_both(lambda x: fn(x * 2, axis=1)[::-1] - x, ((3, 4), dtype), rng=rng, tol=EXACT)
        run_both(lambda x: fn(x, axis=0, dtype="float64"), ((5, 2), dtype), rng=rng, tol=EXACT)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cumulative_special_values(dtype):
    """NaN and infinities carry on; a leading -0.0 stays -0.0 (NumPy starts from the first
    element, not from 0); float32 sums round at each step, as NumPy's."""
    a = np.array([-0.0, -0.0, 1.0, np.inf, -np.inf, 2.0, np.nan, 3.0], dtype)
    x = hg.tensor("x", a.shape, dtype)
    g = hg.Graph([x], [hg.cumsum(x), hg.cumprod(x), hg.cumprod(x[2:]), hg.cumsum(x[::-1])])
    outs = check(g, a, tol=EXACT)
    for out, expected in zip(outs, reference(g, (a,))):  # the signs of zeros (not of NaNs)
        np.testing.assert_array_equal(np.signbit(out) & ~np.isnan(out), np.signbit(expected) & ~np.isnan(expected))
    assert np.signbit(outs[0][:2]).all() and list(np.signbit(outs[1][:2])) == [True, False]
    np.testing.assert_array_equal(outs[0][:6], [0.0, 0.0, 1.0, np.inf, np.nan, np.nan])
    n = vm.MAX_ELEMENTS
    y = hg.tensor("y", (n,), dtype)
    (out,) = check(hg.Graph([y], hg.cumsum(y)), np.full(n, 0.1, dtype), tol=EXACT)
    if dtype == "float32":  # (a float64 running sum rounded once would be 6553.6)
        assert out[-1] != np.float32(n * 0.1)


def test_cumulative_integer_wraparound():
    for dt in INTS:
        info = np.iinfo(dt)
        a = np.array([info.max, info.max, info.min, -1, 3, info.max], dt)
        x = hg.tensor("x", a.shape, dt)
        check(hg.Graph([x], [hg.cumsum(x), hg.cumprod(x), hg.cumsum(hg.astype(x, "int64") * 2 ** 40)]), a)


# --- linear algebra -----------------------------------------------------------------------
#: (rtol, atol) of the factorizations and solves (float32: the executor computes in double,
#: LAPACK in float32)
LINALG_TOL = {np.dtype(np.float64): (1e-10, 1e-12), np.dtype(np.float32): (2e-4, 2e-5)}


def _spd(rng, shape, dtype, read_lower=True):
    """Well-conditioned symmetric positive-definite matrices of ``shape`` (..., n, n), with
    noise in the triangle a factorization does not read."""
    n = shape[-1]
    m = rng.normal(size=shape)
    a = m @ np.swapaxes(m, -1, -2) / max(n, 1) + np.eye(n)
    noise = rng.normal(size=shape) * 10
    a = a + (np.triu(noise, 1) if read_lower else np.tril(noise, -1))
    return a.astype(dtype)


def _triangular(rng, shape, dtype):
    """Well-conditioned matrices for a triangular solve: a diagonal of magnitude 1.5-2.5 and
    either sign, small entries elsewhere (the triangle not read is noise too)."""
    n = shape[-1]
    diag = (1.5 + rng.random(shape[:-1])) * np.where(rng.random(shape[:-1]) < 0.5, -1.0, 1.0)
    a = rng.normal(size=shape) * (0.5 / max(n, 1) ** 0.5) + diag[..., None] * np.eye(n)
    return a.astype(dtype)


def check_same_error(graph, *args, tol=TOL, error=np.linalg.LinAlgError):
    """``check`` with ``linalg_errors="raise"``, or when perform raises ``error``: the
    executor raises it too, with perform's message. Returns the results, or the message."""
    try:
        reference(graph, args)
    except error as e:
        with pytest.raises(error) as info:
            vm.assemble(graph, linalg_errors="raise")(*args)
        assert str(info.value) == str(e)
        return str(e)
    return check(graph, *args, tol=tol, linalg_errors="raise")


def check_as_compiled(graph, *args, tol=TOL):
    """The executor's results (``linalg_errors="nan"``) against the compiled function's
    (XLA's): where perform raises LinAlgError, the non-finite values compiled code gives."""
    outs = vm.assemble(graph)(*args)
    expected = hg.compile(graph, pipeline="O0")(*args)
    expected = (expected,) if graph.single_output else tuple(expected)
    for k, (a, e) in enumerate(zip(outs, expected)):
        compare(a, e, tol, what=f"result {k}")
    return outs


CHOLESKY_SHAPES = [(1, 1), (2, 2), (5, 5), (3, 4, 4), (2, 1, 3, 3), (0, 0), (0, 3, 3), (2, 0, 0), (40, 40)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
def test_cholesky(upper, dtype, rng):
    """numpy.linalg.cholesky: one triangle read (the other is noise here), stacks, 1x1,
    empty matrices and stacks; of views and computed values."""
    for shape in CHOLESKY_SHAPES:
        x = hg.tensor("a", shape, dtype)
        check(hg.Graph([x], hg.cholesky(x, upper=upper)), _spd(rng, shape, dtype, not upper), tol=LINALG_TOL)
    x = hg.tensor("a", (2, 4, 4), dtype)
    m = hg.tensor("m", (4, 6), dtype)
    g = hg.Graph([x, m], [hg.cholesky(hg.transpose(x, (0, 2, 1)), upper=not upper),
                          hg.cholesky(hg.transpose(x[::-1, ::-1, ::-1], (0, 2, 1)), upper=upper),
                          hg.cholesky(m @ m.T + hg.eye(4, dtype=dtype), upper=upper) * 2])
    check(g, _spd(rng, (2, 4, 4), dtype, not upper), values(rng, (4, 6), dtype, special=False), tol=LINALG_TOL)


NOT_POSITIVE_DEFINITE = {  # (cases by shape: NaN and infinities among them)
    1: [[[0.0]], [[-0.0]], [[-1e-300]], [[np.inf]], [[np.nan]], [[-np.inf]], [[1.0]]],
    2: [[[1.0, 2.0], [2.0, 1.0]], np.zeros((2, 2)), [[1.0, 1.0], [1.0, 1.0]], [[4.0, np.nan], [np.nan, 4.0]],
        [[4.0, 0.0], [np.nan, 4.0]], [[np.nan, 0.0], [0.0, 4.0]], [[4.0, 0.0], [np.inf, 4.0]],
        [[4.0, 1.0], [1.0, np.inf]], [[4.0, 2.0], [2.0, 5.0]]],
    3: [-np.eye(3), [[1.0, 0.5, 0.5], [0.5, 1.0, 0.99], [0.5, 0.99, 1.0]], [[4.0, 2.0, 0.0], [2.0, -3.0, 1.0],
                                                                            [0.0, 1.0, 5.0]], np.eye(3)],
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
def test_cholesky_not_positive_definite(upper, dtype):
    """A pivot that is not positive makes that matrix' factor NaN (its other triangle 0),
    as compiled code does; with ``linalg_errors="raise"`` it raises perform's
    numpy.linalg.LinAlgError (for the whole stack). A NaN pivot is no failure: NaNs from
    it on, as NumPy's LAPACK and compiled code give."""
    outcomes = set()
    for n, cases in NOT_POSITIVE_DEFINITE.items():
        stack = np.asarray(cases, dtype)
        stack = np.swapaxes(stack, -1, -2).copy() if upper else stack
        x = hg.tensor("a", stack.shape, dtype)
        g = hg.Graph([x], hg.cholesky(x, upper=upper))
        # (symmetric for compiled code: its upper factor reads the lower triangle, NumPy's
        # and the executor's the upper one)
        lower_part = np.tril(np.swapaxes(stack, -1, -2) if upper else stack)
        symmetric = lower_part + np.swapaxes(np.tril(lower_part, -1), -1, -2)
        check_as_compiled(g, symmetric, tol=LINALG_TOL)
        (out,) = vm.assemble(g)(stack)
        for k, a in enumerate(stack):
            y = hg.tensor("a", a.shape, dtype)
            got = check_same_error(hg.Graph([y], hg.cholesky(y, upper=upper)), a, tol=LINALG_TOL)
            if isinstance(got, str):  # the failures: all NaN in the factor's triangle
                outcomes.add("raised")
                tri = np.tri(n, dtype=bool)
                assert np.isnan(out[k][tri.T if upper else tri]).all()
                assert (out[k][~(tri.T if upper else tri)] == 0).all()
            else:
                outcomes.add("nan" if np.isnan(got[0]).any() else "ok")
                compare(out[k], got[0], LINALG_TOL)
    assert outcomes == {"raised", "nan", "ok"}
    # a NaN in a larger matrix (its NaNs where LAPACK's are)
    big = _spd(np.random.default_rng(0), (40, 40), dtype, not upper)
    big[25, 17] = big[17, 25] = np.nan
    x = hg.tensor("a", big.shape, dtype)
    for mode in ("nan", "raise"):
        (out,) = check(hg.Graph([x], hg.cholesky(x, upper=upper)), big, tol=LINALG_TOL, linalg_errors=mode)
        assert 0 < np.isnan(out).sum() < out.size


TRSM_SHAPES = [((1, 1), (1,)), ((4, 4), (4,)), ((4, 4), (4, 3)), ((4, 4), (4, 1)), ((3, 4, 4), (4,)),
               ((3, 4, 4), (3, 4, 2)), ((4, 4), (2, 4, 2)), ((2, 1, 3, 3), (4, 3, 1)), ((0, 0), (0,)),
               ((0, 0), (0, 2)), ((3, 3), (3, 0)), ((0, 3, 3), (3,)), ((40, 40), (40, 40)), ((40, 40), (40,))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("unit", [False, True], ids=["", "unit"])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
def test_solve_triangular(lower, trans, unit, dtype, rng):
    """scipy.linalg.solve_triangular: one triangle read (the other is noise), transposed,
    a unit diagonal; b a vector or a matrix; batch dims broadcast; 1x1 and empty."""
    for sa, sb in TRSM_SHAPES:
        a, b = hg.tensor("a", sa, dtype), hg.tensor("b", sb, dtype)
        y = hg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
        check(hg.Graph([a, b], y), _triangular(rng, sa, dtype), values(rng, sb, dtype, special=False), tol=LINALG_TOL)


def test_solve_triangular_of_views(rng):
    a, b = hg.tensor("a", (2, 5, 5), "float64"), hg.tensor("b", (5, 3), "float64")
    g = hg.Graph([a, b], [hg.solve_triangular(hg.transpose(a, (0, 2, 1)), b[::-1], lower=True),
                          hg.solve_triangular(a[1, ::-1, ::-1], b.T[0], trans=1),
                          hg.solve_triangular(a[0], hg.broadcast_to(b[:, :1], (5, 4)), lower=True) + 1,
                          hg.solve_triangular(a * 2, hg.exp(b), unit_diagonal=True)])
    check(g, _triangular(rng, (2, 5, 5), "float64"), values(rng, (5, 3), "float64", special=False), tol=LINALG_TOL)


@pytest.mark.parametrize("dtype", FLOATS)
def test_solve_triangular_singular(dtype):
    """A zero on the diagonal divides by zero (infinities and NaNs, as compiled code);
    with ``linalg_errors="raise"`` it raises LinAlgError naming it, as scipy's trtrs, for
    any triangle and trans, not with unit_diagonal, nor when b is empty. NaN and
    infinities give LAPACK's NaNs and infinities."""
    nan, inf = np.nan, np.inf
    singular = np.array([[2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 3.0]], dtype)
    cases = np.array([singular, singular.T, np.diag([1.0, 1.0, -0.0]), np.diag([0.0, 0.0, 0.0]),
                      [[nan, 0, 0], [1, 1, 0], [0, 1, 1]], [[2, 0, 0], [inf, 1, 0], [0, 0, 1]],
                      [[inf, 0, 0], [1, 2, 0], [1, 1, 1]], [[1, 0, 0], [nan, 1, 0], [1, 1, nan]], np.eye(3)], dtype)
    b = np.array([0.0, 1.0, 2.0], dtype)
    a_, b_ = hg.tensor("a", (3, 3), dtype), hg.tensor("b", (3,), dtype)
    stack_, bs_ = hg.tensor("a", cases.shape, dtype), hg.tensor("b", (len(cases), 3, 2), dtype)
    bs = np.stack([np.stack([b, b[::-1]], axis=1)] * len(cases))
    for lower, trans in itertools.product([True, False], [0, 1, 2]):
        check_as_compiled(hg.Graph([stack_, bs_], [hg.solve_triangular(stack_, bs_, trans=trans, lower=lower),
                                                   hg.solve_triangular(stack_, bs_[..., :1], trans=trans,
                                                                       lower=lower)]), cases, bs, tol=LINALG_TOL)
        g = hg.Graph([a_, b_], hg.solve_triangular(a_, b_, trans=trans, lower=lower))
        for a in cases[:4]:
            assert check_same_error(g, a, b).startswith("singular matrix: resolution failed at diagonal")
        for a in cases[4:]:
            check_same_error(g, a if lower else a.T.copy(), b, tol=LINALG_TOL)
        gu = hg.Graph([a_, b_], hg.solve_triangular(a_, b_, trans=trans, lower=lower, unit_diagonal=True))
        for mode in ("nan", "raise"):
            check(gu, singular, b, tol=LINALG_TOL, linalg_errors=mode)
    # the first singular matrix of a stack; an empty right-hand side is not checked
    a_, b_ = hg.tensor("a", (3, 3, 3), dtype), hg.tensor("b", (3, 2), dtype)
    stack = np.stack([np.eye(3), singular, np.diag([1.0, 0.0, 0.0])]).astype(dtype)
    g = hg.Graph([a_, b_], hg.solve_triangular(a_, b_, lower=True))
    assert check_same_error(g, stack, np.ones((3, 2), dtype)).endswith("diagonal 1")
    (out,) = vm.assemble(g)(stack, np.ones((3, 2), dtype))
    assert np.isfinite(out[0]).all() and not np.isfinite(out[1]).all() and not np.isfinite(out[2]).all()
    e = hg.tensor("e", (3, 0), dtype)
    check(hg.Graph([a_, e], hg.solve_triangular(a_, e, lower=True)), stack, np.zeros((3, 0), dtype),
          linalg_errors="raise")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
def test_cho_solve(lower, dtype, rng):
    """scipy.linalg.cho_solve((c, lower), b) from a factor (the other triangle is noise);
    a zero on its diagonal gives infinities and NaNs (potrs checks nothing), as perform."""
    for sa, sb in TRSM_SHAPES:
        c, b = hg.tensor("c", sa, dtype), hg.tensor("b", sb, dtype)
        factor = np.abs(_triangular(rng, sa, dtype))
        check(hg.Graph([c, b], hg.cho_solve((c, lower), b)), factor, values(rng, sb, dtype, special=False),
              tol=LINALG_TOL)
    c, b = hg.tensor("c", (3, 3), dtype), hg.tensor("b", (3,), dtype)
    g = hg.Graph([c, b], hg.cho_solve((c, lower), b))
    for f in ([[1, 0, 0], [2, 0, 0], [0, 1, 1]], [[np.nan, 0, 0], [1, 1, 0], [0, 0, 1]], [[-0.0, 0, 0], [1, 1, 0],
                                                                                          [0, 0, 1]]):
        f = np.asarray(f, dtype)
        (out,) = check(g, f if lower else f.T.copy(), np.array([0.0, 1.0, 2.0], dtype), tol=LINALG_TOL)
        assert not np.isfinite(out).all()


def _marginal_gp(n):
    """A marginal Gaussian process' log-density (ExpQuad kernel plus noise on the diagonal)
    and its gradient in (eta, ls, sigma)."""
    x, y = hg.tensor("x", (n,), "float64"), hg.tensor("y", (n,), "float64")
    eta, ls, sigma = (hg.tensor(name, (), "float64") for name in ("eta", "ls", "sigma"))
    d = x[:, None] - x[None, :]
    k = eta ** 2 * hg.exp(-0.5 * d ** 2 / ls ** 2) + sigma ** 2 * hg.eye(n)
    chol = hg.cholesky(k)
    alpha = hg.solve_triangular(chol, y, lower=True)
    logp = -0.5 * alpha @ alpha - hg.sum(hg.log(hg.diagonal(chol))) - 0.5 * n * np.log(2 * np.pi)
    return hg.Graph([x, y, eta, ls, sigma], [logp, *hg.grad(logp, [eta, ls, sigma])])


def test_gaussian_process_log_density_and_gradient(rng):
    """The log-density of a marginal GP on 50 points and its gradient run on the
    executor (Cholesky, triangular solves, the diagonal, masks) as perform computes them."""
    g = _marginal_gp(50)
    program = vm.assemble(g)
    x = np.sort(rng.uniform(0, 10, 50))
    y = np.sin(x) + 0.1 * rng.normal(size=50)
    for params in [(1.3, 1.7, 0.4), (0.5, 0.3, 1.2), (2.0, 4.0, 0.05)]:
        check(g, x, y, *map(np.float64, params), tol={np.dtype(np.float64): (1e-9, 1e-9)})
    # a kernel that is not positive definite: NaN, as compiled code (or perform's LinAlgError)
    assert all(np.isnan(out) for out in program(x, y, 0.0, 1.0, 0.0))
    assert check_same_error(g, x, y, *map(np.float64, (0.0, 1.0, 0.0))) == "Matrix is not positive definite"


def test_linalg_errors_setting():
    x = hg.tensor("x", (2, 2), "float64")
    with pytest.raises(ValueError, match="linalg_errors"):
        vm.assemble(hg.Graph([x], hg.cholesky(x)), linalg_errors="ignore")


# --- shapes and views -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape(dtype, rng):
    spec = ((3, 4), dtype)
    run_both(lambda x: [x.T.reshape(12), x.T.reshape((2, 6)), hg.reshape(x.T, (-1, 3)), x.reshape((2, 2, 3)),
                        x[1:3].reshape(8), x[:, 1:3].reshape(-1), x[::2].reshape((2, 2, 2)),
                        x[::-1, ::-1].reshape(12), hg.reshape(x[1], (2, 2)), x[None, 1:2].reshape(4)],
             spec, rng=rng, tol=EXACT)
    # reshapes of broadcasts, of 0-d and empty values, as operands of other instructions
    run_both(lambda y: [hg.broadcast_to(y, (3, 4)).reshape(12), hg.broadcast_to(y, (2, 3, 2)).T.reshape((4, 3))],
             ((3, 1), dtype), rng=rng, tol=EXACT)
    run_both(lambda s: [hg.reshape(s, (1, 1)), hg.reshape(hg.reshape(s, (1,)), ())], ((), dtype), rng=rng, tol=EXACT)
    run_both(lambda e: [hg.reshape(e, (3, 0)), hg.reshape(e.T, (0,))], ((0, 3), dtype), rng=rng, tol=EXACT)
    if dtype != "bool":
        run_both(lambda x: x.T.reshape(12) * x.reshape(12) + x.T.reshape((4, 3))[::-1].reshape(12), spec,
                 rng=rng, tol=EXACT)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose_broadcast_expand_squeeze(dtype, rng):
    run_both(lambda x: [hg.transpose(x, (2, 0, 1)), x.T, hg.transpose(x, (1, 0, 2))[::-1, 1:], x.T.T],
             ((2, 3, 4), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [x.T, hg.transpose(hg.expand_dims(x, 0), (2, 0, 1))], ((1, 3), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [hg.broadcast_to(x, (2, 3)), hg.broadcast_to(x, (4, 2, 3)), hg.broadcast_to(x, (0, 3)),
                        hg.broadcast_to(x.reshape((3, 1)), (3, 5)).T], ((3,), dtype), rng=rng, tol=EXACT)
    run_both(lambda s: [hg.broadcast_to(s, (2, 2)), hg.broadcast_to(s, ())], ((), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [hg.expand_dims(x, 0), hg.expand_dims(x, -1), hg.expand_dims(x, (0, 2)),
                        hg.expand_dims(x, (-1, -3)), hg.expand_dims(x.T, 1)], ((2, 3), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [hg.squeeze(x), hg.squeeze(x, 0), hg.squeeze(x, -2), hg.squeeze(x, (0, 2)),
                        hg.squeeze(x.T, 1)], ((1, 3, 1, 2), dtype), rng=rng, tol=EXACT)


SUBTENSORS = [
    (1,), (-1,), (slice(None, None, 2),), (slice(None, None, -1),), (slice(-3, -1),), (slice(4, 0, -2),),
    (slice(1, 1),), (None, slice(None), 1), (Ellipsis, -1), (2, slice(None, None, -3)), (slice(10, None),),
    (slice(-100, 2),), (slice(None), None, slice(3, None)), (1, 2), (-5, -6),
    (slice(None, None, 7), slice(5, None, -4)),
    (slice(3, 1), slice(None, None, -1)), (Ellipsis, None),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_subtensor(dtype, rng):
    run_both(lambda x: [x[i] for i in SUBTENSORS], ((5, 6), dtype), rng=rng, tol=EXACT)
    # of views: a transpose, a slice of a slice, a broadcast; a 0-d input
    run_both(lambda x: [x.T[1:, ::-1], x[::2][::-1, 1], x[1:4, ::-2][1:, None, :1],
                        hg.broadcast_to(x[0], (3, 6))[::2, 5:1:-1]], ((5, 6), dtype), rng=rng, tol=EXACT)
    run_both(lambda s: [s[None], s[...], s[None, None][0]], ((), dtype), rng=rng, tol=EXACT)
    run_both(lambda x: [x[2:], x[-1], x[::-1]], ((3, 0), dtype), rng=rng, tol=EXACT)


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate(dtype, rng):
    for axis in (0, 1, 2, -1, -3):
        shapes = []
        for k in (2, 1, 3):
            s = [2, 3, 4]
            s[axis] = k
            shapes.append((tuple(s), dtype))
        run_both(lambda *xs: hg.concatenate(xs, axis=axis), *shapes, rng=rng, tol=EXACT)
    # of views and an empty member; a stack; a concatenation used by another instruction
    run_both(lambda x, y: [hg.concatenate([x.T, y[::-1], x.T[:0]], axis=0),
                           hg.concatenate([x[::2].T, hg.broadcast_to(y[:1], (3, 2))], axis=1),
                           hg.stack([x[:, 0], y[1], x[:, -1]], axis=1),
                           hg.concatenate([x[:, 1], y[0, ::-1]], axis=0)],
             ((2, 3), dtype), ((4, 2), dtype), rng=rng, tol=EXACT)
    run_both(lambda x, e: [hg.concatenate([e, x, e], axis=0), hg.concatenate([x[:, :0], x[:, :1]], axis=1)],
             ((2, 3), dtype), ((0, 3), dtype), rng=rng, tol=EXACT)
    if dtype != "bool":
        run_both(lambda x, y: hg.concatenate([x, y], axis=1) * 2, ((2, 3), dtype), ((2, 1), dtype), rng=rng,
                 tol=EXACT)


# --- gathers and scatters ---------------------------------------------------------------
def _index(rng, shape, n, dtype="int64", unique=False):
    """Indices into a dim of size ``n`` (negative ones too), of ``shape``."""
    size = math.prod(shape)
    if unique:
        base = rng.permutation(n)[:size]
    else:
        base = rng.integers(0, n, size=size)
    flip = rng.random(size) < 0.5
    return np.where(flip, base - n, base).astype(dtype).reshape(shape)


#: (index builder on x of shape (5, 4, 3) and an index array, the indexed axis' size)
GATHERS = [
    ("axis0", lambda x, i: x[i], 5),
    ("axis1", lambda x, i: x[:, i], 4),
    ("axis1-slices", lambda x, i: x[1:4, i, ::-1], 4),
    ("axis2", lambda x, i: x[::-2, :, i], 3),
    ("ellipsis", lambda x, i: x[..., i], 3),
    ("transposed", lambda x, i: x.T[i], 3),
    ("of-a-slice", lambda x, i: x[::-1, 1:][:, i], 3),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", GATHERS, ids=lambda c: c[0])
def test_gather(case, dtype, rng):
    _, fn, n = case
    for ishape, idt in [((6,), "int64"), ((2, 3), "int32"), ((), "int64"), ((0,), "int64"), ((2, 1, 2), "int64")]:
        x = hg.tensor("x", (5, 4, 3), dtype)
        i = hg.tensor("i", ishape, idt)
        check(hg.Graph([x, i], fn(x, i)), values(rng, (5, 4, 3), dtype), _index(rng, ishape, n, idt), tol=EXACT)


def test_gather_constant_index_and_views(rng):
    x = hg.tensor("x", (5, 4), "float64")
    idx = np.array([[0, -1], [2, 2]])
    run_both(lambda x: [x[idx], x[:, np.array([3, -4, 0])], hg.broadcast_to(x[0], (3, 4))[np.array([2, 0])],
                        x[np.array([1, 3])] * 2, hg.take(x, np.array([1, 0]), axis=1)], ((5, 4), "float64"),
             rng=rng, tol=EXACT)
    # the index is a computed value
    j = hg.tensor("j", (3,), "int64")
    check(hg.Graph([x, j], x[j - 1]), values(rng, (5, 4), "float64"), np.array([0, 4, -3]), tol=EXACT)


@pytest.mark.parametrize("bad", [5, -6, 100, np.iinfo(np.int64).min])
def test_gather_out_of_range(bad, rng):
    x = hg.tensor("x", (5, 3), "float64")
    i = hg.tensor("i", (3,), "int64")
    for y in (x[i], x[i][:, ::-1] * 2):
        g = hg.Graph([x, i], y)
        args = (values(rng, (5, 3), "float64"), np.array([0, bad, 1]))
        with pytest.raises(IndexError):
            reference(g, args)
        with pytest.raises(IndexError, match="out of bounds"):
            vm.assemble(g)(*args)
    j = hg.tensor("j", (2,), "int32")
    g = hg.Graph([x, j], x[:, j])
    with pytest.raises(IndexError):
        vm.assemble(g)(np.zeros((5, 3)), np.array([1, 3], np.int32))


def test_empty_gather_with_an_index_out_of_range():
    """x[i] (or an update at it) of no elements, x having an empty dim: perform still checks
    the index, the executor cannot (it visits no element), so it refuses the graph."""
    x = hg.tensor("x", (3, 0), "float64")
    i = hg.tensor("i", (2,), "int64")
    args = (np.zeros((3, 0)), np.array([0, 5]))
    for y in (x[i], hg.at(x)[i].add(1.0), hg.at(x.T)[:, i].set(1.0)):
        g = hg.Graph([x, i], y)
        with pytest.raises(IndexError):
            reference(g, args)
        with pytest.raises(vm.Unsupported, match="no elements"):
            vm.assemble(g)
    # an empty index takes nothing and checks nothing
    j = hg.tensor("j", (0,), "int64")
    check(hg.Graph([x, j], [x[j], hg.at(x)[j].add(1.0)]), np.zeros((3, 0)), np.zeros(0, np.int64))


MODES = ["set", "add", "mul", "min", "max"]


def _update(x, idx, v, mode):
    ref = hg.at(x)[idx]
    return {"set": ref.set, "add": ref.add, "mul": ref.multiply, "min": ref.min, "max": ref.max}[mode](v)


#: (index entries around the array (ARRAY marks it), the indexed axis' size, v's shape or None for
#: the gathered shape) on x of shape (5, 4, 3) and an index of shape (6,)
SCATTERS = [
    ("axis0", lambda i: i, 5, None),
    ("axis0-broadcast-v", lambda i: i, 5, (3,)),
    ("axis0-scalar-v", lambda i: i, 5, ()),
    ("axis1", lambda i: (slice(None), i), 4, None),
    ("axis1-slices", lambda i: (slice(1, 4), i, slice(None, None, -1)), 4, (1, 1, 3)),
    ("axis2", lambda i: (slice(None, None, -2), slice(None), i), 3, (4, 1)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", SCATTERS, ids=lambda c: c[0])
def test_scatter(case, mode, dtype, rng):
    _, entries, n, vshape = case
    x = hg.tensor("x", (5, 4, 3), dtype)
    i = hg.tensor("i", (6,) if mode != "set" else (min(n, 3),), "int64")
    target = x[entries(i)].shape
    v = hg.tensor("v", target if vshape is None else vshape, dtype)
    g = hg.Graph([x, v, i], _update(x, entries(i), v, mode))
    # duplicate indices accumulate (set: distinct indices, as which write is kept is unspecified)
    index = _index(rng, i.shape, n, unique=mode == "set")
    if mode != "set":
        index[1] = index[0]
        index[2] = index[0] - n if index[0] >= 0 else index[0] + n  # the same element, wrapped
    check(g, values(rng, (5, 4, 3), dtype), values(rng, v.shape, dtype), index)


@pytest.mark.parametrize("mode", MODES)
def test_scatter_nd_index_and_views(mode, rng):
    ishape = (2, 3) if mode != "set" else (2, 2)  # set: distinct indices
    x = hg.tensor("x", (4, 5), "float64")
    i = hg.tensor("i", ishape, "int32")
    v = hg.tensor("v", ishape + (4,), "float64")
    index = _index(rng, ishape, 5, "int32", unique=mode == "set")
    # into a transposed value, v reversed, a computed v; a Python number as v
    g = hg.Graph([x, v, i], [_update(x.T, i, v, mode), _update(x.T, i, v[::-1, ::-1], mode),
                             _update(x, (slice(None), i), hg.transpose(v, (2, 0, 1)) * 2, mode),
                             _update(x.T, i[0], 1.5, mode)])
    check(g, values(rng, (4, 5), "float64"), values(rng, ishape + (4,), "float64"), index)


def test_scatter_add_accumulates():
    x = hg.tensor("x", (4,), "float64")
    i = hg.tensor("i", (5,), "int64")
    (out,) = check(hg.Graph([x, i], hg.at(x)[i].add(1.0)), np.zeros(4), np.array([0, 0, -4, 3, 0]))
    np.testing.assert_array_equal(out, [4, 0, 0, 1])
    (out,) = check(hg.Graph([x, i], hg.at(x)[i].multiply(2.0)), np.ones(4), np.array([1, 1, 1, -3, 2]))
    np.testing.assert_array_equal(out, [1, 16, 2, 1])


def test_scatter_nan():
    x = hg.tensor("x", (4,), "float64")
    v = hg.tensor("v", (4,), "float64")
    i = hg.tensor("i", (4,), "int64")
    args = (np.array([1.0, np.nan, 3.0, 0.0]), np.array([np.nan, 2.0, np.inf, -np.inf]), np.array([0, 1, 2, 0]))
    outs = check(hg.Graph([x, v, i], [hg.at(x)[i].min(v), hg.at(x)[i].max(v), hg.at(x)[i].add(v)]), *args)
    assert np.isnan(outs[0][:2]).all() and np.isnan(outs[1][:2]).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_update_at_basic_index(mode, dtype, rng):
    """Updates at slices (at(x)[1:3]) and ints (PyTensor's) only: no index array."""
    x = hg.tensor("x", (5, 4, 3), dtype)
    v = hg.tensor("v", (2, 1, 3), dtype)
    w = hg.tensor("w", (3,), dtype)
    full = (None, None, None)

    def update(x, idx, v):
        return ix.AdvancedIncSubtensor(idx, mode)(x, hg.astype(v, x.dtype))

    g = hg.Graph([x, v, w], [_update(x, (slice(1, 3), slice(None, None, -2)), v, mode),
                             _update(x, (slice(3, 3),), w, mode),
                             _update(x.T, (Ellipsis, slice(-2, None)), w[:, None, None], mode),
                             update(x, (-1, 2, full), w), update(x, (full, full, 0), w[1]),
                             update(x.T, (full, (4, 0, -1), 0), w[::-1]), update(x, (1, full, full), v[0, 0])])
    check(g, values(rng, (5, 4, 3), dtype), values(rng, (2, 1, 3), dtype), values(rng, (3,), dtype))


def test_pytensor_spellings(rng):
    x = hg.tensor("x", (5, 4), "float64")
    v = hg.tensor("v", (3, 4), "float64")
    i = hg.tensor("i", (3,), "int64")
    w = hg.tensor("w", (4,), "float64")
    g = hg.Graph([x, v, i, w], [hg.inc_subtensor(x[i], v), hg.set_subtensor(x[i], v), hg.set_subtensor(x[2], w),
                                hg.inc_subtensor(x[-1], w), hg.inc_subtensor(x[1:4, i[:1]], 2.0),
                                hg.set_subtensor(x[:, i], v[0, :3][::-1])])
    check(g, values(rng, (5, 4), "float64"), values(rng, (3, 4), "float64"), np.array([0, -1, 2]),
          values(rng, (4,), "float64"))


@pytest.mark.parametrize("mode", MODES)
def test_scatter_out_of_range(mode, rng):
    x = hg.tensor("x", (5, 3), "float64")
    i = hg.tensor("i", (2,), "int64")
    g = hg.Graph([x, i], _update(x, i, 1.0, mode))
    for bad in (5, -6):
        args = (values(rng, (5, 3), "float64"), np.array([0, bad]))
        with pytest.raises(IndexError):
            reference(g, args)
        with pytest.raises(IndexError, match="out of bounds"):
            vm.assemble(g)(*args)


def test_indexing_the_executor_does_not_take(rng):
    """New axes among index arrays; more index arrays than an instruction has operands."""
    x = hg.tensor("x", (5, 4), "float64")
    i = hg.tensor("i", (3,), "int64")
    for y in (x[None, i], x[i, None], hg.at(x)[None, i].set(1.0), hg.at(x)[i, None].add(1.0)):
        with pytest.raises(vm.Unsupported, match="index array"):
            vm.assemble(hg.Graph([x, i], y))
    z = hg.tensor("z", (2,) * 7, "float64")
    with pytest.raises(vm.Unsupported, match="7 index arrays"):
        vm.assemble(hg.Graph([z, i], z[(i,) * 7]))
    # six run
    y = z[(i,) * 6]
    check(hg.Graph([z, i], y), values(rng, (2,) * 7, "float64"), np.array([0, -1, 1]), tol=EXACT)


# --- several index arrays -----------------------------------------------------------------
#: (the index entries on x of shape (5, 4, 3) around index arrays i and j, the sizes of the
#: axes i and j index (j: the smallest, where it indexes two))
MULTI_INDEX = [
    ("adjacent-first", lambda i, j: (i, j), (5, 4)),
    ("adjacent-last", lambda i, j: (slice(None), i, j), (4, 3)),
    ("adjacent-stepped", lambda i, j: (slice(None, None, -2), i, j), (4, 3)),
    ("adjacent-then-slice", lambda i, j: (i, j, slice(1, None)), (5, 4)),
    ("apart", lambda i, j: (i, slice(None), j), (5, 3)),
    ("apart-sliced", lambda i, j: (i, slice(3, 0, -1), j), (5, 3)),
    ("three", lambda i, j: (i, j, j), (5, 3)),
]
#: the index arrays' (shape, dtype): broadcast together ((3, 1) and (2,): (3, 2)), 0-d,
#: empty, int32 and int64 mixed
MULTI_SHAPES = [(((3, 1), "int64"), ((2,), "int32")), (((4,), "int32"), ((4,), "int64")),
                (((), "int64"), ((3,), "int64")), (((2, 1, 2), "int32"), ((3, 1), "int32")),
                (((0,), "int64"), ((1,), "int32")), (((2, 3), "int64"), ((), "int32")),
                (((1,), "int32"), ((2, 2), "int64"))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MULTI_INDEX, ids=lambda c: c[0])
def test_gather_several_index_arrays(case, dtype, rng):
    """x[i, j]: the index arrays broadcast together, their shape in place of the indexed
    dims when these are adjacent and first when a slice separates them (NumPy's rule);
    negative indices, int32 and int64 mixed."""
    _, entries, sizes = case
    for specs in MULTI_SHAPES:
        x = hg.tensor("x", (5, 4, 3), dtype)
        i, j = (hg.tensor(name, shape, dt) for name, (shape, dt) in zip("ij", specs))
        index = [_index(rng, shape, n, dt) for (shape, dt), n in zip(specs, sizes)]
        check(hg.Graph([x, i, j], x[entries(i, j)]), values(rng, (5, 4, 3), dtype), *index, tol=EXACT)


def test_gather_several_index_arrays_of_views_and_ints(rng):
    """Index arrays into views (a transpose, reversed and stepped slices, a broadcast),
    ints among index arrays (constant 0-d index arrays: an int apart from an array puts
    the index shape first, as NumPy's), computed and constant indices, gathers used."""
    x = hg.tensor("x", (5, 4, 3), "float64")
    i = hg.tensor("i", (3, 1), "int64")
    j = hg.tensor("j", (2,), "int32")
    k = np.array([[0, -1], [2, 1]])
    g = hg.Graph([x, i, j], [x.T[j, :, i], x[::-1, 1:][:, i, j], hg.broadcast_to(x[0], (6, 4, 3))[i, :, j],
                             x[i, 1], x[i, :, -1], x[-1, :, j], x[i, j, 2], x[1, i, j], x[k, :, j[::-1]],
                             x[i + 1, j - 1] * 2, x[i, j][::-1, ::-1], x[np.array([4, 0]), np.array([[3], [-4]])]])
    check(g, values(rng, (5, 4, 3), "float64"), np.array([[0], [-1], [2]]), np.array([2, -3], np.int32), tol=EXACT)
    # NumPy's shapes
    assert tuple(x[i, :, -1].shape) == (3, 1, 4) and tuple(x[-1, :, j].shape) == (2, 4)


def test_several_index_arrays_out_of_range(rng):
    """An index of any array out of its axis' range raises IndexError, as perform does."""
    x = hg.tensor("x", (5, 4, 3), "float64")
    i, j = hg.tensor("i", (3, 1), "int64"), hg.tensor("j", (2,), "int32")
    for y, (ni, nj) in [(x[i, j], (5, 4)), (x[i, :, j], (5, 3)), (hg.at(x)[i, j].add(1.0), (5, 4)),
                        (hg.at(x)[:, i, j].set(0.0), (4, 3)), (x[i, j] * 2, (5, 4))]:
        g = hg.Graph([x, i, j], y)
        program = vm.assemble(g)
        for bad_i, bad_j in [(ni, 0), (-ni - 1, 0), (0, nj), (0, -nj - 1), (np.iinfo(np.int64).min, 0)]:
            args = (values(rng, (5, 4, 3), "float64"), np.array([[0], [bad_i], [1]]), np.array([1, bad_j], np.int32))
            with pytest.raises(IndexError):
                reference(g, args)
            with pytest.raises(IndexError, match="out of bounds"):
                program(*args)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", MULTI_INDEX, ids=lambda c: c[0])
def test_scatter_several_index_arrays(case, mode, dtype, rng):
    """Updates at x[i, j] in each mode, v of the indexed shape and broadcast; duplicate
    index pairs accumulate (set: the last write is kept, as NumPy's assignment in order)."""
    _, entries, (ni, nj) = case
    x = hg.tensor("x", (5, 4, 3), dtype)
    i, j = hg.tensor("i", (4, 1), "int64"), hg.tensor("j", (2,), "int32")
    target = tuple(x[entries(i, j)].shape)
    v = hg.tensor("v", target, dtype)
    w = hg.tensor("w", target[-1:], dtype)
    g = hg.Graph([x, v, w, i, j], [_update(x, entries(i, j), v, mode), _update(x, entries(i, j), w, mode)])
    index_i, index_j = _index(rng, (4, 1), ni), _index(rng, (2,), nj, "int32")
    index_i[1] = index_i[0]  # the same elements, twice
    index_i[2] = index_i[0] - ni if index_i[0] >= 0 else index_i[0] + ni  # and wrapped
    check(g, values(rng, (5, 4, 3), dtype), values(rng, target, dtype), values(rng, target[-1:], dtype),
          index_i, index_j)


@pytest.mark.parametrize("dtype", DTYPES)
def test_diagonal(dtype, rng):
    """at(zeros((n, n)))[arange(n), arange(n)].set(v) (the constructors have no inputs:
    evaluated once), updates along a diagonal in each mode, diagonals gathered."""
    for n in (0, 1, 4, 7):
        v = hg.tensor("v", (n,), dtype)
        a = hg.tensor("a", (n, n), dtype)
        k = hg.arange(n)
        outs = [hg.at(hg.zeros((n, n), dtype))[k, k].set(v), hg.diagonal(a), a[k, k[::-1]], hg.diagonal(a.T, 1),
                hg.at(hg.eye(n, dtype=dtype))[k[::-1], k].set(v[::-1])]
        outs += [_update(a, (k, k), v, mode) for mode in MODES]
        check(hg.Graph([v, a], outs), values(rng, (n,), dtype), values(rng, (n, n), dtype))


# --- constants and outputs --------------------------------------------------------------
def test_constant_folding(rng):
    c = hg.constant(np.arange(6.0).reshape(2, 3))
    k = hg.constant(np.array([2, 0, 1]))
    x = hg.tensor("x", (3,), "float64")
    y = x * hg.exp(c).sum(axis=0) + hg.sort(c, axis=1)[0] - hg.cumsum(c, axis=1)[1] + c[1][k]
    g = hg.Graph([x], [y, hg.sort(c, axis=0), hg.exp(c) + x])
    program = vm.assemble(g)  # sort, unsupported, only ever sees constants
    check(g, values(rng, (3,), "float64"))
    assert program.n_instructions < len(g.toposort())


def test_constant_folding_chains(rng):
    """A node whose inputs are computed from constants only is evaluated once too."""
    c = hg.constant(np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]]))
    x = hg.tensor("x", (3,), "float64")
    g = hg.Graph([x], [x + hg.sort(-c, axis=1)[0], hg.cumsum(hg.exp(c) * 2, axis=0)[1] * x])
    check(g, values(rng, (3,), "float64"))


def test_outputs_inputs_constants_views_twice(rng):
    x = hg.tensor("x", (2, 3), "float64")
    b = hg.tensor("b", (4,), "bool")
    c = hg.constant(np.array([[1, 2], [3, 4]], np.int32))
    z = x * 2
    g = hg.Graph([x, b], [x, x, c, x.T, x[:, ::-1], b, z, z, hg.constant(np.float64(2.5)), c.T])
    program = vm.assemble(g)
    args = (values(rng, (2, 3), "float64"), np.array([True, False, False, True]))
    first = check(g, *args, tol=EXACT)
    # the results are the caller's: changing them changes nothing in the next call
    for a in first:
        a[...] = 0
    second = program(*args)
    for a, e in zip(second, reference(g, args)):
        compare(a, e)
    for a, b2 in zip(first, second):
        assert not np.shares_memory(a, b2)


def test_constants_are_not_changed(rng):
    """Updates of a constant write into a copy: each call gives the same results."""
    c = hg.constant(np.arange(12.0).reshape(4, 3))
    i = hg.tensor("i", (3,), "int64")
    v = hg.tensor("v", (3,), "float64")
    g = hg.Graph([i, v], [hg.at(c)[i].add(v[:, None]), hg.at(c)[1:3].multiply(v), hg.at(c.T)[:, i].set(0.0), c])
    program = vm.assemble(g)
    args = (np.array([0, 0, -1]), np.array([1.0, 2.0, 3.0]))
    first = program(*args)
    for a, b in zip(first, program(*args)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(first[-1], np.arange(12.0).reshape(4, 3))
    check(g, *args)


def test_many_arguments_and_results(rng):
    """More slots (inputs, constants, results) than the C side keeps on its stack."""
    xs = [hg.tensor(f"x{k}", (2,), "float64") for k in range(40)]
    outs = [x * float(k) + hg.constant(np.array([k, -k], np.float64)) for k, x in enumerate(xs)]
    check(hg.Graph(xs, outs + [xs[0]]), *[values(rng, (2,), "float64") for _ in xs])


def test_threads(rng):
    x = hg.tensor("x", (64,), "float64")
    y = hg.tensor("y", (8, 8), "float64")
    g = hg.Graph([x, y], [hg.exp(x).reshape((8, 8)) @ y, hg.sum(x * 2)])
    program = vm.assemble(g)
    args = [(values(rng, (64,), "float64", special=False), values(rng, (8, 8), "float64", special=False))
            for _ in range(16)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda a: program(*a), args * 8))
    for k, outs in enumerate(results):
        for a, e in zip(outs, reference(g, args[k % 16])):
            compare(a, e, SUM_TOL)


def test_no_inputs():
    g = hg.Graph([], [hg.constant(np.arange(3.0)), hg.exp(hg.constant(np.ones(2, np.float32)))])
    outs = check(g)
    assert outs[1].dtype == np.float32


def test_nodes_without_inputs_are_folded(rng):
    """zeros, full, arange and eye (nodes of no inputs) are evaluated once, as nodes of
    constants: the program is the one of the graph with their values as constants."""
    x = hg.tensor("x", (3,), "float64")

    def model(zeros, eye, arange, full, eye2):
        return [zeros + x, eye @ x, arange * x, full * x, eye2[0], hg.exp(eye2)[1:] - x[:1, None]]

    g = hg.Graph([x], model(hg.zeros((2, 3)), hg.eye(3), hg.arange(3), hg.full((3,), 2.5), hg.eye(3, 4, k=1)))
    consts = hg.Graph([x], model(*(hg.constant(c) for c in (np.zeros((2, 3)), np.eye(3), np.arange(3),
                                                            np.full(3, 2.5), np.eye(3, 4, k=1)))))
    check(g, values(rng, (3,), "float64"))
    assert vm.assemble(g).n_instructions == vm.assemble(consts).n_instructions
    # a graph of constructors only
    check(hg.Graph([], [hg.arange(1, 7, 2), hg.full((2, 2), True, "bool"), hg.eye(2, dtype="int32") * 3]))


# --- what assemble refuses --------------------------------------------------------------
def _refused(inputs, outputs, match):
    with pytest.raises(vm.Unsupported, match=match) as info:
        vm.assemble(hg.Graph(inputs, outputs))
    assert str(info.value)
    return info.value


def test_unsupported_inputs():
    h = hg.tensor("h", (3,), "float16")
    _refused([h], [h], "float16")
    u = hg.tensor("u", (None, 3), "float64")
    _refused([u], [u * 2], "unknown")
    for dt in ("complex128", "uint8", "int16"):
        t = hg.tensor("t", (2,), dt)
        _refused([t], [t], dt)
    # a half-precision value inside the graph
    x = hg.tensor("x", (3,), "float64")
    _refused([x], [hg.astype(hg.astype(x, "float16"), "float64")], "float16")


def test_unsupported_ops():
    x = hg.tensor("x", (4,), "float64")
    _refused([x], [hg.sort(x)], "Sort|sort")
    _refused([x], [hg.cummax(x)], "max")
    _refused([x], [hg.cummin(x)], "min")
    _refused([x], [hg.inv(hg.reshape(x, (2, 2)))], "Inv")
    _refused([x], [hg.mean(x)], "Mean")
    _refused([x], [hg.argmax(x)], "rg")
    n = hg.tensor("n", (4,), "int64")
    _refused([n], [n // 3], "FloorDivide|Floor")
    _refused([n], [n ** 2], "Power")


def test_unsupported_sizes():
    big = vm.MAX_ELEMENTS + 1
    x = hg.tensor("x", (big,), "float64")
    _refused([x], [x * 2], str(vm.MAX_ELEMENTS))
    _refused([x], [hg.sum(x)], str(vm.MAX_ELEMENTS))  # the input itself is too large
    a, b = hg.tensor("a", (256,), "float32"), hg.tensor("b", (257,), "float32")
    _refused([a, b], [hg.sum(hg.outer(a, b))], str(vm.MAX_ELEMENTS))  # a value inside
    r = hg.tensor("r", (1,) * 17, "float64")
    _refused([r, a], [a + 1], "rank")
    # MAX_ELEMENTS itself runs
    m = hg.tensor("m", (vm.MAX_ELEMENTS,), "float32")
    (out,) = vm.assemble(hg.Graph([m], m + 1))(np.ones(vm.MAX_ELEMENTS, np.float32))
    assert out.shape == (vm.MAX_ELEMENTS,) and (out == 2).all()


# --- arguments --------------------------------------------------------------------------
def _axpy():
    a, x, n = hg.tensor("a", (), "float64"), hg.tensor("x", (2, 3), "float64"), hg.tensor("n", (3,), "int64")
    s, f = hg.tensor("s", (), "float32"), hg.tensor("f", (), "bool")
    g = hg.Graph([a, x, n, s, f], [a * x + n, s * 2, hg.logical_not(f)])
    return g, vm.assemble(g)


def test_arguments_converted(rng):
    g, program = _axpy()
    x = rng.normal(size=(2, 3))
    n = np.array([1, -2, 3])
    expected = reference(g, (np.float64(1.5), x, n, np.float32(2.0), np.bool_(True)))
    base = np.zeros(2 * 8 * 3 + 1, np.uint8)
    misaligned = np.frombuffer(base.data, dtype=np.float64, count=6, offset=1).reshape(2, 3)
    misaligned[...] = x
    assert not misaligned.flags.aligned
    variants = [
        (1.5, x, n, 2.0, True),  # Python scalars
        (np.float64(1.5), x, n, np.float32(2.0), np.bool_(True)),  # NumPy scalars
        (np.array(1.5), np.asfortranarray(x), n, np.array(2.0, np.float32), np.array(True)),  # Fortran order
        (1.5, np.repeat(x, 2, axis=1)[:, ::2], np.repeat(n, 2)[::2], 2.0, True),  # strided
        (1.5, x.T.copy().T, n[::-1][::-1], 2.0, True),  # transposed
        (1.5, x.astype(">f8"), n.astype(">i8"), np.array(2.0, ">f4"), True),  # the other byte order
        (1.5, misaligned, n, 2.0, True),
        (1.5, x.tolist(), n.tolist(), 2.0, True),  # lists
    ]
    for args in variants:
        outs = program(*args)
        for a, e in zip(outs, expected):
            compare(a, e)


def test_python_int_for_a_float_input():
    """As a compiled function, a Python int (or bool) is a value of any numeric input."""
    x = hg.tensor("x", (), "float64")
    g = hg.Graph([x], x * 2)
    program = vm.assemble(g)
    assert program(3)[0] == 6.0 and program(True)[0] == 2.0
    assert hg.compile(g, pipeline="O0")(3) == 6.0


def test_argument_errors():
    g, program = _axpy()
    good = [1.5, np.zeros((2, 3)), np.zeros(3, np.int64), 2.0, True]

    def call(k, value):
        args = list(good)
        args[k] = value
        return program(*args)

    for k, value in [(1, np.zeros((2, 3), np.float32)), (1, np.zeros((2, 3), np.int64)), (2, np.zeros(3)),
                     (2, np.zeros(3, np.int32)), (0, np.array(1, np.int64)), (4, 1.5), (0, "a"), (3, 1j)]:
        with pytest.raises(TypeError, match=f"argument {k}"):
            call(k, value)
    for k, value in [(1, np.zeros((3, 2))), (1, np.zeros(6)), (2, np.zeros((1, 3), np.int64)),
                     (0, np.zeros(1)), (1, [[1.0, 2.0, 3.0]])]:
        with pytest.raises(ValueError, match=f"argument {k}"):
            call(k, value)
    with pytest.raises(TypeError, match="expected 5 arguments"):
        program(*good[:4])
    with pytest.raises(TypeError, match="expected 5 arguments"):
        program(*good, 1.0)
    with pytest.raises(TypeError):
        program()
    with pytest.raises(TypeError):
        program(*good[:4], f=True)
    # an argument the program reads in place is left as it was, and a wrong call
    # changes nothing for the next one
    outs = program(*good)
    assert [o.shape for o in outs] == [(2, 3), (), ()]


def test_explain_and_instruction_count():
    g, program = _axpy()
    assert "host executor" in program.explain()
    assert program.n_instructions >= 3


# --- random graphs ----------------------------------------------------------------------
_VIEWS = ["transpose", "reverse", "step", "int", "expand", "broadcast", "reshape", "squeeze"]


@st.composite
def _view_chains(draw):
    """An input shape, a dtype, a chain of view-making ops, and an op on the result."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from(DTYPES))
    chain = draw(st.lists(st.tuples(st.sampled_from(_VIEWS), st.integers(0, 10 ** 6)), max_size=5))
    last = draw(st.sampled_from(["copy", "unary", "binary", "sum", "max", "concat", "cast", "gather", "gather2",
                                 "cumsum"]))
    return shape, dtype, chain, last, draw(st.integers(0, 2 ** 32 - 1))


def _apply_view(x, kind, r):
    if kind == "transpose" and x.ndim > 1:
        perm = list(np.random.default_rng(r).permutation(x.ndim))
        return hg.transpose(x, perm)
    if kind in ("reverse", "step", "int") and x.ndim:
        axis = r % x.ndim
        idx = [slice(None)] * x.ndim
        n = x.shape[axis]
        if kind == "reverse":
            idx[axis] = slice(None, None, -1)
        elif kind == "step":
            idx[axis] = slice(r % 3 - 1 if n else None, None, (r % 3 + 1) * (-1) ** r)
        elif n:
            idx[axis] = r % n - n * (r % 2)
        return x[tuple(idx)]
    if kind == "expand" and x.ndim < 5:
        return hg.expand_dims(x, r % (x.ndim + 1))
    if kind == "broadcast" and x.ndim < 5:
        return hg.broadcast_to(x, (r % 3 + 1,) + tuple(x.shape))
    if kind == "reshape":
        return x.reshape((-1,)) if x.size else x.reshape((0,))
    if kind == "squeeze" and 1 in x.shape:
        return hg.squeeze(x, tuple(x.shape).index(1))
    return x


def _finish(x, y, last, r):
    if last == "unary":
        return hg.square(x) if x.dtype != np.bool_ else hg.logical_not(x)
    if last == "binary":
        return hg.maximum(x, y) if x.dtype == np.bool_ else x - y * x
    if last == "sum":
        return hg.sum(x, axis=r % x.ndim if x.ndim else None)
    if last == "max" and x.ndim and x.shape[r % x.ndim]:
        return hg.max(x, axis=r % x.ndim, keepdims=True)
    if last == "concat" and x.ndim:
        return hg.concatenate([x, y], axis=r % x.ndim)
    if last == "cast":
        return hg.astype(x, DTYPES[r % len(DTYPES)])
    if last == "gather" and x.ndim and x.size:
        axis = r % x.ndim
        n = x.shape[axis]
        idx = (slice(None),) * axis + (np.array([r % n, -1, -(r % n) - 1]),)
        return x[idx]
    if last == "gather2" and x.ndim > 1 and x.size:  # two index arrays, adjacent or not
        a, b = r % x.ndim, (r // 7) % x.ndim
        if a != b:
            idx = [slice(None)] * x.ndim
            idx[a] = np.array([[r % x.shape[a]], [-1]])
            idx[b] = np.array([0, -(r % x.shape[b]) - 1, x.shape[b] - 1])
            return x[tuple(idx)]
    if last == "cumsum":
        return hg.cumsum(x, axis=r % x.ndim if x.ndim and r % 3 else None)
    return x


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_view_chains())
def test_random_view_chains(case):
    """Chains of views (each a change of strides and offset) under a last op."""
    shape, dtype, chain, last, seed = case
    rng = np.random.default_rng(seed)
    x = hg.tensor("x", shape, dtype)
    v = x
    for kind, r in chain:
        v = _apply_view(v, kind, r)
    w = hg.tensor("w", tuple(v.shape), dtype)
    y = _finish(v, w, last, seed)
    # a float32 sum of values up to 1e3 in magnitude is NumPy's pairwise float32 sum there,
    # a double sum rounded once here: they may differ by ~n ulp of the largest term
    check(hg.Graph([x, w], [y, v]), values(rng, shape, dtype), values(rng, tuple(v.shape), dtype),
          tol=SUM_TOL if last == "sum" else TOL)


def test_work_estimate_and_its_limit():
    a = hg.tensor("a", (30, 40), "float64")
    b = hg.tensor("b", (40, 20), "float64")
    g = hg.Graph([a, b], [a @ b + 1.0])
    p = vm.assemble(g)
    # the product's 30 * 20 * 40 multiply-adds, then the addition and the result's copy
    assert p.work >= 30 * 20 * 40 + 2 * 30 * 20
    assert vm.assemble(g, max_work=p.work).work == p.work
    with pytest.raises(vm.Unsupported, match="operations per call"):
        vm.assemble(g, max_work=p.work - 1)


@pytest.mark.parametrize("words", [
    [1, 0, 1, 2, 3],                      # operands missing
    [1, 0, 0, 1, 99, 0, 0, 0],            # a slot past the last one
    [1, 0, 0, 1, 0, 0, 9, 0],             # an unknown dtype
    [1, 0, 17] + [1] * 17,                # rank above the executor's
    [1, 0, 0, 9, 0, 0, 0, 0],             # more operands than an instruction takes
], ids=["short", "slot", "dtype", "rank", "operands"])
def test_a_malformed_program_is_refused_when_built(words):
    spec = [(np.dtype(np.float64).num, (3,))]
    with pytest.raises(ValueError, match="malformed program"):
        vm._vm.Program(np.asarray(words, np.int64).tobytes(), spec, (), spec, 0)
