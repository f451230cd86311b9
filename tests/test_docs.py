"""The tutorials in docs/ and the README run as written, and their CHECK lines hold under filecheck."""

import pathlib

import pytest

from hlograph.tests.helpers import code_blocks, run_filecheck

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["docs/adding_an_op.md", "docs/jax_interop.md", "README.md"])
def test_tutorial_runs(name, capsys, tmp_path):
    blocks = code_blocks(ROOT / name)
    assert blocks, f"{name} has no python blocks"
    namespace: dict = {"__name__": f"docs_{name}"}
    n_checked = 0
    for block in blocks:
        exec(compile(block, str(ROOT / name), "exec"), namespace)
        out = capsys.readouterr().out
        if "# CHECK" in block:
            spec = tmp_path / "checks.txt"
            spec.write_text(block)
            proc = run_filecheck(spec, out)
            assert proc.returncode == 0, proc.stderr
            n_checked += 1
    assert n_checked >= 1 or name == "README.md"
