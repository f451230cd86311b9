"""The per-call path of Compiled and Function: argument checks, scalars, jax
arrays, output kinds, the per-signature cache, repeated and concurrent calls."""

import gc
import weakref
from concurrent.futures import ThreadPoolExecutor

import jax
import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime.dispatch import PyDispatching, direct_dtypes
from hlograph.tests.helpers import assert_same, random_array


def _compile(graph):
    # dispatch does not depend on the pass pipeline; O0 keeps these tests about calls
    return hg.compile(graph, pipeline="O0")


def _axpy(dtype="float32", shape=(3,)):
    """out = a * x + y with a 0-d ``a``: a graph with a scalar and two array inputs."""
    a = hg.tensor("a", (), dtype)
    x = hg.tensor("x", shape, dtype)
    y = hg.tensor("y", shape, dtype)
    return hg.Graph([a, x, y], a * x + y)


def _two_outputs(shape=(None,), dtype="float32"):
    x = hg.tensor("x", shape, dtype)
    return hg.Graph([x], [hg.exp(x), x * 2])


@pytest.fixture(params=["compiled", "function", "compiled-python", "function-python"])
def call_kind(request):
    """Compiled or Function, called through the per-call entry in use (the C one
    where it is built) or through its Python implementation."""
    return request.param


class _PythonEntry(PyDispatching):
    """``target`` called through the Python implementation of the per-call entry."""

    def __init__(self, target):
        self._target = target
        self._bind(target._dispatch, direct_dtypes(t.dtype for t in target.graph.input_types),
                   target.graph.single_output)

    def __getattr__(self, name):
        return getattr(self._target, name)


def _callable(graph, kind):
    fn = _compile(graph)
    f = fn.lower().compile() if kind.startswith("compiled") else fn
    return _PythonEntry(f) if kind.endswith("-python") else f


def _device(value):
    """``value`` as a jax array of the same dtype (64-bit too, whatever jax's x64 mode)."""
    with jax.enable_x64(True):
        return jax.device_put(value)


# --- argument errors ---------------------------------------------------------

def test_dispatch_wrong_count_raises_type_error(call_kind):
    f = _callable(_axpy(), call_kind)
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"expected 3 arguments \(a, x, y\), got 2"):
        f(np.float32(1), x)
    with pytest.raises(TypeError, match=r"expected 3 arguments \(a, x, y\), got 4"):
        f(np.float32(1), x, x, x)


@pytest.mark.parametrize("as_device", [False, True], ids=["numpy", "device"])
def test_dispatch_wrong_dtype_names_argument(call_kind, as_device):
    f = _callable(_axpy(), call_kind)
    x = np.ones(3, np.float32)
    bad = np.ones(3, np.int32)
    bad = _device(bad) if as_device else bad
    for _ in range(2):  # the second call takes the dispatcher's cached route for this signature
        with pytest.raises(TypeError, match=r"argument 2 \('y'\): expected dtype float32 .*got int32"):
            f(np.float32(2), x, bad)


@pytest.mark.parametrize("good, bad", [("float32", "float64"), ("int32", "int64"),
                                       ("uint32", "uint64"), ("complex64", "complex128")])
def test_dispatch_64bit_array_never_narrowed_to_32bit_input(call_kind, good, bad):
    # jax's default x64-off mode canonicalizes 64-bit NumPy arrays to 32 bits;
    # after a successful call, a 64-bit array must still be rejected, not converted.
    f = _callable(_axpy(good), call_kind)
    ok = np.ones(3, good)
    f(np.ones((), good), ok, ok)
    f(np.ones((), good), ok, ok)
    with pytest.raises(TypeError, match=rf"argument 1 \('x'\): expected dtype {good}.*got {bad}"):
        f(np.ones((), good), ok.astype(bad), ok)


@pytest.mark.parametrize("as_device", [False, True], ids=["numpy", "device"])
def test_dispatch_wrong_shape_raises_value_error(as_device):
    c = _compile(_axpy()).lower().compile()
    x = np.ones(3, np.float32)
    bad = np.ones(4, np.float32)
    bad = _device(bad) if as_device else bad
    c(np.float32(1), x, x)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"argument 1 \('x'\): expected shape float32\[3\], got shape \(4,\)"):
            c(np.float32(1), bad, x)


