"""numpy.ndarray's methods and attributes on graph values (``x.std(axis=0)``, ``x.T``,
``x.size``): each call on a graph Variable, compiled and performed (``hg.evaluate``),
against the same call on the NumPy array; the methods and attributes a graph value
cannot have raise with the reason (``protocols.NDARRAY_MEANINGLESS``)."""

import inspect
import pathlib

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import protocols
from hlograph.tests.helpers import check_against_numpy, random_array, special_values

ROOT = pathlib.Path(__file__).resolve().parents[2]
PUBLIC = [name for name in dir(np.ndarray) if not name.startswith("_")]


def is_attribute(name: str) -> bool:
    """Whether ``numpy.ndarray.<name>`` is an attribute (``x.T``) rather than a method."""
    return not callable(getattr(np.ndarray, name))


def same(f, *values, rtol=None, atol=None):
    """``f`` (a function of method calls) on graph values, compiled and performed, against
    ``f`` on the arrays themselves; a tuple from ``f`` makes one graph of many outputs."""
    check_against_numpy(f, values, f, rtol=rtol, atol=atol)


# --- every ndarray name --------------------------------------------------------------------
def test_every_ndarray_name_is_implemented_or_listed_as_meaningless():
    x = hg.tensor("x", (3, 4), "float32")
    unknown = [n for n in PUBLIC if n not in protocols.NDARRAY_MEANINGLESS and not hasattr(x, n)]
    assert not unknown, (f"numpy.ndarray has {unknown}, which hg.Variable neither implements nor "
                         f"lists in protocols.NDARRAY_MEANINGLESS (with the reason)")
    stale = sorted(set(protocols.NDARRAY_MEANINGLESS) - set(PUBLIC))
    assert not stale, f"NDARRAY_MEANINGLESS lists {stale}, which numpy.ndarray does not have"
    for name in PUBLIC:  # attributes stay attributes, methods stay methods
        ours = inspect.getattr_static(hg.Variable, name)
        assert isinstance(ours, property) == is_attribute(name), name


def test_the_meaningless_list_is_documented():
    doc = (ROOT / "docs" / "numpy_compatibility.md").read_text()
    for name, reason in protocols.NDARRAY_MEANINGLESS.items():
        kind = "attribute" if is_attribute(name) else "method"
        assert f"| `{name}` | {kind} | {reason} |" in doc, f"{name} is not in the documented table"


#: arguments a call of each meaningless method takes in NumPy
_CALLS = {"dump": ("f.npy",), "fill": (0,), "getfield": ("float32",), "partition": (1,),
          "put": ([0], [1.0]), "resize": ((4, 3),), "setfield": (1.0, "float32"),
          "to_device": ("cpu",), "tofile": ("f.bin",)}


@pytest.mark.parametrize("name", sorted(protocols.NDARRAY_MEANINGLESS))
def test_meaningless_names_raise_with_the_reason(name):
    x = hg.tensor("x", (3, 4), "float32")
    reason = protocols.NDARRAY_MEANINGLESS[name]
    assert reason
    if is_attribute(name):
        with pytest.raises(AttributeError, match=rf"x\.{name} of a graph Variable \(float32\[3,4\]\)"):
            getattr(x, name)
        assert not hasattr(x, name)
        with pytest.raises(AttributeError) as info:
            getattr(x, name)
        assert reason in str(info.value)
    else:
        with pytest.raises(TypeError, match=rf"x\.{name}\(\) of a graph Variable") as info:
            getattr(x, name)(*_CALLS.get(name, ()))
        assert reason in str(info.value)
        getattr(np.zeros((3, 4), np.float32), name)  # NumPy has it


def test_in_place_methods_name_the_alternative():
    x = hg.tensor("x", (5,), "float32")
    with pytest.raises(TypeError, match=r"in place.*hg\.sort\(x, axis\)"):
        x.sort()
    with pytest.raises(TypeError, match=r"hg\.partition\(x, kth, axis\)"):
        x.partition(2)
    with pytest.raises(TypeError, match=r"hg\.full_like\(x, value\)"):
        x.fill(1.0)
    with pytest.raises(TypeError, match=r"hg\.put\(x, indices, values\)"):
        x.put([0], [1.0])
    with pytest.raises(TypeError, match="not known while the graph is built"):
        x.tolist()
    with pytest.raises(TypeError, match=r"x\[i, j\]"):
        x.item()


