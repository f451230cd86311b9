"""Portable artifacts: Lowered.serialize() -> hg.load, plain StableHLO and
jax.export's Exported through hg.load, and artifacts read in new processes."""

import pathlib

import numpy as np
import pytest

import jax

import hlograph as hg
from hlograph import Apply, Op, TensorType
from hlograph.compiler.artifact import ArtifactError
from hlograph.tests.helpers import run_in_new_processes
from hlograph.xla import mlir

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


def _mixed_graph():
    """Several dtypes, a 0-d and an empty input, several outputs."""
    x = hg.tensor("x", (2, 3), "float64")
    n = hg.tensor("n", (), "int32")
    e = hg.tensor("e", (0, 4), "float32")
    z = hg.tensor("z", (3,), "complex64")
    outs = [hg.exp(x) * hg.astype(n, "float64"), hg.sum(e, axis=0), z * 2, x > 0.5]
    return hg.Graph([x, n, e, z], outs)


def _mixed_args(rng):
    return [rng.normal(size=(2, 3)), np.int32(3), np.zeros((0, 4), np.float32),
            (rng.normal(size=3) + 1j * rng.normal(size=3)).astype(np.complex64)]


def test_round_trip_matches_evaluate_over_dtypes_and_shapes():
    rng = np.random.default_rng(0)
    g = _mixed_graph()
    data = hg.compile(g, platform="cpu").lower().serialize()
    assert mlir.artifact_version(data) == mlir.stablehlo_versions()[0]  # the oldest this program allows
    f = hg.load(data)
    assert [v.name for v in f.inputs] == ["x", "n", "e", "z"]
    assert [str(t) for t in f.input_types] == ["float64[2,3]", "int32[]", "float32[0,4]", "complex64[3]"]
    assert f.kind == "hlograph" and f.platforms == ("cpu",)
    args = _mixed_args(rng)
    got = f(*args)
    want = hg.evaluate(g, *args)
    assert isinstance(got, tuple) and len(got) == 4
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # a Python scalar for the 0-d input, NaN and inf through, jax arrays out
    x = np.array([[np.nan, np.inf, -np.inf], [0.0, 1.0, -1.0]])
    dev = f(x, 2, args[2], args[3], output="device")
    assert type(dev[0]).__module__.startswith("jax")
    np.testing.assert_allclose(np.asarray(dev[0]), np.exp(x) * 2, rtol=1e-14)


def test_single_output_and_names_survive():
    x = hg.tensor("x", (4,), "float32")
    y = hg.sin(x) + 1
    y.name = "y"
    data = hg.compile(hg.Graph([x], y), donate_argnums=0).lower().serialize()
    f = hg.load(data)
    a = np.linspace(-1, 1, 4, dtype=np.float32)
    out = f(a)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, np.sin(a) + 1, rtol=1e-6)
    assert f.output_names == ["y"] and f.donated_inputs == (0,)
    with pytest.raises(TypeError, match="expected 1 arguments"):
        f()
    with pytest.raises(TypeError, match=r"argument 0 \('x'\): expected dtype float32"):
        f(a.astype(np.float64))
    with pytest.raises(ValueError, match=r"argument 0 \('x'\): expected shape float32\[4\]"):
        f(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="output must be"):
        f(a, output="list")


def test_load_reads_paths_and_plain_stablehlo(tmp_path):
    x = hg.tensor("x", (3,), "float32")
    lowered = hg.compile(hg.Graph([x], x * 3)).lower()
    path = tmp_path / "m.mlirbc"
    path.write_bytes(lowered.serialize())
    a = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(hg.load(path)(a), a * 3)
    np.testing.assert_array_equal(hg.load(str(path))(a), a * 3)
    text = lowered.as_text()
    f = hg.load(text)
    assert f.kind == "stablehlo"
    np.testing.assert_array_equal(f(a), a * 3)
    np.testing.assert_array_equal(hg.load(text.encode())(a), a * 3)
    # the only function of a module runs, whatever its name (StableHLO's test convention)
    f = hg.load(text.replace("@main", "@scale"))
    np.testing.assert_array_equal(f(a), a * 3)
    two = ("func.func @first(%a: tensor<3xf32>) -> tensor<3xf32> { return %a : tensor<3xf32> }\n"
           "func.func @second(%a: tensor<3xf32>) -> tensor<3xf32> { return %a : tensor<3xf32> }\n")
    with pytest.raises(ArtifactError, match=r"no public @main function \(public functions: @first, @second\)"):
        hg.load(two)
    with pytest.raises(FileNotFoundError, match="missing.mlirbc"):
        hg.load(tmp_path / "missing.mlirbc")
    with pytest.raises(TypeError, match="takes bytes"):
        hg.load(3)


