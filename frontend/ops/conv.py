"""Convolutions: ``conv_general_dilated`` and ``conv_transpose`` (lax semantics) and
NumPy's 1-D ``convolve``.

``ConvGeneralDilated`` is ``stablehlo.convolution``: a cross-correlation (the
kernel is not flipped) of ``lhs`` with ``rhs`` over the spatial dims, with
window strides, explicit (low, high) padding per spatial dim (negative pads
crop), ``lhs_dilation`` (zeros inserted between input elements, a transposed
convolution), ``rhs_dilation`` (atrous kernels), ``feature_group_count``
(grouped / depthwise convolutions) and ``batch_group_count`` (the lhs batch
split into that many groups, major first, each convolved with its own slice of
the output features; the output batch is the group size). Dimension numbers
say where the batch (N), feature (C / I, O) and spatial dims of each operand
are, as strings like ``("NCHW", "OIHW", "NCHW")`` or as index tuples.
Spatial dims pair up by their letters, in the order of the kernel spec.

``conv_transpose`` is ``jax.lax.conv_transpose``: a convolution whose strides
become ``lhs_dilation`` (a fractionally strided convolution), lowered to one
``stablehlo.convolution``.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Op, UndefinedGradient, Variable
from ..types import DTYPES, TensorType, is_inexact
from .basic import as_variable, result_type
from .indexing import getitem
from .shape import reshape, transpose, zeros_like

__all__ = ["ConvGeneralDilated", "conv_general_dilated", "conv_transpose", "convolve"]

_HALF = (DTYPES["float16"], DTYPES["bfloat16"])
#: (lhs, rhs, out) specs as index tuples: (batch, feature, spatial...), (out feature,
#: in feature, spatial...), (batch, feature, spatial...)
Specs = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _dilate(n: int | None, d: int) -> int | None:
    return None if n is None else (0 if n == 0 else (n - 1) * d + 1)


def conv_output_size(n: int | None, k: int | None, stride: int, pad: tuple[int, int],
                     lhs_d: int, rhs_d: int) -> int | None:
    """The size of one output spatial dim (None when unknown)."""
    if n is None or k is None:
        return None
    span = _dilate(n, lhs_d) + pad[0] + pad[1]
    window = _dilate(k, rhs_d)
    return 0 if span < window or window == 0 and k == 0 else (span - window) // stride + 1


def dimension_specs(dimension_numbers: Any, ndim: int) -> Specs:
    """Index specs from ``None`` (NC..., OI..., NC...), strings or index tuples."""
    if dimension_numbers is None:
        default = tuple(range(ndim))
        return default, default, default
    try:
        lhs, rhs, out = dimension_numbers
    except (TypeError, ValueError):
        raise ValueError(
            f"conv_general_dilated: dimension_numbers must be (lhs, rhs, out) specs, got "
            f"{dimension_numbers!r}"
        ) from None
    if all(isinstance(s, str) for s in (lhs, rhs, out)):
        for s, pair, what in ((lhs, "NC", "lhs"), (rhs, "OI", "rhs"), (out, "NC", "out")):
            if len(s) != ndim or len(set(s)) != ndim or any(s.count(c) != 1 for c in pair):
                raise ValueError(
                    f"conv_general_dilated: the {what} spec {s!r} must have {ndim} distinct "
                    f"letters including {pair[0]!r} and {pair[1]!r}"
                )
        spatial = [c for c in rhs if c not in "OI"]
        if set(spatial) != set(lhs) - set("NC") or set(spatial) != set(out) - set("NC"):
            raise ValueError(
                f"conv_general_dilated: the specs {dimension_numbers!r} must name the same spatial dims"
            )
        return (
            (lhs.index("N"), lhs.index("C")) + tuple(lhs.index(c) for c in spatial),
            (rhs.index("O"), rhs.index("I")) + tuple(rhs.index(c) for c in spatial),
            (out.index("N"), out.index("C")) + tuple(out.index(c) for c in spatial),
        )
    specs = []
    for s in (lhs, rhs, out):
        try:
            s = tuple(operator.index(d) for d in s)
        except TypeError:
            raise ValueError(
                f"conv_general_dilated: dimension_numbers must be three strings or three "
                f"tuples of ints, got {dimension_numbers!r}"
            ) from None
        if sorted(s) != list(range(ndim)):
            raise ValueError(f"conv_general_dilated: spec {s} is not a permutation of range({ndim})")
        specs.append(s)
    return tuple(specs)


def _ints(values: Any, n: int, name: str, minimum: int) -> tuple[int, ...]:
    if values is None:
        return (1,) * n
    if isinstance(values, (int, np.integer)):
        values = (values,) * n
    values = tuple(int(operator.index(v)) for v in values)
    if len(values) != n or any(v < minimum for v in values):
        raise ValueError(
            f"conv_general_dilated: {name} must be {n} ints >= {minimum}, got {values}"
        )
    return values


class ConvGeneralDilated(Op):
    """General dilated convolution, as ``jax.lax.conv_general_dilated`` with explicit
    padding (``conv_general_dilated`` resolves 'SAME'/'VALID').

    Args:
        window_strides, padding ((low, high) per spatial dim), lhs_dilation,
        rhs_dilation: one entry per spatial dim, in the order of ``specs``.
        specs: (lhs, rhs, out) dim indices: (batch, feature, spatial...),
            (output feature, input feature, spatial...), (batch, feature, spatial...).
        feature_group_count: the input features split into this many groups,
            each convolved with its own slice of the output features.
        batch_group_count: the lhs batch split into this many groups (group
            ``g`` is batch rows ``g * N/B ... (g + 1) * N/B - 1``), each convolved
            with its own slice of the output features; the output batch is ``N/B``.
            At most one of the two group counts may exceed 1.
    """

    __props__ = ("window_strides", "padding", "lhs_dilation", "rhs_dilation", "specs",
                 "feature_group_count", "batch_group_count")

    def __init__(self, window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                 lhs_dilation: Sequence[int], rhs_dilation: Sequence[int], specs: Specs,
                 feature_group_count: int = 1, batch_group_count: int = 1):
        self.specs = tuple(tuple(int(d) for d in s) for s in specs)
        n = len(self.specs[0]) - 2
        self.window_strides = _ints(window_strides, n, "window_strides", 1)
        self.lhs_dilation = _ints(lhs_dilation, n, "lhs_dilation", 1)
        self.rhs_dilation = _ints(rhs_dilation, n, "rhs_dilation", 1)
        try:
            self.padding = tuple((int(operator.index(lo)), int(operator.index(hi))) for lo, hi in padding)
        except (TypeError, ValueError):
            raise ValueError(
                f"conv_general_dilated: padding must be 'SAME', 'VALID' or (low, high) pairs, "
                f"got {padding!r}"
            ) from None
        if len(self.padding) != n:
            raise ValueError(f"conv_general_dilated: padding needs {n} (low, high) pairs, got {padding!r}")
        self.feature_group_count = int(operator.index(feature_group_count))
        self.batch_group_count = int(operator.index(batch_group_count))
        for name, v in (("feature_group_count", self.feature_group_count),
                        ("batch_group_count", self.batch_group_count)):
            if v < 1:
                raise ValueError(f"conv_general_dilated: {name} must be >= 1, got {v}")
        if self.feature_group_count > 1 and self.batch_group_count > 1:
            raise ValueError(
                f"conv_general_dilated: at most one of feature_group_count and batch_group_count may "
                f"be > 1, got {self.feature_group_count} and {self.batch_group_count}"
            )

    def make_node(self, lhs: Any, rhs: Any) -> Apply:
        lhs, rhs = as_variable(lhs), as_variable(rhs)
        if lhs.dtype != rhs.dtype:
            raise TypeError(f"{self}: inputs must share one dtype, got {lhs.type} and {rhs.type}")
        if lhs.dtype == np.bool_:
            raise TypeError(f"{self}: bool inputs are not supported, got {lhs.type}")
        nd = len(self.specs[0])
        for x, name in ((lhs, "lhs"), (rhs, "rhs")):
            if x.ndim != nd:
                raise ValueError(f"{self}: input '{name}' must have {nd} dims, got {x.type}")
        (ln, lc, *ls), (ro, ri, *rs), (on, oc, *os_) = self.specs
        g, b = self.feature_group_count, self.batch_group_count
        c, i, o = lhs.shape[lc], rhs.shape[ri], rhs.shape[ro]
        nb = lhs.shape[ln]
        if c is not None and i is not None and c != g * i:
            raise ValueError(
                f"{self}: 'lhs' {lhs.type} has {c} features but 'rhs' {rhs.type} expects "
                f"{i} per group x {g} groups"
            )
        if o is not None and o % g:
            raise ValueError(
                f"{self}: the {o} output features of 'rhs' {rhs.type} do not split into {g} groups"
            )
        if b > 1:
            if nb is not None and nb % b:
                raise ValueError(
                    f"{self}: the batch of 'lhs' {lhs.type} ({nb}) does not split into {b} batch groups"
                )
            if o is not None and o % b:
                raise ValueError(
                    f"{self}: the {o} output features of 'rhs' {rhs.type} do not split into {b} "
                    f"batch groups"
                )
        shape: list[int | None] = [None] * nd
        shape[on], shape[oc] = (None if nb is None else nb // b), o
        for j, (dl, dr, do) in enumerate(zip(ls, rs, os_)):
            shape[do] = conv_output_size(lhs.shape[dl], rhs.shape[dr], self.window_strides[j],
                                         self.padding[j], self.lhs_dilation[j], self.rhs_dilation[j])
        return Apply(self, [lhs, rhs], [TensorType(lhs.dtype, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        lhs, rhs = inputs
        out_t = node.outputs[0].type
        dt = out_t.dtype
        acc = np.float32 if dt in _HALF else dt
        lhs_spec, rhs_spec, out_spec = self.specs
        x = np.transpose(lhs, lhs_spec).astype(acc)   # (N, C, spatial...)
        w = np.transpose(rhs, rhs_spec).astype(acc)   # (O, I, spatial...)
        n_sp = x.ndim - 2
        # lhs dilation, then padding (negative pads crop)
        dil = [_dilate(n, d) for n, d in zip(x.shape[2:], self.lhs_dilation)]
        xd = np.zeros(x.shape[:2] + tuple(dil), acc)
        xd[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in self.lhs_dilation)] = x
        pads = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in self.padding]
        xp = np.pad(xd, pads)
        crop = tuple(slice(max(-lo, 0), xp.shape[2 + j] - max(-hi, 0))
                     for j, (lo, hi) in enumerate(self.padding))
        xp = xp[(slice(None), slice(None)) + crop]
        nb, c = x.shape[:2]
        o, i = w.shape[:2]
        out_sp = [out_t.shape[d] for d in out_spec[2:]]
        if self.batch_group_count > 1:
            # batch group g (rows g*N/B ...) meets output features g*O/B ...: the group
            # axis moves next to the batch and plays the role of the feature groups
            g = self.batch_group_count
            nb //= g
            xg = np.swapaxes(xp.reshape((g, nb, c) + xp.shape[2:]), 0, 1)
        else:
            g = self.feature_group_count
            xg = xp.reshape((nb, g, c // g) + xp.shape[2:])
        wg = w.reshape((g, o // g, i) + w.shape[2:])
        out = np.zeros((nb, g, o // g) + tuple(out_sp), acc)
        if all(out_sp) and i:
            for k in itertools.product(*(range(s) for s in w.shape[2:])):
                sl = tuple(slice(kk * rd, kk * rd + (m - 1) * s + 1, s) for kk, rd, m, s in
                           zip(k, self.rhs_dilation, out_sp, self.window_strides))
                patch = xg[(slice(None),) * 3 + sl]               # (N, G, I, out...)
                kern = wg[(slice(None),) * 3 + tuple(k)]          # (G, O/G, I)
                with np.errstate(all="ignore"):
                    out += np.einsum("ngi...,goi->ngo...", patch, kern)
        out = out.reshape((nb, o) + tuple(out_sp))
        # (N, O, spatial...) -> the out spec's layout
        perm = [0] * (n_sp + 2)
        for j, d in enumerate(out_spec):
            perm[d] = j
        return [np.asarray(np.transpose(out, perm), dtype=dt)]

    # --- derivatives: bilinear; each operand's cotangent is itself a convolution, as jax's
    # _conv_general_dilated_transpose_lhs/rhs (jax/_src/lax/convolution.py): strides and
    # lhs dilation trade places, the paddings follow from the shapes, feature and batch
    # groups fold into each other. No conjugates for complex operands (jax's convention).
    def pullback(self, node, cotangents):
        (ct,), (lhs, rhs) = cotangents, node.inputs
        if ct is None or not is_inexact(lhs.dtype):
            return [None, None]
        (_, lc, *ls), _, (_, oc, *os_) = self.specs
        for x, dims in ((lhs, [lc, *ls]), (rhs, range(rhs.ndim)), (node.outputs[0], [oc, *os_])):
            if any(x.shape[d] is None for d in dims):
                undefined = UndefinedGradient(
                    f"its derivative needs static feature and spatial dims and a static kernel, got "
                    f"{lhs.type} and {rhs.type}")
                return [undefined, undefined]
        return [self._lhs_cotangent(ct, lhs, rhs), self._rhs_cotangent(ct, lhs, rhs)]

    def pushforward(self, node, tangents):
        (tl, tr), (lhs, rhs) = tangents, node.inputs
        if not is_inexact(lhs.dtype):
            return [None]
        terms = ([] if tl is None else [self(tl, rhs)]) + ([] if tr is None else [self(lhs, tr)])
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]

    def _spatial(self, lhs: Variable, rhs: Variable, out: Variable) -> tuple[list, list, list]:
        (_, _, *ls), (_, _, *rs), (_, _, *os_) = self.specs
        return ([lhs.shape[d] for d in ls], [rhs.shape[d] for d in rs], [out.shape[d] for d in os_])

    def _lhs_cotangent(self, ct: Variable, lhs: Variable, rhs: Variable) -> Variable:
        lhs_spec, rhs_spec, out_spec = self.specs
        groups, batch_groups = self.feature_group_count, self.batch_group_count
        w = rhs
        if groups > 1 or batch_groups > 1:  # the groups move from the kernel's O dim into its I dim
            w = _reshape_axis_out_of(rhs_spec[0], max(groups, batch_groups), w)
            w = _reshape_axis_into(rhs_spec[0], rhs_spec[1], w)
        w = getitem(w, tuple(slice(None, None, -1) if d in rhs_spec[2:] else slice(None) for d in range(w.ndim)))
        n, k, o = self._spatial(lhs, rhs, ct)
        pads = []
        for j, (lo, _) in enumerate(self.padding):
            lhs_d = _dilate(n[j], self.lhs_dilation[j])
            rhs_d = _dilate(k[j], self.rhs_dilation[j])
            out_d = _dilate(o[j], self.window_strides[j])
            before = rhs_d - lo - 1
            pads.append((before, lhs_d + rhs_d - 1 - out_d - before))
        t_rhs_spec = (rhs_spec[1], rhs_spec[0]) + rhs_spec[2:]
        op = ConvGeneralDilated(self.lhs_dilation, pads, self.window_strides, self.rhs_dilation,
                                (out_spec, t_rhs_spec, lhs_spec), max(groups, batch_groups), 1)
        out = op(ct, w)
        if batch_groups > 1:  # the batch groups come back out of the features
            out = _reshape_axis_out_of(lhs_spec[1], batch_groups, out)
            out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
        return out

    def _rhs_cotangent(self, ct: Variable, lhs: Variable, rhs: Variable) -> Variable:
        if 0 in ct.shape:
            return zeros_like(rhs)
        groups, batch_groups = self.feature_group_count, self.batch_group_count
        if batch_groups > 1:
            groups, batch_groups = batch_groups, 1
        elif groups > 1:
            groups, batch_groups = 1, groups
        n, k, o = self._spatial(lhs, rhs, ct)
        pads = []
        for j, (lo, _) in enumerate(self.padding):
            lhs_d = _dilate(n[j], self.lhs_dilation[j])
            rhs_d = _dilate(k[j], self.rhs_dilation[j])
            out_d = _dilate(o[j], self.window_strides[j])
            pads.append((lo, out_d - lhs_d + rhs_d - lo - 1))
        lhs_t, rhs_t, out_t = ((s[1], s[0]) + s[2:] for s in self.specs)
        op = ConvGeneralDilated(self.rhs_dilation, pads, self.lhs_dilation, self.window_strides,
                                (lhs_t, out_t, rhs_t), groups, batch_groups)
        return op(lhs, ct)


def _reshape_axis_out_of(src: int, size: int, x: Variable) -> Variable:
    """Dim ``src`` of ``x`` split into (size, rest), major first."""
    shape = list(x.shape)
    shape[src:src + 1] = [size, -1 if shape[src] is None else shape[src] // size]
    return reshape(x, [-1 if d is None else d for d in shape])


def _reshape_axis_into(src: int, dst: int, x: Variable) -> Variable:
    """Dim ``src`` of ``x`` merged into dim ``dst`` (numbered without ``src``) as its major part."""
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    shape = [x.shape[i] for i in range(x.ndim) if i != src]
    shape[dst] = None if shape[dst] is None else shape[dst] * x.shape[src]
    return reshape(transpose(x, perm), [-1 if d is None else d for d in shape])


# --- builders ------------------------------------------------------------------------------
def _same_pads(n: int | None, k: int | None, stride: int, rhs_d: int, op: str) -> tuple[int, int]:
    if n is None or k is None:
        raise ValueError(f"conv_general_dilated: padding={op!r} needs static spatial dims")
    out = -(-n // stride)
    total = max(0, (out - 1) * stride + _dilate(k, rhs_d) - n)
    return (total // 2, total - total // 2) if op == "SAME" else (total - total // 2, total // 2)


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int] | None = None,
                         padding: Any = "VALID", lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                         feature_group_count: int = 1, batch_group_count: int = 1) -> Variable:
    """General dilated convolution, as ``jax.lax.conv_general_dilated``.

    ``padding`` is 'VALID', 'SAME' (output size ceil(n / stride), an odd pad goes
    to the high side), 'SAME_LOWER' (to the low side) or a sequence of (low, high)
    pairs. Operands are promoted to their common dtype (NumPy's rules).
    ``feature_group_count`` and ``batch_group_count`` are as in ``ConvGeneralDilated``.
    """
    lhs, rhs = as_variable(lhs), as_variable(rhs)
    dt = result_type(lhs, rhs)
    lhs, rhs = as_variable(lhs, dt), as_variable(rhs, dt)
    if lhs.ndim < 2:
        raise ValueError(f"conv_general_dilated: lhs needs a batch and a feature dim, got {lhs.type}")
    specs = dimension_specs(dimension_numbers, lhs.ndim)
    n = lhs.ndim - 2
    strides = _ints(window_strides, n, "window_strides", 1)
    rhs_d = _ints(rhs_dilation, n, "rhs_dilation", 1)
    if isinstance(padding, str):
        if padding == "VALID":
            padding = ((0, 0),) * n
        elif padding in ("SAME", "SAME_LOWER"):
            if lhs_dilation is not None and any(d != 1 for d in _ints(lhs_dilation, n, "lhs_dilation", 1)):
                raise ValueError("conv_general_dilated: string padding with lhs_dilation is not supported;"
                                 " give explicit (low, high) pairs")
            padding = tuple(
                _same_pads(lhs.shape[dl], rhs.shape[dr] if rhs.ndim == lhs.ndim else None,
                           s, d, padding)
                for dl, dr, s, d in zip(specs[0][2:], specs[1][2:], strides, rhs_d))
        else:
            raise ValueError(f"conv_general_dilated: padding must be 'SAME', 'SAME_LOWER', 'VALID' "
                             f"or (low, high) pairs, got {padding!r}")
    return ConvGeneralDilated(strides, padding, lhs_dilation, rhs_d, specs, feature_group_count,
                              batch_group_count)(lhs, rhs)

_TRANSPOSE_DEFAULT_SPECS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                            5: ("NHWDC", "HWDIO", "NHWDC")}


def _transpose_pads(k: int, s: int, padding: str) -> tuple[int, int]:
    """(low, high) padding of the dilated input for a 'SAME' / 'VALID' transposed
    convolution with (dilated) kernel size ``k`` and stride ``s``."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else -(-total // 2)
    else:
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    return low, total - low


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Any,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False) -> Variable:
    """Transposed ("fractionally strided") convolution, as ``jax.lax.conv_transpose``.

    A convolution with unit window strides whose ``lhs_dilation`` is ``strides``.
    ``padding`` 'SAME' gives an output of ``n * stride`` per spatial dim and
    'VALID' of ``n * stride + max(k - stride, 0)`` (``k`` the dilated kernel
    size), the paddings of the forward convolution this one transposes; explicit
    (low, high) pairs pad the dilated input directly. ``dimension_numbers``
    defaults to jax's ('NC', 'IO', 'NC'), ('NHC', 'HIO', 'NHC'), ('NHWC', 'HWIO',
    'NHWC') or ('NHWDC', 'HWDIO', 'NHWDC') by rank. ``transpose_kernel`` flips the
    kernel's spatial dims and swaps its input and output feature dims (the
    gradient of a forward convolution with the same kernel, Keras' Conv2DTranspose).
    """
    lhs, rhs = as_variable(lhs), as_variable(rhs)
    dt = result_type(lhs, rhs)
    lhs, rhs = as_variable(lhs, dt), as_variable(rhs, dt)
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise ValueError(f"conv_transpose: lhs and rhs must have the same rank >= 2, got {lhs.type} "
                         f"and {rhs.type}")
    if dimension_numbers is None:
        if lhs.ndim not in _TRANSPOSE_DEFAULT_SPECS:
            raise ValueError(f"conv_transpose: no default dimension_numbers for rank {lhs.ndim}; give them")
        dimension_numbers = _TRANSPOSE_DEFAULT_SPECS[lhs.ndim]
    specs = dimension_specs(dimension_numbers, lhs.ndim)
    n = lhs.ndim - 2
    strides = _ints(strides, n, "strides", 1)
    rhs_d = _ints(rhs_dilation, n, "rhs_dilation", 1)
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"conv_transpose: padding must be 'SAME', 'VALID' or (low, high) pairs, "
                             f"got {padding!r}")
        kernel = [rhs.shape[d] for d in specs[1][2:]]
        if any(k is None for k in kernel):
            raise ValueError(f"conv_transpose: padding={padding!r} needs static kernel dims, got {rhs.type}")
        padding = tuple(_transpose_pads(_dilate(k, d), s, padding) for k, d, s in zip(kernel, rhs_d, strides))
    if transpose_kernel:
        ro, ri, *rs = specs[1]
        rhs = getitem(rhs, tuple(slice(None, None, -1) if a in rs else slice(None) for a in range(rhs.ndim)))
        perm = list(range(rhs.ndim))
        perm[ro], perm[ri] = ri, ro
        rhs = transpose(rhs, perm)
    return ConvGeneralDilated((1,) * n, padding, strides, rhs_d, specs)(lhs, rhs)


