"""Translation validation: run a module before and after a pipeline, compare bit for bit.

``validate(module_or_text, pipeline)`` runs the public ``@main`` of the module
as given and after the pipeline on the same random inputs, with PJRT (and, for
small modules, StableHLO's reference interpreter ``stablehlo.eval_module``), and
raises ``ValidationError`` when any output differs in any bit. NaNs compare
equal to each other whatever their sign and payload, which IEEE-754 leaves
unspecified.

Side-effecting checks (``stablehlo.custom_call @check.expect_*``, the StableHLO
test convention) are turned into extra outputs, so their operands are compared
too. Inputs are drawn without subnormal numbers: XLA:CPU flushes them to zero,
which would make ``x * 1.0`` and ``x`` differ.

Two XLA behaviours make a module whose inputs are all constants a poor
subject: XLA evaluates constant expressions with its own folder, which rounds
transcendental functions (and orders dot products) unlike its compiled code,
and whether it folds depends on the module's structure (it does not fold
through a ``func.call``). ``lift_constant_inputs`` turns such inputs into
arguments first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..lowering.mlir import device_putter, func, hlo, ir, make_context, module_to_bytecode
from .patterns.values import _BF16, elements_to_numpy, numpy_dtype, read_dense_text, static_type
from .pipeline import run

__all__ = [
    "ValidationError", "ValidationResult", "validate", "run_pjrt", "run_interpreter",
    "random_inputs", "runnable_copy", "assert_same_bits", "count_ops", "main_function",
    "interpreter_supports", "lift_constant_inputs",
]


class ValidationError(AssertionError):
    """The module computes something else after the pipeline."""


def main_function(module: ir.Module) -> func.FuncOp:
    """The public ``@main`` (or the only public function) of ``module``."""
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


def runnable_copy(module: ir.Module | str, *, split_complex: bool = False) -> ir.Module:
    """A copy of ``module`` in a fresh context whose ``@main`` returns, after its
    own results, the operands of every ``check.*`` custom call (which it drops).

    ``split_complex`` also replaces complex results by their real and imaginary
    parts (the reference interpreter's bindings cannot return complex values).
    """
    text = module if isinstance(module, str) else module.operation.get_asm(enable_debug_info=False)
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        main = main_function(m)
        block = main.regions[0].blocks[0]
        extra: list[ir.Value] = []
        for op in list(block.operations):
            if op.operation.name == "stablehlo.custom_call" and \
                    op.attributes["call_target_name"].value.startswith("check."):
                extra.extend(op.operands)
                op.operation.erase()
        ret = block.operations[len(block.operations) - 1]
        results = list(ret.operands) + extra
        if split_complex:
            with ir.InsertionPoint(ret), ret.location:
                split = []
                for v in results:
                    t = v.type
                    if isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.ComplexType):
                        split.append(hlo.RealOp(v).result)
                        split.append(hlo.ImagOp(v).result)
                    else:
                        split.append(v)
                results = split
        with ir.InsertionPoint(ret), ret.location:
            func.ReturnOp(results)
        ret.operation.erase()
        arg_types = [a.type for a in block.arguments]
        main.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [v.type for v in results]))
        if "res_attrs" in main.attributes:
            del main.attributes["res_attrs"]
    return m


def lift_constant_inputs(module: ir.Module | str, callee: str = "inputs") -> tuple[str, list[np.ndarray]]:
    """Turns the results of ``call @inputs()`` in ``@main`` (a function returning
    constants, as in StableHLO's test programs) into arguments of ``@main``.

    Returns the new module text and the constants' values, so that a backend
    computes the program at run time instead of constant-folding all of it.
    Modules without such a call come back unchanged, with no inputs.
    """
    from .patterns.values import constant_array

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


def _input_types(module: ir.Module) -> list[ir.RankedTensorType]:
    main = main_function(module)
    types = []
    for a in main.regions[0].blocks[0].arguments:
        t = static_type(a)
        if t is None or numpy_dtype(t.element_type) is None:
            raise ValueError(f"cannot make inputs of type {a.type}")
        types.append(t)
    return types


def random_inputs(module: ir.Module, rng: np.random.Generator, *, special: bool = True) -> list[np.ndarray]:
    """Random arguments for ``@main``: normal floats with NaN, +-inf, +-0 and +-1
    sprinkled in (when ``special``), integers mixing small, extreme and
    full-range values, random booleans. No subnormals."""
    out = []
    for t in _input_types(module):
        dt = numpy_dtype(t.element_type)
        out.append(random_array(rng, tuple(t.shape), dt, special=special))
    return out


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dt: np.dtype, *,
                 special: bool = True) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        full = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        small = rng.integers(max(info.min, -8), 9, size=n).astype(dt)
        pick = rng.random(n)
        vals = np.where(pick < 0.6, small, full)
        if special and n:
            extremes = np.array([info.min, info.max, 0, 1], dtype=dt)
            mask = rng.random(n) < 0.1
            vals[mask] = rng.choice(extremes, size=int(mask.sum()))
        return vals.reshape(shape)
    if dt.kind == "c":
        comp = np.float32 if dt == np.complex64 else np.float64
        re_ = random_array(rng, shape, np.dtype(comp), special=special)
        im = random_array(rng, shape, np.dtype(comp), special=special)
        out = np.empty(shape, dtype=dt)
        out.real, out.imag = re_, im
        return out
    vals = (rng.standard_normal(n) * 3).astype(np.float64)
    if special and n:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5])
        mask = rng.random(n) < 0.15
        vals[mask] = rng.choice(specials, size=int(mask.sum()))
    arr = vals.astype(dt)
    # no subnormals (XLA:CPU flushes them to zero)
    tiny = np.finfo(np.float32 if dt == _BF16 else dt).tiny
    wide = arr.astype(np.float64)
    subnormal = (np.abs(wide) < float(tiny)) & (wide != 0)
    arr = np.where(subnormal, np.copysign(0.0, wide), wide).astype(dt)
    return arr.reshape(shape)


def run_pjrt(module: ir.Module | str, inputs: Sequence[np.ndarray], platform: str = "cpu") -> list[np.ndarray]:
    """Compiles ``module`` (as given) with PJRT and runs ``@main`` on ``inputs``."""
    from ..runtime import pjrt

    if isinstance(module, str):
        with make_context():
            module = ir.Module.parse(module)
    with module.context:
        bytecode = module_to_bytecode(module)
    loaded, device = pjrt.compile_bytecode(bytecode, platform)
    bufs = [device_putter(np.asarray(x).dtype, np.asarray(x).shape, device)(np.asarray(x)) for x in inputs]
    return [np.asarray(r) for r in loaded.execute(bufs)]


#: ops on which the reference interpreter stops the process (LLVM fatal error)
_INTERPRETER_UNSUPPORTED = {"stablehlo.custom_call", "stablehlo.fft"}


def interpreter_supports(module: ir.Module) -> str | None:
    """None when ``stablehlo.eval_module`` can run ``module``, else the first op
    it cannot run (it aborts the process on those instead of raising)."""
    bad: list[str] = []

    def visit(op):
        name = op.name
        if name in _INTERPRETER_UNSUPPORTED or not name.startswith(("stablehlo.", "func.", "builtin.")):
            bad.append(name)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return bad[0] if bad else None


def run_interpreter(module: ir.Module, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Runs ``@main`` of ``module`` (without complex results) with ``stablehlo.eval_module``.

    Raises:
        ValueError: the module has an op the interpreter cannot run, or
            complex results, or an input has no elements.
    """
    unsupported = interpreter_supports(module)
    if unsupported is not None:
        raise ValueError(f"the reference interpreter cannot run {unsupported}")
    main = main_function(module)
    with module.context:
        args = []
        for x, a in zip(inputs, main.regions[0].blocks[0].arguments):
            t = static_type(a)
            arr = np.ascontiguousarray(x)
            if arr.size == 0:
                raise ValueError("the interpreter bindings take no empty tensors")
            args.append(ir.DenseElementsAttr.get(arr, type=t.element_type, shape=list(t.shape)))
        result_types = main.type.results
        for t in result_types:
            if isinstance(t.element_type, ir.ComplexType):
                raise ValueError("run_interpreter: split complex results first (runnable_copy(split_complex=True))")
        attrs = hlo.eval_module(module, args)
        out = []
        for attr, t in zip(attrs, result_types):
            dt = numpy_dtype(t.element_type)
            arr = elements_to_numpy(ir.DenseElementsAttr(attr), dt, t.shape)
            if arr is None:
                arr = read_dense_text(str(attr), dt, t.shape)
            out.append(arr)
    return out


def assert_same_bits(before: Sequence[np.ndarray], after: Sequence[np.ndarray], what: str = "output") -> None:
    """Every output equal in every bit (any NaN equals any NaN)."""
    if len(before) != len(after):
        raise ValidationError(f"{len(before)} outputs before, {len(after)} after")
    for i, (b, a) in enumerate(zip(before, after)):
        b, a = np.asarray(b), np.asarray(a)
        if b.dtype != a.dtype or b.shape != a.shape:
            raise ValidationError(f"{what} {i}: {b.dtype}{list(b.shape)} before, {a.dtype}{list(a.shape)} after")
        bad = _differing(b, a)
        if bad.any():
            idx = tuple(int(j) for j in np.argwhere(bad)[0])
            raise ValidationError(
                f"{what} {i} ({b.dtype}{list(b.shape)}) differs in {int(bad.sum())} of {b.size} elements; "
                f"first at {idx}: {b[idx]!r} before, {a[idx]!r} after"
            )


def _differing(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    if b.dtype.kind == "c":
        return _differing(b.real.copy(), a.real.copy()) | _differing(b.imag.copy(), a.imag.copy())
    if b.dtype.kind == "f" or b.dtype == _BF16:
        wide_b, wide_a = b.astype(np.float64), a.astype(np.float64)
        both_nan = np.isnan(wide_b) & np.isnan(wide_a)
        raw = np.dtype(f"uint{b.dtype.itemsize * 8}")
        differ = np.ascontiguousarray(b).view(raw) != np.ascontiguousarray(a).view(raw)
        return differ & ~both_nan
    return b != a


def count_ops(module: ir.Module, include_constants: bool = True) -> int:
    """Number of operations inside the functions of ``module``."""
    count = 0

    def visit(op):
        nonlocal count
        if op.name not in ("func.func", "builtin.module") and \
                (include_constants or op.name != "stablehlo.constant"):
            count += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count


@dataclass
class ValidationResult:
    """What ``validate`` saw."""

    ops_before: int
    ops_after: int
    optimized: str
    """The module after the pipeline, as text."""
    runs: int = 0
    """How many input sets were compared (PJRT and interpreter runs counted separately)."""
    outputs: list[np.ndarray] = field(default_factory=list)
    """The outputs of the last comparison (after the pipeline)."""


def validate(module: ir.Module | str, pipeline: str = "O2", *, seed: int = 0, trials: int = 2,
             inputs: Sequence[Sequence[np.ndarray]] | None = None, interpreter: bool | str = "auto",
             interpreter_max_elements: int = 4096, special: bool = True,
             platform: str = "cpu", pjrt: bool = True) -> ValidationResult:
    """Runs ``pipeline`` on a copy of ``module`` and checks that ``@main`` computes
    the same outputs, bit for bit, before and after.

    Args:
        module: an ``ir.Module`` (not modified) or MLIR text.
        pipeline: the pipeline under test.
        seed: seeds the random inputs.
        trials: how many random input sets (ignored when ``inputs`` is given).
        inputs: explicit input sets.
        interpreter: also compare with ``stablehlo.eval_module`` (True), never
            (False), or "auto": when the inputs and outputs have at most
            ``interpreter_max_elements`` elements in total.
        special: sprinkle NaN, infinities and signed zeros into float inputs.
        pjrt: compare PJRT runs (XLA's compiled code).

    Raises:
        ValidationError: some output differs; the message says which and where.
    """
    text = module if isinstance(module, str) else module.operation.get_asm(enable_debug_info=False)
    with make_context():
        original = ir.Module.parse(text)
        ops_before = count_ops(original)
    optimized = run(text, pipeline)
    opt_text = optimized.operation.get_asm(enable_debug_info=False)
    ops_after = count_ops(optimized)
    before_m, after_m = runnable_copy(text), runnable_copy(opt_text)
    rng = np.random.default_rng(seed)
    input_sets = [list(x) for x in inputs] if inputs is not None else \
        [random_inputs(before_m, rng, special=special) for _ in range(trials if _input_types(before_m) else 1)]
    result = ValidationResult(ops_before, ops_after, opt_text)
    for k, xs in enumerate(input_sets if pjrt else []):
        before = run_pjrt(before_m, xs, platform)
        after = run_pjrt(after_m, xs, platform)
        assert_same_bits(before, after, what=f"PJRT output (input set {k})")
        result.runs += 1
        result.outputs = after
    use_interp = interpreter
    if interpreter == "auto":
        sizes = [x.size for xs in input_sets[:1] for x in xs] + [o.size for o in result.outputs]
        use_interp = not pjrt or (bool(input_sets) and sum(sizes) <= interpreter_max_elements
                                  and all(s > 0 for s in sizes))
    if use_interp:
        ib, ia = runnable_copy(text, split_complex=True), runnable_copy(opt_text, split_complex=True)
        if interpreter == "auto" and (interpreter_supports(ib) or interpreter_supports(ia)):
            return result
        for k, xs in enumerate(input_sets if not pjrt else input_sets[:1]):
            before = run_interpreter(ib, xs)
            after = run_interpreter(ia, xs)
            assert_same_bits(before, after, what=f"interpreter output (input set {k})")
            result.runs += 1
    return result