DYNAMIC = """module attributes {hlograph.version = "0.1.0", hlograph.platforms = ["cpu"], hlograph.single_output} {
  func.func public @main(%x: tensor<?x4xf32> {hlograph.name = "x", hlograph.type = "float32[b,4]"},
                         %y: tensor<4xf32> {hlograph.name = "y"}) -> tensor<?x4xf32> {
    %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %four = stablehlo.constant dense<4> : tensor<1xi32>
    %s = stablehlo.concatenate %r, %four, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %b = stablehlo.dynamic_broadcast_in_dim %y, %s, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    %0 = stablehlo.add %x, %b : tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}
"""


def test_symbolic_dimensions_are_refined_per_call_signature():
    f = hg.load(DYNAMIC)
    assert [v.name for v in f.inputs] == ["x", "y"]
    assert str(f.input_types[0]) == "float32[?,4]"  # the named dimension b is symbolic
    rng = np.random.default_rng(4)
    y = rng.normal(size=4).astype(np.float32)
    for n in (0, 1, 5):
        x = rng.normal(size=(n, 4)).astype(np.float32)
        got = f(x, y)
        assert got.shape == (n, 4)
        np.testing.assert_array_equal(got, x + y)
    text = f.lower_text(np.zeros((5, 4), np.float32), y)
    assert "tensor<5x4xf32>" in text and "?" not in text and "dynamic_broadcast_in_dim" not in text
    with pytest.raises(ValueError, match=r"argument 0 \('x'\): expected shape float32\[\?,4\]"):
        f(np.zeros((2, 3), np.float32), y)


def test_target_version():
    x = hg.tensor("x", (3,), "float32")
    lowered = hg.compile(hg.Graph([x], x + 1)).lower()
    data = lowered.serialize("1.0.0")
    assert mlir.artifact_version(data) == "1.0.0"
    np.testing.assert_array_equal(hg.load(data)(np.ones(3, np.float32)), np.full(3, 2, np.float32))
    oldest, newest = mlir.stablehlo_versions()
    with pytest.raises(ValueError, match=f"outside the versions this jaxlib writes \\({oldest} to {newest}\\)"):
        lowered.serialize("0.1.0")
    with pytest.raises(ValueError, match="major.minor.patch"):
        lowered.serialize("latest")


def test_version_follows_the_ops_and_chlo_is_written_as_stablehlo():
    x = hg.tensor("x", (5,), "float32")
    a = np.array([0.3, -1.2, 2.0, np.nan, -np.inf], np.float32)
    tan = hg.compile(hg.Graph([x], hg.tan(x))).lower()
    assert "stablehlo.tan" in tan.as_text()
    data = tan.serialize()
    oldest = mlir.artifact_version(data)
    assert mlir.parse_version(oldest) > mlir.parse_version(mlir.stablehlo_versions()[0])
    with np.errstate(invalid="ignore"):
        want = np.tan(a)
    np.testing.assert_allclose(hg.load(data)(a), want, rtol=1e-6)
    with pytest.raises(ValueError, match=f"StableHLO 1.0.0 does not have \\(stablehlo.tan\\); "
                                         f"the oldest version that has them all is {oldest}"):
        tan.serialize("1.0.0")
    for name, ref in (("erf", None), ("sinh", np.sinh)):
        g = hg.Graph([x], getattr(hg, name)(x))
        lowered = hg.compile(g).lower()
        assert f"chlo.{name}" in lowered.as_text()  # VHLO has no CHLO: written as StableHLO
        got = hg.load(lowered.serialize())(a)
        want = hg.evaluate(g, a) if ref is None else ref(a)
        np.testing.assert_allclose(got, np.asarray(want).reshape(got.shape), rtol=2e-6, atol=1e-7)


