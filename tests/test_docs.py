"""The tutorials in docs/ run as written, and their CHECK lines hold under filecheck."""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def python_blocks(path: pathlib.Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def filecheck(checks: str, output: str, tmp_path: pathlib.Path) -> None:
    exe = shutil.which("filecheck", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("filecheck")
    assert exe, "filecheck is part of the test extra"
    spec = tmp_path / "checks.txt"
    spec.write_text(checks)
    proc = subprocess.run([exe, str(spec)], input=output, text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", ["docs/adding_an_op.md", "README.md"])
def test_tutorial_runs(name, capsys, tmp_path):
    blocks = python_blocks(ROOT / name)
    assert blocks, f"{name} has no python blocks"
    namespace: dict = {"__name__": f"docs_{name}"}
    n_checked = 0
    for block in blocks:
        exec(compile(block, str(ROOT / name), "exec"), namespace)
        out = capsys.readouterr().out
        if "# CHECK" in block:
            filecheck(block, out, tmp_path)
            n_checked += 1
    assert n_checked >= 1 or name == "README.md"
