"""Multi-device SPMD: graphs compiled for a mesh of 8 virtual CPU devices give the
single-device (and NumPy) results, with the requested output shardings."""

import os

import jax

if (jax.config.jax_num_cpu_devices < 8
        and "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", "")):
    # 8 virtual CPU devices; must run before jax starts its backends
    jax.config.update("jax_num_cpu_devices", 8)

import numpy as np
import pytest
from jax.sharding import Mesh as JaxMesh, NamedSharding, PartitionSpec

import hlograph as hg
from hlograph.testing import mlp_step_graph
import hlograph.lowering.rules.sharding  # noqa: F401
from hlograph.frontend.ops.sharding import with_sharding
from hlograph.runtime.mesh import Mesh, P, make_mesh
from hlograph.tests.helpers import assert_same

MESHES = {
    "8": ((8,), ("x",)),
    "2x4": ((2, 4), ("x", "y")),
    "4x2": ((4, 2), ("x", "y")),
}

_meshes: dict = {}


def mesh_of(name):
    if name not in _meshes:
        _meshes[name] = make_mesh(*MESHES[name])
    return _meshes[name]


def run_both(graph, values, **kw):
    """(mesh results as device arrays, single-device results, NumPy reference)."""
    sharded = hg.compile(graph, **kw)(*values, output="device")
    single = hg.compile(graph, platform="cpu")(*values)
    ref = hg.evaluate(graph, *values)
    if graph.single_output:
        sharded, single, ref = (sharded,), (single,), (ref,)
    return sharded, single, ref


def expect_sharding(array, mesh, spec):
    expected = NamedSharding(mesh.jax_mesh, PartitionSpec(*spec))
    assert array.sharding.is_equivalent_to(expected, array.ndim), (array.sharding, expected)


ELEMWISE_CASES = [
    ("8", P("x", None)),
    ("8", P(None, "x")),
    ("8", None),
    ("2x4", P("x", "y")),
    ("2x4", P("y", "x")),
    ("2x4", P(("x", "y"), None)),
    ("2x4", P(None, "y")),
    ("4x2", P("x", "y")),
    ("4x2", P("y")),
]


@pytest.mark.parametrize("mesh_name,spec", ELEMWISE_CASES, ids=lambda v: str(v))
def test_sharding_elemwise_matches_single_device(mesh_name, spec, rng):
    mesh = mesh_of(mesh_name)
    a = hg.tensor("a", (16, 8), "float32")
    b = hg.tensor("b", (16, 8), "float32")
    g = hg.Graph([a, b], hg.exp(a) * b + 1)
    values = [rng.standard_normal((16, 8), dtype=np.float32) for _ in range(2)]
    (out,), (single,), (ref,) = run_both(g, values, mesh=mesh, in_shardings=[spec, spec], out_shardings=[spec])
    assert_same(out, single)
    assert_same(out, ref)
    expect_sharding(out, mesh, () if spec is None else tuple(spec))


MATMUL_CASES = [
    ("8", P("x", None), P(None, None), P("x", None)),
    ("8", P(None, "x"), P("x", None), P()),  # contraction split: partial sums all-reduced
    ("2x4", P("x", "y"), P("y", None), P("x", None)),
    ("2x4", P("x", None), P(None, "y"), P("x", "y")),
    ("4x2", P(None, ("x", "y")), P(("x", "y"), None), P(None, "y")),
]