def test_newer_artifact_is_refused_naming_both_versions():
    x = hg.tensor("x", (3,), "float32")
    data = hg.compile(hg.Graph([x], x + 1)).lower().serialize("1.0.0")
    newest = mlir.stablehlo_versions()[1]
    future = data.replace(b"StableHLO_v1.0.0", b"StableHLO_v9.9.9")
    with pytest.raises(ArtifactError, match=f"StableHLO 9.9.9, newer than {newest}"):
        hg.load(future)


class _Positives(Op):
    """x[x > 0]: a host-only op."""

    host_only = True

    def make_node(self, x):
        return Apply(self, [x], [TensorType(x.dtype, (None,))])

    def perform(self, node, inputs):
        return [inputs[0][inputs[0] > 0]]


def test_segmented_program_is_refused_naming_the_host_ops():
    x = hg.tensor("x", (5,), "float32")
    g = hg.Graph([x], hg.sum(_Positives()(hg.exp(x) - 2)))
    with pytest.raises(ArtifactError, match="host segments.*_Positives"):
        hg.compile(g).lower().serialize()


def test_in_module_host_calls_are_refused_naming_the_target():
    from hlograph.frontend.ops import dynamic as dyn

    x = hg.tensor("x", (4, 3), "float32")
    g = hg.Graph([x], dyn.mask_assign(x * 2, x > 0, 7) + 1)
    lowered = hg.compile(g, platform="cpu").lower()
    assert lowered.program is None and "@hlograph_host_maskassign_" in lowered.as_text()
    with pytest.raises(ArtifactError, match="calls hlograph host functions \\(hlograph_host_maskassign_"):
        lowered.serialize()


def test_mesh_programs_are_refused():
    x = hg.tensor("x", (4,), "float32")
    lowered = hg.compile(hg.Graph([x], x + 1), mesh=hg.make_mesh((1,), ("d",)), in_shardings=hg.P("d")).lower()
    with pytest.raises(ArtifactError, match="compiled for a mesh"):
        lowered.serialize()


def _jax_export(f, specs, platforms=None):
    from jax import export

    return export.export(jax.jit(f), platforms=platforms)(*specs)


def test_jax_export_static_matches_jax():
    import jax.numpy as jnp

    def f(a, unused, c):
        spd = a @ a.T + 4 * jnp.eye(3, dtype=a.dtype)
        return a @ c, jnp.tanh(a).sum(axis=0), jnp.linalg.cholesky(spd)  # LAPACK on the CPU

    rng = np.random.default_rng(1)
    a, c = rng.normal(size=(3, 3)).astype(np.float32), rng.normal(size=(3, 2)).astype(np.float32)
    u = np.zeros(2, np.int32)
    exp = _jax_export(f, (a, u, c))
    assert exp.module_kept_var_idx == (0, 2)  # jax dropped the unused input
    g = hg.load(exp.serialize())
    assert g.kind == "jax.export"
    got, want = g(a, u, c), exp.call(a, u, c)
    assert isinstance(got, tuple) and len(got) == 3
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, np.asarray(y), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="expected 3 arguments"):
        g(a, c)


