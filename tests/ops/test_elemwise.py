"""Elementwise ops: compiled results against perform, over dtypes, shapes, edge values."""

from dataclasses import dataclass, field

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.types import as_dtype
from hlograph.tests.helpers import compare_with_perform, random_array, results_everywhere

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
SINTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINTS + UINTS
SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 3)]


@dataclass
class Rec:
    name: str
    fn: object
    dtypes: list
    nin: int = 1
    kind: str = "normal"
    tol: dict = field(default_factory=dict)


UNARY = [
    Rec("negative", hg.negative, FLOATS + COMPLEX + SINTS),
    Rec("abs", hg.abs, FLOATS + COMPLEX + SINTS + UINTS),
    Rec("sign", hg.sign, FLOATS + SINTS + UINTS),
    Rec("exp", hg.exp, FLOATS + COMPLEX + ["int8", "int32"]),
    Rec("log", hg.log, FLOATS + COMPLEX, kind="positive"),
    Rec("log1p", hg.log1p, FLOATS, kind="positive"),
    Rec("expm1", hg.expm1, FLOATS),
    Rec("sqrt", hg.sqrt, FLOATS + COMPLEX + ["uint8"], kind="positive"),
    Rec("rsqrt", hg.rsqrt, FLOATS, kind="positive"),
    Rec("sin", hg.sin, FLOATS + COMPLEX),
    Rec("cos", hg.cos, FLOATS + COMPLEX),
    Rec("tan", hg.tan, FLOATS, kind="unit"),
    Rec("tanh", hg.tanh, FLOATS + COMPLEX),
    Rec("sigmoid", hg.sigmoid, FLOATS),
    Rec("erf", hg.erf, FLOATS + ["int16"]),
    Rec("floor", hg.floor, FLOATS + INTS),
    Rec("ceil", hg.ceil, FLOATS + INTS),
    Rec("round", hg.round, FLOATS + INTS),
    Rec("isnan", hg.isnan, FLOATS + COMPLEX + INTS),
    Rec("isfinite", hg.isfinite, FLOATS + COMPLEX + INTS),
    Rec("isinf", hg.isinf, FLOATS + INTS),
    Rec("logical_not", hg.logical_not, ["bool", "float32", "int32"]),
    Rec("bitwise_not", hg.bitwise_not, ["bool"] + INTS),
    Rec("square", hg.square, FLOATS + INTS + ["bool"]),
    Rec("reciprocal", hg.reciprocal, FLOATS + COMPLEX + SINTS, kind="nonzero"),
]

# the rest of NumPy's ufuncs: each case checks all shapes in one graph
UNARY_MORE = [
    Rec("arcsin", hg.arcsin, FLOATS + COMPLEX, kind="unit"),
    Rec("arccos", hg.arccos, FLOATS + COMPLEX, kind="unit"),
    Rec("arctan", hg.arctan, FLOATS + COMPLEX + ["int8"]),
    Rec("sinh", hg.sinh, FLOATS + COMPLEX),
    Rec("cosh", hg.cosh, FLOATS + COMPLEX),
    Rec("arcsinh", hg.arcsinh, FLOATS + COMPLEX),
    Rec("arccosh", hg.arccosh, FLOATS + COMPLEX, kind="ge1"),
    Rec("arctanh", hg.arctanh, FLOATS + COMPLEX, kind="unit"),
    Rec("exp2", hg.exp2, FLOATS + COMPLEX + ["int32"]),
    Rec("log2", hg.log2, FLOATS + COMPLEX + ["uint8"], kind="positive"),
    Rec("log10", hg.log10, FLOATS + COMPLEX, kind="positive"),
    Rec("cbrt", hg.cbrt, FLOATS + ["int16"]),
    Rec("deg2rad", hg.deg2rad, FLOATS + ["int8"]),
    Rec("rad2deg", hg.rad2deg, FLOATS + ["int64"]),
    Rec("trunc", hg.trunc, FLOATS + INTS + ["bool"]),
    Rec("signbit", hg.signbit, FLOATS + ["int32"]),
    Rec("positive", hg.positive, FLOATS + COMPLEX + INTS),
    Rec("conj", hg.conj, FLOATS + COMPLEX + ["int32", "bool"]),
    Rec("bitwise_count", hg.bitwise_count, INTS + ["bool"], kind="full"),
    Rec("real", hg.real, FLOATS + COMPLEX + ["int16", "bool"]),
    Rec("imag", hg.imag, FLOATS + COMPLEX + ["int16", "bool"]),
    Rec("angle", hg.angle, FLOATS + COMPLEX + ["int8", "bool"]),
]

