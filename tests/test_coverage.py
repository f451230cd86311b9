"""Every concrete Op of the op families can run somewhere, and the README's
coverage table is the one the registries give."""

import pathlib

from hlograph.tools.coverage import coverage_table, op_families
from hlograph.lowering.registry import lookup as rule_for
from hlograph.runtime.host.registry import lookup as impl_for

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_every_concrete_op_has_a_rule_or_a_host_implementation():
    classes = [c for family in op_families().values() for c in family]
    assert len(classes) > 50
    missing = [
        f"{c.__module__}.{c.__name__}" for c in classes
        if not ((not c.host_only and rule_for(c) is not None) or (c.host_only and impl_for(c) is not None))
    ]
    assert not missing, "ops with nowhere to run: " + ", ".join(missing)


def test_readme_coverage_table_matches_the_registries():
    text = README.read_text()
    start = text.index("<!-- coverage-table -->")
    end = text.index("<!-- /coverage-table -->")
    assert text[start:end].split("\n", 1)[1].strip() == coverage_table().strip(), (
        "README.md's op coverage table is stale: regenerate it with `hlograph coverage`"
    )
