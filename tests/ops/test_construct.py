"""Construction and shape extras: compiled results against perform, and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import construct as cs
from hlograph.frontend.types import TensorType
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array

import hlograph.lowering.rules.construct  # noqa: F401  (registers the rules)


def _run(inputs, values, outs, expected):
    """Compiled == perform for ``outs``, and perform == NumPy's ``expected``."""
    _, ref = compare_with_perform(hg.Graph(inputs, outs), values)
    ref = ref if isinstance(outs, (list, tuple)) else [ref]
    expected = expected if isinstance(outs, (list, tuple)) else [expected]
    assert len(ref) == len(expected)
    for r, e in zip(ref, expected):
        assert_same(r, np.asarray(e))


def _input(shape, dtype, rng, kind="normal"):
    return hg.tensor("x", shape, dtype), random_array(rng, shape, dtype, kind)


# --- split ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,arg,axis", [
    ((6, 4), 3, 0), ((6, 4), [1, 3], 1), ((5,), [2, 2, 9], 0), ((2, 4), 2, -1), ((0, 3), 2, 0), ((4,), [], 0),
], ids=str)
def test_split(shape, arg, axis, rng):
    x, v = _input(shape, "float32", rng)
    _run([x], [v], cs.split(x, arg, axis), np.split(v, arg, axis))


@pytest.mark.parametrize("shape,arg,axis", [((7, 2), 3, 0), ((5,), 5, 0), ((3, 4), 8, 1), ((6,), [4, 1], 0)], ids=str)
def test_array_split(shape, arg, axis, rng):
    x, v = _input(shape, "int32", rng)
    _run([x], [v], cs.array_split(x, arg, axis), np.array_split(v, arg, axis))


# --- tile, repeat, kron ------------------------------------------------------------------
@pytest.mark.parametrize("shape,reps", [
    ((2, 3), (2, 1)), ((3,), (2, 2)), ((2, 1, 2), 3), ((), (2, 0)), ((0, 2), 2),
], ids=str)
def test_tile(shape, reps, rng):
    x, v = _input(shape, "complex64", rng)
    _run([x], [v], cs.tile(x, reps), np.tile(v, reps))


@pytest.mark.parametrize("shape,repeats,axis", [
    ((2, 3), 2, 1), ((2, 3), [1, 0, 3], -1), ((2, 3), 3, None), ((3,), [2], 0), ((2, 2), [0, 2, 1, 1], None),
    ((0, 2), 2, 0), ((), 3, None),
], ids=str)
def test_repeat(shape, repeats, axis, rng):
    x, v = _input(shape, "bool", rng)
    _run([x], [v], cs.repeat(x, repeats, axis), np.repeat(v, repeats, axis))


@pytest.mark.parametrize("sa,sb,dta,dtb", [((2, 2), (3, 2), "float32", "float32"), ((3,), (2, 2), "int8", "float64"),
                                           ((2, 1, 2), (2,), "int32", "int32")], ids=str)
def test_kron(sa, sb, dta, dtb, rng):
    a, b = hg.tensor("a", sa, dta), hg.tensor("b", sb, dtb)
    va, vb = random_array(rng, sa, dta), random_array(rng, sb, dtb)
    _run([a, b], [va, vb], cs.kron(a, b), np.kron(va, vb))


# --- pad, flip, roll ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", [((1, 2), (0, 3)), 2, ((3, 0),)], ids=str)
def test_pad_modes(mode, width, rng):
    x, v = _input((3, 2), "float64", rng)
    _run([x], [v], cs.pad(x, width, mode), np.pad(v, width, mode))


@pytest.mark.parametrize("dtype,value", [("int16", -7), ("bool", True), ("float16", np.inf), ("complex128", 1.5)])
def test_pad_constant_values(dtype, value, rng):
    x, v = _input((2, 3), dtype, rng)
    _run([x], [v], cs.pad(x, ((1, 0), (2, 1)), constant_values=value),
         np.pad(v, ((1, 0), (2, 1)), constant_values=value))