BINARY = [
    Rec("add", hg.add, FLOATS + COMPLEX + INTS + ["bool"], 2),
    Rec("subtract", hg.subtract, FLOATS + COMPLEX + INTS, 2),
    Rec("multiply", hg.multiply, FLOATS + COMPLEX + INTS + ["bool"], 2),
    Rec("divide", hg.divide, FLOATS + COMPLEX + INTS, 2, kind="nonzero"),
    Rec("floor_divide", hg.floor_divide, FLOATS + INTS, 2),
    Rec("remainder", hg.remainder, FLOATS + INTS, 2),
    Rec("power", hg.power, ["float32", "float64"], 2, kind="positive"),
    Rec("maximum", hg.maximum, FLOATS + INTS + ["bool", "complex64"], 2),
    Rec("minimum", hg.minimum, FLOATS + INTS + ["bool", "complex128"], 2),
    Rec("bitwise_and", hg.bitwise_and, INTS + ["bool"], 2),
    Rec("bitwise_or", hg.bitwise_or, INTS + ["bool"], 2),
    Rec("bitwise_xor", hg.bitwise_xor, INTS + ["bool"], 2),
    Rec("logical_and", hg.logical_and, ["bool", "float32", "int8"], 2),
    Rec("logical_or", hg.logical_or, ["bool", "float64", "uint8"], 2),
    Rec("logical_xor", hg.logical_xor, ["bool", "int32"], 2),
    Rec("equal", hg.equal, FLOATS + COMPLEX + INTS + ["bool"], 2),
    Rec("not_equal", hg.not_equal, FLOATS + COMPLEX + INTS + ["bool"], 2),
    Rec("less", hg.less, FLOATS + INTS + ["bool", "complex64"], 2),
    Rec("less_equal", hg.less_equal, FLOATS + INTS + ["complex128"], 2),
    Rec("greater", hg.greater, FLOATS + INTS + ["complex64"], 2),
    Rec("greater_equal", hg.greater_equal, FLOATS + INTS, 2),
]

BINARY_MORE = [
    Rec("arctan2", hg.arctan2, FLOATS + ["int8"], 2),
    Rec("hypot", hg.hypot, FLOATS, 2),
    Rec("copysign", hg.copysign, FLOATS, 2),
    Rec("nextafter", hg.nextafter, FLOATS, 2),
    Rec("left_shift", hg.left_shift, INTS + ["bool"], 2, kind="shift"),
    Rec("right_shift", hg.right_shift, INTS, 2, kind="shift"),
    Rec("logaddexp", hg.logaddexp, FLOATS, 2),
    Rec("logaddexp2", hg.logaddexp2, FLOATS, 2),
    Rec("fmod", hg.fmod, FLOATS + INTS, 2),
    Rec("fmax", hg.fmax, FLOATS + INTS + ["bool", "complex64"], 2),
    Rec("fmin", hg.fmin, FLOATS + INTS + ["complex128"], 2),
    Rec("int_power", hg.power, INTS, 2, kind="exponent"),
]

# XLA's float16/bfloat16 transcendental results differ from NumPy's by an ulp or two
LOOSE = {"float16": (4e-3, 2e-3), "bfloat16": (3e-2, 2e-2)}


def _values(rng, shape, dtype, kind, arg=0):
    """random_array, plus the domains of this module: ``ge1`` (arccosh), ``shift``
    (full-range values shifted by -2..bits+2), ``exponent`` (ints to powers 0..9)."""
    if kind == "ge1":
        v = random_array(rng, shape, dtype, "positive")
        return (v + 1).astype(v.dtype)
    if kind == "shift":
        if arg == 0:
            return random_array(rng, shape, dtype, "full")
        bits = 8 * np.dtype(dtype).itemsize
        lo = -2 if np.dtype(dtype).kind == "i" else 0
        return rng.integers(lo, bits + 3, size=shape).astype(dtype)
    if kind == "exponent":
        if arg == 0:
            return random_array(rng, shape, dtype)
        return rng.integers(0, 10, size=shape).astype(dtype)
    return random_array(rng, shape, dtype, kind)


def _cases(recs):
    return [pytest.param(r, dt, id=f"{r.name}-{dt}") for r in recs for dt in r.dtypes]


def _tol(dt):
    return LOOSE.get(dt, (None, None))


@pytest.mark.parametrize("rec,dtype", _cases(UNARY))
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3)], ids=str)
def test_unary_matches_perform(rec, dtype, shape, rng):
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], rec.fn(x))
    rtol, atol = _tol(dtype)
    compare_with_perform(g, [_values(rng, shape, dtype, rec.kind)], rtol=rtol, atol=atol)


