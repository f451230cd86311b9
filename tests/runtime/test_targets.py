"""Where a function runs (platform, device), input donation, and arrays from
other libraries (DLPack producers)."""

import jax
import numpy as np
import pytest

import hlograph as hg
from hlograph.xla.mlir import ir
from hlograph.lowering.lower import set_argument_attribute
from hlograph.runtime import devices, executables
from hlograph.xla import pjrt


def _axpy(dtype="float32", shape=(3,)):
    x = hg.tensor("x", shape, dtype)
    y = hg.tensor("y", shape, dtype)
    return hg.Graph([x, y], x * 2 + y)


def _cpu_devices():
    return jax.devices("cpu")


# --- platforms and devices ------------------------------------------------------------

def test_platform_none_is_the_best_available():
    fn = hg.compile(_axpy())
    assert fn.platform is None
    assert fn.device.platform == devices.default_platform() == jax.default_backend()
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(fn(x, x), x * 3)


def test_platform_cpu_and_index():
    cpus = _cpu_devices()
    fn = hg.compile(_axpy(), platform="cpu", device=len(cpus) - 1)
    assert fn.device == cpus[-1]
    x = np.arange(3, dtype=np.float32)
    out = fn(x, x, output="device")
    assert out.devices() == {cpus[-1]}
    np.testing.assert_array_equal(np.asarray(out), x * 3)
    assert "device=" in repr(fn)


def test_device_object_picks_the_device_and_moves_inputs():
    cpus = _cpu_devices()
    target = cpus[len(cpus) // 2]
    fn = hg.compile(_axpy("float64"), device=target)
    x = np.linspace(0, 1, 3)
    with jax.enable_x64(True):
        on_first = jax.device_put(x, cpus[0])  # an input on another device
    for _ in range(3):  # the Python path, then the C++ fast path
        out = fn(on_first, x, output="device")
        assert out.devices() == {target}
        np.testing.assert_allclose(np.asarray(out), x * 3, rtol=1e-15)
    lowered = fn.lower()
    assert lowered.device == target
    assert lowered.compile().executable.device == target


def test_device_segments_of_host_graphs_run_on_the_chosen_device():
    cpus = _cpu_devices()
    x = hg.tensor("x", (None,), "float32")
    g = hg.Graph([x], hg.exp(x[x > 0]) + 1)
    fn = hg.compile(g, device=cpus[-1])
    v = np.array([-1, 2, 0, 3], np.float32)
    out = fn(v, output="device")
    assert out.devices() == {cpus[-1]}
    np.testing.assert_allclose(np.asarray(out), hg.evaluate(g, v), rtol=1e-6)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(platform="fpga"), ValueError, "unknown platform 'fpga'"),
    (dict(device="cpu:0"), TypeError, "device must be None, an int or a jax Device"),
    (dict(device=1.5), TypeError, "device must be None"),
    (dict(device=True), TypeError, "device must be None, an int or a jax Device, got bool"),
])
def test_compile_rejects_bad_targets(kwargs, error, match):
    with pytest.raises(error, match=match):
        hg.compile(_axpy(), **kwargs)


def test_device_index_out_of_range_is_a_clear_error():
    fn = hg.compile(_axpy(), platform="cpu", device=len(_cpu_devices()))
    with pytest.raises(ValueError, match="device index .* out of range: cpu has"):
        fn(np.ones(3, np.float32), np.ones(3, np.float32))


def test_device_of_another_platform_is_a_clear_error():
    fn = hg.compile(_axpy(), platform="tpu", device=_cpu_devices()[0])
    with pytest.raises(ValueError, match="is a cpu device, not tpu"):
        fn.lower()


def test_unavailable_platform_is_a_clear_error():
    available = devices.available_platforms()
    missing = [p for p in ("tpu", "gpu") if isinstance(available[p], str)]
    assert isinstance(available["cpu"], list) and available["cpu"]
    for platform in missing:  # on a machine with every platform there is nothing to check
        fn = hg.compile(_axpy(), platform=platform)
        with pytest.raises(RuntimeError, match=f"platform '{platform}' is not available here"):
            fn(np.ones(3, np.float32), np.ones(3, np.float32))


def test_info_lists_platforms_and_devices(capsys):
    from hlograph.tools import cli
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert "jax/jaxlib" in out
    assert f"cpu: {len(_cpu_devices())} device(s)" in out
    assert f"default platform: {jax.default_backend()}" in out
    from hlograph.runtime import dispatch
    assert ("per-call entry: C extension" in out) == (dispatch.IMPLEMENTATION == "c")


# --- donation ------------------------------------------------------------------------

def test_donated_device_input_is_consumed_and_results_are_right(rng):
    fn = hg.compile(_axpy("float32", (4, 5)), donate_argnums=0)
    assert "jax.buffer_donor = true" in fn.lower().as_text()
    for _ in range(3):  # first call on the Python path, then the fast path
        x = rng.normal(size=(4, 5)).astype(np.float32)
        y = rng.normal(size=(4, 5)).astype(np.float32)
        dx, dy = jax.device_put(x), jax.device_put(y)
        out = fn(dx, dy)
        np.testing.assert_allclose(out, x * 2 + y, rtol=1e-6)
        assert dx.is_deleted() and not dy.is_deleted()
        with pytest.raises(RuntimeError, match="deleted"):
            np.asarray(dx)


