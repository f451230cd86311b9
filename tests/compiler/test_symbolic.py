"""Shape-polymorphic lowering: a graph with unknown input dims lowers once, and each
call's shapes refine that module (translation validation against hg.evaluate)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler import api, symbolic
from hlograph.compiler.symbolic import PolymorphicModule, SymbolicShapeError


@pytest.fixture
def count_lowerings(monkeypatch):
    """Counts per-shape lowerings (api.lower_graph) and symbolic ones (symbolic.lower_graph)."""
    counts = {"per_shape": 0, "symbolic": 0}

    def counting(key, real):
        def wrapper(*a, **k):
            counts[key] += 1
            return real(*a, **k)
        return wrapper

    monkeypatch.setattr(api, "lower_graph", counting("per_shape", api.lower_graph))
    monkeypatch.setattr(symbolic, "lower_graph", counting("symbolic", symbolic.lower_graph))
    return counts


x = hg.tensor("x", ("b", 4))
v = hg.tensor("v", ("b",))
m = hg.tensor("m", (4, 4))
idx = hg.tensor("i", ("b",), "int64")

# each builder uses some of x (b,4), v (b,), m (4,4), i (b,) int64
CASES = {
    "elementwise": lambda: hg.exp(x) * 2 - hg.tanh(x) / 3,
    "broadcast_column": lambda: x + v[:, None],
    "where": lambda: hg.where(x > 0, x, 0.5),
    "sum_all": lambda: x.sum(),
    "max_axis0": lambda: hg.max(x, axis=0),
    "argmax_axis0": lambda: hg.argmax(x, axis=0),
    "argmin_axis1": lambda: hg.argmin(x, axis=1),
    "mean": lambda: x.mean(),
    "var_ddof1": lambda: hg.var(x, axis=0, ddof=1),
    "std": lambda: hg.std(x),
    "logsumexp": lambda: hg.logsumexp(x, axis=0),
    "softmax": lambda: hg.softmax(x, axis=-1),
    "cumsum_static_axis": lambda: hg.cumsum(x, axis=1),
    "matmul": lambda: x @ m,
    "gram": lambda: x.T @ x,
    "einsum": lambda: hg.einsum("bi,bj->ij", x, x),
    "reshape": lambda: hg.reshape(x, (-1, 2)),
    "transpose": lambda: x.T,
    "concatenate": lambda: hg.concatenate([x, x * 2], axis=0),
    "stack": lambda: hg.stack([v, v + 1]),
    "expand_dims": lambda: hg.expand_dims(v, 0),
    "flip": lambda: hg.flip(x, 0),
    "slice_drop_last": lambda: x[:-1],
    "slice_step": lambda: x[::2],
    "slice_head": lambda: x[:2],
    "index_first": lambda: x[0],
    "index_last": lambda: x[-1],
    "take": lambda: hg.take(m, idx % 4, axis=0),
    "sort": lambda: hg.sort(x, axis=0),
    "argsort": lambda: hg.argsort(v),
    "pad": lambda: hg.pad(x, 1),
    "zeros_like": lambda: hg.zeros_like(x),
    "full_like": lambda: hg.full_like(x, 3.0),
    "astype": lambda: (x * 10).astype("int32"),
    "clip": lambda: hg.clip(x, -1, 1),
    "norm": lambda: hg.linalg.norm(x),
    "any": lambda: hg.any(x > 1),
    "outer": lambda: hg.outer(v, v),
    "dot": lambda: hg.dot(v, v),
    "prod": lambda: hg.prod(x, axis=0),
    "grad": lambda: hg.grad(hg.sum(hg.tanh(x @ m) ** 2), x),
    "ifelse": lambda: hg.ifelse(hg.sum(v) > 0, v * 2, v - 1),
    "squeeze": lambda: hg.squeeze(x[:, :1], axis=1),
    "split": lambda: hg.split(x, 2, axis=1)[0],
    "moveaxis": lambda: hg.moveaxis(x, 0, 1),
    "standardize": lambda: (x - x.mean(axis=0, keepdims=True)) / (hg.std(x, axis=0, keepdims=True) + 1),
    "inv_matmul": lambda: hg.linalg.inv(m) @ x.T,
}


def _args(b, rng):
    return [rng.standard_normal((b, 4)).astype(np.float32), rng.standard_normal(b).astype(np.float32),
            (rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32), rng.integers(0, 100, b)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_lowers_once_and_matches_evaluate(name, count_lowerings):
    g = hg.Graph([x, v, m, idx], CASES[name]())
    f = hg.compile(g)
    rng = np.random.default_rng(0)
    for b in (1, 2, 5):
        args = _args(b, rng)
        got, ref = f(*args), hg.evaluate(g, *args)
        assert np.shape(got) == np.shape(ref) and np.asarray(got).dtype == np.asarray(ref).dtype
        np.testing.assert_allclose(got, ref, rtol=3e-5, atol=3e-5)
    assert count_lowerings == {"per_shape": 0, "symbolic": 1}
    assert isinstance(f._poly, PolymorphicModule)


def test_twenty_batch_sizes_lower_once(count_lowerings):
    xb, w = hg.tensor("x", ("batch", 8)), hg.tensor("w", (8, 3))
    g = hg.Graph([xb, w], hg.softmax(hg.tanh(xb @ w), axis=-1))
    f = hg.compile(g)
    rng = np.random.default_rng(1)
    W = rng.standard_normal((8, 3)).astype(np.float32)
    for b in range(1, 21):
        X = rng.standard_normal((b, 8)).astype(np.float32)
        np.testing.assert_allclose(f(X, W), hg.evaluate(g, X, W), rtol=1e-5, atol=1e-6)
    assert count_lowerings == {"per_shape": 0, "symbolic": 1}


def test_symbolic_module_text_and_artifact(tmp_path):
    g = hg.Graph([x, m], hg.tanh(x @ m) + 1.0)
    lowered = hg.compile(g).lower(symbolic=True)
    text = lowered.as_text()
    assert "tensor<?x4xf32>" in text and "stablehlo.get_dimension_size" in text
    assert lowered.graph.input_types[0].is_symbolic
    path = tmp_path / "poly.mlirbc"
    path.write_bytes(lowered.serialize())
    loaded = hg.load(path)
    rng = np.random.default_rng(2)
    M = rng.standard_normal((4, 4)).astype(np.float32)
    for b in (1, 7):
        X = rng.standard_normal((b, 4)).astype(np.float32)
        np.testing.assert_allclose(loaded(X, M), hg.evaluate(g, X, M), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="no argument specs"):
        hg.compile(g).lower((3, 4), symbolic=True)


def test_symbolic_module_does_not_compile_directly():
    g = hg.Graph([x], x + 1)
    with pytest.raises(ValueError, match="symbolic"):
        hg.compile(g).lower(symbolic=True).compile()


def test_named_dim_shared_between_inputs():
    y = hg.tensor("y", ("b", 4))
    g = hg.Graph([x, y], x * y)
    f = hg.compile(g)
    a = np.ones((3, 4), np.float32)
    np.testing.assert_array_equal(f(a, 2 * a), 2 * a)
    with pytest.raises(ValueError, match="dim 0 is 'b', which is 3 in argument 0"):
        f(a, np.ones((2, 4), np.float32))


def test_unknown_dims_broadcast_like_numpy():
    u, w = hg.tensor("u", (None,)), hg.tensor("w", (None,))
    f = hg.compile(hg.Graph([u, w], u + w))
    for su, sw in [(1, 5), (5, 1), (4, 4)]:
        a, c = np.arange(su, dtype=np.float32), np.arange(sw, dtype=np.float32) * 10
        np.testing.assert_array_equal(f(a, c), a + c)
    with pytest.raises(ValueError, match="broadcast"):
        f(np.ones(2, np.float32), np.ones(3, np.float32))


def test_symbolic_against_static_size():
    u, c = hg.tensor("u", (None,)), hg.tensor("c", (3,))
    f = hg.compile(hg.Graph([u, c], u * c))
    k = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(f(np.array([2], np.float32), k), 2 * k)
    np.testing.assert_array_equal(f(np.array([1, 2, 3], np.float32), k), k * k)
    with pytest.raises(ValueError):
        f(np.ones(2, np.float32), k)


def test_size_zero_and_static_only_ops_lower_per_shape(count_lowerings):
    # a cumulative sum along the symbolic axis needs static shapes: named in the
    # error of lower(symbolic=True); calls still run, lowering per shape
    g = hg.Graph([v], hg.cumsum(v))
    f = hg.compile(g)
    with pytest.raises(SymbolicShapeError, match="CumOp"):
        f.lower(symbolic=True)
    for b in (0, 3, 4):
        a = np.arange(b, dtype=np.float32)
        np.testing.assert_allclose(f(a), np.cumsum(a))
    assert count_lowerings["per_shape"] == 3
    h = hg.compile(hg.Graph([x], x.sum(axis=0)))
    np.testing.assert_array_equal(h(np.zeros((0, 4), np.float32)), np.zeros(4, np.float32))


def test_host_ops_say_they_need_static_shapes():
    g = hg.Graph([v], hg.nonzero(v)[0])
    f = hg.compile(g)
    with pytest.raises(SymbolicShapeError, match="Nonzero"):
        f.lower(symbolic=True)
    np.testing.assert_array_equal(f(np.array([0, 1, 0, 2], np.float32)), [1, 3])


def test_static_graph_has_nothing_symbolic():
    with pytest.raises(SymbolicShapeError, match="no unknown dims"):
        hg.compile(hg.Graph([m], m + 1)).lower(symbolic=True)


def test_pytree_graph_lowers_symbolically():
    a, c = hg.tensor("a", ("n", 2)), hg.tensor("c", ("n", 2))
    g = hg.Graph({"a": a, "c": c}, {"s": a + c, "d": a - c})
    f = hg.compile(g)
    A = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = f(a=A, c=A)
    np.testing.assert_array_equal(out["s"], 2 * A)
    assert "tensor<?x2xf32>" in f.lower(symbolic=True).as_text()


def test_polymorphic_artifact_in_a_fresh_process(tmp_path):
    import os
    import subprocess
    import sys

    g = hg.Graph([x, m], hg.softmax(x @ m, axis=0) - x.mean())
    path = tmp_path / "poly.mlirbc"
    path.write_bytes(hg.compile(g).lower(symbolic=True).serialize())
    rng = np.random.default_rng(3)
    X, M = rng.standard_normal((11, 4)).astype(np.float32), rng.standard_normal((4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "m.npy", M)
    code = (f"import numpy as np, hlograph as hg; d = {str(tmp_path)!r}; "
            "f = hg.load(d + '/poly.mlirbc'); "
            "np.save(d + '/out.npy', f(np.load(d + '/x.npy'), np.load(d + '/m.npy')))")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), hg.evaluate(g, X, M), rtol=1e-5, atol=1e-6)


def test_dim_constraints_decide_slices_and_are_checked(count_lowerings):
    # with batch >= 16, x[:16] has 16 rows whatever the batch: a static result
    xb = hg.tensor("x", ("batch", 4))
    g = hg.Graph([xb], xb[:16] * 2)
    f = hg.compile(g, dim_constraints=["batch >= 16", "batch <= 64"])
    lowered = f.lower(symbolic=True)
    assert lowered.graph.output_types[0].shape == (16, 4)
    rng = np.random.default_rng(4)
    for b in (16, 40):
        X = rng.standard_normal((b, 4)).astype(np.float32)
        np.testing.assert_array_equal(f(X), X[:16] * 2)
    assert count_lowerings == {"per_shape": 0, "symbolic": 1}
    with pytest.raises(ValueError, match="against the constraint batch >= 16"):
        f(np.ones((8, 4), np.float32))
    with pytest.raises(ValueError, match="against the constraint batch <= 64"):
        f(np.ones((65, 4), np.float32))
    # without the constraint the slice is min(batch, 16) rows
    h = hg.compile(g)
    assert not isinstance(h.lower(symbolic=True).graph.output_types[0].shape[0], int)
    np.testing.assert_array_equal(h(np.ones((3, 4), np.float32)), np.full((3, 4), 2, np.float32))


@pytest.mark.parametrize("bad, match", [
    (["b >= 2"], "no input's shape names"),
    (["batch > x"], "compares one dim name with an int"),
    (["batch >= 10", "batch < 5"], "leave no size"),
])
def test_bad_dim_constraints(bad, match):
    xb = hg.tensor("x", ("batch", 4))
    with pytest.raises(ValueError, match=match):
        hg.compile(hg.Graph([xb], xb + 1), dim_constraints=bad)