@pytest.mark.parametrize("rec,dtype", _cases(BINARY))
@pytest.mark.parametrize("xshape,yshape", [((), ()), ((4,), (4,)), ((2, 1), (1, 3)), ((3,), (2, 3)), ((0, 3), (3,))], ids=str)
def test_binary_matches_perform(rec, dtype, xshape, yshape, rng):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    g = hg.Graph([x, y], rec.fn(x, y))
    rtol, atol = _tol(dtype)
    vals = [_values(rng, xshape, dtype, rec.kind, 0), _values(rng, yshape, dtype, rec.kind, 1)]
    compare_with_perform(g, vals, rtol=rtol, atol=atol)


UNARY_SHAPES = [(), (0,), (7,), (2, 3)]
BINARY_SHAPES = [((), ()), ((4,), (4,)), ((2, 1), (1, 3)), ((3,), (2, 3)), ((0, 3), (3,))]


@pytest.mark.parametrize("rec,dtype", _cases(UNARY_MORE))
def test_more_unary_match_perform(rec, dtype, rng):
    xs = [hg.tensor(f"x{i}", s, dtype) for i, s in enumerate(UNARY_SHAPES)]
    g = hg.Graph(xs, [rec.fn(x) for x in xs])
    rtol, atol = _tol(dtype)
    compare_with_perform(g, [_values(rng, s, dtype, rec.kind) for s in UNARY_SHAPES], rtol=rtol, atol=atol)


@pytest.mark.parametrize("rec,dtype", _cases(BINARY_MORE))
def test_more_binary_match_perform(rec, dtype, rng):
    ins, outs, vals = [], [], []
    for i, (xs, ys) in enumerate(BINARY_SHAPES):
        x, y = hg.tensor(f"x{i}", xs, dtype), hg.tensor(f"y{i}", ys, dtype)
        ins += [x, y]
        outs.append(rec.fn(x, y))
        vals += [_values(rng, xs, dtype, rec.kind, 0), _values(rng, ys, dtype, rec.kind, 1)]
    rtol, atol = _tol(dtype)
    compare_with_perform(hg.Graph(ins, outs), vals, rtol=rtol, atol=atol)


SPECIAL_F = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 1.5, np.inf, -np.inf, np.nan, 1e-30, 7.0, -7.0])


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "maximum", "minimum", "add", "multiply",
                                  "divide", "less", "equal", "power", "arctan2", "hypot", "copysign",
                                  "nextafter", "logaddexp", "logaddexp2", "fmod", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_special_float_values(name, dtype):
    """Every pair of zeros (signed), infinities, NaN and halves: NumPy's exact semantics."""
    a = SPECIAL_F.astype(dtype)
    xs, ys = np.meshgrid(a, a)
    x, y = hg.tensor("x", xs.shape, dtype), hg.tensor("y", ys.shape, dtype)
    g = hg.Graph([x, y], getattr(hg, name)(x, y))
    actual, expected = compare_with_perform(g, [xs, ys])
    if name in ("floor_divide", "remainder", "copysign", "fmod", "nextafter"):  # signed zeros too
        np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "sign", "abs", "isnan", "isfinite", "isinf",
                                  "exp", "log", "sqrt", "tanh", "sigmoid", "negative", "trunc", "signbit",
                                  "cbrt", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
                                  "exp2", "log2", "log10", "angle", "deg2rad", "positive"])
def test_unary_special_float_values(name):
    x = hg.tensor("x", SPECIAL_F.shape, "float64")
    g = hg.Graph([x], getattr(hg, name)(x))
    actual, expected = compare_with_perform(g, [SPECIAL_F])
    if name in ("floor", "ceil", "round", "negative", "abs", "trunc", "cbrt", "positive"):
        np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "add", "subtract", "multiply", "fmod",
                                  "left_shift", "right_shift", "bitwise_count"])
def test_integer_edge_values(name, dtype, rng):
    """Division by zero (NumPy gives 0), min/max values, wrap-around."""
    info = np.iinfo(dtype)
    edge = np.array([0, 1, 2, 3, info.max, info.max - 1, info.min, info.min + 1, 7], dtype=dtype)
    if info.min < 0:
        edge = np.concatenate([edge, np.array([-1, -2, -3, -7], dtype=dtype)])
    if name == "bitwise_count":
        x = hg.tensor("x", edge.shape, dtype)
        compare_with_perform(hg.Graph([x], hg.bitwise_count(x)), [edge])
        return
    if name in ("left_shift", "right_shift"):  # shifts by -2..bits+1 and by the edge values
        bits = 8 * np.dtype(dtype).itemsize
        shifts = np.arange(-2 if info.min < 0 else 0, bits + 2).astype(dtype)
        edge = np.concatenate([edge, shifts])
    xs, ys = np.meshgrid(edge, edge)
    x, y = hg.tensor("x", xs.shape, dtype), hg.tensor("y", ys.shape, dtype)
    g = hg.Graph([x, y], getattr(hg, name)(x, y))
    compare_with_perform(g, [xs, ys])