@pytest.mark.parametrize("mesh_name,sa,sb,sout", MATMUL_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sharding_matmul_matches_single_device(mesh_name, sa, sb, sout, dtype, rng):
    mesh = mesh_of(mesh_name)
    a = hg.tensor("a", (16, 8), dtype)
    b = hg.tensor("b", (8, 16), dtype)
    g = hg.Graph([a, b], hg.matmul(a, b))
    values = [rng.standard_normal((16, 8)).astype(dtype), rng.standard_normal((8, 16)).astype(dtype)]
    (out,), (single,), (ref,) = run_both(g, values, mesh=mesh, in_shardings=[sa, sb], out_shardings=[sout])
    assert out.dtype == np.dtype(dtype)
    assert_same(out, single)
    assert_same(out, ref)
    expect_sharding(out, mesh, tuple(sout))


@pytest.mark.parametrize("mesh_name,spec", [("8", P("x", None)), ("2x4", P("x", "y")), ("4x2", P(None, "x"))],
                         ids=lambda v: str(v))
def test_sharding_reduction_matches_single_device(mesh_name, spec, rng):
    mesh = mesh_of(mesh_name)
    x = hg.tensor("x", (8, 16), "float64")
    g = hg.Graph([x], [hg.sum(x, axis=0), hg.max(x, axis=1), hg.mean(x)])
    values = [rng.standard_normal((8, 16))]
    outs, singles, refs = run_both(g, values, mesh=mesh, in_shardings=[spec])
    for out, single, ref in zip(outs, singles, refs):
        assert_same(out, single)
        assert_same(out, ref)
        # no out_shardings: laid out as XLA chose, on the mesh's devices
        assert out.sharding.device_set == set(mesh.device_list)


def mlp_values(rng, batch, n_in, n_hidden, n_out):
    shapes = [(batch, n_in), (batch, n_out), (n_in, n_hidden), (n_hidden,), (n_hidden, n_out), (n_out,)]
    return [(rng.standard_normal(s) * 0.5).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("mesh_name,data,w1,w2", [
    ("8", P("x"), P(), P()),                       # data parallel
    ("2x4", P("x"), P(None, "y"), P("y", None)),   # data x model parallel
    ("4x2", P(("x", "y")), P(), P()),              # data parallel over both axes
], ids=lambda v: str(v))
def test_sharding_mlp_step_matches_single_device(mesh_name, data, w1, w2, rng):
    mesh = mesh_of(mesh_name)
    g = mlp_step_graph(32, 8, 16, 4)
    values = mlp_values(rng, 32, 8, 16, 4)
    in_specs = [data, data, w1, None, w2, None]
    out_specs = [P(), w1, P(), w2, P()]
    outs, singles, refs = run_both(g, values, mesh=mesh, in_shardings=in_specs, out_shardings=out_specs)
    for out, single, ref, spec in zip(outs, singles, refs, out_specs):
        assert_same(out, single, rtol=1e-5, atol=1e-6)
        assert_same(out, ref, rtol=1e-5, atol=1e-6)
        expect_sharding(out, mesh, tuple(spec))


def test_with_sharding_constrains_on_a_mesh_and_is_identity_without(rng):
    mesh = mesh_of("2x4")
    a = hg.tensor("a", (16, 8), "float32")
    b = hg.tensor("b", (8, 8), "float32")
    h = with_sharding(hg.matmul(a, b), P("x", "y"))
    g = hg.Graph([a, b], hg.tanh(h))
    values = [rng.standard_normal((16, 8), dtype=np.float32), rng.standard_normal((8, 8), dtype=np.float32)]
    fn = hg.compile(g, mesh=mesh, in_shardings=[P("x"), None])
    text = fn.lower().as_text()
    assert 'sdy.sharding_constraint' in text and '[{"x"}, {"y"}]' in text
    assert "sdy" not in hg.compile(g, platform="cpu").lower().as_text()
    (out,), (single,), (ref,) = run_both(g, values, mesh=mesh, in_shardings=[P("x"), None])
    assert_same(out, single)
    assert_same(out, ref)


def test_with_sharding_allows_uneven_splits(rng):
    # XLA pads a constrained intermediate that does not split evenly
    a = hg.tensor("a", (6, 5), "float64")
    g = hg.Graph([a], with_sharding(hg.exp(a), P("x")) * 2)
    values = [rng.standard_normal((6, 5))]
    (out,), (single,), (ref,) = run_both(g, values, mesh=mesh_of("8"))
    assert_same(out, single)
    assert_same(out, ref)


def test_sharding_lowered_module_carries_the_annotations():
    mesh = mesh_of("2x4")
    a = hg.tensor("a", (8, 8), "float32")
    g = hg.Graph([a], [hg.exp(a), hg.sum(a, axis=1)])
    text = hg.compile(g, mesh=mesh, in_shardings=[P("y", "x")], out_shardings=[P("x"), None]).lower().as_text()
    assert "mhlo.num_partitions = 8" in text
    assert 'sdy.mesh @mesh = <["x"=2, "y"=4]>' in text
    assert '%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}' in text
    assert '-> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8xf32>)' in text


def test_sharding_accepts_jax_mesh_and_named_shardings(rng):
    jmesh = JaxMesh(np.array(jax.devices()[:8]).reshape(4, 2), ("rows", "cols"))
    a = hg.tensor("a", (8, 4), "float32")
    g = hg.Graph([a], hg.exp(a))
    values = [rng.standard_normal((8, 4), dtype=np.float32)]
    s_in = NamedSharding(jmesh, PartitionSpec("rows", "cols"))
    s_out = NamedSharding(jmesh, PartitionSpec(None, "cols"))
    # the mesh comes from the NamedShardings
    out = hg.compile(g, in_shardings=[s_in], out_shardings=[s_out])(*values, output="device")
    assert out.sharding.is_equivalent_to(s_out, 2)
    assert_same(out, np.exp(values[0]))
    out = hg.compile(g, mesh=jmesh, in_shardings=PartitionSpec("rows"))(*values)
    assert isinstance(out, np.ndarray)
    assert_same(out, np.exp(values[0]))


def test_sharding_takes_jax_arrays_as_laid_out_or_reshards(rng):
    mesh = mesh_of("2x4")
    a = hg.tensor("a", (8, 8), "float32")
    fn = hg.compile(hg.Graph([a], a * 3), mesh=mesh, in_shardings=[P("x", "y")], out_shardings=[P("x", "y")])
    x = rng.standard_normal((8, 8), dtype=np.float32)
    first = fn(x, output="device")
    second = fn(first, output="device")  # already laid out as the input wants
    expect_sharding(second, mesh, ("x", "y"))
    assert_same(second, x * 9)
    other = jax.device_put(first, NamedSharding(mesh.jax_mesh, PartitionSpec("y")))
    assert_same(fn(other), x * 9)
    single = jax.device_put(x, jax.devices()[3])
    assert_same(fn(single), x * 3)
    compiled = fn.lower().compile()
    expect_sharding(compiled(x, output="device"), mesh, ("x", "y"))
    assert_same(compiled(x), x * 3)


def test_sharding_single_device_mesh(rng):
    mesh = Mesh({"x": 1})
    a = hg.tensor("a", (4, 3), "float32")
    g = hg.Graph([a], hg.sum(hg.exp(a), axis=0))
    values = [rng.standard_normal((4, 3), dtype=np.float32)]
    (out,), (single,), _ = run_both(g, values, mesh=mesh, in_shardings=[P("x")], out_shardings=[P("x")])
    assert_same(out, single)


def test_sharding_error_spec_rank_mismatch():
    mesh = mesh_of("8")
    a = hg.tensor("a", (8, 4), "float32")
    g = hg.Graph([a], hg.exp(a))
    with pytest.raises(ValueError, match=r"in_shardings\[0\] \(a\): the partition spec P\('x', None, None\) "
                                         r"has 3 entries for an array of rank 2"):
        hg.compile(g, mesh=mesh, in_shardings=[P("x", None, None)])
    with pytest.raises(ValueError, match=r"out_shardings\[0\] .* has 3 entries for an array of rank 2"):
        hg.compile(g, mesh=mesh, out_shardings=[("x", None, None)])
    with pytest.raises(ValueError, match=r"with_sharding: the partition spec P\(None, None, 'x'\) has 3 entries "
                                         r"for an array of rank 2"):
        with_sharding(a, P(None, None, "x"))


def test_sharding_error_unknown_axis():
    mesh = mesh_of("2x4")
    a = hg.tensor("a", (8, 4), "float32")
    with pytest.raises(ValueError, match=r"unknown mesh axis 'z' in P\('z', None\); the mesh has axes 'x', 'y'"):
        hg.compile(hg.Graph([a], hg.exp(a)), mesh=mesh, in_shardings=[P("z")])
    fn = hg.compile(hg.Graph([a], with_sharding(hg.exp(a), P(None, "q"))), mesh=mesh)
    with pytest.raises(ValueError, match=r"with_sharding: unknown mesh axis 'q' in P\(None, 'q'\)"):
        fn.lower()


def test_sharding_error_indivisible_input_or_output():
    mesh = mesh_of("2x4")
    a = hg.tensor("a", (6, 8), "float32")
    g = hg.Graph([a], hg.exp(a))
    with pytest.raises(ValueError, match=r"in_shardings\[0\] \(a\): dimension 0 of size 6 does not split evenly "
                                         r"over mesh axes \('y',\) \(4 devices\)"):
        hg.compile(g, mesh=mesh, in_shardings=[P("y")])
    with pytest.raises(ValueError, match=r"out_shardings\[0\] .*dimension 0 of size 6 .*\('x', 'y'\) \(8 devices\)"):
        hg.compile(g, mesh=mesh, out_shardings=[P(("x", "y"))])
    # unknown dimensions are checked when the shapes are known
    u = hg.tensor("u", (None, 8), "float32")
    fn = hg.compile(hg.Graph([u], hg.exp(u)), mesh=mesh, in_shardings=[P("y")])
    assert_same(fn(np.ones((8, 8), np.float32)), np.exp(np.ones((8, 8), np.float32)))
    with pytest.raises(ValueError, match=r"dimension 0 of size 6 does not split evenly"):
        fn(np.ones((6, 8), np.float32))


def test_sharding_error_mesh_bigger_than_the_platform():
    with pytest.raises(ValueError, match=r"needs 16 devices but platform 'cpu' has 8.*"
                                         r"xla_force_host_platform_device_count=16"):
        Mesh({"x": 16})
    with pytest.raises(ValueError, match=r"needs 32 devices but platform 'cpu' has 8"):
        make_mesh((4, 8), ("x", "y"))


def test_sharding_error_bad_arguments():
    mesh = mesh_of("8")
    a = hg.tensor("a", (8, 4), "float32")
    g = hg.Graph([a], hg.exp(a))
    with pytest.raises(ValueError, match=r"in_shardings: expected one partition spec per input \(1\), got 2"):
        hg.compile(g, mesh=mesh, in_shardings=[P("x"), P("x")])
    with pytest.raises(TypeError, match=r"entry 0 of the partition spec P\(3\) must be None, an axis name"):
        hg.compile(g, mesh=mesh, in_shardings=[P(3)])
    with pytest.raises(TypeError, match=r"a partition spec must be None, hg.P"):
        hg.compile(g, mesh=mesh, in_shardings=["x"])
    with pytest.raises(ValueError, match=r"mesh axis 'x' appears twice"):
        hg.compile(g, mesh=mesh, in_shardings=[P("x", "x")])
    with pytest.raises(ValueError, match=r"need a mesh"):
        hg.compile(g, in_shardings=[P("x")])
    with pytest.raises(TypeError, match=r"mesh must be a hlograph.Mesh or a jax.sharding.Mesh"):
        hg.compile(g, mesh={"x": 8})
    with pytest.raises(ValueError, match=r"device= and donate_argnums= cannot be combined with mesh"):
        hg.compile(g, mesh=mesh, device=0)
    with pytest.raises(NotImplementedError, match=r"host ops cannot be compiled for a mesh"):
        hg.compile(hg.Graph([a], hg.nonzero(a)[0]), mesh=mesh).lower()


def test_sharding_repeated_calls_take_the_fast_path_correctly(rng):
    mesh = mesh_of("4x2")
    a = hg.tensor("a", (8, 4), "float64")
    b = hg.tensor("b", (4,), "float64")
    fn = hg.compile(hg.Graph([a, b], [a * b, hg.sum(a, axis=1)]), mesh=mesh,
                    in_shardings=[P("x", "y"), None], out_shardings=[P("x", "y"), P("x")])
    for _ in range(3):  # NumPy inputs: the later calls run in the C++ dispatcher
        x, y = rng.standard_normal((8, 4)), rng.standard_normal(4)
        prod, total = fn(x, y)
        assert_same(prod, x * y)
        assert_same(total, x.sum(axis=1))
    laid_out = fn(x, y, output="device")[0]
    for _ in range(3):  # jax arrays laid out as the inputs want, then resharded ones
        prod, total = fn(laid_out, y, output="device")
        expect_sharding(prod, mesh, ("x", "y"))
        expect_sharding(total, mesh, ("x",))
        assert_same(prod, x * y * y)
        assert_same(total, (x * y).sum(axis=1))
        assert_same(fn(prod, y)[0], x * y * y * y)


def test_sharded_executables_come_from_the_disk_cache(tmp_path, monkeypatch):
    from hlograph.runtime import cache, executables
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))
    x = hg.tensor("x", (16, 4), "float32")
    g = hg.Graph([x], hg.sum(hg.exp(x) * 3.0, axis=0))
    mesh = hg.make_mesh((8,), ("d",))
    v = np.arange(64, dtype=np.float32).reshape(16, 4) / 64
    want = hg.evaluate(g, v)
    cache.reset_stats()
    first = hg.compile(g, mesh=mesh, in_shardings=[hg.P("d", None)])(v)
    executables.clear_cache()
    second = hg.compile(g, mesh=mesh, in_shardings=[hg.P("d", None)])(v)
    stats = cache.stats()
    assert stats["hits"] >= 1 and stats["writes"] >= 1, stats
    np.testing.assert_allclose(first, want, rtol=1e-6)
    np.testing.assert_array_equal(first, second)
