"""The numpy.fft namespace (``hg.fft``) against numpy.fft: every function, compiled and
through hg.evaluate, over dtypes, shapes, axes, lengths and norms; NumPy's errors."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import fft as m
from hlograph.tests.helpers import assert_same, random_array

# NumPy 2 deprecates s without axes; its meaning (the last len(s) axes) is tested here
pytestmark = pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")

NORMS = [None, "backward", "ortho", "forward"]

#: (rtol, atol relative to the largest reference magnitude) per result dtype
TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5),
       "float64": (1e-10, 1e-12), "complex128": (1e-10, 1e-12)}


def _check(outputs, values, expected, what):
    """Each output of the compiled graph and of hg.evaluate against NumPy's (float16
    inputs within float16's precision: NumPy rounds its norm factors to it)."""
    half = any(np.asarray(v).dtype == np.float16 for v in values)
    xs = [hg.tensor(f"x{i}", np.shape(v), np.asarray(v).dtype) for i, v in enumerate(values)]
    built = [f(*xs) for f in outputs]
    graph = hg.Graph(xs, built)
    runs = {"compiled": hg.compile(graph)(*values), "evaluate": hg.evaluate(graph, *values)}
    for how, results in runs.items():
        assert len(results) == len(expected)
        for k, (a, e) in enumerate(zip(results, expected)):
            e = np.asarray(e)
            rtol, atol = TOL["float16"] if half else TOL.get(e.dtype.name, (0, 0))
            scale = float(np.max(np.abs(e.astype(np.complex128)), initial=1.0))
            assert_same(a, e, rtol=rtol, atol=atol * scale, what=f"{what[k]} ({how})")


def _one_axis_cases(shape, real):
    """(label, hg function, numpy function) for the 1-d transforms of an input of ``shape``."""
    cases = []
    m_ = shape[-1]
    for name in ("fft", "ifft") + (("rfft", "ihfft") if real else ()):
        for n in (None, max(1, m_ - 2), m_ + 3):
            for axis, norm in ((-1, NORMS[len(cases) % 4]), (0, "ortho")):
                kw = dict(n=n, axis=axis, norm=norm)
                cases.append((f"{name}{kw}", lambda x, f=getattr(m, name), kw=kw: f(x, **kw),
                              lambda v, f=getattr(np.fft, name), kw=kw: f(v, **kw)))
    for name in ("irfft", "hfft"):
        for n in (None, 2 * m_ - 1, 2 * m_ - 2, 3, 1):  # odd and even lengths, cropping
            for norm in ("backward", "ortho", "forward"):
                kw = dict(n=n, norm=norm)
                cases.append((f"{name}{kw}", lambda x, f=getattr(m, name), kw=kw: f(x, **kw),
                              lambda v, f=getattr(np.fft, name), kw=kw: f(v, **kw)))
    return cases


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32", "bool",
                                   "float16"])
@pytest.mark.parametrize("shape", [(6,), (3, 7), (2, 3, 8)], ids=str)
def test_one_axis(dtype, shape):
    rng = np.random.default_rng(0)
    v = random_array(rng, shape, dtype)
    cases = _one_axis_cases(shape, real=not np.dtype(dtype).kind == "c")
    _check([c[1] for c in cases], [v], [c[2](v) for c in cases], [c[0] for c in cases])