def test_dispatch_wrong_rank_for_unknown_dims_raises_value_error():
    f = _compile(_two_outputs())
    with pytest.raises(ValueError, match=r"argument 0 \('x'\): expected shape float32\[\?\], got shape \(2, 2\)"):
        f(np.ones((2, 2), np.float32))


@pytest.mark.parametrize("value", ["text", None, {"a": 1}, object()], ids=lambda v: type(v).__name__)
def test_dispatch_non_array_raises_type_error(call_kind, value):
    f = _callable(_axpy(), call_kind)
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"argument 0 \('a'\): expected an array of float32\[\]"):
        f(value, x, x)


def test_dispatch_unknown_output_kind_raises_before_running(call_kind):
    f = _callable(_axpy(), call_kind)
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="output must be 'numpy' or 'device', got 'list'"):
        f(np.float32(1), x, x, output="list")


# --- Python and NumPy scalars --------------------------------------------------

@pytest.mark.parametrize("dtype, scalar", [
    ("float32", 1.5), ("float64", 1 / 3), ("float16", 0.25), ("bfloat16", 2.5),
    ("int32", 7), ("int64", 2**40 + 3), ("int8", -5), ("uint64", 2**63 + 5),
    ("bool", True), ("complex64", 1 + 2j), ("complex128", 1 / 3 - 1j / 7),
    ("float64", 2),  # an int for a float input
], ids=lambda v: str(v))
def test_dispatch_python_scalar_for_0d_input(call_kind, dtype, scalar, rng):
    s = hg.tensor("s", (), dtype)
    x = hg.tensor("x", (4,), dtype)
    g = hg.Graph([s, x], x * s if dtype != "bool" else hg.logical_and(x, s))
    f = _callable(g, call_kind)
    xv = random_array(rng, (4,), dtype)
    for _ in range(3):  # first call and the dispatcher's cached route
        assert_same(f(scalar, xv), hg.evaluate(g, scalar, xv))


def test_dispatch_numpy_scalars_for_0d_input(call_kind, rng):
    g = _axpy("float64")
    f = _callable(g, call_kind)
    x, y = random_array(rng, (3,), "float64"), random_array(rng, (3,), "float64")
    for a in (np.float64(1 / 3), np.array(1 / 3), np.float64(-2.5)):
        assert_same(f(a, x, y), hg.evaluate(g, a, x, y))


@pytest.mark.parametrize("dtype, value, error, match", [
    ("float32", 1j, TypeError, r"argument 0 \('a'\): expected float32\[\], got Python complex 1j"),
    ("int32", 1.5, TypeError, r"expected int32\[\], got Python float 1.5"),
    ("int8", 300, ValueError, r"300 does not fit int8\[\]"),
    ("int64", 2**64, ValueError, r"does not fit int64\[\]"),
])
def test_dispatch_python_scalar_errors(call_kind, dtype, value, error, match):
    f = _callable(_axpy(dtype), call_kind)
    x = np.ones(3, dtype)
    for _ in range(2):
        with pytest.raises(error, match=match):
            f(value, x, x)


def test_dispatch_python_scalar_for_array_input_raises_value_error(call_kind):
    f = _callable(_axpy(), call_kind)
    with pytest.raises(ValueError, match=r"argument 1 \('x'\): expected float32\[3\], got a Python scalar"):
        f(np.float32(1), 1.0, np.ones(3, np.float32))


def test_dispatch_lists_are_converted(call_kind):
    g = _axpy("int64")
    f = _callable(g, call_kind)
    out = f(np.int64(2), [1, 2, 3], [10, 20, 30])
    assert_same(out, hg.evaluate(g, np.int64(2), [1, 2, 3], [10, 20, 30]))


# --- 64-bit types, jax's configuration -----------------------------------------