@pytest.mark.parametrize("src", FLOATS + COMPLEX + INTS + ["bool"])
@pytest.mark.parametrize("dst", FLOATS + COMPLEX + INTS + ["bool"])
def test_astype(src, dst, rng):
    x = hg.tensor("x", (11,), src)
    g = hg.Graph([x], hg.astype(x, dst))
    v = random_array(rng, (11,), src, "small_int" if src not in FLOATS + COMPLEX else "normal")
    if np.dtype(hg.frontend.types.as_dtype(dst)).kind == "u" and src in FLOATS + COMPLEX:
        # negative floats to unsigned is undefined in NumPy (and in C)
        v = (np.abs(v.real) + (1j * v.imag if v.dtype.kind == "c" else 0)).astype(v.dtype)
    compare_with_perform(g, [v], rtol=_tol(dst)[0], atol=_tol(dst)[1])


def test_nep50_weak_scalars_keep_dtype():
    x = hg.tensor("x", (3,), "float32")
    assert (x + 1.0).dtype == np.float32
    assert (x * 2).dtype == np.float32
    i = hg.tensor("i", (3,), "int8")
    assert (i + 1).dtype == np.int8
    assert (i + 1.5).dtype == np.float64
    assert (i / i).dtype == np.float64
    u = hg.tensor("u", (3,), "uint8")
    assert (u + i).dtype == np.int16
    b = hg.tensor("b", (3,), "bool")
    assert (b + 1).dtype == np.int64
    assert hg.exp(i).dtype == np.float16
    with pytest.raises(OverflowError):
        i + 1000


def test_where_and_clip(rng):
    c = hg.tensor("c", (2, 3), "bool")
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (2, 1), "float32")
    g = hg.Graph([c, x, y], [hg.where(c, x, y), hg.where(x > 0, x, 0), hg.clip(x, -0.5, 0.5),
                             hg.clip(x, 1.0, -1.0)])
    vals = [rng.random((2, 3)) < 0.5, np.array([np.nan, 1, -2], np.float32),
            random_array(rng, (2, 1), "float32")]
    compare_with_perform(g, vals)


def test_operators(rng):
    x = hg.tensor("x", (4,), "int32")
    y = hg.tensor("y", (4,), "int32")
    outs = [x + y, x - y, x * y, x // 2, x % 3, x ** 2, -x, abs(x), x & y, x | y, x ^ y, ~x,
            x < y, x <= y, x > y, x >= y, x == y, x != y, 3 - x, 2 * x, 10 // y, x / 2, 1 + x]
    vals = [random_array(rng, (4,), "int32"), random_array(rng, (4,), "int32", "nonzero")]
    compare_with_perform(hg.Graph([x, y], outs), vals)


def test_elemwise_type_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(TypeError, match="Subtract: not defined for bool"):
        hg.subtract(hg.tensor("b", (3,), "bool"), hg.tensor("c", (3,), "bool"))
    with pytest.raises(TypeError, match="BitwiseAnd: not defined for float32"):
        hg.bitwise_and(x, x)
    with pytest.raises(ValueError, match="do not broadcast"):
        x + hg.tensor("y", (4,), "float32")
    with pytest.raises(TypeError, match="share one dtype"):
        hg.frontend.ops.elemwise.Add()(x, hg.tensor("i", (3,), "int32"))
    with pytest.raises(TypeError, match="truth value"):
        bool(x > 0)
    with pytest.raises(TypeError, match="LeftShift: not defined for float32"):
        hg.left_shift(x, x)
    with pytest.raises(TypeError, match="Cbrt: not defined for complex64"):
        hg.cbrt(hg.tensor("z", (3,), "complex64"))
    with pytest.raises(TypeError, match="Popcount: not defined for float32"):
        hg.bitwise_count(x)


def test_complex_part_dtypes():
    z = hg.tensor("z", (3,), "complex128")
    i = hg.tensor("i", (3,), "int8")
    assert hg.real(z).dtype == hg.imag(z).dtype == hg.angle(z).dtype == np.float64
    assert hg.real(i).dtype == np.int8 and hg.angle(i).dtype == np.float16
    assert hg.bitwise_count(i).dtype == np.uint8 and hg.signbit(i).dtype == np.bool_


@pytest.mark.parametrize("dtype, values, decimals", [
    ("int32", [15, 25, -35, 7], -1), ("int64", [3, -4], 0), ("uint8", [149, 150, 250], -1),
    ("complex128", [1.5 + 2.5j, -0.5 - 3.5j], 0), ("complex64", [1.25 + 2.35j], 1),
    ("bool", [True, False], 0), ("float32", [1.25, 2.5, -0.5], 1)])
def test_round_keeps_numpy_dtypes(dtype, values, decimals):
    """Integers keep their dtype (negative decimals round half to even), complex
    values round both parts: numpy.round's rules."""
    x = hg.tensor("x", (len(values),), dtype)
    a = np.array(values, dtype)
    got = hg.compile(hg.Graph([x], hg.round(x, decimals)))(a)
    want = np.round(a, decimals)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "uint8", "bool"])