def test_pad_graph_value_0d_and_empty(rng):
    x, v = _input((2,), "float32", rng)
    c = hg.scalar("c", "float64")
    s = hg.tensor("s", (), "int32")
    e = hg.tensor("e", (0, 2), "float32")
    outs = [cs.pad(x, 1, constant_values=c), cs.pad(s, 0), cs.pad(e, ((1, 1), (0, 0))), cs.pad(e, 1, "constant", 3)]
    cv, sv, ev = np.float64(2.5), np.int32(4), np.zeros((0, 2), np.float32)
    _run([x, c, s, e], [v, cv, sv, ev], outs,
         [np.pad(v, 1, constant_values=np.float32(cv)), np.pad(sv, 0), np.pad(ev, ((1, 1), (0, 0))),
          np.pad(ev, 1, constant_values=3)])


@pytest.mark.parametrize("dtype,values", [
    ("float32", ((1.5, -2), (np.inf, 4))),      # per axis and side; corners follow the last axis
    ("int16", ((7, 9),)),                        # one (before, after) pair for every axis
    ("uint8", [[5], [7]]),                       # one value per axis
    ("bool", ((True, False), (False, True))),
    ("complex64", ((1j, 2), (3, -1j))),
    ("float64", ((2.0, 2.0), (2.0, 2.0))),       # all equal: one pad
], ids=str)
def test_pad_constant_values_per_axis(dtype, values, rng):
    x, v = _input((3, 4), dtype, rng)
    width = ((1, 2), (2, 1))
    out = cs.pad(x, width, constant_values=values)
    _run([x], [v], out, np.pad(v, width, constant_values=values))


def test_pad_constant_values_per_axis_3d_one_sided_and_graph_valued(rng):
    x, v = _input((2, 3, 2), "float64", rng)
    c, d = hg.tensor("c", (3, 2), "float32"), hg.tensor("d", (2,), "float64")
    cv, dv = random_array(rng, (3, 2), "float32"), np.array([-1.0, 8.0])
    width = ((1, 0), (2, 1), (0, 2))
    values = ((1, 2), (3, 4), (5, 6))
    outs = [cs.pad(x, width, constant_values=values), cs.pad(x, width, constant_values=c),
            cs.pad(x, 1, constant_values=d)]
    _run([x, c, d], [v, cv, dv], outs,
         [np.pad(v, width, constant_values=values), np.pad(v, width, constant_values=cv.astype(np.float64)),
          np.pad(v, 1, constant_values=dv)])


def _pad_input(shape, dtype, rng):
    kind = "small_int" if dtype.startswith(("int", "uint")) else "normal"
    return _input(shape, dtype, rng, kind)


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16", "uint8"])
@pytest.mark.parametrize("width,end_values", [
    (((2, 3), (1, 4)), 0), (((2, 3), (1, 4)), ((1, -2), (3, 40))), ((3, 0), (7.5, 1)), (((0, 0), (2, 2)), 5),
], ids=str)
def test_pad_linear_ramp(dtype, width, end_values, rng):
    x, v = _pad_input((3, 5), dtype, rng)
    if dtype == "uint8":
        end_values = np.abs(np.asarray(end_values)).astype(np.int64).tolist()
    out = cs.pad(x, width, "linear_ramp", end_values=end_values)
    _, ref = compare_with_perform(hg.Graph([x], out), [v])
    expected = np.pad(v, width, "linear_ramp", end_values=end_values)
    assert_same(ref, expected, **({"rtol": 1e-2, "atol": 1e-2} if dtype == "float16" else {}))


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
@pytest.mark.parametrize("stat_length", [None, ((2, 1), (4, 3)), 2], ids=str)
def test_pad_stat_modes(mode, dtype, stat_length, rng):
    x, v = _pad_input((4, 5), dtype, rng)
    width = ((2, 3), (1, 2))
    out = cs.pad(x, width, mode, stat_length=stat_length)
    _, ref = compare_with_perform(hg.Graph([x], out), [v])
    assert_same(ref, np.pad(v, width, mode, stat_length=stat_length))


