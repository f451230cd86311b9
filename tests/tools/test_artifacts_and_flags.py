"""hlograph-opt and hlograph-run with portable artifacts, and their flags:
--version, --load-pass-plugin, conflicting -O levels, file locations,
check.* ops in a module written on one line, LAPACK custom calls in a new process."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import hlograph as hg
from hlograph.tools import cli, opt, run
from hlograph.xla import mlir

SPLIT = """func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
// -----
func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.fixture
def artifact(tmp_path):
    x = hg.tensor("x", (3,), "float32")
    path = tmp_path / "model.mlirbc"
    path.write_bytes(hg.compile(hg.Graph([x], x * 2 + 0)).lower().serialize())
    return path


@pytest.mark.parametrize("main", [cli.main, opt.main, run.main])
def test_version_on_every_tool(main, capsys):
    try:
        status = main(["--version"])
    except SystemExit as e:  # hlograph and hlograph-opt exit from argparse, hlograph-run returns
        status = e.code
    assert status in (0, None)
    out = capsys.readouterr().out
    assert f"(hlograph) {hg.__version__}" in out
    assert f"StableHLO {mlir.stablehlo_versions()[1]}" in out


def test_conflicting_levels_are_refused(tmp_path, capsys):
    path = tmp_path / "m.mlir"
    path.write_text(SPLIT.split("// -----")[0])
    assert opt.main([str(path), "-O2", "-O1"]) == 1
    assert "conflicting optimization levels -O2 and -O1" in capsys.readouterr().err
    assert opt.main([str(path), "-O2", "-O2"]) == 0  # the same level twice is one level


def test_debuginfo_names_the_file_with_file_line_numbers(tmp_path, capsys):
    path = tmp_path / "two.mlir"
    path.write_text(SPLIT)
    assert opt.main([str(path), "--split-input-file", "--mlir-print-debuginfo"]) == 0
    out = capsys.readouterr().out
    assert 'loc("-"' not in out
    assert f'loc("{path}":2:8)' in out   # the add, in the first chunk
    assert f'loc("{path}":7:8)' in out   # the multiply: line 7 of the file, not 2 of its chunk