def test_dispatch_keeps_64bit_values_exact(call_kind):
    i = hg.tensor("i", (3,), "int64")
    u = hg.tensor("u", (3,), "uint64")
    d = hg.tensor("d", (3,), "float64")
    c = hg.tensor("c", (3,), "complex128")
    g = hg.Graph([i, u, d, c], [i + 1, u + 1, d * 3, c * 3])
    f = _callable(g, call_kind)
    values = [np.array([2**40, -(2**62), 3], np.int64),
              np.array([2**63, 2**64 - 2, 1], np.uint64),
              np.array([1 / 3, 1e-300, 1e300]),
              np.array([1 / 3 + 1j / 7, 1e-300j, 1e300])]
    expected = hg.evaluate(g, *values)
    for _ in range(3):
        for got, want in zip(f(*values), expected):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_dispatch_leaves_jax_x64_setting_alone(call_kind):
    before = jax.config.jax_enable_x64
    f = _callable(_axpy("float64"), call_kind)
    x = np.ones(3)
    f(1.0, x, x)
    f(1.0, x, x, output="device")
    with pytest.raises(TypeError):
        f(1.0, x.astype(np.float32), x)
    assert jax.config.jax_enable_x64 == before
    # the setting jax's own computations see in this thread is unchanged too
    expected = np.float64 if before else np.float32
    assert jax.numpy.asarray(1.0).dtype == expected


# --- jax arrays and output="device" ---------------------------------------------

def test_dispatch_device_inputs_are_not_copied(call_kind, rng):
    g = _axpy()
    f = _callable(g, call_kind)
    vals = [random_array(rng, s, "float32") for s in [(), (3,), (3,)]]
    dev = [_device(v) for v in vals]
    expected = hg.evaluate(g, *vals)
    # with host-to-device transfers disallowed, only arguments already on the
    # device can run, on the first call (Python path) and on later ones (C++ path)
    with jax.transfer_guard_host_to_device("disallow"):
        for _ in range(3):
            out = f(*dev, output="device")
            assert isinstance(out, jax.Array)
            assert_same(np.asarray(out), expected)


def test_dispatch_output_device_returns_jax_arrays(call_kind, rng):
    g = _two_outputs(shape=(4,), dtype="float64")
    f = _callable(g, call_kind)
    x = random_array(rng, (4,), "float64")
    expected = hg.evaluate(g, x)
    for _ in range(2):
        out = f(x, output="device")
        assert isinstance(out, tuple) and len(out) == 2
        for o, e in zip(out, expected):
            assert isinstance(o, jax.Array)
            assert o.dtype == np.float64  # 64-bit even with jax's x64 mode off
            assert_same(np.asarray(o), e)
    numpy_out = f(x)
    assert isinstance(numpy_out, tuple)
    assert all(type(o) is np.ndarray for o in numpy_out)


def test_dispatch_device_outputs_feed_back_as_inputs(call_kind, rng):
    x = hg.tensor("x", (5,), "float32")
    g = hg.Graph([x], x * 0.5 + 1)
    f = _callable(g, call_kind)
    v = random_array(rng, (5,), "float32")
    d = _device(v)
    for _ in range(4):
        v = hg.evaluate(g, v)
        d = f(d, output="device")
    assert_same(np.asarray(d), v)


def test_dispatch_mixed_numpy_and_device_inputs(call_kind, rng):
    g = _axpy()
    f = _callable(g, call_kind)
    a, x, y = (random_array(rng, s, "float32") for s in [(), (3,), (3,)])
    expected = hg.evaluate(g, a, x, y)
    for args in [(a, _device(x), y), (_device(a), x, _device(y)), (a, x, y)]:
        assert_same(f(*args), expected)


# --- values: many calls, layouts, dtypes, shapes --------------------------------

def test_dispatch_many_calls_return_fresh_results(call_kind, rng):
    g = _axpy()
    f = _callable(g, call_kind)
    for i in range(200):
        a, x, y = (random_array(rng, s, "float32") for s in [(), (3,), (3,)])
        args = (a, x, y) if i % 3 else (_device(a), _device(x), y)
        assert_same(f(*args), hg.evaluate(g, a, x, y))


def test_dispatch_sees_inputs_mutated_between_calls(call_kind):
    g = _axpy()
    f = _callable(g, call_kind)
    a, x, y = np.float32(2), np.arange(3, dtype=np.float32), np.zeros(3, np.float32)
    first = f(a, x, y)
    x += 10
    y[:] = 1
    second = f(a, x, y)
    assert_same(first, np.array([0, 2, 4], np.float32))
    assert_same(second, hg.evaluate(g, a, x, y))