def _nd_cases(shape, real):
    cases = []
    ndim = len(shape)
    configs = [dict(), dict(axes=(0,)), dict(axes=(-1, 0)), dict(s=(3, 5)), dict(s=(2, -1), axes=(0, -1)),
               dict(axes=(-2, -2)), dict(axes=(0, 1, 0), s=(3, 4, 5)), dict(s=(4,) * min(ndim, 4))]
    names = ("fftn", "ifftn", "irfftn") + (("rfftn",) if real else ())
    for i, kw in enumerate(configs):
        kw = dict(kw, norm=NORMS[i % 4])
        for name in names:
            cases.append((f"{name}{kw}", lambda x, f=getattr(m, name), kw=kw: f(x, **kw),
                          lambda v, f=getattr(np.fft, name), kw=kw: f(v, **kw)))
    for name in ("fft2", "ifft2", "irfft2") + (("rfft2",) if real else ()):
        for kw in (dict(), dict(s=(5, 4), norm="ortho"), dict(axes=(-1, 0), norm="forward")):
            cases.append((f"{name}{kw}", lambda x, f=getattr(m, name), kw=kw: f(x, **kw),
                          lambda v, f=getattr(np.fft, name), kw=kw: f(v, **kw)))
    return cases


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("shape", [(4, 6), (3, 4, 5), (2, 3, 2, 4)], ids=str)
def test_nd(dtype, shape):
    rng = np.random.default_rng(1)
    v = random_array(rng, shape, dtype)
    cases = _nd_cases(shape, real=not np.dtype(dtype).kind == "c")
    _check([c[1] for c in cases], [v], [c[2](v) for c in cases], [c[0] for c in cases])


def test_empty_batch_and_zero_size_axes():
    v = np.zeros((0, 4), np.float32)
    w = np.zeros((2, 0, 3), np.complex128)
    cases = [(lambda x, y: m.fft(x), lambda a, b: np.fft.fft(a)),
             (lambda x, y: m.rfft2(x, s=(2, 4)), lambda a, b: np.fft.rfft2(a, s=(2, 4))),
             (lambda x, y: m.irfft(x), lambda a, b: np.fft.irfft(a)),
             # an empty axis zero-padded to n points
             (lambda x, y: m.fft(y, n=3, axis=1), lambda a, b: np.fft.fft(b, n=3, axis=1)),
             (lambda x, y: m.ifftn(y, s=(2, 2), axes=(1, 2)), lambda a, b: np.fft.ifftn(b, s=(2, 2), axes=(1, 2)))]
    _check([c[0] for c in cases], [v, w], [c[1](v, w) for c in cases], [str(i) for i in range(len(cases))])


def test_nothing_to_transform():
    # NumPy's n-d transforms over no axes return the input as it is
    x = hg.tensor("x", (), "float64")
    assert m.fftn(x) is x
    y = hg.tensor("y", (2, 3), "int32")
    assert m.ifftn(y, axes=()) is y
    assert np.fft.ifftn(np.zeros((2, 3), np.int32), axes=()).dtype == np.int32


