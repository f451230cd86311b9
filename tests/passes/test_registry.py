"""The pass registry: registration rules, lookup, options."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import ClassVar

import pytest

from hlograph.passes import ModulePass, get_pass, pass_names, register
from hlograph.passes import registry
from hlograph.passes.registry import make_pass

FILECHECK = pathlib.Path(__file__).resolve().parents[2] / "filecheck" / "passes"


@pytest.fixture
def scratch_registry(monkeypatch):
    """Registrations made by a test disappear after it."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def test_registry_builtin_names_match_classes():
    for name in registry._BUILTIN:
        assert get_pass(name).name == name


def test_registry_every_pass_has_a_lit_test():
    for name in pass_names():
        assert (FILECHECK / f"{name}.mlir").is_file(), f"filecheck/passes/{name}.mlir is missing"


def test_registry_every_pass_is_documented():
    for name in pass_names():
        cls = get_pass(name)
        assert cls.description(), name
        assert cls.description().endswith("."), name


def test_register_accepts_a_frozen_dataclass(scratch_registry):
    @register
    @dataclass(frozen=True)
    class CountOpsPass(ModulePass):
        """Counts nothing."""

        name: ClassVar[str] = "hlograph-count-ops"
        limit: int = 3

        def apply(self, module) -> None:
            pass

    assert get_pass("hlograph-count-ops") is CountOpsPass
    assert "hlograph-count-ops" in pass_names()
    assert make_pass("hlograph-count-ops", "limit=7").limit == 7


def test_register_rejects_a_class_that_is_not_a_dataclass(scratch_registry):
    class PlainPass(ModulePass):
        """Not a dataclass of its own."""

        name: ClassVar[str] = "hlograph-plain"

    with pytest.raises(TypeError, match=r"PlainPass must be a @dataclass\(frozen=True\)"):
        register(PlainPass)


def test_register_rejects_an_option_without_default(scratch_registry):
    @dataclass(frozen=True)
    class NoDefaultPass(ModulePass):
        """An option without default."""

        name: ClassVar[str] = "hlograph-no-default"
        level: int

    with pytest.raises(TypeError, match="option 'level' needs a default value"):
        register(NoDefaultPass)


def test_register_rejects_a_name_without_prefix(scratch_registry):
    @dataclass(frozen=True)
    class BadNamePass(ModulePass):
        """Bad name."""

        name: ClassVar[str] = "fold_things"

    with pytest.raises(ValueError, match="name 'fold_things' must be kebab case starting with 'hlograph-'"):
        register(BadNamePass)


def test_register_rejects_a_missing_docstring(scratch_registry):
    @dataclass(frozen=True)
    class UndocumentedPass(ModulePass):
        name: ClassVar[str] = "hlograph-undocumented"

    UndocumentedPass.__doc__ = None
    with pytest.raises(TypeError, match="needs a docstring"):
        register(UndocumentedPass)


def test_register_rejects_a_taken_name(scratch_registry):
    @dataclass(frozen=True)
    class Impostor(ModulePass):
        """Takes a built-in name."""

        name: ClassVar[str] = "hlograph-fold-constants"

    with pytest.raises(ValueError, match="'hlograph-fold-constants' is already registered"):
        register(Impostor)


def test_register_rejects_a_non_pass():
    with pytest.raises(TypeError, match="takes a ModulePass subclass"):
        register(int)


def test_get_pass_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match=r"unknown hlograph pass 'hlograph-fold-constant'; did you mean hlograph-fold-constants"):
        get_pass("hlograph-fold-constant")


def test_make_pass_parses_typed_options():
    p = make_pass("hlograph-simplify", "fold-constants=false  max-elements=0x100")
    assert p.fold_constants is False
    assert p.max_elements == 256
    assert p.pipeline_text() == "hlograph-simplify{fold-constants=false max-elements=256}"
    assert make_pass("hlograph-simplify-algebra", "fast-math").fast_math is True


@pytest.mark.parametrize("options, message", [
    ("max-elementz=3", "unknown option 'max-elementz'; valid options: max-elements, max-expanded-elements"),
    ("max-elements=many", "option 'max-elements' expects an integer, got 'many'"),
    ("max-elements", "option 'max-elements' needs a value"),
    ("max-elements=-1", "must be >= 0"),
])
def test_make_pass_rejects_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        make_pass("hlograph-fold-constants", options)


def test_make_pass_rejects_a_bad_bool():
    with pytest.raises(ValueError, match="option 'fast-math' expects true or false, got 'maybe'"):
        make_pass("hlograph-simplify-algebra", "fast-math=maybe")
