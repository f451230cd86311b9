"""The CPU lowerings of lowering/rules/fast_math.py: at least as accurate as NumPy
(max ULP error against a float64 reference, NumPy's measured on the same inputs),
special values exact, and chosen only when lowering for the CPU."""

import ml_dtypes
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops import elemwise as ew
from hlograph.lowering import lower_graph, register
from hlograph.lowering.registry import lookup
from hlograph.lowering.rules import elemwise as ew_rules
from hlograph.lowering.rules import fast_math

TRIG = {"sin": np.sin, "cos": np.cos, "tan": np.tan}
INVERSE = {"arctan": np.arctan, "arcsin": np.arcsin, "arccos": np.arccos}
FUNCS = {**TRIG, **INVERSE}
PIPELINES = ["O0", "O2"]
BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(autouse=True)
def _fast_path_for_every_size(monkeypatch):
    # the tests use small tensors too; the size threshold has its own test below
    monkeypatch.setenv(fast_math.ENV_MIN_ELEMENTS, "0")


def _has_case(name, shape):
    v = hg.tensor("x", shape, "float32")
    return "stablehlo.case" in hg.compile(hg.Graph([v], getattr(hg, name)(v)), platform="cpu").lower().as_text()


@pytest.mark.parametrize("name", sorted(TRIG))
def test_small_tensors_keep_xlas_op_by_default(name, monkeypatch):
    monkeypatch.delenv(fast_math.ENV_MIN_ELEMENTS)
    assert fast_math.min_elements() == fast_math.DEFAULT_MIN_ELEMENTS
    assert not _has_case(name, (8,))
    assert not _has_case(name, (fast_math.DEFAULT_MIN_ELEMENTS - 1,))
    assert _has_case(name, (fast_math.DEFAULT_MIN_ELEMENTS,))
    monkeypatch.setenv(fast_math.ENV_MIN_ELEMENTS, "4")
    assert _has_case(name, (4,)) and not _has_case(name, (3,))
    monkeypatch.setenv(fast_math.ENV_MIN_ELEMENTS, "not a number")
    assert fast_math.min_elements() == fast_math.DEFAULT_MIN_ELEMENTS


def test_a_module_takes_at_most_max_ops_fast_ops(monkeypatch):
    # each fast op expands to ~30 ops: past the budget, XLA's own op (results equal)
    monkeypatch.setenv(fast_math.ENV_MAX_OPS, "3")
    v = hg.tensor("x", (16,), "float32")
    y = v
    for _ in range(5):
        y = hg.sin(y)
    fn = hg.compile(hg.Graph([v], y), platform="cpu", pipeline="O0")  # (O2 moves the plain ones into a case)
    text = fn.lower().as_text()
    assert text.count("stablehlo.case") == 3
    assert text.count("stablehlo.sine") == 3 + 2  # 3 huge-argument branches, 2 plain
    x = np.linspace(-3, 3, 16, dtype=np.float32)
    ref = x
    for _ in range(5):
        ref = np.sin(ref)
    np.testing.assert_allclose(fn(x), ref, rtol=2e-7, atol=1e-7)
    monkeypatch.setenv(fast_math.ENV_MAX_OPS, "junk")
    assert fast_math.max_ops() == fast_math.DEFAULT_MAX_OPS


@pytest.fixture(autouse=True)
def _quiet_numpy():
    # arguments outside a function's domain (NaN) and tan's poles (overflow) are intended
    with np.errstate(invalid="ignore", over="ignore"):
        yield


def _run(name, x, pipeline="O2"):
    v = hg.tensor("x", x.shape, x.dtype)
    fn = hg.compile(hg.Graph([v], getattr(hg, name)(v)), pipeline=pipeline)
    return np.asarray(fn(x))


def _ulp_error(got, ref, dtype):
    """|got - ref| in units of the spacing of ``dtype`` at ref (ref: float64 or longer)."""
    with np.errstate(over="ignore"):  # tan near its poles overflows the narrow types
        ref_d = ref.astype(dtype)
    finite = np.isfinite(ref_d)
    spacing = np.spacing(np.abs(ref_d[finite])).astype(np.float64)
    return np.abs(got[finite].astype(np.float64) - ref[finite]) / spacing


def _inputs(dtype, limit):
    """Dense grids, random magnitudes on a log scale and the neighbours of multiples
    of pi/2 (the hardest cases of the reduction), all below ``limit``."""
    rng = np.random.default_rng(0)
    parts = [
        np.linspace(-4 * np.pi, 4 * np.pi, 100_001),
        rng.uniform(-100, 100, 100_000),
        rng.uniform(-limit, limit, 100_000),
        np.copysign(np.exp(rng.uniform(np.log(1e-30), np.log(limit), 100_000)), rng.uniform(-1, 1, 100_000)),
    ]
    k = np.unique(np.round(np.exp(rng.uniform(0, np.log(limit / 2), 20_000))))
    mult = (k * (np.pi / 2)).astype(dtype)
    parts += [mult, np.nextafter(mult, np.array(np.inf, dtype)), np.nextafter(mult, np.array(0, dtype))]
    x = np.concatenate([np.asarray(p).astype(dtype) for p in parts])
    return x[np.isfinite(x) & (np.abs(x.astype(np.float64)) <= limit)]


