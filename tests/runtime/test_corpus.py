"""StableHLO's own test programs (../shared/corpus/stablehlo-sample) through hlograph-run.

Every program must pass its ``check.*`` assertions as given, after ``-O2``, and
with its ``@inputs()`` turned into arguments before ``-O2`` (so that neither the
passes nor XLA can constant-fold the whole program). Broken expectations must
fail with a report of the check. The corpus lives outside the repository: set
HLOGRAPH_CORPUS to its folder, or keep it at ../shared/corpus next to the repo.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest

from hlograph.xla.mlir import func, hlo, ir
from hlograph.runtime.load import element_dtype, parse_module
from hlograph.tools.run import main
from hlograph.testing.validation import validate


def _corpus_dir() -> Path | None:
    env = os.environ.get("HLOGRAPH_CORPUS")
    candidates = [Path(env)] if env else []
    repo = Path(__file__).resolve().parents[2]
    candidates.append(repo.parent / "shared" / "corpus")
    for c in candidates:
        for d in (c / "stablehlo-sample", c):
            if d.is_dir() and any(d.glob("*.mlir")):
                return d
    return None


CORPUS = _corpus_dir()
if CORPUS is None:
    pytest.skip("the StableHLO sample corpus (../shared/corpus or $HLOGRAPH_CORPUS) is absent",
                allow_module_level=True)

PROGRAMS = sorted(CORPUS.glob("*.mlir"))
MODES = {
    "as-given": [],
    "O2": ["-O2"],
    "args-O2": ["--args-from-inputs", "-O2"],
}


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    rc = main([str(a) for a in argv], stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def test_corpus_is_complete():
    assert len(PROGRAMS) == 147


@pytest.mark.parametrize("mode", list(MODES), ids=str)
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_corpus_program_passes(program, mode):
    rc, out, err = run_cli(MODES[mode] + [program])
    assert rc == 0, err
    assert out.endswith("passed\n") and err == ""


# --------------------------------------------------------------------------- #
# Broken expectations must fail, naming the check
# --------------------------------------------------------------------------- #

def _break_expected(path: Path) -> str:
    """The program with every result of ``@expected()`` changed in every element:
    ``0.5 - x`` for floats and complex numbers, ``not x`` (bitwise) for integers."""
    module = parse_module(path.read_text(), filename=str(path))
    with module.context, ir.Location.unknown():
        f = next(op for op in module.body.operations if op.operation.name == "func.func"
                 and ir.StringAttr(op.attributes["sym_name"]).value == "expected")
        ret = next(op for op in f.regions[0].blocks[0].operations if op.operation.name == "func.return")
        changed = []
        with ir.InsertionPoint(ret):
            for v in ret.operands:
                t = ir.RankedTensorType(v.type)
                if element_dtype(t.element_type).kind in "biu":
                    changed.append(hlo.not_(v))
                else:
                    half = np.full(t.shape, 0.5, element_dtype(t.element_type))
                    c = hlo.constant(ir.DenseElementsAttr.get(_as_attr_data(half), type=t.element_type,
                                                              shape=t.shape))
                    changed.append(hlo.subtract(c, v))
            func.ReturnOp(changed)
        ret.erase()
        return str(module)


def _as_attr_data(x: np.ndarray) -> np.ndarray:
    # bfloat16 has no buffer format MLIR reads: pass its bits
    return x if x.dtype.kind in "fc" else x.view(np.dtype(f"uint{x.dtype.itemsize * 8}"))


BROKEN = {
    "abs_complex128_20_20": "check.expect_close, max 3 ULP",
    "and_int16_20_20_int16_20_20": "check.expect_eq",
    "slice_bool_3": "check.expect_eq",
    "atan2_bfloat16_20_20_bfloat16_20_20": "check.expect_close, max 3 ULP",
}


@pytest.mark.parametrize("stem", list(BROKEN), ids=str)
def test_corpus_broken_expectation_fails(stem, tmp_path):
    source = CORPUS / f"{stem}.mlir"
    broken = tmp_path / f"{stem}.mlir"
    broken.write_text(_break_expected(source))
    rc, out, err = run_cli([broken])
    assert rc == 1 and out == ""
    first, *rest = err.splitlines()
    assert first.startswith(f"{broken}:")
    assert f": error: check #0 ({BROKEN[stem]}) failed: " in first
    assert "first mismatch at index [" in first and ", expected " in first
    assert rest[-1] == f"{broken}: 1 of 1 check failed"


def test_corpus_almost_eq_broken_expectation_reports_the_tolerance(tmp_path):
    stem = next(p.stem for p in PROGRAMS if "check.expect_almost_eq" in p.read_text())
    broken = tmp_path / f"{stem}.mlir"
    broken.write_text(_break_expected(CORPUS / f"{stem}.mlir"))
    rc, _, err = run_cli(["-O2", broken])
    assert rc == 1
    assert "(check.expect_almost_eq, tolerance 0.001) failed: " in err
    assert "differ by more than 0.001 (max abs difference " in err


# --------------------------------------------------------------------------- #
# O2 changes no result: translation validation with @inputs() as arguments
# --------------------------------------------------------------------------- #

VALIDATED = {  # program: whether the reference interpreter can run it too
    "acosh_complex128_20_20_chlo": True,
    "cumsum_bfloat16_8_9": True,
    "dot_general_bfloat16_4_3_float32_3_6": True,
    "fft_float64_14_15_0_17": True,
    "gather_float32_10_10_10_int32": True,
    "scatter_add_float32_1_2_3_float32_1_3": True,
    "sort_float16_5_7": True,
    "triangular_solve_bfloat16_4_4_bfloat16_4_1": True,
    "div_int16_2_int16_2": False,  # integer division by zero traps in the interpreter
    "rng_bit_generator_uint32_4": False,
}


@pytest.mark.parametrize("stem", list(VALIDATED), ids=str)
def test_corpus_o2_is_translation_valid(stem):
    report = validate((CORPUS / f"{stem}.mlir").read_text(), "O2", trials=2, args_from="inputs")
    assert report.interpreter == VALIDATED[stem], report.note
