"""Translation validation: a pass pipeline must not change what a module computes.

    from hlograph.runtime.validate import validate_pipeline
    validate_pipeline(text, "O2")      # raises AssertionError on any difference

The module runs before and after the pipeline on the same random inputs of its
``@main``'s types (with NaN, infinities, signed zeros and integer extremes
mixed in), with PJRT and, for small modules, with StableHLO's reference
interpreter; every result (and every operand of a ``check.*``) must agree bit
for bit, any NaN matching any NaN.

XLA:CPU flushes subnormal numbers to zero in arithmetic, so that ``x + 0.0``
and ``x`` can differ there although they are equal in IEEE-754: PJRT runs get
the inputs with subnormals flushed to (signed) zero, the interpreter gets them
as drawn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..lowering import mlir
from ..lowering.mlir import func, hlo, ir
from .checks import walk_ops
from .load import (ArraySpec, ChecksChangedError, LoadedModule, MLIRDiagnosticError, Prepared,
                   element_dtype, parse_module, prepare)

__all__ = ["validate_pipeline", "ValidationReport", "random_inputs", "flush_subnormals",
           "bitwise_mismatches"]

#: Modules whose ops produce more elements than this (summed) skip the interpreter
#: in automatic mode: it evaluates element by element.
MAX_INTERPRETER_ELEMENTS = 200_000

#: Ops the reference interpreter evaluates (after CHLO is legalized). It aborts
#: the process on anything else, so other modules never reach it.
INTERPRETER_OPS = frozenset({
    "func.func", "func.call", "func.return", "stablehlo.return",
    *(f"stablehlo.{name}" for name in (
        "abs", "add", "and", "atan2", "bitcast_convert", "broadcast_in_dim", "case", "cbrt", "ceil",
        "clamp", "compare", "complex", "composite", "concatenate", "constant", "convert",
        "convolution", "cosine", "count_leading_zeros", "divide", "dot_general", "dynamic_slice",
        "dynamic_update_slice", "exponential", "exponential_minus_one", "fft", "floor", "gather",
        "get_tuple_element", "if", "imag", "iota", "is_finite", "log", "log_plus_one", "logistic",
        "map", "maximum", "minimum", "multiply", "negate", "not", "optimization_barrier", "or",
        "pad", "popcnt", "power", "real", "reduce", "reduce_precision", "reduce_window",
        "remainder", "reshape", "reverse", "round_nearest_afz", "round_nearest_even", "rsqrt",
        "scatter", "select", "select_and_scatter", "shift_left", "shift_right_arithmetic",
        "shift_right_logical", "sign", "sine", "slice", "sort", "sqrt", "subtract", "tan", "tanh",
        "transpose", "triangular_solve", "tuple", "while", "xor",
    )),
})
#: Integer ops the interpreter computes with the host's division, which traps
#: (SIGFPE) on a zero divisor or MIN / -1, or that loop on negative exponents.
_TRAPPING_INTEGER_OPS = frozenset({"stablehlo.divide", "stablehlo.remainder", "stablehlo.power"})
#: Element types the interpreter evaluates.
_INTERPRETER_TYPES = re.compile(r"^(i1|[su]?i(8|16|32|64)|ui(8|16|32|64)|f16|bf16|f32|f64|complex<f(32|64)>)$")


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate_pipeline` compared."""

    trials: int
    outputs: int
    interpreter: bool
    note: str = ""


# --------------------------------------------------------------------------- #
# Inputs and comparison
# --------------------------------------------------------------------------- #

def _is_float(dtype: np.dtype) -> bool:
    if dtype.kind == "f":
        return True
    try:
        import ml_dtypes
        ml_dtypes.finfo(dtype)
        return True
    except (TypeError, ValueError):
        return False


def _random_real(rng: np.random.Generator, shape, dtype: np.dtype, trial: int) -> np.ndarray:
    x = rng.standard_normal(shape) * (2.0 if trial % 2 == 0 else 50.0)
    if trial > 0 and x.size:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-40])
        mask = rng.random(shape) < 0.15
        x = np.where(mask, rng.choice(specials, size=shape), x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dtype)