def _inverse_inputs(name, dtype):
    """[-1, 1] densely, near +-1 and near 0 on a log scale; for arctan the whole range."""
    rng = np.random.default_rng(3)
    tiny = np.exp(rng.uniform(np.log(1e-30), 0, 100_000))
    parts = [np.linspace(-1, 1, 200_001), rng.uniform(-1, 1, 100_000), tiny, -tiny, 1 - tiny, tiny - 1]
    if name == "arctan":
        big = np.exp(rng.uniform(0, np.log(3e38), 100_000))
        parts += [np.linspace(-10, 10, 200_001), big, -big]
    x = np.concatenate([np.asarray(p).astype(dtype) for p in parts])
    return x[np.isfinite(x)]


def _accuracy_inputs(name, dtype, limit=2.0 ** 27):
    return _inputs(dtype, limit) if name in TRIG else _inverse_inputs(name, dtype)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_float32_at_least_as_accurate_as_numpy(name, pipeline):
    x = _accuracy_inputs(name, np.float32)
    ref = FUNCS[name](x.astype(np.float64))
    ours = _ulp_error(_run(name, x, pipeline), ref, np.float32).max()
    numpy = _ulp_error(FUNCS[name](x), ref, np.float32).max()
    assert ours <= numpy, (name, ours, numpy)
    assert ours < 0.51  # float64 kernels rounded once: within 0.5 ULP plus a little


@pytest.mark.parametrize("name", sorted(TRIG))
def test_float32_huge_arguments_take_xlas_op(name):
    rng = np.random.default_rng(1)
    huge = np.exp(rng.uniform(np.log(2.0 ** 27), np.log(3e38), 20_000)).astype(np.float32)
    x = np.concatenate([huge, -huge, np.linspace(-10, 10, 1001, dtype=np.float32)])
    ref = FUNCS[name](x.astype(np.float64))
    ours = _ulp_error(_run(name, x), ref, np.float32).max()
    numpy = _ulp_error(FUNCS[name](x), ref, np.float32).max()
    assert ours <= numpy, (name, ours, numpy)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_half_precision_at_least_as_accurate_as_numpy(name, dtype):
    x = _accuracy_inputs(name, dtype, 60000.0 if dtype == np.float16 else 2.0 ** 27)
    if dtype == np.float16:  # every float16 value
        x = np.arange(0, 2 ** 16, dtype=np.uint16).view(np.float16)
        x = x[np.isfinite(x)]
    ref = FUNCS[name](x.astype(np.float64))
    ours = _ulp_error(_run(name, x), ref, dtype).max()
    # NumPy computes float16 (and ml_dtypes bfloat16) through float32
    with np.errstate(over="ignore"):
        numpy = _ulp_error(FUNCS[name](x.astype(np.float32)).astype(dtype), ref, dtype).max()
    assert ours <= numpy, (name, ours, numpy)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16), BF16],
                         ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_special_values_exact(name, dtype, pipeline):
    tiny = np.finfo(np.float32).smallest_subnormal if dtype == np.float32 else 2.0 ** -24
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, tiny, -tiny, 3 * tiny, 1e-30, -1e-30,
                  1.0, -1.0, 1.5, -1.5, 2.0 ** -12, -(2.0 ** -12)], dtype=np.float64).astype(dtype)
    got = _run(name, x, pipeline)
    with np.errstate(invalid="ignore"):
        want = FUNCS[name](x.astype(np.float64)).astype(dtype)  # correctly rounded here
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))  # NaN where NaN
    assert (np.signbit(got[:2]) == np.signbit(want[:2])).all()  # sin(-0.0) = -0.0, cos(-0.0) = 1


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (2, 3, 4)])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_shapes(name, shape):
    x = np.random.default_rng(2).uniform(-1, 1, shape).astype(np.float32) * (10 if name in TRIG else 1)
    got = _run(name, x)
    assert got.shape == shape and got.dtype == np.float32
    np.testing.assert_allclose(got, FUNCS[name](x), rtol=3e-7, atol=0)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_other_dtypes_use_xlas_op(name):
    # float64 and complex keep the default rule, on the CPU too
    for dtype in [np.float64, np.complex64]:
        x = (np.linspace(-0.9, 0.9, 11) + (0.5j if dtype == np.complex64 else 0)).astype(dtype)
        np.testing.assert_allclose(_run(name, x), FUNCS[name](x), rtol=2e-6 if dtype == np.complex64 else 1e-15)


_XLA_OP = {"sin": "stablehlo.sine", "cos": "stablehlo.cosine", "tan": "stablehlo.tan",
           "arctan": "chlo.atan", "arcsin": "chlo.asin", "arccos": "chlo.acos"}


