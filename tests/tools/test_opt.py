"""hlograph-opt: mlir-opt's conventions, diagnostics as file:line:col, exit codes."""

from __future__ import annotations

import io

import pytest

from hlograph.tools import opt
from hlograph.passes import pass_names

GOOD = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<2xf32>
  %0 = stablehlo.multiply %x, %one : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
BAD = """func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.frobnicate %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    return path


def test_opt_runs_a_pipeline(good_file, capsys):
    assert opt.main([str(good_file), "-p", "builtin.module(hlograph-simplify-algebra)"]) == 0
    out = capsys.readouterr().out
    assert "stablehlo.multiply" not in out
    assert "return %arg0 : tensor<2xf32>" in out


def test_opt_named_levels_and_output_file(good_file, tmp_path, capsys):
    target = tmp_path / "out.mlir"
    assert opt.main(["-O2", str(good_file), "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert "stablehlo.multiply" not in target.read_text()
    assert opt.main(["-O0", str(good_file)]) == 0
    assert "stablehlo.multiply" in capsys.readouterr().out


def test_opt_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(GOOD))
    assert opt.main(["-", "-p", "hlograph-simplify-algebra"]) == 0
    assert "return %arg0" in capsys.readouterr().out


def test_opt_malformed_ir_is_a_diagnostic_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    assert opt.main([str(path), "-O2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2:8: error: custom op 'stablehlo.frobnicate' is unknown")
    assert "Traceback" not in err


def test_opt_split_input_file_keeps_going_and_counts_lines(tmp_path, capsys):
    path = tmp_path / "chunks.mlir"
    path.write_text(GOOD + "// -----\n" + BAD + "// -----\n" + GOOD.replace("@f", "@h"))
    assert opt.main([str(path), "--split-input-file", "-p", "hlograph-simplify-algebra"]) == 1
    captured = capsys.readouterr()
    assert f"{path}:8:8: error: custom op 'stablehlo.frobnicate'" in captured.err
    chunks = captured.out.split("// -----\n")
    assert len(chunks) == 2 and "@f(" in chunks[0] and "@h(" in chunks[1]


@pytest.mark.parametrize("args, message", [
    (["-p", "hlograph-inline-call"], "unknown hlograph pass 'hlograph-inline-call'; did you mean hlograph-inline-calls"),
    (["-p", "cse,canonicalze"], "did you mean canonicalize"),
    (["-p", "hlograph-simplify{fast=1}"], "unknown option 'fast'"),
])
def test_opt_pipeline_errors_exit_1(good_file, capsys, args, message):
    assert opt.main([str(good_file), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hlograph-opt: error: ") and message in err
    assert "Traceback" not in err


def test_opt_missing_input(tmp_path, capsys):
    assert opt.main([str(tmp_path / "nope.mlir")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_opt_internal_errors_say_so_without_a_traceback(good_file, capsys, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("something broke")

    monkeypatch.setattr("hlograph.passes.pipeline.run", explode)
    assert opt.main([str(good_file), "-O2"]) == 1
    err = capsys.readouterr().err
    assert "hlograph-opt: internal error: RuntimeError: something broke" in err


def test_opt_list_passes(capsys):
    assert opt.main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    for name in pass_names():
        assert f"  {name}  -  " in out
    assert "O2  -  hlograph-inline-calls" in out


def test_opt_print_ir_after_and_verify_each(good_file, capsys):
    assert opt.main([str(good_file), "-p", "cse,hlograph-simplify-algebra", "--verify-each=false",
                     "--mlir-print-ir-after", "cse"]) == 0
    err = capsys.readouterr().err
    assert err.count("IR Dump After") == 1 and "stablehlo.multiply" in err


def test_opt_reads_bytecode(tmp_path, capsys):
    from hlograph.xla.mlir import ir, make_context, module_to_bytecode

    with make_context():
        data = module_to_bytecode(ir.Module.parse(GOOD))
    path = tmp_path / "good.mlirbc"
    path.write_bytes(data)
    assert opt.main([str(path), "-O2"]) == 0
    assert "return %arg0 : tensor<2xf32>" in capsys.readouterr().out
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff\xfe\x00")
    assert opt.main([str(junk)]) == 1
    assert "neither MLIR text nor MLIR bytecode" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["-m", "hlograph.tools.opt", "--list-passes"],
    ["-m", "hlograph", "coverage"],
])
def test_output_into_a_closed_pipe_stops_quietly(command):
    # ``hlograph-opt --list-passes | head -1``: the reader goes away before the output
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "error" not in err.lower(), err