def test_jax_export_polymorphic_multi_platform_matches_jax():
    import jax.numpy as jnp
    from jax import export

    def f(x, y):
        return jnp.sin(x) * 2 + y.sum()

    specs = (jax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.float32),
             jax.ShapeDtypeStruct((3,), jnp.float32))
    exp = _jax_export(f, specs, platforms=("cpu", "cuda"))
    g = hg.load(exp.serialize())
    assert g.platforms == ("cpu", "cuda") and str(g.input_types[0]) == "float32[?,4]"
    rng = np.random.default_rng(2)
    for b in (1, 2, 7):
        x, y = rng.normal(size=(b, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32)
        got = g(x, y)
        assert isinstance(got, np.ndarray) and got.shape == (b, 4)
        np.testing.assert_allclose(got, np.asarray(exp.call(x, y)), rtol=1e-6)
    # jax's own shape assertion (b >= 1) is checked when the shapes are refined
    with pytest.raises(ValueError, match="dimension variable 'b'"):
        g(np.zeros((0, 4), np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"expected shape float32\[\?,4\]"):
        g(np.zeros((2, 5), np.float32), np.zeros(3, np.float32))


def test_jax_export_for_other_platforms_is_refused():
    exp = _jax_export(lambda x: x + 1, (np.zeros(3, np.float32),), platforms=("cuda",))
    with pytest.raises(ArtifactError, match="lowered for cuda, not for cpu"):
        hg.load(exp.serialize(), platform="cpu")


_NEW_PROCESS = r'''
import json, pathlib, sys
import numpy as np
import hlograph as hg
import hlograph.runtime as rt

data = pathlib.Path(sys.argv[0]).parent
report = {}
# the artifact committed to the repository
d = np.load(DATA / "affine.npz")
f = hg.load(DATA / "affine.mlirbc")
report["committed"] = float(np.abs(f(d["x"], d["w"], d["b"]) - d["out"]).max())
report["names"] = [v.name for v in f.inputs]
# an artifact written by the test process
g = hg.load(data / "roundtrip.mlirbc")
report["roundtrip"] = np.asarray(g(np.arange(3, dtype=np.float32))).tolist()
# LAPACK custom calls, in a process where jax lowered no linear algebra
a = np.load(data / "spd.npy")
chol = rt.load((data / "cholesky.mlir").read_text())(a)
report["cholesky_text"] = float(np.abs(chol - np.linalg.cholesky(a)).max())
chol = hg.load(data / "cholesky.mlirbc")(a)
report["cholesky_artifact"] = float(np.abs(chol - np.linalg.cholesky(a)).max())
print(json.dumps(report))
'''


def test_artifacts_load_in_a_new_process(tmp_path):
    x = hg.tensor("x", (3,), "float32")
    (tmp_path / "roundtrip.mlirbc").write_bytes(hg.compile(hg.Graph([x], x * x + 1)).lower().serialize())
    A = hg.tensor("A", (4, 4), "float64")
    lowered = hg.compile(hg.Graph([A], hg.linalg.cholesky(A)), platform="cpu").lower()
    assert "lapack_dpotrf_ffi" in lowered.as_text()
    (tmp_path / "cholesky.mlir").write_text(lowered.as_text())
    (tmp_path / "cholesky.mlirbc").write_bytes(lowered.serialize())
    r = np.random.default_rng(3).normal(size=(4, 4))
    np.save(tmp_path / "spd.npy", r @ r.T + 4 * np.eye(4))
    source = f"DATA = __import__('pathlib').Path({str(DATA)!r})\n" + _NEW_PROCESS
    (report,) = run_in_new_processes(tmp_path, source, times=1)
    assert report["committed"] < 1e-6
    assert report["names"] == ["x", "w", "b"]
    assert report["roundtrip"] == [1.0, 2.0, 5.0]
    assert report["cholesky_text"] < 1e-12 and report["cholesky_artifact"] < 1e-12


def test_the_artifacts_doc_runs(tmp_path, monkeypatch, capsys):
    from hlograph.tests.helpers import code_blocks

    monkeypatch.chdir(tmp_path)
    doc = DATA.parent.parent / "docs" / "artifacts.md"
    first, poly = code_blocks(doc)  # the second block continues the first's names
    namespace = {"__name__": "docs_artifacts"}
    exec(compile(first, str(doc), "exec"), namespace)
    assert (tmp_path / "model.mlirbc").read_bytes().startswith(b"ML\xefR")
    out = capsys.readouterr().out
    assert out.count("0.995054") == 8  # tanh(ones @ ones) = tanh(3), 2x4
    exec(compile(poly, str(doc), "exec"), namespace)
    assert "tensor<?x3xf32>" in capsys.readouterr().out
    assert (tmp_path / "poly.mlirbc").read_bytes().startswith(b"ML\xefR")
