"""Every concrete Op of the op families can run somewhere; the gradient table tells
ops with a gradient rule from those without; the README's tables are the ones the
registries and the Op classes give."""

import numpy as np
import pytest

from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops import elemwise, reduction
from hlograph.frontend.ops.basic import as_variable
from hlograph.lowering.registry import lookup as rule_for
from hlograph.runtime.host.registry import lookup as impl_for
from hlograph.tools import cli
from hlograph.tools.coverage import (TABLES, coverage_table, default_readme, gradient_rows,
                                     gradient_table, has_gradient_rule, marked_section,
                                     op_families, update_markdown)

README = default_readme()


def test_every_concrete_op_has_a_rule_or_a_host_implementation():
    classes = [c for family in op_families().values() for c in family]
    assert len(classes) > 50
    missing = [
        f"{c.__module__}.{c.__name__}" for c in classes
        if not ((not c.host_only and rule_for(c) is not None) or (c.host_only and impl_for(c) is not None))
    ]
    assert not missing, "ops with nowhere to run: " + ", ".join(missing)


@pytest.mark.parametrize("name", list(TABLES))
def test_readme_tables_match_the_registries(name):
    assert marked_section(README.read_text(), name) == TABLES[name]().strip(), (
        f"README.md's {name} is stale: regenerate it with `hlograph coverage --update-readme`"
    )


# --- which ops have a gradient rule ----------------------------------------------------------
class _NoRule(Op):
    def make_node(self, x):
        x = as_variable(x)
        return Apply(self, [x], [x.type])


class _OwnRule(_NoRule):
    def pullback(self, node, cotangents):
        return [cotangents[0]]


class _IntegerResult(_NoRule):
    """A rule that returns no gradient on purpose."""

    def pullback(self, node, cotangents):
        return [None]


class _ElemwiseWithoutPartials(elemwise.Elemwise):
    ufunc = np.exp


class _ElemwiseWithPartials(elemwise.Elemwise):
    ufunc = np.exp

    def partials(self, x, out):
        return [out]


class _ElemwiseComparison(elemwise.Elemwise):
    """Bool results: Elemwise's rule returns no gradient, as for numpy.isnan."""

    ufunc = np.isnan


class _ReductionWithoutRule(reduction.Reduce):
    reference = staticmethod(np.sum)


def test_the_default_pullback_is_no_rule():
    assert not has_gradient_rule(_NoRule)
    assert has_gradient_rule(_OwnRule)
    assert has_gradient_rule(_IntegerResult)


def test_family_rules_are_asked():
    # Elemwise's pullback is a rule only where the class gives its partials
    assert not has_gradient_rule(_ElemwiseWithoutPartials)
    assert has_gradient_rule(_ElemwiseWithPartials)
    assert has_gradient_rule(_ElemwiseComparison)
    # the reductions' pullback handles integer and bool results only
    assert not has_gradient_rule(_ReductionWithoutRule)
    assert has_gradient_rule(reduction.All)


def test_known_ops():
    assert has_gradient_rule(elemwise.Exp)
    assert has_gradient_rule(elemwise.Less)  # bool result: no gradient, on purpose
    assert has_gradient_rule(elemwise.BitwiseAnd)  # no float inputs: nothing to differentiate
    assert has_gradient_rule(reduction.Sum)
    assert has_gradient_rule(reduction.Argmax)


def test_gradient_table_rows():
    rows = {family: (with_rule, total, missing) for family, with_rule, total, missing in gradient_rows()}
    assert set(rows) == set(op_families())
    for family, (with_rule, total, missing) in rows.items():
        assert with_rule + len(missing) == total == len(op_families()[family])
    assert rows["elemwise"][2] == []
    table = gradient_table()
    assert table.splitlines()[0] == "| family | gradient rules | ops without one |"
    assert len(table.splitlines()) == len(rows) + 2


# --- the command ---------------------------------------------------------------------------
def test_update_markdown_rewrites_only_the_marked_sections():
    text = ("# x\n\nbefore\n<!-- coverage-table -->\nold\n<!-- /coverage-table -->\nbetween\n"
            "<!-- gradient-table -->\n| stale |\n<!-- /gradient-table -->\nafter\n")
    new = update_markdown(text)
    assert new.startswith("# x\n\nbefore\n<!-- coverage-table -->\n" + coverage_table() + "\n")
    assert "\n<!-- /coverage-table -->\nbetween\n<!-- gradient-table -->\n" in new
    assert new.endswith(gradient_table() + "\n<!-- /gradient-table -->\nafter\n")
    assert update_markdown(new) == new
    with pytest.raises(ValueError, match="gradient-table"):
        update_markdown("<!-- coverage-table -->\n<!-- /coverage-table -->\n")


def test_cli(tmp_path, capsys):
    assert cli.main(["coverage"]) == 0
    assert capsys.readouterr().out.strip() == coverage_table()
    assert cli.main(["coverage", "--grad"]) == 0
    assert capsys.readouterr().out.strip() == gradient_table()
    path = tmp_path / "README.md"
    path.write_text("<!-- coverage-table -->\n<!-- /coverage-table -->\n"
                    "<!-- gradient-table -->\n<!-- /gradient-table -->\n")
    assert cli.main(["coverage", "--update-readme", str(path)]) == 0
    assert "updated" in capsys.readouterr().out
    assert marked_section(path.read_text(), "gradient-table") == gradient_table()
    assert cli.main(["coverage", "--update-readme", str(path)]) == 0
    assert "already up to date" in capsys.readouterr().out
    path.write_text("no markers\n")
    assert cli.main(["coverage", "--update-readme", str(path)]) == 1