def random_inputs(specs: Sequence[ArraySpec], rng: np.random.Generator, trial: int = 0) -> list[np.ndarray]:
    """Random arrays for ``specs``. Trial 0 uses tame values (floats near 0, small
    integers); later trials mix in NaN, +-inf, signed zeros and integer extremes."""
    out = []
    for spec in specs:
        dt, shape = spec.dtype, spec.shape
        if dt.kind == "b":
            out.append(rng.random(shape) < 0.5)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            if trial == 0:
                lo, hi = (0, 16) if dt.kind == "u" else (-8, 8)
                out.append(rng.integers(lo, hi, size=shape, endpoint=True).astype(dt))
            else:
                v = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
                extremes = np.array([info.min, info.max, 0, 1, info.max // 2], dtype=dt)
                mask = rng.random(shape) < 0.15
                out.append(np.where(mask, rng.choice(extremes, size=shape), v).astype(dt))
        elif dt.kind == "c":
            part = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
            z = np.empty(shape, dt)
            z.real = _random_real(rng, shape, part, trial)
            z.imag = _random_real(rng, shape, part, trial)
            out.append(z)
        elif _is_float(dt):
            out.append(_random_real(rng, shape, dt, trial))
        else:
            raise TypeError(f"cannot make random values of {spec}")
    return out


def flush_subnormals(values: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``values`` with subnormal floats replaced by zeros of the same sign."""
    out = []
    for v in values:
        if v.dtype.kind == "c":
            re_part, im_part = flush_subnormals([v.real.copy(), v.imag.copy()])
            v = np.empty(v.shape, v.dtype)
            v.real, v.imag = re_part, im_part
        elif _is_float(v.dtype):
            import ml_dtypes
            tiny = float(ml_dtypes.finfo(v.dtype).smallest_normal)
            f = v.astype(np.float64)
            v = np.where((f != 0) & (np.abs(f) < tiny), np.copysign(0.0, f), f).astype(v.dtype)
        out.append(v)
    return out


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return _same_bits(a.real.copy(), b.real.copy()) & _same_bits(a.imag.copy(), b.imag.copy())
    if _is_float(a.dtype):
        bits = np.dtype(f"uint{a.dtype.itemsize * 8}")
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        return (a.view(bits) == b.view(bits)) | (np.isnan(fa) & np.isnan(fb))
    return a == b


def bitwise_mismatches(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Flat indices where ``a`` and ``b`` differ bit for bit (any NaN equals any NaN).

    Raises:
        AssertionError: different dtypes or shapes.
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        raise AssertionError(f"type changed: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
    return np.flatnonzero(~_same_bits(a, b).reshape(-1))


def _describe_output(i: int, prepared: Prepared) -> str:
    n = len(prepared.out_specs)
    if i < n:
        return f"result {i} ({prepared.out_specs[i].mlir_type})"
    for c in prepared.checks:
        if i in c.outputs:
            which = "actual" if c.outputs[0] == i else "expected"
            return f"{which} operand of {c.describe()} at {c.location}"
    return f"output {i}"


def _compare(before: Sequence[np.ndarray], after: Sequence[np.ndarray], prepared: Prepared,
             where: str, inputs: Sequence[np.ndarray]) -> None:
    for i, (x, y) in enumerate(zip(before, after)):
        try:
            bad = bitwise_mismatches(x, y)
        except AssertionError as e:
            raise AssertionError(f"{where}: {_describe_output(i, prepared)}: {e}") from None
        if bad.size:
            idx = np.unravel_index(bad[0], x.shape) if x.ndim else ()
            shown = "[" + ", ".join(str(int(k)) for k in idx) + "]"
            ins = "; ".join(f"arg {k}: {v.dtype}{list(v.shape)}" for k, v in enumerate(inputs)) or "no arguments"
            raise AssertionError(
                f"{where}: {_describe_output(i, prepared)} changed in {bad.size} of {x.size} elements; "
                f"first at index {shown}: before {x[idx]!s}, after {y[idx]!s} ({ins})")


# --------------------------------------------------------------------------- #
# The reference interpreter
# --------------------------------------------------------------------------- #

def _interpreter_obstacle(module: ir.Module) -> str | None:
    """Why the interpreter cannot run ``module`` (CHLO already legalized), or None."""
    for op in walk_ops(module.operation):
        name = op.operation.name
        if name not in INTERPRETER_OPS:
            return f"the reference interpreter does not run {name}"
        if name in _TRAPPING_INTEGER_OPS and any(_is_integer_tensor(v.type) for v in op.operands):
            return f"integer {name} traps in the reference interpreter on a zero divisor"
        for r in op.results:
            try:
                el = str(ir.RankedTensorType(r.type).element_type)
            except ValueError:
                continue
            if not _INTERPRETER_TYPES.match(el):
                return f"the reference interpreter does not run {el}"
    return None


def _is_integer_tensor(t: ir.Type) -> bool:
    try:
        return str(ir.RankedTensorType(t).element_type).lstrip("su").startswith("i")
    except ValueError:
        return False


def _interpreter_cost(module: ir.Module) -> int:
    total, stack = 0, [module.operation]
    while stack:
        op = stack.pop()
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    for r in inner.results:
                        try:
                            total += max(1, int(np.prod(ir.RankedTensorType(r.type).shape)))
                        except ValueError:
                            total += 1
                    stack.append(inner.operation)
    return total


class _Interpreted:
    """A copy of a prepared module whose @main returns floats as their bits (the
    interpreter's results only convert to NumPy for integer and bool tensors)."""

    def __init__(self, prepared: Prepared):
        with prepared.module.context:
            text = prepared.module.operation.get_asm(enable_debug_info=True)
        self.module = parse_module(text)
        mlir.legalize_chlo(self.module)
        self.obstacle = _interpreter_obstacle(self.module)
        self.specs = prepared.in_specs
        self.out_specs = list(prepared.out_specs) + list(prepared.check_specs)
        with self.module.context, ir.Location.unknown():
            self.in_types = [ir.RankedTensorType(ir.Type.parse(s.mlir_type)) for s in self.specs]
            f = next(op for op in self.module.body.operations if op.operation.name == "func.func"
                     and ir.StringAttr(op.attributes["sym_name"]).value == "main")
            ret = next(op for op in f.regions[0].blocks[0].operations if op.operation.name == "func.return")
            values = []
            with ir.InsertionPoint(ret):
                for v in ret.operands:
                    values.extend(self._as_bits(v))
                func.ReturnOp(values)
            ret.erase()
            ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
            f.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(list(ftype.inputs), [v.type for v in values]))
            if "res_attrs" in f.attributes:
                del f.attributes["res_attrs"]

    @staticmethod
    def _as_bits(v: ir.Value) -> list[ir.Value]:
        t = ir.RankedTensorType(v.type)
        el = t.element_type
        dtype = element_dtype(el)
        if dtype.kind in "biu":
            return [v]
        if dtype.kind == "c":
            bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(dtype.itemsize * 4))
            return [hlo.bitcast_convert(bits, hlo.real(v)), hlo.bitcast_convert(bits, hlo.imag(v))]
        bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(dtype.itemsize * 8))
        return [hlo.bitcast_convert(bits, v)]

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if self.obstacle:
            raise RuntimeError(self.obstacle)
        with self.module.context:
            args = []
            for x, t in zip(inputs, self.in_types):
                # bfloat16 and the float8 types have no buffer format MLIR reads: pass their bits
                data = x if x.dtype.kind in "biuc" else x.view(np.dtype(f"uint{x.dtype.itemsize * 8}"))
                args.append(ir.DenseElementsAttr.get(np.ascontiguousarray(data), type=t.element_type,
                                                     shape=x.shape))
            raw = [np.array(r) for r in mlir.eval_module(self.module, args)]
        out, k = [], 0
        for spec in self.out_specs:
            dt = spec.dtype
            if dt.kind == "c":
                part = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
                z = np.empty(spec.shape, dt)
                z.real = raw[k].reshape(spec.shape).view(part)
                z.imag = raw[k + 1].reshape(spec.shape).view(part)
                out.append(z)
                k += 2
            else:
                r = np.asarray(raw[k]).reshape(spec.shape)
                out.append(r.astype(dt) if dt.kind in "biu" else r.view(dt))
                k += 1
        return out


# --------------------------------------------------------------------------- #
# The validator
# --------------------------------------------------------------------------- #

def validate_pipeline(module_text: str | bytes | ir.Module,
                      pipeline: str | Callable[[ir.Module], object], *,
                      trials: int = 3, seed: int = 0, interpreter: bool | None = None,
                      platform: str | None = "cpu", args_from: str | None = None) -> ValidationReport:
    """Checks that ``pipeline`` does not change what ``module_text`` computes.

    Args:
        module_text: the module (text, bytecode or ``ir.Module``); its ``@main``
            may take arguments and may contain ``check.*`` assertions (their
            operands are compared too; whether they pass does not matter here).
        pipeline: a pipeline for :func:`hlograph.passes.run`, or a function that
            transforms the module in place (or returns the new module).
        trials: how many sets of random inputs to run.
        seed: the seed of the random inputs.
        interpreter: also compare under StableHLO's reference interpreter: True
            always, False never, None for modules small enough (and that the
            interpreter can run).
        platform: the PJRT platform.
        args_from: the name of a function whose results ``@main`` takes as
            arguments instead (``"inputs"`` for StableHLO's test programs, whose
            ``@inputs()`` returns constants), so that the pipeline sees values it
            cannot fold.

    Returns:
        A :class:`ValidationReport`.

    Raises:
        AssertionError: the pipeline changed a result, the signature of ``@main``
            or the number of checks, or produced a module that does not verify.
    """
    before = prepare(module_text, filename="<before>", args_from=args_from, platform=platform)
    try:
        after = prepare(module_text, pipeline=pipeline, filename="<after>", args_from=args_from,
                        platform=platform)
    except MLIRDiagnosticError as e:
        raise AssertionError(f"the pipeline produced an invalid module:\n{e}") from None
    except ChecksChangedError as e:
        raise AssertionError(str(e)) from None
    if before.in_specs != after.in_specs or before.out_specs != after.out_specs:
        raise AssertionError(
            "the pipeline changed the signature of @main: "
            f"({', '.join(s.mlir_type for s in before.in_specs)}) -> "
            f"({', '.join(s.mlir_type for s in before.out_specs)}) became "
            f"({', '.join(s.mlir_type for s in after.in_specs)}) -> "
            f"({', '.join(s.mlir_type for s in after.out_specs)})")
    if [c.kind for c in before.checks] != [c.kind for c in after.checks]:
        raise AssertionError("the pipeline changed the checks: "
                             f"{[c.kind for c in before.checks]} became {[c.kind for c in after.checks]}")
    exe_before = LoadedModule(before, platform)
    exe_after = LoadedModule(after, platform)

    use_interp = interpreter
    note = ""
    interp_before = interp_after = None
    if use_interp is None:
        cost = _interpreter_cost(before.module)
        use_interp = cost <= MAX_INTERPRETER_ELEMENTS
        if not use_interp:
            note = f"interpreter skipped: ~{cost} elements to evaluate"
    if use_interp:
        interp_before, interp_after = _Interpreted(before), _Interpreted(after)
        if interp_before.obstacle:
            if interpreter:
                raise RuntimeError(interp_before.obstacle)
            use_interp, note = False, f"interpreter skipped: {interp_before.obstacle}"

    rng = np.random.default_rng(seed)
    outputs = 0
    for trial in range(trials):
        inputs = random_inputs(before.in_specs, rng, trial)
        flushed = flush_subnormals(inputs)
        out_b = exe_before.run_all(*flushed)
        out_a = exe_after.run_all(*flushed)
        _compare(out_b, out_a, before, f"trial {trial} (PJRT)", flushed)
        outputs += len(out_b)
        if use_interp:
            try:
                ref_b = interp_before.run(inputs)
            except Exception as e:
                if interpreter:
                    raise RuntimeError(f"the reference interpreter cannot run the module: {e}") from e
                use_interp, note = False, f"interpreter skipped: {type(e).__name__}: {str(e)[:200]}"
                continue
            try:
                ref_a = interp_after.run(inputs)
            except Exception as e:
                raise AssertionError(f"trial {trial}: the reference interpreter runs the module but not "
                                     f"its optimized form: {e}") from None
            _compare(ref_b, ref_a, before, f"trial {trial} (reference interpreter)", inputs)
    return ValidationReport(trials, outputs, bool(use_interp), note)