def _lowered_text(name, dtype, platform):
    v = hg.tensor("x", (8,), dtype)
    return str(lower_graph(hg.Graph([v], getattr(hg, name)(v)), platform=platform))


@pytest.mark.parametrize("name", sorted(INVERSE))
def test_inverse_trig_cpu_rule_is_used_on_the_cpu(name):
    text = _lowered_text(name, "float32", "cpu")
    assert _XLA_OP[name] not in text and "stablehlo.divide" in text and "tensor<8xf64>" in text
    assert text == _lowered_text(name, "float32", None)
    assert _XLA_OP[name] in _lowered_text(name, "float64", "cpu")


@pytest.mark.parametrize("name", sorted(TRIG))
def test_cpu_rule_is_used_on_the_cpu(name):
    text = _lowered_text(name, "float32", "cpu")
    # the polynomial path, with XLA's op only inside the branch taken for huge arguments
    before_case, _, branches = text.partition('"stablehlo.case"')
    assert branches, text
    assert _XLA_OP[name] not in before_case
    fast, _, huge = branches.partition("}, {")
    assert _XLA_OP[name] not in fast and "stablehlo.floor" in fast and "tensor<8xf64>" in fast
    assert huge.count(_XLA_OP[name]) == 1
    # None lowers for jax's default backend: the CPU here
    assert text == _lowered_text(name, "float32", None)
    # float64 keeps XLA's op
    assert '"stablehlo.case"' not in _lowered_text(name, "float64", "cpu")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("name", sorted(TRIG))
def test_no_abs_outside_the_branch(name, dtype):
    # the huge-argument test and the small-argument one compare x itself: an |x| that both
    # the test and the branch compute XLA hoists out of the conditional and writes to
    # memory, one more pass over the tensor. Outside the branches: one fusion over x (the
    # test), then the reduction's smaller ones
    n = fast_math.DEFAULT_MIN_ELEMENTS
    v = hg.tensor("x", (n,), dtype)
    text = hg.compile(hg.Graph([v], getattr(hg, name)(v)), platform="cpu").lower().compile().as_text()
    entry = text[text.index("\nENTRY"):]
    assert " conditional(" in entry
    full = [line for line in entry.splitlines() if " fusion(" in line and f"[{n}]" in line.split(" fusion(")[0]]
    assert len(full) == 1 and "pred[" in full[0], full


@pytest.mark.parametrize("platform", ["gpu", "tpu"])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_default_rule_on_other_platforms(name, platform):
    text = _lowered_text(name, "float32", platform)
    assert _XLA_OP[name] in text and "stablehlo.case" not in text and "f64" not in text
    assert "stablehlo.divide" not in text


def test_registry_lookup_by_platform():
    assert lookup(ew.Sin, "cpu") is fast_math.lower_sin_cpu
    assert lookup(ew.Cos, "cpu") is fast_math.lower_cos_cpu
    for platform in ["gpu", "tpu", "some-other-platform"]:
        assert lookup(ew.Sin, platform) is lookup(ew.Sin, "gpu")
        # the default rule: NumPy's complex special values, else stablehlo.sine
        assert lookup(ew.Sin, platform).func is ew_rules._lower_hyperbolic
    # ops without a platform rule: the default one everywhere
    assert lookup(ew.Exp, "cpu") is lookup(ew.Exp, "gpu") is lookup(ew.Exp)


class _Twice(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 2]


class _TwiceChild(_Twice):
    pass


def test_register_platform_rule_beside_default():
    from hlograph.xla.mlir import hlo

    @register(_Twice)
    def lower_twice(ctx, x):
        return [hlo.add(x, x)]

    @register(_Twice, platform="cpu")
    def lower_twice_cpu(ctx, x):
        return [hlo.multiply(x, hlo.constant(hg.lowering.emit.dense_attr(np.full(ctx.out_type.shape, 2.0,
                                                                                  np.float32))))]

    assert lookup(_Twice, "cpu") is lower_twice_cpu and lookup(_TwiceChild, "cpu") is lower_twice_cpu
    assert lookup(_Twice, "gpu") is lower_twice and lookup(_TwiceChild, "tpu") is lower_twice
    v = hg.tensor("x", (3,), "float32")
    g = hg.Graph([v], _Twice()(v))
    assert "stablehlo.multiply" in str(lower_graph(g, platform="cpu"))
    assert "stablehlo.add" in str(lower_graph(g, platform="gpu"))
    np.testing.assert_array_equal(np.asarray(hg.compile(g)(np.arange(3, dtype=np.float32))), [0, 2, 4])
    with pytest.raises(ValueError, match="already registered"):
        register(_Twice, platform="cpu")(lower_twice)
    with pytest.raises(ValueError, match="unknown platform 'cuda'"):
        register(_Twice, platform="cuda")
    with pytest.raises(TypeError, match="Op subclass"):
        register(int, platform="cpu")