@pytest.mark.parametrize("layout", ["strided", "fortran", "negative_stride", "readonly"])
def test_dispatch_non_contiguous_inputs(call_kind, layout, rng):
    x = hg.tensor("x", (3, 4), "float32")
    g = hg.Graph([x], hg.exp(x) - x)
    f = _callable(g, call_kind)
    base = random_array(rng, (6, 8), "float32")
    v = {"strided": base[::2, ::2], "fortran": np.asfortranarray(base[:3, :4]),
         "negative_stride": base[:3, ::-2], "readonly": base[:3, :4].copy()}[layout]
    if layout == "readonly":
        v.setflags(write=False)
    for _ in range(2):
        assert_same(f(v), hg.evaluate(g, v))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "uint64", "float16",
                                   "bfloat16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (4,)], ids=str)
def test_dispatch_roundtrip_dtypes_and_shapes(dtype, shape, rng):
    x = hg.tensor("x", shape, dtype)
    y = hg.tensor("y", shape, dtype)
    g = hg.Graph([x, y], [hg.where(y, x, y) if dtype == "bool" else x + y, x])
    f = _compile(g)
    xv, yv = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
    expected = hg.evaluate(g, xv, yv)
    for args in [(xv, yv), (xv, yv), (_device(xv), _device(yv))]:
        out = f(*args)
        for o, e in zip(out, expected):
            assert_same(o, e)


def test_dispatch_graph_without_inputs(call_kind):
    g = hg.Graph([], hg.constant(np.arange(4.0)) * 2)
    f = _callable(g, call_kind)
    for _ in range(2):
        assert_same(f(), hg.evaluate(g))


def test_dispatch_under_disable_jit(call_kind, rng):
    g = _axpy()
    f = _callable(g, call_kind)
    a, x, y = (random_array(rng, s, "float32") for s in [(), (3,), (3,)])
    f(a, x, y)
    with jax.disable_jit():
        assert_same(f(a, x, y), hg.evaluate(g, a, x, y))
        with pytest.raises(TypeError, match=r"argument 2 \('y'\)"):
            f(a, x, y.astype(np.float64))


# --- Function: one Compiled per signature -----------------------------------------

def _count_lowerings(fn):
    calls = []
    lower = fn._flat_lower  # what a call lowers through

    def counting_lower(*specs):
        calls.append(specs)
        return lower(*specs)

    fn._flat_lower = counting_lower
    return calls


def test_function_caches_per_signature(rng):
    g = _axpy()
    fn = _compile(g)
    lowerings = _count_lowerings(fn)
    a, x, y = (random_array(rng, s, "float32") for s in [(), (3,), (3,)])
    for _ in range(5):
        fn(a, x, y)
        fn(_device(a), _device(x), _device(y))  # same dtypes and shapes: same Compiled
    assert len(lowerings) == 1
    fn(1.5, x, y)  # a Python scalar is its own signature
    fn(2.5, x, y)
    assert len(lowerings) == 2


def test_function_specializes_unknown_dims_per_shape(rng):
    g = _two_outputs(shape=(None, 2))
    fn = _compile(g)
    lowerings = _count_lowerings(fn)
    shapes = [(1, 2), (5, 2), (0, 2), (5, 2), (1, 2)]
    for shape in shapes:
        v = random_array(rng, shape, "float32")
        out = fn(v)
        assert out[0].shape == shape
        for o, e in zip(out, hg.evaluate(g, v)):
            assert_same(o, e)
    # sizes >= 1 refine the one shape-polymorphic module; the size-0 call lowers for its shape
    assert [s[0].shape for s in lowerings] == [(0, 2)]
    assert sorted(c.graph.inputs[0].type.shape for c in fn._cache.values()) == [(0, 2), (1, 2), (5, 2)]


def test_function_compiled_from_lower_matches_call(rng):
    g = _two_outputs()
    fn = _compile(g)
    v = random_array(rng, (6,), "float32")
    compiled = fn.lower(v).compile()
    with pytest.raises(ValueError, match=r"expected shape float32\[6\], got shape \(7,\)"):
        compiled(np.ones(7, np.float32))
    for a, b in zip(compiled(v), fn(v)):
        np.testing.assert_array_equal(a, b)


# --- threads -----------------------------------------------------------------------