def test_around(dtype, rng):
    """numpy.around, compiled and perform: ties to even, integers to tens and hundreds with
    negative decimals; bool only with decimals=0, and decimals must be an int."""
    x = (random_array(rng, (3, 4), dtype) * 100).astype(dtype)
    if dtype in ("int32", "uint8"):
        x.reshape(-1)[:4] = [50, 150, 250, 45]  # ties at tens and hundreds
    if dtype == "bool":
        with pytest.raises(TypeError, match="around"):
            hg.around(hg.tensor("b", (2,), "bool"), 1)
    with pytest.raises(TypeError, match="around"):
        hg.around(hg.tensor("f", (3,), "float32"), 1.5)
    all_decimals = (0,) if dtype == "bool" else (0, 1, 2) if dtype.startswith(("float", "complex")) \
        else (0, 1, -1, -2, -3)
    for decimals in all_decimals:
        v = hg.tensor("x", x.shape, dtype)
        _, got = compare_with_perform(hg.Graph([v], hg.around(v, decimals)), [x])
        want = np.around(x, decimals)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=0 if dtype == "bool" else 1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_exp2_is_exact_on_integers_and_close_elsewhere(dtype, rng):
    """2**k is exact for every k whose result is normal, as NumPy's; other arguments
    within 2 ulp; infinities and NaN as NumPy (XLA:CPU flushes subnormal results)."""
    import ml_dtypes
    info = ml_dtypes.finfo(dtype)
    ints = np.arange(info.minexp, info.maxexp + 2, dtype=np.float64)
    frac = rng.uniform(info.minexp + 1, info.maxexp - 1, 500)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5])
    v = np.concatenate([ints, frac, specials]).astype(dtype)
    x = hg.tensor("x", v.shape, dtype)
    got = hg.compile(hg.Graph([x], hg.exp2(x)))(v).astype(np.float64)
    with np.errstate(over="ignore"):
        want = np.exp2(v.astype(np.float64)).astype(dtype).astype(np.float64)
    n = len(ints)
    np.testing.assert_array_equal(got[:n], want[:n])
    np.testing.assert_array_equal(got[-len(specials):], want[-len(specials):])
    spacing = np.spacing(want[n:-len(specials)].astype(dtype)).astype(np.float64)
    assert np.all(np.abs(got[n:-len(specials)] - want[n:-len(specials)]) <= 2 * spacing)


# --- NumPy semantics that XLA's simplifier and FTZ would change ----------------
def _numpy_paths(build, values, expected):
    """``build`` on graph inputs like ``values``: hg.evaluate and the O0 and O2
    compilations all equal NumPy's ``expected`` (dtype, shape, values, NaN)."""
    from hlograph.testing.fuzz import compare

    xs = [hg.tensor(f"x{i}", np.shape(v), np.asarray(v).dtype) for i, v in enumerate(values)]
    graph = hg.Graph(xs, build(*xs))
    runs = {"evaluate": hg.evaluate(graph, *values)}
    for p in ("O0", "O2"):
        runs[p] = hg.compile(graph, pipeline=p)(*values)
    for where, got in runs.items():
        got = got[0] if isinstance(got, (list, tuple)) else got
        msg = compare(got, expected)
        assert msg is None, f"{where}: {msg}"


@pytest.mark.parametrize("op, dtype", [(op, dt) for op in ("multiply", "divide", "floor_divide")
                                         for dt in ("float32", "float64", "complex64")
                                         if not (op == "floor_divide" and dt == "complex64")])