# --- reductions ------------------------------------------------------------------------------
def reductions(x):
    return (x.sum(), x.sum(axis=-1, keepdims=True), x.prod(axis=0), x.max(axis=-1), x.min(axis=0),
            x.all(axis=0), x.any(keepdims=True), x.argmax(axis=0), x.argmin(axis=-1, keepdims=True),
            x.cumsum(), x.cumsum(axis=-1), x.cumprod(axis=0))


def statistics(x):
    return (x.mean(), x.mean(axis=-1, keepdims=True), x.std(), x.std(axis=0, ddof=1),
            x.var(axis=-1), x.var(axis=(0, 1), keepdims=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "complex64"])
def test_reductions(dtype, rng):
    a = random_array(rng, (3, 4), dtype)
    same(reductions, a)
    same(lambda x: (x.max(), x.min(), x.argmax(), x.argmin()), a)
    if dtype != "uint8":
        same(statistics, a, rtol=1e-4 if dtype in ("float32", "complex64") else None)


@pytest.mark.filterwarnings("ignore:Degrees of freedom")  # NumPy's, for the variance over no element
def test_reductions_on_empty_and_zero_d_values(rng):
    empty = np.zeros((0, 3), np.float32)
    same(lambda x: (x.sum(), x.prod(axis=0), x.all(), x.any(axis=-1), x.max(axis=-1), x.argmin(axis=-1),
                    x.cumsum(), x.cumprod(axis=-1), x.mean(axis=-1), x.var(axis=0)), empty)
    zero_d = np.float64(2.5)
    same(lambda x: (x.sum(), x.prod(), x.max(), x.min(), x.argmax(), x.argmin(), x.all(), x.any(),
                    x.cumsum(), x.cumprod(), x.mean(), x.std(), x.var()), zero_d)


def test_nan_and_inf_propagate(rng):
    a = special_values(rng, (4, 5), "float32")
    same(lambda x: (x.max(axis=0), x.min(axis=-1), x.sum(axis=0), x.cumsum(axis=-1), x.mean(axis=-1),
                    x.argmax(axis=0), x.clip(-1, 1), x.round(1)), a)


def test_reduction_keywords_and_positions(rng):
    a = random_array(rng, (3, 4), "int16")
    mask = np.array([True, False, True, True])
    same(lambda x: (x.sum(0, np.float32), x.sum(axis=-1, dtype=np.int8), x.sum(initial=5, where=mask),
                    x.prod(-1, None, None, keepdims=True, initial=2), x.max(axis=0, initial=-1),
                    x.min(-1, None, where=mask, initial=100), x.mean(0, np.float32),
                    x.mean(axis=-1, where=mask), x.all(0, None, keepdims=True), x.any(-1, where=mask),
                    x.argmax(-1, None, keepdims=True), x.cumsum(0, np.int8), x.cumprod(-1, np.float64)), a)
    f = random_array(rng, (3, 4), "float64")
    mean = f.mean(axis=0, keepdims=True)
    same(lambda x: (x.std(0, None, None, 1), x.var(axis=-1, ddof=2, keepdims=True),
                    x.std(axis=0, where=mask[None, :] | np.array([[True], [False], [True]])),
                    x.var(axis=0, keepdims=True, mean=mean), x.std(0, np.float32)), f)


# --- shape, indexing and elementwise methods -------------------------------------------------
def reshaping(x):
    return (x.reshape(4, 3), x.reshape((2, -1)), x.reshape(6, 2, order="F"), x.reshape(-1, order="A"),
            x.ravel(), x.ravel("F"), x.flatten(), x.flatten(order="F"), x.flat, x.T, x.mT,
            x.transpose(), x.transpose(1, 0), x.transpose((1, 0)), x.transpose(None),
            x.swapaxes(0, -1), x.reshape(1, 3, 1, 4).squeeze(), x.reshape(3, 1, 4).squeeze(axis=-2),
            x.copy(), x.view(), x.view(x.dtype), x.diagonal(), x.diagonal(1), x.diagonal(-1, 1, 0),
            x.repeat(2), x.repeat([1, 0, 2], axis=0), x.take([0, -1, 2]), x.take([3, 0], axis=-1),
            x.take([5, -1], axis=1, mode="wrap"), x.take([7, -3], axis=0, mode="clip"),
            x.compress([True, False, True], axis=0), x.compress([False, True]), x.nonzero()[0],
            x.nonzero()[1], x.conj(), x.conjugate(), x.real, x.imag)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128"])