def test_dispatch_concurrent_calls_from_threads():
    x = hg.tensor("x", (None,), "float64")
    s = hg.tensor("s", (), "float64")
    g = hg.Graph([x, s], hg.tanh(x) * s + x)
    fn = _compile(g)

    def work(t):
        rng = np.random.default_rng(t)
        shape = (1 + t % 4,)  # threads share shapes, and compile some of them concurrently
        for i in range(40):
            v = rng.normal(size=shape)
            scale = float(i) if i % 2 else np.float64(i)
            args = (v, scale) if i % 3 else (_device(v), scale)
            got = fn(*args)
            want = hg.evaluate(g, v, scale)
            if got.dtype != want.dtype or not np.allclose(got, want, rtol=1e-12, atol=0):
                return f"thread {t} call {i}: {got} != {want}"
        # jax's own setting in this thread is untouched by the calls
        return jax.numpy.asarray(1.0).dtype

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(16)))
    expected_dtype = np.float64 if jax.config.jax_enable_x64 else np.float32
    assert results == [expected_dtype] * 16
    assert len(fn._cache) <= 2 * 4  # one Compiled per shape and scalar kind


def test_dispatch_objects_are_freed_when_dropped(call_kind):
    f = _callable(_axpy(), call_kind)
    x = np.ones(3, np.float32)
    f(np.float32(1), x, x)
    f(np.float32(1), x, x)
    refs = [weakref.ref(f)]
    if call_kind.startswith("function"):
        refs += [weakref.ref(c) for c in f._cache.values()]
    gc.disable()  # no reference cycles: dropping the last reference frees everything
    try:
        del f
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()


@pytest.mark.parametrize("dtype, good, bad", [("int8", 5, 300), ("uint8", 3, -1), ("int64", 5, 2**64),
                                              ("int32", -7, 2**40)])
def test_dispatch_python_scalar_out_of_range_after_valid_calls(call_kind, dtype, good, bad):
    g = _axpy(dtype)
    f = _callable(g, call_kind)
    x = np.arange(3, dtype=dtype)
    for _ in range(2):
        assert_same(f(good, x, x), hg.evaluate(g, good, x, x))
    with pytest.raises(ValueError, match=rf"argument 0 \('a'\): {bad} does not fit {dtype}\[\]"):
        f(bad, x, x)
    assert_same(f(good, x, x), hg.evaluate(g, good, x, x))


def test_function_lists_specialize_by_length():
    x = hg.tensor("x", (None,), "int64")
    g = hg.Graph([x], x * 2)
    fn = _compile(g)
    for values in ([1, 2, 3], [4, 5], [1, 2, 3], [6, 7, 8, 9]):
        assert_same(fn(values), hg.evaluate(g, values))
    assert len(fn._cache) == 3


# --- the per-call entry: C and Python implementations, jax's x64 state ---------------

@pytest.mark.parametrize("x64", [False, True], ids=["x64-default", "x64-on"])
def test_dispatch_under_either_x64_state(call_kind, x64, rng):
    # calls whose arguments have the same signature with x64 on and off skip the
    # switch of jax's thread-local x64 state; both routes must agree, in both states
    g32, g64 = _axpy("float32"), _axpy("float64")
    f32, f64 = _callable(g32, call_kind), _callable(g64, call_kind)
    v32 = [random_array(rng, s, "float32") for s in [(), (3,), (3,)]]
    v64 = [random_array(rng, s, "float64") for s in [(), (3,), (3,)]]
    with jax.enable_x64(x64):
        for _ in range(3):
            for f, g, vals in ((f32, g32, v32), (f64, g64, v64)):
                want = hg.evaluate(g, *vals)
                assert_same(f(*vals), want)
                assert_same(f(*[_device(v) for v in vals]), want)
                assert_same(f(vals[0].item(), vals[1], _device(vals[2])), want)
            with pytest.raises(TypeError, match=r"argument 1 \('x'\): expected dtype float32.*got float64"):
                f32(v32[0], v64[1], v32[2])
            with pytest.raises(TypeError, match=r"argument 2 \('y'\): expected dtype float64.*got float32"):
                f64(v64[0], v64[1], v32[2])
        assert jax.config.jax_enable_x64 == x64


