"""Translation validation: a pass pipeline must not change what a module computes.

    from hlograph.passes.validation import validate
    validate(text, "O2")      # raises ValidationError (an AssertionError) on any difference

``validate`` runs the public ``@main`` of a module as given and after the
pipeline on the same random inputs of ``@main``'s types, with PJRT and, for
modules small enough, with StableHLO's reference interpreter
(``stablehlo.eval_module``). Every result, and every operand of a ``check.*``
assertion (StableHLO's test convention, turned into extra outputs), must agree
bit for bit; any NaN matches any NaN, whose sign and payload IEEE-754 leaves
unspecified.

Inputs mix NaN, infinities, signed zeros, subnormals and integer extremes into
ordinary values (one tame set without them, when there are several). XLA:CPU
flushes subnormal numbers to zero in arithmetic, so that ``x + 0.0`` and ``x``
can differ there although they are equal in IEEE-754: PJRT runs get the inputs
with subnormals flushed to (signed) zero, the interpreter gets them as drawn.

The interpreter stops the whole process (instead of raising) on ops it does not
know, on ``stablehlo.fft``, and on integer division by zero; CHLO is legalized
first, and a module with any other op, or with an integer divide, remainder or
power, does not reach it.

XLA evaluates constant expressions with its own folder, which rounds
transcendental functions (and orders dot products) unlike its compiled code, and
folds or not depending on the module's structure: a module whose inputs are all
constants is a poor subject. ``validate(..., args_from="inputs")`` and
``lift_constant_inputs`` turn the constants that StableHLO's test programs
compute in ``@inputs()`` into arguments of ``@main``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from ..xla import mlir
from ..xla.mlir import func, hlo, ir, make_context
from ..runtime.checks import walk_ops
from ..runtime.load import (ArraySpec, ChecksChangedError, LoadedModule, MLIRDiagnosticError, Prepared,
                            element_dtype, parse_module, prepare)
from ..passes.pipeline import run

__all__ = [
    "ValidationError", "ValidationResult", "validate", "Pipeline", "ReferenceInterpreter",
    "run_pjrt", "run_interpreter", "random_inputs", "random_array", "flush_subnormals",
    "bitwise_mismatches", "assert_same_bits", "count_ops", "main_function", "lift_constant_inputs",
    "MAX_INTERPRETER_ELEMENTS",
]

#: A pipeline for :func:`hlograph.passes.run` ("O2", "canonicalize,cse", ...), or a
#: function that transforms a module in place or returns the new module (or its text).
Pipeline = str | Callable[[ir.Module], object]

#: In automatic mode, modules whose ops produce more elements than this (summed)
#: skip the interpreter: it evaluates element by element.
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


class ValidationError(AssertionError):
    """The module computes something else after the pipeline (or the pipeline
    changed the signature of ``@main``, its checks, or produced an invalid module)."""


# --------------------------------------------------------------------------- #
# Modules
# --------------------------------------------------------------------------- #

def main_function(module: ir.Module) -> func.FuncOp:
    """The public ``@main`` (or the only public function) of ``module``.

    Raises:
        ValueError: there is no such function.
    """
    publics = []
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        vis = op.attributes["sym_visibility"].value if "sym_visibility" in op.attributes else "public"
        if vis == "public":
            if op.attributes["sym_name"].value == "main":
                return op
            publics.append(op)
    if len(publics) == 1:
        return publics[0]
    raise ValueError("the module has no public @main function")


def count_ops(module: ir.Module, include_constants: bool = True) -> int:
    """Number of operations inside the functions of ``module`` (returns included)."""
    count = 0

    def visit(op):
        nonlocal count
        if op.name not in ("func.func", "builtin.module") and \
                (include_constants or op.name != "stablehlo.constant"):
            count += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count


def lift_constant_inputs(module: ir.Module | str, callee: str = "inputs") -> tuple[str, list[np.ndarray]]:
    """Turns the results of ``call @inputs()`` in ``@main`` (a function returning
    constants, as in StableHLO's test programs) into arguments of ``@main``.

    Unlike ``validate(..., args_from=...)``, which computes the values with PJRT
    and draws random ones in their place, this reads the constants themselves.

    Returns:
        The new module text and the constants' values, so that a backend computes
        the program at run time instead of constant-folding all of it. Modules
        without such a call (or whose ``@inputs`` returns anything but constants)
        come back unchanged, with no inputs.
    """
    from ..passes.patterns.values import constant_array

    text = module if isinstance(module, str) else module.operation.get_asm(enable_debug_info=False)
    with make_context():
        m = ir.Module.parse(text)
        main = main_function(m)
        block = main.regions[0].blocks[0]
        functions = {op.attributes["sym_name"].value: op for op in m.body.operations
                     if op.operation.name == "func.func"}
        source = functions.get(callee)
        calls = [op for op in block.operations if op.operation.name == "func.call"
                 and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == callee]
        if source is None or len(calls) != 1 or len(block.arguments) != 0:
            return text, []
        ret = list(source.regions[0].blocks[0].operations)[-1]
        values = [constant_array(v) for v in ret.operands]
        if any(v is None for v in values):
            return text, []
        call = calls[0]
        for result in call.results:
            arg = block.add_argument(result.type, call.location)
            result.replace_all_uses_with(arg)
        call.operation.erase()
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], main.type.results))
        if "arg_attrs" in main.attributes:
            del main.attributes["arg_attrs"]
        return m.operation.get_asm(enable_debug_info=False), [np.array(v) for v in values]


# --------------------------------------------------------------------------- #
# Inputs
# --------------------------------------------------------------------------- #

def _is_float(dtype: np.dtype) -> bool:
    if dtype.kind == "f":
        return True
    try:
        ml_dtypes.finfo(dtype)
        return True
    except (TypeError, ValueError):
        return False


def _sprinkle(rng: np.random.Generator, flat: np.ndarray, specials: np.ndarray) -> None:
    """Replaces about 15% of ``flat`` by random ones of ``specials``, and puts each
    of them at a random place when ``flat`` has room for twice as many."""
    n = flat.size
    mask = rng.random(n) < 0.15
    flat[mask] = rng.choice(specials, size=int(mask.sum()))
    if n >= 2 * specials.size:
        flat[rng.choice(n, size=specials.size, replace=False)] = specials


def _random_real(rng: np.random.Generator, n: int, dtype: np.dtype, *, special: bool,
                 subnormals: bool, scale: float) -> np.ndarray:
    x = rng.standard_normal(n) * scale
    if special and n:
        tiny = float(ml_dtypes.finfo(dtype).smallest_normal)
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5]
        if subnormals:
            specials += [tiny / 4, -tiny / 4]
        _sprinkle(rng, x, np.array(specials))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        out = x.astype(dtype)
    return out if subnormals else flush_subnormals([out])[0]


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, *,
                 special: bool = True, subnormals: bool = False, scale: float = 3.0) -> np.ndarray:
    """A random array of ``dtype``.

    Args:
        rng: the generator.
        shape: the shape.
        dtype: bool, an integer, float (bfloat16 and the other ml_dtypes floats
            included) or complex dtype.
        special: floats get NaN, +-inf, +-0, +-1 and 0.5 mixed in; integers mix
            small values with full-range ones and the extremes (min, max, 0, 1,
            max // 2). Each of these appears at least once when the array has
            room for twice as many. Without it: normal floats, integers in [-8, 8] ([0, 16]
            unsigned).
        subnormals: floats may be subnormal (with ``special``); otherwise none
            is (XLA:CPU flushes them to zero).
        scale: the standard deviation of the normal floats.

    Raises:
        TypeError: a dtype without random values here.
    """
    dt = np.dtype(dtype)
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (0, 16) if dt.kind == "u" else (-8, 8)
        small = rng.integers(lo, hi, size=n, endpoint=True).astype(dt)
        if not special:
            return small.reshape(shape)
        full = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        vals = np.where(rng.random(n) < 0.6, small, full)
        if n:
            _sprinkle(rng, vals, np.array([info.min, info.max, 0, 1, info.max // 2], dtype=dt))
        return vals.reshape(shape)
    if dt.kind == "c":
        part = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
        z = np.empty(n, dt)
        z.real = _random_real(rng, n, part, special=special, subnormals=subnormals, scale=scale)
        z.imag = _random_real(rng, n, part, special=special, subnormals=subnormals, scale=scale)
        return z.reshape(shape)
    if _is_float(dt):
        return _random_real(rng, n, dt, special=special, subnormals=subnormals, scale=scale).reshape(shape)
    raise TypeError(f"cannot make random values of {dt}")


def random_inputs(specs: Sequence[ArraySpec], rng: np.random.Generator, trial: int = 0, *,
                  special: bool = True) -> list[np.ndarray]:
    """Random arguments for ``specs`` (anything with ``dtype`` and ``shape``, e.g.
    ``prepare(text).in_specs``) in input set number ``trial``.

    Trial 0 is tame (floats near 0, small integers), so that no NaN hides a
    difference; the others mix in NaN, +-inf, signed zeros, subnormals and
    integer extremes (all are tame without ``special``). Floats have scale 2 in
    even trials, 50 in odd ones. Give PJRT :func:`flush_subnormals` of them.
    """
    wild = special and trial > 0
    scale = 2.0 if trial % 2 == 0 else 50.0
    return [random_array(rng, spec.shape, spec.dtype, special=wild, subnormals=True, scale=scale)
            for spec in specs]


def flush_subnormals(values: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``values`` with subnormal floats replaced by zeros of the same sign."""
    out = []
    for v in values:
        v = np.asarray(v)
        if v.dtype.kind == "c":
            re_part, im_part = flush_subnormals([v.real.copy(), v.imag.copy()])
            v = np.empty(v.shape, v.dtype)
            v.real, v.imag = re_part, im_part
        elif _is_float(v.dtype):
            tiny = float(ml_dtypes.finfo(v.dtype).smallest_normal)
            f = v.astype(np.float64)
            v = np.where((f != 0) & (np.abs(f) < tiny), np.copysign(0.0, f), f).astype(v.dtype)
        out.append(v)
    return out


# --------------------------------------------------------------------------- #
# Comparing
# --------------------------------------------------------------------------- #

def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return _same_bits(a.real.copy(), b.real.copy()) & _same_bits(a.imag.copy(), b.imag.copy())
    if _is_float(a.dtype):
        bits = np.dtype(f"uint{a.dtype.itemsize * 8}")
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        same = np.ascontiguousarray(a).view(bits) == np.ascontiguousarray(b).view(bits)
        return same | (np.isnan(fa) & np.isnan(fb))
    return a == b


def bitwise_mismatches(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Flat indices where ``a`` and ``b`` differ bit for bit (any NaN equals any NaN).

    Raises:
        ValidationError: different dtypes or shapes.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        raise ValidationError(f"{_dtype_name(a.dtype)}{list(a.shape)} before, "
                              f"{_dtype_name(b.dtype)}{list(b.shape)} after")
    return np.flatnonzero(~np.asarray(_same_bits(a, b)).reshape(-1))


def _dtype_name(dtype: np.dtype) -> str:
    return "bfloat16" if dtype == np.dtype(ml_dtypes.bfloat16) else dtype.name


def _mismatch(before: np.ndarray, after: np.ndarray) -> str | None:
    """What differs between ``before`` and ``after``, or None."""
    bad = bitwise_mismatches(before, after)
    if not bad.size:
        return None
    idx = np.unravel_index(bad[0], before.shape) if before.ndim else ()
    shown = "[" + ", ".join(str(int(k)) for k in idx) + "]"
    return (f"differs in {bad.size} of {before.size} elements; "
            f"first at index {shown}: before {before[idx]!s}, after {after[idx]!s}")


def assert_same_bits(before: Sequence[np.ndarray], after: Sequence[np.ndarray], what: str = "output") -> None:
    """Every output equal in every bit (any NaN equals any NaN).

    Raises:
        ValidationError: naming ``what``, the output and the first difference.
    """
    if len(before) != len(after):
        raise ValidationError(f"{what}: {len(before)} outputs before, {len(after)} after")
    for i, (b, a) in enumerate(zip(before, after)):
        b, a = np.asarray(b), np.asarray(a)
        try:
            diff = _mismatch(b, a)
        except ValidationError as e:
            raise ValidationError(f"{what} {i}: {e}") from None
        if diff:
            raise ValidationError(f"{what} {i} ({_dtype_name(b.dtype)}{list(b.shape)}) {diff}")


def _describe_output(i: int, prepared: Prepared) -> str:
    if i < len(prepared.out_specs):
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
            diff = _mismatch(x, y)
        except ValidationError as e:
            raise ValidationError(f"{where}: {_describe_output(i, prepared)}: {e}") from None
        if diff:
            ins = "; ".join(f"arg {k}: {_dtype_name(v.dtype)}{list(v.shape)}"
                            for k, v in enumerate(inputs)) or "no arguments"
            raise ValidationError(f"{where}: {_describe_output(i, prepared)} {diff} ({ins})")


# --------------------------------------------------------------------------- #
# Running a module
# --------------------------------------------------------------------------- #

def run_pjrt(module: ir.Module | str, inputs: Sequence[np.ndarray], platform: str = "cpu") -> list[np.ndarray]:
    """Compiles ``module`` (as given) with PJRT and runs ``@main`` on ``inputs``.

    Returns:
        The results of ``@main``, then the operands of its ``check.*`` ops.
    """
    return LoadedModule(prepare(module, platform=platform), platform).run_all(*inputs)


def _interpreter_obstacle(module: ir.Module) -> str | None:
    """Why the interpreter cannot run ``module`` (CHLO already legalized), or None."""
    for op in walk_ops(module.operation):
        name = op.operation.name
        if name not in INTERPRETER_OPS:
            return f"the reference interpreter does not run {name}"
        if name == "stablehlo.fft" and _num_elements(op.operands[0].type):
            return "the reference interpreter aborts on stablehlo.fft"
        for r in op.results:
            try:
                el = str(ir.RankedTensorType(r.type).element_type)
            except ValueError:
                continue
            if not _INTERPRETER_TYPES.match(el):
                return f"the reference interpreter does not run {el}"
    return None


def _interpreter_risk(module: ir.Module) -> str | None:
    """Why some inputs may stop the interpreter on ``module``, or None: an integer
    divide or remainder whose divisor is not a constant free of 0 (and of -1, as
    MIN / -1 traps too), or an integer power whose exponent is not a constant
    free of negative values."""
    for op in walk_ops(module.operation):
        name = op.operation.name
        if name not in _TRAPPING_INTEGER_OPS or not _is_integer_tensor(op.operands[0].type):
            continue
        rhs = _constant_operand(op.operands[1])
        if rhs is None or (name == "stablehlo.power" and (rhs < 0).any()) or \
                (name != "stablehlo.power" and ((rhs == 0).any() or (rhs.dtype.kind == "i" and (rhs == -1).any()))):
            return f"integer {name} traps in the reference interpreter on some divisors"
    return None


def _constant_operand(value: ir.Value) -> np.ndarray | None:
    """The values of a constant (possibly broadcast), or None."""
    from ..passes.patterns.values import constant_array

    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "stablehlo.broadcast_in_dim":
        value = owner.operands[0]
    array = constant_array(value)
    return None if array is None else np.asarray(array)


def _num_elements(t: ir.Type) -> int:
    try:
        return int(np.prod(ir.RankedTensorType(t).shape, dtype=np.int64))
    except ValueError:
        return 1


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
                    total += sum(max(1, _num_elements(r.type)) for r in inner.results)
                    stack.append(inner.operation)
    return total


class ReferenceInterpreter:
    """A prepared module (see :func:`hlograph.runtime.load.prepare`) for
    ``stablehlo.eval_module``: CHLO legalized, and ``@main`` returning floats as
    their bits (the interpreter's results only convert to NumPy for integer and
    bool tensors). ``obstacle`` says why the interpreter cannot run it (it would
    stop the process), or is None; ``risk`` says why some inputs may stop it
    (integer division by zero), or is None."""

    def __init__(self, prepared: Prepared):
        with prepared.module.context:
            text = prepared.module.operation.get_asm(enable_debug_info=True)
        self.module = parse_module(text)
        mlir.legalize_chlo(self.module)
        self.obstacle: str | None = _interpreter_obstacle(self.module)
        self.risk: str | None = _interpreter_risk(self.module)
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
        dtype = element_dtype(t.element_type)
        if dtype.kind in "biu":
            return [v]
        if dtype.kind == "c":
            bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(dtype.itemsize * 4))
            return [hlo.bitcast_convert(bits, hlo.real(v)), hlo.bitcast_convert(bits, hlo.imag(v))]
        bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(dtype.itemsize * 8))
        return [hlo.bitcast_convert(bits, v)]

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs of ``@main`` (results, then check operands) on ``inputs``.

        Raises:
            ValueError: the interpreter cannot run the module (``obstacle``).
        """
        if self.obstacle:
            raise ValueError(self.obstacle)
        with self.module.context:
            args = []
            for x, t in zip(inputs, self.in_types):
                x = np.asarray(x)
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


def run_interpreter(module: ir.Module | str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Runs ``@main`` of ``module`` on ``inputs`` with StableHLO's reference
    interpreter, as :func:`run_pjrt` does with PJRT. The caller vouches that no
    integer division by zero happens on ``inputs`` (it stops the process).

    Raises:
        ValueError: the module has an op the interpreter cannot run.
    """
    return ReferenceInterpreter(prepare(module)).run(inputs)


# --------------------------------------------------------------------------- #
# The validator
# --------------------------------------------------------------------------- #

@dataclass
class ValidationResult:
    """What :func:`validate` compared."""

    ops_before: int
    """Ops in the functions of the module before the pipeline (see :func:`count_ops`)."""
    ops_after: int
    """Ops after the pipeline."""
    optimized: str
    """The module after the pipeline, as text."""
    trials: int = 0
    """How many input sets ran."""
    runs: int = 0
    """How many before/after comparisons passed (PJRT and interpreter counted separately)."""
    compared: int = 0
    """How many outputs (results and check operands) were compared, summed over the input sets."""
    interpreter: bool = False
    """Whether the reference interpreter compared them too."""
    note: str = ""
    """Why the interpreter did not run, when it did not."""
    outputs: list[np.ndarray] = field(default_factory=list)
    """The outputs of the last input set after the pipeline."""


@dataclass
class _Captured:
    text: str = ""
    ops: int = 0


def _capturing(pipeline: Pipeline | None, captured: _Captured) -> Callable[[ir.Module], ir.Module]:
    """``pipeline`` as a transform for ``prepare`` that records the module it produces."""

    def transform(module: ir.Module) -> ir.Module:
        if pipeline is None:
            out = module
        elif callable(pipeline):
            out = pipeline(module)
            if isinstance(out, (str, bytes)):
                out = parse_module(out, filename="<after>")
        else:
            out = run(module, pipeline)
        out = out if isinstance(out, ir.Module) else module
        with out.context:
            try:
                out.operation.verify()
            except ir.MLIRError:
                return out  # prepare reports it
            captured.text = out.operation.get_asm(enable_debug_info=False)
            captured.ops = count_ops(out)
        return out

    transform.__name__ = repr(pipeline) if isinstance(pipeline, str) else \
        getattr(pipeline, "__name__", "<transform>")
    return transform


def _signature(prepared: Prepared) -> str:
    return (f"({', '.join(s.mlir_type for s in prepared.in_specs)}) -> "
            f"({', '.join(s.mlir_type for s in prepared.out_specs)})")


def validate(module: str | bytes | ir.Module, pipeline: Pipeline = "O2", *, trials: int = 3, seed: int = 0,
             inputs: Sequence[Sequence[np.ndarray]] | None = None, special: bool = True,
             interpreter: bool | str = "auto", interpreter_max_elements: int = MAX_INTERPRETER_ELEMENTS,
             pjrt: bool = True, platform: str = "cpu", args_from: str | None = None) -> ValidationResult:
    """Checks that ``pipeline`` does not change what ``@main`` of ``module`` computes.

    Args:
        module: MLIR text, bytecode or an ``ir.Module`` (not modified). ``@main``
            may take arguments and may contain ``check.*`` assertions (their
            operands are compared too; whether they pass does not matter here).
        pipeline: the pipeline under test (see :data:`Pipeline`).
        trials: how many sets of random inputs (see :func:`random_inputs`; one
            when ``@main`` takes no arguments); ignored when ``inputs`` is given.
        seed: the seed of the random inputs.
        inputs: explicit input sets instead of random ones.
        special: mix NaN, infinities, signed zeros, subnormals and integer
            extremes into the random inputs.
        interpreter: also compare under StableHLO's reference interpreter: True
            always, False never, "auto" when the module is small enough
            (``interpreter_max_elements``, summed over the results of its ops)
            and the interpreter can run it (always, without ``pjrt``). With
            random inputs, a module with integer division by a non-constant
            divisor never reaches the interpreter (see :func:`run_interpreter`).
        interpreter_max_elements: the size limit of "auto".
        pjrt: compare PJRT runs (XLA's compiled code).
        platform: the PJRT platform.
        args_from: the name of a function whose results ``@main`` takes as
            arguments instead (``"inputs"`` for StableHLO's test programs, whose
            ``@inputs()`` returns constants), so that the pipeline sees values it
            cannot fold.

    Returns:
        A :class:`ValidationResult`.

    Raises:
        ValidationError: the pipeline changed a result, the signature of
            ``@main`` or the number of checks, or produced a module that does not
            verify; the message says which output, where, and the inputs' types.
        ValueError: nothing to compare with, or the interpreter was asked for and
            cannot run the module.
    """
    if interpreter not in (True, False, "auto"):
        raise ValueError(f"interpreter must be True, False or 'auto', got {interpreter!r}")
    if not pjrt and interpreter is False:
        raise ValueError("nothing to compare: pjrt=False and interpreter=False")
    seen_before, seen_after = _Captured(), _Captured()
    before = prepare(module, pipeline=_capturing(None, seen_before), filename="<before>",
                     args_from=args_from, platform=platform)
    try:
        after = prepare(module, pipeline=_capturing(pipeline, seen_after), filename="<after>",
                        args_from=args_from, platform=platform)
    except MLIRDiagnosticError as e:
        raise ValidationError(f"the pipeline produced an invalid module:\n{e}") from None
    except ChecksChangedError as e:
        raise ValidationError(str(e)) from None
    if before.in_specs != after.in_specs or before.out_specs != after.out_specs:
        raise ValidationError(f"the pipeline changed the signature of @main: {_signature(before)} "
                              f"became {_signature(after)}")
    if [c.kind for c in before.checks] != [c.kind for c in after.checks]:
        raise ValidationError("the pipeline changed the checks: "
                              f"{[c.kind for c in before.checks]} became {[c.kind for c in after.checks]}")
    result = ValidationResult(seen_before.ops, seen_after.ops, seen_after.text)

    use_interp = interpreter is True or not pjrt
    if interpreter == "auto" and pjrt:
        cost = _interpreter_cost(before.module)
        use_interp = cost <= interpreter_max_elements
        if not use_interp:
            result.note = f"interpreter skipped: ~{cost} elements to evaluate"
    must_interpret = interpreter is True or not pjrt
    if use_interp:
        interp_before, interp_after = ReferenceInterpreter(before), ReferenceInterpreter(after)
        obstacle = interp_before.obstacle or interp_after.obstacle
        if obstacle is None and not (interpreter is True and inputs is not None):
            # only given inputs, with the interpreter asked for, may risk a trap
            obstacle = interp_before.risk or interp_after.risk
        if obstacle:
            if must_interpret:
                raise ValueError(obstacle)
            use_interp, result.note = False, f"interpreter skipped: {obstacle}"
    exe_before = LoadedModule(before, platform) if pjrt else None
    exe_after = LoadedModule(after, platform) if pjrt else None

    if inputs is not None:
        input_sets = [[np.asarray(x) for x in xs] for xs in inputs]
    else:
        rng = np.random.default_rng(seed)
        input_sets = [random_inputs(before.in_specs, rng, trial, special=special)
                      for trial in range(trials if before.in_specs else 1)]
    for trial, xs in enumerate(input_sets):
        if pjrt:
            flushed = flush_subnormals(xs)
            out_b = exe_before.run_all(*flushed)
            out_a = exe_after.run_all(*flushed)
            _compare(out_b, out_a, before, f"trial {trial} (PJRT)", flushed)
            result.runs += 1
            result.outputs = out_a
        if use_interp:
            try:
                ref_b = interp_before.run(xs)
            except Exception as e:
                if must_interpret:
                    raise ValueError(f"the reference interpreter cannot run the module: {e}") from e
                use_interp, result.note = False, f"interpreter skipped: {type(e).__name__}: {str(e)[:200]}"
            else:
                try:
                    ref_a = interp_after.run(xs)
                except Exception as e:
                    raise ValidationError(f"trial {trial}: the reference interpreter runs the module but "
                                          f"not its optimized form: {e}") from None
                _compare(ref_b, ref_a, before, f"trial {trial} (reference interpreter)", xs)
                result.runs += 1
                if not pjrt:
                    result.outputs = ref_a
        result.trials += 1
        result.compared += len(before.out_specs) + len(before.check_specs)
    result.interpreter = bool(use_interp)
    return result
