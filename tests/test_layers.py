"""The package's layers import downward only, and jax/jaxlib are imported in
one place (``xla/``). Every import counts: module level and inside functions.

Layers, bottom-up (docs/architecture.md says what each holds):

    xla < frontend < lowering < passes < runtime < compiler < interop < tools

plus one rule inside the frontend: Op families (``frontend/ops``) never import
the NumPy compositions (``frontend/numpy``).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: top-level name inside hlograph -> layer rank (higher may import lower)
LAYERS = {
    "xla": 0,
    "frontend": 1,
    "lowering": 2,
    "passes": 3,
    "runtime": 4,
    "compiler": 5,
    "interop": 6,
    # the tools and the package's front door
    "testing": 7, "tools": 7, "cli": 7, "coverage": 7, "__main__": 7, "": 7,
}
#: the only layers whose modules may import jax / jaxlib
JAX_IMPORTERS = {"xla", "interop"}
#: sub-layers: (importer prefix, forbidden prefix)
FORBIDDEN = [("frontend.ops", "frontend.numpy")]
#: folders that are not part of the package's code
SKIP = {"tests", "filecheck", "bench", "docs", "build", ".venv", ".git"}


def package_modules(root: Path) -> dict[str, Path]:
    """Dotted module name inside the package ('' for the package itself) -> file."""
    out: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP and not d.startswith(".") and not d.endswith(".egg-info")
                             and d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py") or name == "setup.py":
                continue
            parts = list(rel.parts) + [name[:-3]]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = Path(dirpath) / name
    return out


def imports_of(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute target) for every import in the file: hlograph targets as
    dotted names inside the package ('' = the package), others prefixed by '!'."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    package = module.split(".") if module else []
    if not is_package:
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "hlograph" or alias.name.startswith("hlograph."):
                    found.append((node.lineno, alias.name[len("hlograph."):] if "." in alias.name else ""))
                else:
                    found.append((node.lineno, "!" + alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target + "." + a.name if target else a.name for a in node.names]
                found.append((node.lineno, target))
                # ``from . import x`` imports the submodule x
                found.extend((node.lineno, n) for n in names if node.module is None)
            elif node.module == "hlograph" or (node.module or "").startswith("hlograph."):
                target = node.module[len("hlograph."):] if "." in node.module else ""
                found.append((node.lineno, target))
                if target == "":
                    found.extend((node.lineno, a.name) for a in node.names)
            else:
                found.append((node.lineno, "!" + (node.module or "")))
    return found


def layer_of(module: str) -> str:
    return module.split(".")[0]


def violations(root: Path) -> list[str]:
    """Every import in the package at ``root`` that breaks the layering."""
    modules = package_modules(root)
    problems = []
    for module, path in modules.items():
        layer = layer_of(module)
        if layer not in LAYERS:
            problems.append(f"{path.relative_to(root)}: {layer!r} is not a known layer (add it to LAYERS)")
            continue
        for line, target in imports_of(module, path):
            where = f"{path.relative_to(root)}:{line}"
            if target.startswith("!"):
                ext = target[1:].split(".")[0]
                if ext in ("jax", "jaxlib") and layer not in JAX_IMPORTERS:
                    problems.append(f"{where}: imports {target[1:]} (only xla/ imports jax/jaxlib)")
                continue
            tl = layer_of(target)
            if tl not in LAYERS:
                continue  # a name re-exported by the package, e.g. ``from hlograph import hg_name``
            if target == "" and module != "":
                if LAYERS[layer] < LAYERS[""]:
                    problems.append(f"{where}: imports the hlograph package itself from layer {layer!r}")
                continue
            if LAYERS[tl] > LAYERS[layer]:
                problems.append(f"{where}: layer {layer!r} imports {target!r} of the higher layer {tl!r}")
            for importer, forbidden in FORBIDDEN:
                if (module == importer or module.startswith(importer + ".")) and (
                        target == forbidden or target.startswith(forbidden + ".")):
                    problems.append(f"{where}: {importer} must not import {forbidden} ({target!r})")
    return problems


def test_the_package_imports_downward_only():
    problems = violations(ROOT)
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_every_top_level_module_has_a_layer():
    names = {layer_of(m) for m in package_modules(ROOT)}
    assert names <= set(LAYERS), sorted(names - set(LAYERS))


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


@pytest.mark.parametrize("files, expected", [
    # a lowering module reaching up into the runtime, at module level
    ({"lowering/rules/x.py": "from ...runtime.host import ffi\n"},
     "layer 'lowering' imports 'runtime.host'"),
    # the same inside a function
    ({"lowering/lower.py": "def f():\n    from ..compiler import api\n"},
     "layer 'lowering' imports 'compiler'"),
    # an absolute import
    ({"passes/p.py": "import hlograph.runtime.load\n"}, "layer 'passes' imports 'runtime.load'"),
    # ``from .. import x`` names the submodule
    ({"frontend/ops/e.py": "from ... import lowering\n"}, "layer 'frontend' imports 'lowering'"),
    # jax outside xla/
    ({"runtime/r.py": "import jax.numpy as jnp\n"}, "imports jax.numpy (only xla/ imports jax/jaxlib)"),
    ({"lowering/l.py": "from jaxlib.mlir import ir\n"}, "imports jaxlib.mlir"),
    # an Op family importing a composition
    ({"frontend/ops/elemwise.py": "from ..numpy.math import around\n"},
     "frontend.ops must not import frontend.numpy"),
])
def test_the_check_fails_on_a_bad_import(tmp_path, files, expected):
    root = _tree(tmp_path, {"__init__.py": "", **files})
    problems = violations(root)
    assert any(expected in p for p in problems), problems


def test_the_check_accepts_downward_imports(tmp_path):
    root = _tree(tmp_path, {
        "__init__.py": "from .compiler import api\n",
        "xla/mlir.py": "import jax\n",
        "frontend/ops/elemwise.py": "from ..graph import Op\n",
        "frontend/numpy/math.py": "from ..ops import elemwise\n",
        "lowering/lower.py": "from ..xla.mlir import ir\nfrom ..frontend.graph import Graph\n",
        "compiler/api.py": "def f():\n    from ..runtime import executables\n    from ..lowering import lower\n",
    })
    assert violations(root) == []