def test_shape_and_indexing_methods(dtype, rng):
    same(reshaping, random_array(rng, (3, 4), dtype))


def test_shape_methods_on_zero_d_and_empty_values():
    same(lambda x: (x.reshape(1, 1), x.ravel(), x.flatten(), x.T, x.transpose(), x.squeeze(),
                    x.repeat(3), x.take(0), x.copy(), x.real, x.imag, x.conj()), np.float32(1.5))
    same(lambda x: (x.reshape(3, 0), x.reshape(-1, 2, order="F"), x.ravel("F"), x.T, x.swapaxes(0, 1),
                    x.diagonal(), x.repeat(2, axis=1), x.take([], axis=0), x.nonzero()[0]),
         np.zeros((0, 3), np.int32))


def test_transposes_of_higher_rank(rng):
    a = random_array(rng, (2, 3, 4), "float32")
    same(lambda x: (x.T, x.mT, x.transpose(2, 0, 1), x.transpose((-1, 0, 1)), x.swapaxes(-1, 0),
                    x.diagonal(0, -1, -2), x.trace(), x.trace(1, 1, 2), x.reshape(4, 6, order="F"),
                    x.ravel(order="F")), a)


def test_elementwise_and_search_methods(rng):
    a = random_array(rng, (4, 5), "float64")
    s = np.sort(random_array(rng, (7,), "float64"))
    same(lambda x: (x.clip(-0.5, 0.5), x.clip(min=0), x.clip(max=0.25), x.clip(None, 1.0), x.round(),
                    x.round(2), x.round(decimals=-1), x.argsort(), x.argsort(axis=0, kind="stable"),
                    x.argsort(None), x.argsort(-1, stable=True), x.astype(np.int32),
                    x.astype("float32", casting="same_kind"), x.trace(), x.trace(-1, dtype=np.float32),
                    x.cumsum(axis=None), x.dot(np.ones((5, 2))), x.T.dot(x)), a)
    same(lambda y: (y.searchsorted(a), y.searchsorted(0.0, side="right"),
                    y.searchsorted(a[0], "right", np.arange(7))), s)


def test_integer_methods(rng):
    a = random_array(rng, (3, 4), "int32")
    same(lambda x: (x.clip(-2, 2), x.clip(-2.5, 1.5, dtype=np.float32), x.clip(max=3, casting="same_kind"),
                    x.clip(np.arange(4), 6, dtype=np.int64, where=True), x.round(-1),
                    (x + 5).choose([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]),
                    (x % 3).choose([np.arange(4), -np.arange(4), np.full(4, 7)], mode="wrap"),
                    (x + 5).choose(np.ones((12, 4), np.int32), mode="clip"), x.astype(np.float16),
                    x.astype(bool), x.trace(), x.argmin(axis=0)), a)


def test_argpartition_partitions(rng):
    a = random_array(rng, (3, 7), "float32")
    x = hg.tensor("x", a.shape, a.dtype)
    g = hg.Graph([x], [x.argpartition(3), x.argpartition((1, 5), axis=-1), x.argpartition(1, axis=0),
                       x.argpartition(2, axis=None)])
    for out in (hg.compile(g)(a), hg.evaluate(g, a)):
        for idx, kth, axis in zip(out, (3, (1, 5), 1, 2), (-1, -1, 0, None)):
            data = a.reshape(-1) if axis is None else a
            ax = 0 if axis is None else axis
            got = np.take_along_axis(data, np.asarray(idx), ax)
            want = np.partition(data, kth, axis=ax)
            for k in np.atleast_1d(kth):
                np.testing.assert_array_equal(np.take(got, k, axis=ax), np.take(want, k, axis=ax))
            assert np.asarray(idx).dtype == np.argpartition(data, kth, axis=ax).dtype


# --- attributes ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,dtype", [((3, 4), "float32"), ((), "float64"), ((0, 5), "int16"),
                                         ((2, 1, 3), "complex64"), ((7,), "bool")])
def test_size_itemsize_nbytes_are_ints(shape, dtype):
    a = np.zeros(shape, dtype)
    x = hg.tensor("x", shape, dtype)
    for name in ("size", "itemsize", "nbytes", "ndim", "shape"):
        assert getattr(x, name) == getattr(a, name), name
        assert type(getattr(x, name)) is type(getattr(a, name)), name
    assert x.dtype == a.dtype


