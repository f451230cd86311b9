"""Pipelines: splitting, one PassManager for upstream and Python passes, named
pipelines, instrumentation, errors, and hg.compile's use of them."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import hlograph as hg
from hlograph.xla.mlir import hlo, ir, make_context
from hlograph.passes import PIPELINES, ModulePass, PassError, check_pipeline, register, run
from hlograph.passes import registry
from hlograph.passes.pipeline import build_pass_manager, split_pipeline

MODULE = """
func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @scale(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<0.5> : tensor<4xf32>
  %one = stablehlo.add %a, %a : tensor<4xf32>
  %0 = stablehlo.multiply %x, %one : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


@pytest.fixture
def scratch_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def ops_of(module: ir.Module) -> list[str]:
    names = []
    module.operation.walk(lambda op: names.append(op.name) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    return names


def test_split_pipeline_strips_the_wrapper_and_keeps_nesting():
    items = split_pipeline("builtin.module(hlograph-simplify{max-elements=3 algebra=false}, func.func(cse,canonicalize), symbol-dce)")
    assert items == ["hlograph-simplify{max-elements=3 algebra=false}", "func.func(cse,canonicalize)", "symbol-dce"]
    assert split_pipeline("") == []
    assert split_pipeline("builtin.module()") == []


@pytest.mark.parametrize("text, message", [
    ("cse,,canonicalize", "empty item"),
    ("func.func(cse", "unbalanced"),
    ("cse)", "unbalanced"),
])
def test_split_pipeline_rejects_malformed_text(text, message):
    with pytest.raises(ValueError, match=message):
        split_pipeline(text)


def test_pipeline_mixes_upstream_and_python_passes_in_one_pass_manager():
    with make_context():
        built = build_pass_manager("hlograph-inline-calls,symbol-dce,hlograph-simplify-algebra,func.func(cse)")
        text = str(built.pm)
    assert text.startswith("builtin.module(hlograph-inline-calls,symbol-dce,hlograph-simplify-algebra,func.func(cse")


def test_run_accepts_text_and_returns_the_optimized_module():
    module = run(MODULE, "hlograph-inline-calls,symbol-dce,hlograph-fold-constants,hlograph-simplify-algebra")
    assert ops_of(module) == ["builtin.module", "func.func", "stablehlo.negate", "func.return"]


def test_run_rewrites_a_given_module_in_place():
    with make_context():
        module = ir.Module.parse(MODULE)
        same = run(module, "hlograph-inline-calls")
        assert same is module
        assert "func.call" not in ops_of(module)


def test_run_o0_only_verifies():
    module = run(MODULE, "O0")
    assert "func.call" in ops_of(module)
    assert ops_of(module).count("stablehlo.add") == 1


def test_named_pipelines_can_be_items():
    module = run(MODULE, "O1,hlograph-fold-constants")
    assert "stablehlo.add" not in ops_of(module)
    assert set(PIPELINES) >= {"O0", "O1", "O2"}


def test_run_unknown_upstream_pass_lists_close_matches():
    with pytest.raises(ValueError, match=r"unknown pass 'symbol-dec' in 'symbol-dec'; did you mean symbol-dce"):
        run(MODULE, "symbol-dec")


def test_run_unknown_hlograph_pass_lists_close_matches():
    with pytest.raises(ValueError, match="unknown hlograph pass 'hlograph-sink-broadcast'; did you mean hlograph-sink-broadcasts"):
        run(MODULE, "cse,hlograph-sink-broadcast")


def test_hlograph_pass_nested_in_an_op_pipeline_is_an_error():
    with pytest.raises(ValueError, match="hlograph passes run on the whole module"):
        run(MODULE, "func.func(hlograph-simplify)")


def test_check_pipeline_names_the_pipeline():
    check_pipeline("O2")
    with pytest.raises(ValueError, match=r"invalid pass pipeline 'O3'"):
        check_pipeline("O3")


def test_print_ir_after_named_pass_only(capsys):
    run(MODULE, "hlograph-inline-calls,cse,hlograph-fold-constants", print_ir_after=["cse"])
    err = capsys.readouterr().err
    assert err.count("IR Dump After") == 1
    assert "// -----// IR Dump After cse //----- //" in err
    assert "stablehlo.add" in err  # printed before folding


def test_print_ir_after_all_goes_to_the_given_stream():
    stream = io.StringIO()
    run(MODULE, "hlograph-inline-calls,symbol-dce", print_ir_after_all=True, stream=stream)
    text = stream.getvalue()
    assert "IR Dump After hlograph-inline-calls" in text
    assert "IR Dump After symbol-dce" in text
    after_inline = text[text.index("After hlograph-inline-calls"):text.index("After symbol-dce")]
    assert "call @scale" not in after_inline and "stablehlo.add" in after_inline


def test_print_ir_after_a_pass_not_in_the_pipeline_is_an_error():
    with pytest.raises(ValueError, match="not in the pipeline: \\['cse'\\]"):
        run(MODULE, "symbol-dce", print_ir_after=["cse"])


def test_dump_dir_writes_numbered_files(tmp_path, monkeypatch):
    monkeypatch.setenv("HLOGRAPH_DUMP_DIR", str(tmp_path))
    run(MODULE, "hlograph-inline-calls,symbol-dce,hlograph-simplify")
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 4
    assert files[0].endswith(".0000.before_pipeline.mlir")
    assert files[1].endswith(".0001.after_hlograph-inline-calls.mlir")
    assert files[3].endswith(".0003.after_hlograph-simplify.mlir")
    assert "call @scale" in (tmp_path / files[0]).read_text()
    assert "call @scale" not in (tmp_path / files[1]).read_text()
    assert "stablehlo.add" not in (tmp_path / files[3]).read_text()
    # each dumped module parses back
    with make_context():
        for f in files:
            ir.Module.parse((tmp_path / f).read_text())


def test_timing_reports_each_pass(capfd):
    run(MODULE, "hlograph-inline-calls,cse", timing=True)
    err = capfd.readouterr().err
    assert "Execution time report" in err
    assert "hlograph-inline-calls" in err or "InlineCallsPass" in err
    assert "CSE" in err


def test_pass_error_comes_out_unchanged(scratch_registry):
    @register
    @dataclass(frozen=True)
    class GiveUpPass(ModulePass):
        """Gives up."""

        name: ClassVar[str] = "hlograph-give-up"

        def apply(self, module) -> None:
            raise PassError("hlograph-give-up: cannot go on at loc(unknown)")

    with pytest.raises(PassError, match="^hlograph-give-up: cannot go on at loc"):
        run(MODULE, "cse,hlograph-give-up")


def test_a_crashing_pass_becomes_a_pass_error(scratch_registry):
    @register
    @dataclass(frozen=True)
    class CrashPass(ModulePass):
        """Crashes."""

        name: ClassVar[str] = "hlograph-crash"

        def apply(self, module) -> None:
            raise KeyError("boom")

    with pytest.raises(PassError, match="hlograph-crash failed: KeyError: 'boom'"):
        run(MODULE, "hlograph-crash")


def test_verifier_catches_a_pass_that_breaks_the_module(scratch_registry):
    @register
    @dataclass(frozen=True)
    class BreakReturnPass(ModulePass):
        """Makes @main return a value of the wrong type."""

        name: ClassVar[str] = "hlograph-break-return"

        def apply(self, module) -> None:
            main = module.body.operations[0]
            block = main.regions[0].blocks[0]
            ret = list(block.operations)[-1]
            with ir.InsertionPoint(ret), ret.location:
                c = hlo.ConstantOp(ir.DenseElementsAttr.get(np.zeros(3, np.float32))).result
            ret.operation.operands[0] = c

    with pytest.raises(PassError, match=r"doesn't match function result type"):
        run(MODULE, "hlograph-break-return")
    # verified once after the last pass, it fails too (without naming the pass)
    with pytest.raises(PassError, match=r"doesn't match function result type"):
        run(MODULE, "hlograph-break-return", verify_each=False, verify=True)
    # without the verifier the broken module goes through
    module = run(MODULE, "hlograph-break-return", verify_each=False)
    assert not _verifies(module)


def _verifies(module: ir.Module) -> bool:
    try:
        return bool(module.operation.verify())
    except ir.MLIRError:
        return False


def test_compile_runs_the_pipeline_and_as_text_shows_it():
    x = hg.tensor("x", (3,), "float32")
    y = hg.negative(hg.negative(x))
    g = hg.Graph([x], y)
    raw = hg.compile(g, pipeline="O0").lower().as_text()
    optimized = hg.compile(g, pipeline="O2").lower().as_text()
    assert raw.count("stablehlo.negate") == 2
    assert "stablehlo.negate" not in optimized
    value = np.array([1.0, -0.0, np.nan], np.float32)
    out = hg.compile(g, pipeline="O2")(value)
    np.testing.assert_array_equal(out.view(np.uint32)[:2], value.view(np.uint32)[:2])


def test_compile_rejects_an_unknown_pipeline_before_lowering():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match="did you mean hlograph-simplify"):
        hg.compile(hg.Graph([x], hg.exp(x)), pipeline="hlograph-simplfy")