def test_bool_times_nonfinite_is_nan(op, dtype):
    x = np.array([True, False, True, False, False])
    y = np.array([np.nan, np.inf, 0.0, 0.0, -np.inf], dtype)
    with np.errstate(all="ignore"):
        _numpy_paths(getattr(hg, op), [x, y], getattr(np, op)(x, y))
        # a Python scalar divisor: XLA turns ``/ c`` into ``* (1 / c)``
        for c in (0.0, -0.0, float("inf"), float("nan")):
            _numpy_paths(lambda a, c=c: getattr(hg, op)(a, c), [x], getattr(np, op)(x, c))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_exp_pow_sqrt_compositions_are_not_simplified(dtype):
    x = np.array([-4.0, -1.0, -0.0, 0.25, 4.0, 800.0, -800.0, np.inf, -np.inf, np.nan, 1e-30], dtype)
    y = np.array([0.5, 1.5, -0.5, 2.0, 3.0, 0.001, 1000.0, 0.0, -1.0, 2.5, 0.5], dtype)
    cases = [
        (lambda a, b: hg.log(a ** 0.5), lambda a, b: np.log(a ** 0.5)),
        (lambda a, b: hg.log(hg.power(a, b)), lambda a, b: np.log(np.power(a, b))),
        (lambda a, b: hg.log(hg.exp(a)), lambda a, b: np.log(np.exp(a))),
        (lambda a, b: hg.log2(hg.exp(a)), lambda a, b: np.log2(np.exp(a))),
        (lambda a, b: hg.sqrt(a * a), lambda a, b: np.sqrt(a * a)),
        (lambda a, b: hg.power(hg.power(a, 2.0), 0.5), lambda a, b: np.power(np.power(a, 2.0), 0.5)),
        (lambda a, b: hg.power(hg.exp(a), b), lambda a, b: np.power(np.exp(a), b)),
        (lambda a, b: hg.exp(a) * hg.exp(b), lambda a, b: np.exp(a) * np.exp(b)),
        (lambda a, b: a ** 0.5, lambda a, b: a ** 0.5),  # NumPy's sqrt for a scalar 0.5
    ]
    with np.errstate(all="ignore"):
        for build, ref in cases:
            _numpy_paths(build, [x, y], ref(x, y))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "uint64"])
def test_reciprocal_of_integers_keeps_numpy_dtype(dtype):
    x = np.array([0, 1, 2, 1, 0], dtype) if dtype in ("bool",) or dtype[0] == "u" \
        else np.array([0, 1, 2, -1, -3], dtype)
    with np.errstate(all="ignore"):
        _numpy_paths(hg.reciprocal, [x], np.reciprocal(x))


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32"])
def test_angle_dtype_is_numpys(dtype):
    x = np.array([1, 0, 1], dtype)
    _numpy_paths(hg.angle, [x], np.angle(x))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint32", "int64"])
@pytest.mark.parametrize("op", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"])
def test_comparison_with_out_of_range_python_int(op, dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, info.max], dtype)
    for c in (-3 if info.min == 0 else info.min - 1, info.max + 1, 2**70, -(2**70)):
        fn = getattr(hg, op)
        _numpy_paths(lambda a, c=c: fn(a, c), [x], getattr(np, op)(x, c))
        _numpy_paths(lambda a, c=c: fn(c, a), [x], getattr(np, op)(c, x))
    with pytest.raises(OverflowError):  # arithmetic still refuses, as NumPy
        hg.add(hg.tensor("x", (3,), dtype), info.max + 1)


def test_subnormals_flush_to_zero_when_compiled():
    # documented (README, "NumPy semantics: the documented differences"): XLA:CPU
    # flushes subnormal inputs and results to zero; hg.evaluate keeps them
    tiny = np.finfo(np.float64).smallest_subnormal
    x = np.array([-tiny, tiny, 1.0])
    graph = hg.Graph([v := hg.tensor("x", (3,), "float64")], [hg.less(v, 0.0), v * 2.0])
    less, twice = hg.evaluate(graph, x)
    np.testing.assert_array_equal(less, [True, False, False])
    np.testing.assert_array_equal(twice, [-2 * tiny, 2 * tiny, 2.0])
    for p in ("O0", "O2"):
        less, twice = hg.compile(graph, pipeline=p)(x)
        np.testing.assert_array_equal(less, [False, False, False])
        np.testing.assert_array_equal(twice, [0.0, 0.0, 2.0])


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", ["log", "log2", "log10"])
def test_complex_log_keeps_infinite_parts(op, dtype):
    x = np.array([complex(np.nan, np.inf), complex(np.inf, np.nan), complex(-np.inf, np.nan),
                  1 + 2j, -np.inf + 1j, 0j], dtype)
    with np.errstate(all="ignore"):
        _numpy_paths(getattr(hg, op), [x], getattr(np, op)(x))