@pytest.mark.parametrize("mode", ["maximum", "mean", "median", "linear_ramp"])
def test_pad_stat_modes_nan_1d_and_empty(mode, rng):
    x, v = _input((5,), "float64", rng)
    v[1] = np.nan
    e = hg.tensor("e", (0, 3), "float32")
    outs = [cs.pad(x, (2, 3), mode), cs.pad(e, ((0, 0), (1, 2)), mode)]
    ev = np.zeros((0, 3), np.float32)
    _run([x, e], [v, ev], outs, [np.pad(v, (2, 3), mode), np.pad(ev, ((0, 0), (1, 2)), mode)])


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
def test_flip(axis, rng):
    x, v = _input((2, 3, 4), "uint8", rng)
    _run([x], [v], cs.flip(x, axis), np.flip(v, axis))


@pytest.mark.parametrize("shift,axis", [
    (1, None), (-2, 0), (7, 1), ((1, 2), (0, 1)), ((1, -1), (1, 1)), (0, 0),
], ids=str)
def test_roll(shift, axis, rng):
    x, v = _input((3, 4), "float32", rng)
    _run([x], [v], cs.roll(x, shift, axis), np.roll(v, shift, axis))


def test_roll_empty(rng):
    x, v = _input((0, 3), "float32", rng)
    _run([x], [v], [cs.roll(x, 2, 0), cs.roll(x, 1)], [np.roll(v, 2, 0), np.roll(v, 1)])


# --- diagonals and triangles -------------------------------------------------------------
@pytest.mark.parametrize("shape,offset,axis1,axis2", [
    ((3, 4), 0, 0, 1), ((3, 4), 2, 0, 1), ((3, 4), -1, 1, 0), ((2, 3, 4), 1, 2, 0), ((2, 3, 4), 5, 0, 1),
    ((4, 2, 4), -2, -1, 0),
], ids=str)
def test_diagonal(shape, offset, axis1, axis2, rng):
    x, v = _input(shape, "float64", rng)
    _run([x], [v], cs.diagonal(x, offset, axis1, axis2), np.diagonal(v, offset, axis1, axis2))


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((2,), -1), ((3, 4), 1), ((3, 3), -2), ((0,), 1)], ids=str)
def test_diag(shape, k, rng):
    x, v = _input(shape, "int64", rng)
    _run([x], [v], cs.diag(x, k), np.diag(v, k))


def _fill_diagonal_reference(v, val, offset):
    out = v.copy()
    rows, cols = cs._diag_positions(v.shape[0], v.shape[1], offset)
    out[rows, cols] = val
    return out


@pytest.mark.parametrize("shape,offset", [((3, 3), 0), ((5, 3), 0), ((3, 5), 2), ((4, 3), -1), ((2, 2), 4)], ids=str)
def test_fill_diagonal(shape, offset, rng):
    x, v = _input(shape, "float32", rng)
    outs = cs.fill_diagonal(x, 7.0, offset)
    expected = _fill_diagonal_reference(v, 7.0, offset)
    if offset == 0:
        np_out = v.copy()
        np.fill_diagonal(np_out, 7.0)
        assert_same(expected, np_out)
    _run([x], [v], outs, expected)


def test_fill_diagonal_values_and_nd(rng):
    x, v = _input((3, 3, 3), "int32", rng)
    m, mv = hg.tensor("m", (3, 4), "float64"), random_array(rng, (3, 4), "float64")
    d = hg.tensor("d", (3,), "float64")
    dv = random_array(rng, (3,), "float64")
    e = v.copy()
    np.fill_diagonal(e, -1)
    _run([x, m, d], [v, mv, dv], [cs.fill_diagonal(x, -1), cs.fill_diagonal(m, d)],
         [e, _fill_diagonal_reference(mv, dv, 0)])


@pytest.mark.parametrize("N,M,k,dtype", [
    (3, None, 0, "float64"), (2, 4, 1, "int32"), (4, 2, -1, "bool"), (0, 3, 0, "float32"),
])
def test_tri(N, M, k, dtype):
    assert_same(hg.evaluate(hg.Graph([], cs.tri(N, M, k, dtype))), np.tri(N, M, k, dtype=dtype))


