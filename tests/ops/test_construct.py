"""Padding and shapes as graph values: compiled results against perform, and perform against NumPy."""

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


# --- pad ----------------------------------------------------------------------------------
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
    outs = [cs.shape_of(x), hg.size(x), hg.size(x, -1), cs.shape_of(s), hg.size(s)]
    assert [o.dtype for o in outs] == [np.int64] * 5 and outs[0].shape == (2,) and outs[1].shape == ()
    fn = hg.compile(hg.Graph([x, s], outs))
    for n in (0, 5):
        v = random_array(rng, (n, 3), "float32")
        res = fn(v, np.int8(1))
        for r, e in zip(res, [np.array(v.shape), v.size, 3, np.zeros(0, np.int64), 1]):
            assert_same(r, np.asarray(e, np.int64))


# --- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build,err,match", [
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
    (lambda x: cs.Pad(((0, 1), (0, 0)))(x, hg.constant(0)), TypeError, "input 'value' must be 0-d of dtype float32"),
])
def test_errors(build, err, match):
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(err, match=match):
        build(x)