@pytest.mark.parametrize("pipeline", ["O0", "O2"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_abs_of_infinite_parts(dtype, pipeline):
    # |z| is inf when either part is inf, nan or not (C99 Annex G, as NumPy)
    values = [complex(np.nan, np.inf), complex(np.inf, np.nan), complex(-np.inf, 1), complex(2, -np.inf),
              complex(3, 4), complex(np.nan, 1), complex(0, -0.0), complex(1e30, 1e30)]
    a = np.array(values, dtype)
    x = hg.tensor("x", a.shape, dtype)
    g = hg.Graph([x], hg.abs(x))
    want = np.abs(a)
    for got in (hg.compile(g, pipeline=pipeline)(a), hg.evaluate(g, a)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


# --- complex functions at C99's (Annex G) special values, as NumPy ----------------
_PARTS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -0.5, 1e30]


def _special_complex(dtype):
    return np.array([complex(a, b) for a in _PARTS for b in _PARTS], dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
                                "exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan",
                                "sinh", "cosh", "tanh", "reciprocal", "sign"])
def test_complex_special_values(op, dtype):
    # infinite parts win over NaN, signed zeros pick the side of a branch cut
    # (arcsin(2.5 - 0j) = conj(arcsin(2.5 + 0j))), NaN parts give C99's values
    z = _special_complex(dtype)
    with np.errstate(all="ignore"):
        _numpy_paths(getattr(hg, op), [z], getattr(np, op)(z))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_sqrt_keeps_the_sign_of_a_zero_imaginary_part(dtype):
    # csqrt(conj z) = conj csqrt(z): sqrt(-4 - 0j) is -2j (XLA's sqrt ignores the -0.0)
    z = np.array([complex(-4, -0.0), complex(-4, 0.0), complex(9, -0.0), complex(-0.0, -0.0)], dtype)
    want = np.sqrt(z)
    assert want[0] == -2j
    x = hg.tensor("x", z.shape, dtype)
    g = hg.Graph([x], [hg.sqrt(x)])
    for (got,) in (hg.compile(g, pipeline="O0")(z), hg.compile(g)(z), hg.evaluate(g, z)):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_inverse_functions_on_branch_cuts(dtype, rng):
    # random points with zero parts of either sign (on and off the cuts)
    re = rng.choice([-3.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 3.0], 200)
    im = rng.choice([-2.0, -0.0, 0.0, 0.75, 2.0], 200)
    z = (re + 1j * im).astype(dtype)
    z.imag = np.where(im == 0, im, z.imag)  # keep -0.0
    for op in ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"):
        with np.errstate(all="ignore"):
            _numpy_paths(getattr(hg, op), [z], getattr(np, op)(z))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_power_special_values(dtype):
    # NumPy's npy_cpow: 1 for b = 0, 0 or nan for a zero base, integer exponents in
    # (-100, 100) by repeated products ((inf + 0j) ** -1 is nan + nan j), else C's cpow
    parts = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 2.0, 3.0, 0.5]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    base, exponent = (a.ravel() for a in np.meshgrid(z, z))
    ints = np.array([4, 5, -1, -2, -3, -4, 7, 1.5, -0.5], dtype)
    base = np.concatenate([base, np.repeat(z, ints.size)])
    exponent = np.concatenate([exponent, np.tile(ints, z.size)])
    with np.errstate(all="ignore"):
        _numpy_paths(hg.power, [base, exponent], np.power(base, exponent))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_divide_special_values(dtype):
    # NumPy divides complex numbers by Smith's algorithm, step by step
    z = _special_complex(dtype)
    x, y = (a.ravel() for a in np.meshgrid(z, z))
    with np.errstate(all="ignore"):
        _numpy_paths(hg.divide, [x, y], np.divide(x, y))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("one", [1, True, 1.0, 1 + 0j, "array"])