@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((4, 3), -1), ((2, 3, 3), 1), ((3, 3), 5), ((0, 2), 0)], ids=str)
def test_tril_triu(shape, k, rng):
    x, v = _input(shape, "complex64", rng)
    _run([x], [v], [cs.tril(x, k), cs.triu(x, k)], [np.tril(v, k), np.triu(v, k)])


def test_block_diag(rng):
    a, b, c = hg.tensor("a", (2, 2), "float32"), hg.tensor("b", (3,), "int64"), hg.tensor("c", (1, 3), "float32")
    va, vb, vc = (random_array(rng, (2, 2), "float32"), random_array(rng, (3,), "int64"),
                  random_array(rng, (1, 3), "float32"))
    dt = np.result_type(va, vb, vc)
    expected = np.zeros((4, 8), dt)
    expected[0:2, 0:2], expected[2, 2:5], expected[3:4, 5:8] = va, vb, vc
    _run([a, b, c], [va, vb, vc], cs.block_diag(a, b, c), expected)


# --- linspace, meshgrid ---------------------------------------------------------------------
@pytest.mark.parametrize("start,stop,num,endpoint", [(0, 1, 5, True), (2.5, -1, 4, False), (1, 1, 1, True),
                                                     (0, 3, 0, True), (-1, 2, 2, True)])
def test_linspace(start, stop, num, endpoint):
    assert_same(hg.evaluate(hg.Graph([], cs.linspace(start, stop, num, endpoint))),
                np.linspace(start, stop, num, endpoint=endpoint))
    a, b = hg.scalar("a", "float32"), hg.scalar("b", "float32")
    av, bv = np.float32(start), np.float32(stop)
    _, ref = compare_with_perform(hg.Graph([a, b], cs.linspace(a, b, num, endpoint)), [av, bv])
    assert_same(ref, np.linspace(av, bv, num, endpoint=endpoint))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse, rng):
    x, y, z = hg.tensor("x", (3,), "float32"), hg.tensor("y", (2,), "int8"), hg.tensor("z", (4,), "float32")
    vs = [random_array(rng, (3,), "float32"), random_array(rng, (2,), "int8"), random_array(rng, (4,), "float32")]
    _run([x, y, z], vs, cs.meshgrid(x, y, z, indexing=indexing, sparse=sparse),
         np.meshgrid(*vs, indexing=indexing, sparse=sparse))
    _run([x], vs[:1], cs.meshgrid(x, indexing=indexing), np.meshgrid(vs[0], indexing=indexing))


# --- specify_shape, shape_of, size ----------------------------------------------------------
def test_specify_shape(rng):
    x = hg.tensor("x", (None, 3), "float32")
    y = cs.specify_shape(x, (4, None))
    assert y.shape == (4, 3) and y.owner.op == cs.SpecifyShape((4, None))
    v = random_array(rng, (4, 3), "float32")
    _run([x], [v], y * 2, v * 2)
    with pytest.raises(ValueError, match="does not have the specified shape"):
        hg.Graph([x], y).clone([TensorType("float32", (5, 3))])
    with pytest.raises(ValueError, match=r"input 'x' has shape \(5, 3\)"):
        hg.evaluate(hg.Graph([x], y), random_array(rng, (5, 3), "float32"))
    with pytest.raises(ValueError, match="does not have the specified shape"):
        cs.specify_shape(x, (None, 2))
    with pytest.raises(ValueError, match="does not have the specified shape"):
        cs.specify_shape(x, (3,))


def test_shape_and_size(rng):
    x = hg.tensor("x", (None, 3), "float32")
    s = hg.tensor("s", (), "int8")
    outs = [cs.shape_of(x), cs.size(x), cs.size(x, -1), cs.shape_of(s), cs.size(s)]
    assert [o.dtype for o in outs] == [np.int64] * 5 and outs[0].shape == (2,) and outs[1].shape == ()
    fn = hg.compile(hg.Graph([x, s], outs))
    for n in (0, 5):
        v = random_array(rng, (n, 3), "float32")
        res = fn(v, np.int8(1))
        for r, e in zip(res, [np.array(v.shape), v.size, 3, np.zeros(0, np.int64), 1]):
            assert_same(r, np.asarray(e, np.int64))