def test_size_of_an_unknown_shape_raises_like_len():
    x = hg.tensor("x", (None, 3), "float32")
    for name in ("size", "nbytes"):
        with pytest.raises(TypeError, match=rf"x\.{name} of a Variable whose shape.*hg\.size\(x\)"):
            getattr(x, name)
    with pytest.raises(TypeError, match="unknown"):
        len(x)
    assert x.itemsize == 4
    g = hg.Graph([x], hg.size(x))  # the run-time size, as the error says
    assert hg.compile(g)(np.zeros((5, 3), np.float32)) == 15


# --- arguments a graph cannot honour --------------------------------------------------------
def test_graph_meaningless_arguments_at_their_defaults_only():
    x = hg.tensor("x", (3, 4), "float32")
    assert x.sum(out=None).shape == ()
    assert x.copy(order="K") is x and x.copy("A") is x
    assert x.reshape(4, 3, copy=False).shape == (4, 3)
    assert x.argsort(order=None).shape == (3, 4)
    for call in (lambda: x.sum(out=np.zeros(())), lambda: x.cumsum(out=np.zeros(12)),
                 lambda: x.take([0], out=np.zeros(1)), lambda: x.std(out=np.zeros(()))):
        with pytest.raises(TypeError, match="out=.*immutable"):
            call()
    with pytest.raises(TypeError, match="order='F'.*memory layout"):
        x.copy(order="F")
    with pytest.raises(TypeError, match="order='F'.*memory layout"):
        x.astype("int32", order="F")
    with pytest.raises(TypeError, match="kind='quicksort'.*XLA chooses"):
        x.argpartition(1, kind="quicksort")
    with pytest.raises(ValueError, match="order must be"):
        x.reshape(12, order="K")
    with pytest.raises(TypeError, match="where=.*uninitialized"):
        x.clip(0, 1, where=np.ones((3, 4), bool))
    with pytest.raises(TypeError, match="unexpected keyword argument 'initial'"):
        x.clip(0, 1, initial=0)
    with pytest.raises(TypeError, match="casting='unsafe'"):
        x.clip(0, 1, casting="unsafe")
    with pytest.raises(TypeError, match="Cannot cast ufunc 'clip' input 0"):
        x.clip(0, 1, dtype=np.int32)
    with pytest.raises(TypeError):
        np.zeros((3, 4), np.float32).clip(0, 1, dtype=np.int32)


def test_astype_checks_casting_as_numpy_does():
    x = hg.tensor("x", (3,), "float64")
    assert x.astype("int8").dtype == np.int8  # casting='unsafe', NumPy's default for astype
    assert x.astype("complex128", casting="safe").dtype == np.complex128
    assert x.astype("float32", casting="same_kind").dtype == np.float32
    for casting in ("safe", "same_kind", "no"):
        with pytest.raises(TypeError, match=f"Cannot cast.*according to the rule '{casting}'"):
            x.astype("int32", casting=casting)
        with pytest.raises(TypeError):
            np.zeros(3).astype("int32", casting=casting)


def test_views_with_another_type_raise():
    x = hg.tensor("x", (3,), "float32")
    assert x.view() is x and x.view(np.float32) is x and x.view(type=np.ndarray) is x
    with pytest.raises(TypeError, match="complex dtypes have no bitcast"):
        x.view(np.complex64)
    with pytest.raises(ValueError, match="must be a multiple of 8 bytes"):
        x.view(np.float64)
    with pytest.raises(TypeError, match="no array subclasses"):
        x.view(np.matrix)
    with pytest.raises(TypeError, match="at most 2 arguments"):
        x.view(np.float32, np.ndarray, 1)


# --- in NumPy functions traced onto graphs ----------------------------------------------------
def test_methods_inside_a_traced_numpy_function(rng):
    a = random_array(rng, (4, 3), "float32")

    def standardize(v):
        return (v - v.mean(axis=0)) / v.std(axis=0, ddof=1) + v.T.sum() * 0 + v.clip(-1, 1).cumsum(axis=-1)

    fn = hg.function(standardize)
    np.testing.assert_allclose(fn(a), standardize(a), rtol=1e-5, atol=1e-6)