def test_complex_times_one_is_numpys_product(dtype, one):
    # (inf + 2j) * (1 + 0j) is inf + nan j in NumPy; XLA's simplifier takes x * 1 for x
    z = _special_complex(dtype)
    if one == "array":
        one = hg.ones(z.shape, dtype)
    with np.errstate(all="ignore"):
        want = np.multiply(z, np.ones_like(z))
        _numpy_paths(lambda x: hg.multiply(x, one), [z], want)
        _numpy_paths(lambda x: hg.multiply(one, x), [z], want)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_power_wraps_as_numpy(dtype, rng):
    # NumPy squares in the type, wrapping: int16 (-3) ** 200 is -20319 (XLA's integer
    # power squares six times only, so exponents from 64 on were wrong)
    info = np.iinfo(dtype)
    base = rng.integers(max(info.min, -7), min(info.max, 8), size=64).astype(dtype)
    base[:4] = [info.min, info.max, 0, 1]
    top = min(int(info.max), 1000)
    exponent = rng.integers(0, top, size=64).astype(dtype)
    exponent[:8] = [3, 2, 5, 7, 63, 64, min(200, top), top]
    with np.errstate(all="ignore"):
        _numpy_paths(hg.power, [base, exponent], np.power(base, exponent))
        k = 200 if info.max >= 200 else 100
        _numpy_paths(lambda b: hg.power(b, k), [base], np.power(base, np.dtype(dtype).type(k)))
    if dtype == "int16":
        assert np.power(np.int16(-3), np.int16(200)) == -20319


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("decimals", [-1, -2, -3])
def test_round_integers_past_their_range(dtype, decimals):
    # NumPy rounds integers in float64 and casts back: 127 to tens is -126 in int8,
    # int64's extremes round past the type (to the least int64)
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, info.max - 1, info.min + 1, 0, 5, 15, 25, 35, 4], dtype)
    x = hg.tensor("x", (None,), dtype)
    g = hg.Graph([x], hg.round(x, decimals))
    with np.errstate(all="ignore"):
        # one element at a time: NumPy's own float64 -> uint32 cast of values past the type
        # differs between its vector loop and its scalar one (README, the documented differences)
        want = np.array([np.round(a[i:i + 1], decimals)[0] for i in range(a.size)])
        for got in (hg.evaluate(g, a), hg.compile(g, pipeline="O0")(a), hg.compile(g)(a)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_round_uint32_past_its_range_is_wrapped():
    # pinned: 4294967295 to tens is 4294967300, wrapped to 4 (NumPy's scalar loop; its
    # vector loop gives 0 for arrays of four and more elements)
    a = np.array([4294967295, 4294967294, 4294967285], np.uint32)
    x = hg.tensor("x", a.shape, "uint32")
    g = hg.Graph([x], hg.round(x, -1))
    for got in (hg.evaluate(g, a), hg.compile(g)(a)):
        np.testing.assert_array_equal(got, np.array([4, 4294967290, 4294967280], np.uint32))


@pytest.mark.parametrize("op", ["copysign", "arctan2", "hypot", "logaddexp", "nextafter", "heaviside",
                                "divide", "power", "add", "floor_divide"])
def test_mixed_integer_dtypes_take_numpys_loop(op, rng):
    # NumPy picks the first loop both integer types cast to safely: copysign of int8 and
    # uint8 computes in float16, where their common type int16 would take float32
    ints = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64"]
    for d1 in ints:
        for d2 in ints:
            a = np.arange(1, 4).astype(d1)
            b = np.arange(1, 4).astype(d2)
            try:
                want = getattr(np, op)(a, b)
            except TypeError:
                continue
            got = getattr(hg, op)(hg.tensor("a", (3,), d1), hg.tensor("b", (3,), d2))
            assert got.dtype == want.dtype, (op, d1, d2)
    a, b = np.array([-1, 2, -3], np.int8), np.array([1, 0, 7], np.uint8)
    with np.errstate(all="ignore"):
        _numpy_paths(getattr(hg, op), [a, b], getattr(np, op)(a, b))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_with_a_nan_constant(name, dtype):
    # NaN is kept away from the exponential: XLA:CPU's exp of a NaN computed from a NaN
    # constant returns garbage; equal infinities still give the infinity
    import ml_dtypes
    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    v = np.array([-1.5, np.nan, 1.25, np.inf, -np.inf, 0.0], dt)
    x = hg.tensor("x", v.shape, dt)
    fn = getattr(hg, name)
    for c in (float("nan"), float("inf"), -float("inf"), 1.0):
        g = hg.Graph([x], [fn(x, c), fn(c, x)])
        compiled, _ = compare_with_perform(g, [v], rtol=2e-2, atol=1e-2)
        with np.errstate(all="ignore"):
            want = [getattr(np, name)(v, c), getattr(np, name)(c, v)]
        for got, w in zip(compiled, want):
            np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(w, np.float64),
                                       rtol=2e-2, equal_nan=True)


# --- an operand that is NaN everywhere --------------------------------------------------
@pytest.mark.parametrize("combine,nan_first", [(c, False) for c in ("add", "subtract", "multiply", "divide",
                                                                    "maximum", "minimum")]
                         + [("subtract", True), ("divide", True)])
@pytest.mark.parametrize("then", ["exp", "cosh"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_constant_operand_gives_nan_after_exp(combine, then, dtype, nan_first):
    # XLA:CPU's float32 exp of an argument LLVM can prove NaN returned uninitialized
    # values; the lowering folds the NaN-absorbing op to its NaN constant instead
    x = hg.tensor("x", (9,), dtype)
    nan = hg.asarray(np.array(np.nan, dtype=as_dtype(dtype)))
    args = (nan, x) if nan_first else (x, nan)
    graph = hg.Graph([x], [getattr(hg, then)(getattr(hg, combine)(*args))])
    xs = np.array([0, 1, -1, 2.5, -0.0, np.inf, -np.inf, np.nan, 300.0]).astype(as_dtype(dtype))
    for where, (out,) in results_everywhere(graph, xs):
        assert out.dtype == as_dtype(dtype), where
        assert np.isnan(np.asarray(out, np.float64)).all(), (where, out)


def test_nan_operand_of_a_symbolic_shape_is_folded_to_a_dynamic_broadcast():
    x = hg.tensor("x", (None,), "float32")
    fn = hg.compile(hg.Graph([x], [hg.exp(x * np.float32(np.nan))]))
    for n in (0, 3, 17):
        (out,) = fn(np.arange(n, dtype=np.float32))
        assert out.shape == (n,) and np.isnan(out).all()