def test_nan_and_inf_propagate():
    v = np.arange(24, dtype=np.float64).reshape(3, 8)
    v[0, 2] = np.nan
    v[1, 5] = np.inf
    x = hg.tensor("x", v.shape, v.dtype)
    outs = [m.fft(x), m.rfft(x), m.irfft(x), m.fft2(x), m.ihfft(x, axis=0)]
    refs = [np.fft.fft(v), np.fft.rfft(v), np.fft.irfft(v), np.fft.fft2(v), np.fft.ihfft(v, axis=0)]
    graph = hg.Graph([x], outs)
    for results in (hg.compile(graph)(v), hg.evaluate(graph, v)):
        for a, e in zip(results, refs):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_array_equal(np.isfinite(a), np.isfinite(e))
            np.testing.assert_allclose(a[np.isfinite(e)], e[np.isfinite(e)], rtol=1e-10, atol=1e-10)
            assert not np.isfinite(a).all()
    row = np.fft.fft(v)[2]  # the clean row stays finite
    np.testing.assert_allclose(hg.compile(graph)(v)[0][2], row, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies(n):
    d = hg.scalar("d", "float32")
    outs = [m.fftfreq(n), m.rfftfreq(n, d=0.25), m.fftfreq(n, d=3, device=None), m.fftfreq(n, d),
            m.rfftfreq(n, d)]
    graph = hg.Graph([d], outs)
    dv = np.float32(0.1)
    refs = [np.fft.fftfreq(n), np.fft.rfftfreq(n, d=0.25), np.fft.fftfreq(n, d=3), np.fft.fftfreq(n, dv),
            np.fft.rfftfreq(n, dv)]
    for results in (hg.compile(graph)(dv), hg.evaluate(graph, dv)):
        for a, e in zip(results, refs):
            assert_same(a, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(5,), (4, 7), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_shifts(shape, dtype):
    v = random_array(np.random.default_rng(2), shape, dtype)
    axes_cases = [None, -1, (0,), tuple(range(len(shape)))[::-1]]
    cases = []
    for axes in axes_cases:
        for name in ("fftshift", "ifftshift"):
            cases.append((f"{name}({axes})", lambda x, f=getattr(m, name), a=axes: f(x, axes=a),
                          lambda u, f=getattr(np.fft, name), a=axes: f(u, axes=a)))
    _check([c[1] for c in cases], [v], [c[2](v) for c in cases], [c[0] for c in cases])
    # fftshift after ifftshift is the identity on values
    x = hg.tensor("x", shape, dtype)
    np.testing.assert_array_equal(hg.evaluate(hg.Graph([x], m.ifftshift(m.fftshift(x))), v), v)


def test_namespace():
    assert hg.fft is m
    assert set(m.__all__) == {
        "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
        "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"}
    for name in m.__all__:  # NumPy's names, none of them at hg's top level
        assert hasattr(np.fft, name) and not hasattr(hg, name) or name == "fft"
    x = hg.tensor("x", (4,), "float32")
    assert hg.fft.fft(x).dtype == np.complex64


ERRORS = [
    ("n=0", lambda f: f.fft(np.ones(3), n=0)),
    ("n=-2 irfftn", lambda f: f.irfftn(np.ones((2, 3)), s=(2, -2))),
    ("n float", lambda f: f.fft(np.ones(3), n=2.5)),
    ("empty axis", lambda f: f.fft(np.zeros((2, 0)))),
    ("irfft of one point", lambda f: f.irfft(np.ones(1))),
    ("0-d fft", lambda f: f.fft(np.float64(1.0))),
    ("0-d rfft", lambda f: f.rfft(np.float32(1.0))),
    ("axis out of bounds", lambda f: f.fft(np.ones(3), axis=1)),
    ("negative axis out of bounds", lambda f: f.ihfft(np.ones((2, 3)), axis=-3)),
    ("axes out of bounds", lambda f: f.fftn(np.ones((2, 3)), axes=(0, 2))),
    ("fft2 of 1-d", lambda f: f.fft2(np.ones(3))),
    ("s and axes differ", lambda f: f.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1))),
    ("rfft of complex", lambda f: f.rfft(np.ones(3, np.complex64))),
    ("rfftn of complex", lambda f: f.rfftn(np.ones((2, 3), np.complex128))),
    ("ihfft of complex", lambda f: f.ihfft(np.ones(3, np.complex64))),
    ("bad norm", lambda f: f.fft(np.ones(3), norm="unitary")),
    ("rfftn over no axes", lambda f: f.rfftn(np.ones((2, 3)), axes=())),
]


@pytest.mark.parametrize("case", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_numpy(case):
    _, call = case
    with pytest.raises(Exception) as expected:
        call(np.fft)
    with pytest.raises(type(expected.value)) as got:
        call(m)
    assert str(got.value), "the error must say what is wrong"


def test_error_messages():
    with pytest.raises(ValueError, match=r"fft: Invalid number of FFT data points \(0\)"):
        m.fft(np.ones(3), n=0)
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        m.fft(np.ones(3), axis=1)
    with pytest.raises(TypeError, match="rfft: input must be real, got complex64"):
        m.rfft(np.ones(3, np.complex64))
    with pytest.raises(ValueError, match='invalid norm value'):
        m.ifft2(np.ones((2, 2)), norm="unitary")
    with pytest.raises(ValueError, match="shape and axes have different lengths"):
        m.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="device must be None or 'cpu'"):
        m.fftfreq(4, device="gpu")
    with pytest.raises(ValueError, match="axis 1 of the input must have a known size"):
        m.fft(hg.tensor("x", (2, None), "float32"))