def test_chunk_errors_keep_file_lines(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(SPLIT.replace("stablehlo.multiply", "stablehlo.frobnicate"))
    assert opt.main([str(path), "--split-input-file"]) == 1
    assert f"{path}:7:" in capsys.readouterr().err


PLUGIN = '''
from dataclasses import dataclass
from typing import ClassVar

from hlograph.passes import ModulePass, register


@register
@dataclass(frozen=True)
class MarkPass(ModulePass):
    """Marks the module with a unit attribute (a plugin test)."""

    name: ClassVar[str] = "hlograph-test-plugin-mark"

    def apply(self, module) -> None:
        from hlograph.xla.mlir import ir
        with module.context:
            module.operation.attributes["test.marked"] = ir.UnitAttr.get()
'''


def test_load_pass_plugin_from_a_file(tmp_path, capsys, monkeypatch):
    from hlograph.passes import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    plugin = tmp_path / "mark_plugin.py"
    plugin.write_text(PLUGIN)
    path = tmp_path / "m.mlir"
    path.write_text(SPLIT.split("// -----")[0])
    assert opt.main([str(path), "-p", "hlograph-test-plugin-mark"]) == 1  # unknown without the plugin
    assert "hlograph-test-plugin-mark" in capsys.readouterr().err
    assert opt.main([str(path), "--load-pass-plugin", str(plugin), "-p", "hlograph-test-plugin-mark"]) == 0
    assert "attributes {test.marked}" in capsys.readouterr().out


def test_load_pass_plugin_errors(tmp_path, capsys):
    assert opt.main(["--load-pass-plugin", str(tmp_path / "missing.py"), "--list-passes"]) == 1
    assert "cannot load pass plugin" in capsys.readouterr().err
    assert opt.main(["--load-pass-plugin", "hlograph_no_such_module", "--list-passes"]) == 1
    assert "ModuleNotFoundError" in capsys.readouterr().err
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    assert opt.main(["--load-pass-plugin", str(broken), "--list-passes"]) == 1
    assert "RuntimeError: boom" in capsys.readouterr().err


def test_opt_reads_an_artifact_optimizes_and_prints_stablehlo(tmp_path, capsys):
    x = hg.tensor("x", (3,), "float32")
    path = tmp_path / "o0.mlirbc"
    path.write_bytes(hg.compile(hg.Graph([x], x * 1), pipeline="O0").lower().serialize())
    assert opt.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "vhlo." not in out and "stablehlo.multiply" in out
    assert 'hlograph.name = "x"' in out
    assert opt.main([str(path), "-O2"]) == 0
    out = capsys.readouterr().out
    assert "stablehlo.multiply" not in out and "return %arg0" in out  # O2 ran: x * 1 is x


def test_opt_writes_an_artifact(artifact, tmp_path, capsys):
    out = tmp_path / "optimized.mlirbc"
    assert opt.main([str(artifact), "-O2", "-o", str(out)]) == 0
    data = out.read_bytes()
    assert mlir.artifact_version(data) == mlir.artifact_version(artifact.read_bytes())
    f = hg.load(data)
    np.testing.assert_array_equal(f(np.arange(3, dtype=np.float32)), np.arange(3, dtype=np.float32) * 2)
    text = tmp_path / "m.mlir"
    text.write_text(SPLIT.split("// -----")[0])
    out2 = tmp_path / "from_text.bc"
    assert opt.main([str(text), "--emit-bytecode", "-o", str(out2)]) == 0
    assert mlir.artifact_version(out2.read_bytes()) == mlir.stablehlo_versions()[0]
    two = tmp_path / "two.mlir"
    two.write_text(SPLIT)
    assert opt.main([str(two), "--split-input-file", "--emit-bytecode", "-o", str(out2)]) == 1
    assert "holds one module" in capsys.readouterr().err


def test_newer_artifacts_are_refused_by_both_tools(artifact, tmp_path, capsys):
    data = artifact.read_bytes()
    version = mlir.artifact_version(data).encode()
    future = tmp_path / "future.mlirbc"
    future.write_bytes(data.replace(b"StableHLO_v" + version, b"StableHLO_v9.9.9"[:11 + len(version)]))
    assert opt.main([str(future)]) == 1
    err = capsys.readouterr().err
    newest = mlir.stablehlo_versions()[1]
    assert "StableHLO 9.9" in err and newest in err
    assert run.main([str(future)]) == 1
    err = capsys.readouterr().err
    assert "StableHLO 9.9" in err and newest in err


def test_run_runs_an_artifact(artifact, tmp_path, capsys):
    x = tmp_path / "x.npy"
    np.save(x, np.array([1, 2, -3], np.float32))
    assert run.main([str(artifact), "--input", str(x)]) == 0
    assert "array([ 2.,  4., -6.], dtype=float32)" in capsys.readouterr().out


ONE_LINE = ("func.func @main() { %a = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64> "
            "%b = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64> "
            "check.expect_eq %a, %b : tensor<3xi64> "
            "check.expect_eq_const %a, dense<[-2, 0, 2]> : tensor<3xi64> func.return }\n")


def test_run_reads_checks_in_a_module_on_one_line(tmp_path, capsys):
    path = tmp_path / "one.mlir"
    path.write_text(ONE_LINE)
    assert run.main([str(path)]) == 0
    assert "one.mlir: 2 checks passed" in capsys.readouterr().out
    path.write_text(ONE_LINE.replace("dense<[-2, 0, 2]> : tensor<3xi64> func", "dense<[-2, 0, 3]> : tensor<3xi64> func"))
    assert run.main([str(path)]) == 1
    assert "1 of 2 checks failed" in capsys.readouterr().err
    # check-like text in a string or a comment is left alone
    from hlograph.runtime.checks import rewrite_check_syntax

    line = ('func.func @main() { %a = stablehlo.constant dense<1> : tensor<i32> '
            'stablehlo.custom_call @foo() {backend_config = " check.expect_eq %a"} : () -> () '
            'check.expect_eq_const %a, dense<1> : tensor<i32> func.return } // check.expect_eq %a, %a')
    out = rewrite_check_syntax(line)
    assert '{backend_config = " check.expect_eq %a"}' in out and out.endswith("// check.expect_eq %a, %a")
    assert '"check.expect_eq_const"(%a) {value = dense<1> : tensor<i32>} : (tensor<i32>) -> () func.return }' in out


def test_run_lapack_module_in_a_new_process(tmp_path):
    A = hg.tensor("A", (4, 4), "float64")
    text = hg.compile(hg.Graph([A], hg.linalg.cholesky(A)), platform="cpu").lower().as_text()
    assert "lapack_dpotrf_ffi" in text
    (tmp_path / "chol.mlir").write_text(text)
    r = np.random.default_rng(0).normal(size=(4, 4))
    a = r @ r.T + 4 * np.eye(4)
    np.save(tmp_path / "spd.npy", a)
    done = subprocess.run([sys.executable, "-m", "hlograph.tools.run", str(tmp_path / "chol.mlir"),
                           "--input", str(tmp_path / "spd.npy")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    want = np.linalg.cholesky(a)
    assert f"{want[3, 3]:.6f}"[:6] in done.stdout