# --- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build,err,match", [
    (lambda x: cs.split(x, 4, 1), ValueError, "array split does not result in an equal division"),
    (lambda x: cs.split(x, 0), ValueError, "number of sections must be larger than 0"),
    (lambda x: cs.split(x, 1.5), TypeError, "the number of sections must be an int"),
    (lambda x: cs.tile(x, (-1,)), ValueError, "reps must be non-negative"),
    (lambda x: cs.repeat(x, [1, 2], 1), ValueError, "2 repeats for an axis of size 3"),
    (lambda x: cs.repeat(x, -1), ValueError, "repeats must be non-negative"),
    (lambda x: cs.pad(x, 1, "empty"), ValueError, "mode must be one of"),
    (lambda x: cs.pad(x, ((1, 2, 3),)), ValueError, "does not fit an input of rank 2"),
    (lambda x: cs.pad(x, -1), ValueError, "pad widths must be non-negative"),
    (lambda x: cs.pad(x, 1.5), TypeError, "pad_width must be ints"),
    (lambda x: cs.pad(x, 1, constant_values=[1, 2, 3]), ValueError,
     r"constant_values \[1, 2, 3\] does not fit an input of rank 2"),
    (lambda x: cs.pad(x, 1, constant_values=hg.tensor("c", (3,))), ValueError,
     r"constant_values float32\[3\] does not fit an input of rank 2"),
    (lambda x: cs.pad(x, 1, "linear_ramp", end_values=((1, 2, 3),)), ValueError, "end_values .* does not fit"),
    (lambda x: cs.pad(x, 1, "linear_ramp", end_values=hg.scalar("e")), NotImplementedError,
     "end_values must be static numbers"),
    (lambda x: cs.pad(x, 1, "maximum", stat_length=0), ValueError, r"stat_length of 0 yields no value .*axis 0"),
    (lambda x: cs.pad(x, 1, "mean", stat_length=-1), ValueError, "stat_length must be non-negative"),
    (lambda x: cs.pad(x, 1, "median", stat_length=1.5), TypeError, "stat_length must be an int"),
    (lambda x: cs.pad(hg.tensor("t", (None, 3)), 1, "mean"), ValueError, "axis 0 of the input must have a known size"),
    (lambda x: cs.pad(hg.tensor("e", (0,)), 1, "edge"), ValueError, "can't extend the empty axis 0"),
    (lambda x: cs.roll(x, (1, 2, 3), (0, 1)), ValueError, "'shift' and 'axis' must broadcast"),
    (lambda x: cs.diagonal(x, 0, 1, -1), ValueError, "axis1 and axis2 cannot be the same"),
    (lambda x: cs.diag(hg.tensor("t", (2, 2, 2))), ValueError, "must be 1-d or 2-d"),
    (lambda x: cs.fill_diagonal(hg.tensor("t", (2, 3, 2)), 1.0), ValueError, "needs equal dims"),
    (lambda x: cs.tril(hg.tensor("t", (3,))), ValueError, "at least 2 dims"),
    (lambda x: cs.tril(hg.tensor("t", (None, 3))), ValueError, "axis 0 of the input must have a known size"),
    (lambda x: cs.meshgrid(x, indexing="xz"), ValueError, "indexing must be 'xy' or 'ij'"),
    (lambda x: cs.linspace(0, 1, -1), ValueError, "num must be non-negative"),
    (lambda x: cs.Pad(((0, 1), (0, 0)))(x, hg.constant(0)), TypeError, "input 'value' must be 0-d of dtype float32"),
    (lambda x: cs.block_diag(hg.tensor("t", (1, 1, 1))), ValueError, "input 0 has more than 2 dims"),
])
def test_errors(build, err, match):
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(err, match=match):
        build(x)
