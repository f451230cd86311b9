"""docs/writing_a_pass.md runs as written, and its lit test passes."""

from __future__ import annotations

import pathlib

import pytest

from hlograph.tools import opt
from hlograph.passes import registry
from hlograph.tests.helpers import code_blocks, run_filecheck

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "writing_a_pass.md"


def blocks(language: str) -> list[str]:
    return code_blocks(DOC, language)


@pytest.fixture
def scratch_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def test_writing_a_pass_code_runs(scratch_registry, capsys):
    code = blocks("python")
    assert len(code) >= 5
    namespace: dict = {"__name__": "docs_writing_a_pass"}
    for block in code:
        exec(compile(block, str(DOC), "exec", dont_inherit=True), namespace)
    assert "stablehlo.select %arg0, %arg2, %arg1" in capsys.readouterr().out
    assert registry.get_pass("hlograph-swap-select-of-not").description().startswith("Rewrites select")


def test_writing_a_pass_lit_test_passes(scratch_registry, tmp_path, capsys):
    # the plugin the RUN line loads: the pattern and the pass, as the tutorial says
    (tmp_path / "swap_select_of_not.py").write_text(blocks("python")[0] + blocks("python")[1])
    (lit_case,) = blocks("mlir")
    run_line = lit_case.splitlines()[0]
    assert run_line.startswith("// RUN: hlograph-opt %s --load-pass-plugin %S/swap_select_of_not.py")
    source = tmp_path / "hlograph-swap-select-of-not.mlir"
    source.write_text(lit_case)
    # the RUN line's hlograph-opt arguments, with lit's substitutions
    argv = run_line.split("hlograph-opt", 1)[1].split("|", 1)[0].split()
    argv = [a.replace("%s", str(source)).replace("%S", str(tmp_path)) for a in argv]
    capsys.readouterr()
    assert opt.main(argv) == 0
    output = capsys.readouterr().out
    proc = run_filecheck(source, output)
    assert proc.returncode == 0, proc.stderr
    # and the checks can fail: without the pass, the negation stays
    assert opt.main([str(source), "-O0", "--split-input-file"]) == 0
    unchanged = capsys.readouterr().out
    proc = run_filecheck(source, unchanged)
    assert proc.returncode != 0