def sequence_operands(a: Any, v: Any, mode: str, name: str,
                      modes: tuple[str, ...] = ("full", "same", "valid")) -> tuple[Variable, Variable]:
    """The two operands of ``convolve``/``correlate`` as 1-D Variables of their common
    dtype, after NumPy's checks (1-D, a known ``mode``, static non-empty lengths, not bool)."""
    a, v = as_variable(a), as_variable(v)
    dt = result_type(a, v)
    a, v = as_variable(a, dt), as_variable(v, dt)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}: inputs must be 1-D, got {a.type} and {v.type}")
    if mode not in modes:
        raise ValueError(f"{name}: mode must be {', '.join(repr(m) for m in modes[:-1])} or "
                         f"{modes[-1]!r}, got {mode!r}")
    if a.shape[0] is None or v.shape[0] is None:
        raise ValueError(f"{name}: needs static lengths, got {a.type} and {v.type}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{name}: inputs cannot be empty, got {a.type} and {v.type}")
    if dt == np.bool_:
        raise TypeError(f"{name}: bool inputs are not supported")
    return a, v


def convolve(a: Any, v: Any, mode: str = "full") -> Variable:
    """Discrete 1-D convolution, as numpy.convolve: 'full' (length n + m - 1),
    'same' (length max(n, m), centered) or 'valid' (length max(n, m) - min(n, m) + 1)."""
    a, v = sequence_operands(a, v, mode, "convolve")
    n, m = a.shape[0], v.shape[0]
    if m > n:  # convolution commutes; the longer operand slides under the shorter
        a, v, n, m = v, a, m, n
    pad = {"full": (m - 1, m - 1), "same": (m // 2, m - 1 - m // 2), "valid": (0, 0)}[mode]
    flipped = getitem(v, slice(None, None, -1))
    op = ConvGeneralDilated((1,), (pad,), (1,), (1,), ((0, 1, 2),) * 3)
    out = op(reshape(a, (1, 1, n)), reshape(flipped, (1, 1, m)))
    return reshape(out, (out.shape[-1],))