def test_dispatch_equal_dtype_objects_and_array_subclasses(call_kind, rng):
    # an array whose dtype equals the input's without being NumPy's own dtype
    # object, an ndarray subclass or an array in the other byte order takes the
    # checked route and computes the same
    g = _axpy()
    f = _callable(g, call_kind)
    vals = [random_array(rng, s, "float32") for s in [(), (3,), (3,)]]
    want = hg.evaluate(g, *vals)
    tagged = vals[1].view(np.dtype(np.float32, metadata={"unit": "m"}))
    assert tagged.dtype == np.float32 and tagged.dtype is not np.dtype(np.float32)

    class Sub(np.ndarray):
        pass

    swapped = vals[1].astype(vals[1].dtype.newbyteorder())  # same values, other byte order
    for _ in range(2):
        assert_same(f(*vals), want)
        assert_same(f(vals[0], tagged, vals[2]), want)
        assert_same(f(vals[0], vals[1], vals[2].view(Sub)), want)
        # jaxlib's dispatcher alone would read the swapped bytes as native ones
        assert_same(f(vals[0], swapped, vals[2]), want)
        with pytest.raises(TypeError, match="expected dtype float32.*got float64"):
            f(vals[0], vals[1].astype(np.float64).astype(">f8"), vals[2])


@pytest.mark.parametrize("impl", ["c", "python"])
def test_dispatch_entry_misuse(impl):
    from hlograph.runtime import dispatch
    cls = dispatch.CDispatching if impl == "c" else dispatch.PyDispatching
    if cls is None:
        pytest.skip("the C per-call entry is not built here")
    with pytest.raises(RuntimeError, match="no compiled code bound"):
        cls()(1)
    c = _compile(_axpy()).lower().compile()
    entry = cls()
    entry._bind(c._dispatch, direct_dtypes([np.float32] * 3), True)
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(entry(np.float32(2), x, x), np.full(3, 3, np.float32))
    assert isinstance(entry(np.float32(2), x, x, output="device"), jax.Array)
    with pytest.raises(TypeError, match="unexpected keyword argument 'outputs'"):
        entry(np.float32(2), x, x, outputs="device")
    with pytest.raises(ValueError, match="output must be 'numpy' or 'device', got 3"):
        entry(np.float32(2), x, x, output=3)


def test_direct_dtypes_names_the_dtypes_jax_narrows():
    got = direct_dtypes(["float32", "float64", "int64", "uint64", "int32", "complex64",
                         "complex128", "bool", "bfloat16"])
    assert [None if d is None else d.name for d in got] == [
        "float32", None, None, None, "int32", "complex64", None, "bool", "bfloat16"]


def test_dispatch_c_entry_is_built_where_a_compiler_is():
    # the C entry is built at install time; only a machine without a C compiler
    # (or HLOGRAPH_PURE_PYTHON_DISPATCH=1) runs the Python one
    import os
    import shutil
    import sysconfig
    from hlograph.runtime import dispatch
    if os.environ.get("HLOGRAPH_PURE_PYTHON_DISPATCH", "") not in ("", "0"):
        assert dispatch.IMPLEMENTATION == "python"
        return
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) on this machine")
    assert dispatch.IMPLEMENTATION == "c"
    from hlograph.compiler.api import Compiled, Function
    assert issubclass(Compiled, dispatch.CDispatching) and issubclass(Function, dispatch.CDispatching)


def test_dispatch_entry_keeps_no_references(call_kind):
    # every route of the entry (direct, x64 switch, byte-order fix-up, errors)
    # releases what it takes: argument reference counts end where they began
    import sys
    f = _callable(_axpy(), call_kind)
    a = np.float32(2)
    x = np.ones(3, np.float32)
    swapped = x.astype(x.dtype.newbyteorder())
    bad = np.ones(3, np.float64)
    values = (a, x, swapped, bad)

    def calls(n):
        for _ in range(n):
            f(a, x, x)
            f(a, x, x, output="device")
            f(a, swapped, x)
            try:
                f(a, bad, x)
            except TypeError:
                pass
            try:
                f(a, x, x, output="bad")
            except ValueError:
                pass
        gc.collect()

    calls(1)
    before = [sys.getrefcount(v) for v in values]
    calls(50)
    assert [sys.getrefcount(v) for v in values] == before