def test_donated_numpy_input_is_left_intact(rng):
    fn = hg.compile(_axpy("float64", (6,)), donate_argnums=(0, -1))
    x, y = rng.normal(size=6), rng.normal(size=6)
    before = x.copy(), y.copy()
    for _ in range(2):
        np.testing.assert_allclose(fn(x, y), before[0] * 2 + before[1], rtol=1e-15)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(y, before[1])


@pytest.mark.parametrize("argnums, error, match", [
    (2, ValueError, "input 2 out of range"),
    ((0, -2), ValueError, "input 0 given twice"),
    ("x", TypeError, "must hold ints"),
    (1.0, TypeError, "must be an int or a sequence"),
    ((True,), TypeError, "must hold ints"),
])
def test_donate_argnums_errors(argnums, error, match):
    with pytest.raises(error, match=match):
        hg.compile(_axpy(), donate_argnums=argnums)


def test_set_argument_attribute_keeps_other_attributes():
    module = hg.compile(_axpy()).lower().module
    set_argument_attribute(module, 1, "hlograph.first", "a")
    set_argument_attribute(module, 1, "hlograph.second", 7)
    set_argument_attribute(module, 0, "jax.buffer_donor", True)
    with module.context:
        main = ir.SymbolTable(module.operation)["main"]
        attrs = [ir.DictAttr(a) for a in main.attributes["arg_attrs"]]
        assert "jax.buffer_donor" in attrs[0] and len(attrs[0]) == 1
        assert str(attrs[1]["hlograph.first"]) == '"a"'
        assert "7" in str(attrs[1]["hlograph.second"])


# --- DLPack producers ----------------------------------------------------------------

class Producer:
    """A foreign array type: only the DLPack protocol, a dtype NumPy does not know
    (as torch tensors have) and a shape."""

    def __init__(self, array):
        self._array = array
        self.shape = tuple(array.shape)
        self.dtype = f"foreign.{array.dtype}"

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class Broken(Producer):
    def __dlpack__(self, **kwargs):
        raise RuntimeError("no memory for you")

    def __dlpack_device__(self):
        return (2, 0)  # a CUDA device: goes to jax, which fails


@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8", "bool", "complex64"])
def test_dlpack_inputs(dtype, rng):
    shape = (2, 3)
    x = hg.tensor("x", shape, dtype)
    y = hg.tensor("y", shape, dtype)
    g = hg.Graph([x, y], [x, hg.where(x == y, x, y)])
    fn = hg.compile(g)
    for _ in range(3):  # the fast path never sees these objects: each call converts
        a = (rng.normal(size=shape) * 4).astype(dtype)
        b = (rng.normal(size=shape) * 4).astype(dtype)
        got = fn(Producer(a), Producer(b))
        want = hg.evaluate(g, a, b)
        for gv, wv in zip(got, want):
            assert gv.dtype == wv.dtype
            np.testing.assert_array_equal(gv, wv)


def test_dlpack_jax_producer_keeps_bfloat16():
    x = hg.tensor("x", (4,), "bfloat16")
    fn = hg.compile(hg.Graph([x], x * 2))
    v = jax.numpy.arange(4, dtype=jax.numpy.bfloat16)
    out = fn(Producer(v))
    assert out.dtype == v.dtype
    np.testing.assert_array_equal(out.astype(np.float32), np.arange(4, dtype=np.float32) * 2)


def test_dlpack_wrong_dtype_and_shape_name_the_argument():
    fn = hg.compile(_axpy("float64"))
    ok = np.zeros(3)
    with pytest.raises(TypeError, match=r"argument 0 \('x'\): expected dtype float64"):
        fn(Producer(np.zeros(3, np.float32)), ok)
    with pytest.raises(ValueError, match=r"argument 1 \('y'\): expected shape"):
        fn(ok, Producer(np.zeros(4)))


def test_dlpack_failure_is_a_type_error_naming_the_argument():
    fn = hg.compile(_axpy("float64"))
    with pytest.raises(TypeError, match=r"argument 1 \('y'\): cannot import Broken through DLPack"):
        fn(np.zeros(3), Broken(np.zeros(3)))


def test_dlpack_specs_for_lower():
    x = hg.tensor("x", (None,), "float32")
    fn = hg.compile(hg.Graph([x], x + 1))
    text = fn.lower(Producer(np.zeros(5, np.float32))).as_text()
    assert "tensor<5xf32>" in text


def test_xla_compile_error_is_a_compile_error(monkeypatch):
    from hlograph.lowering import CompileError
    from hlograph.xla import pjrt

    lowered = hg.compile(_axpy("int16", (2,))).lower()

    def failing(*args, **kwargs):
        raise pjrt.JaxRuntimeError("UNIMPLEMENTED: no such thing")

    monkeypatch.setattr(executables, "compile_bytecode", failing)
    with pytest.raises(CompileError, match="XLA could not compile the module for .*no such thing"):
        lowered.compile()
