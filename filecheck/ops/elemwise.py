# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


# CHECK-LABEL: TEST: exp float32[2,3]
# CHECK: stablehlo.exponential
# CHECK-SAME: tensor<2x3xf32>
unary("exp", hg.exp)

# CHECK-LABEL: TEST: exp_int8 int8[2,3]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3xf16>
# CHECK: stablehlo.exponential {{.*}} tensor<2x3xf16>
unary("exp_int8", hg.exp, "int8")

# CHECK-LABEL: TEST: sigmoid float64[2,3]
# CHECK: stablehlo.logistic {{.*}} tensor<2x3xf64>
unary("sigmoid", hg.sigmoid, "float64")

# CHECK-LABEL: TEST: erf float32[2,3]
# CHECK: chlo.erf {{.*}} -> tensor<2x3xf32>
unary("erf", hg.erf)

# CHECK-LABEL: TEST: round float32[2,3]
# CHECK: stablehlo.round_nearest_even
unary("round", hg.round)

# CHECK-LABEL: TEST: isnan float32[2,3]
# CHECK: stablehlo.compare NE, %[[X:.+]], %[[X]], FLOAT {{.*}} -> tensor<2x3xi1>
unary("isnan", hg.isnan)

# complex abs is inf where a part is inf, nan or not (XLA's abs gives nan there)
# CHECK-LABEL: TEST: abs_complex complex64[2,3]
# CHECK: %[[R:.+]] = stablehlo.abs %arg0 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
# CHECK-DAG: stablehlo.real %arg0
# CHECK-DAG: stablehlo.imag %arg0
# CHECK: %[[INF:.+]] = stablehlo.or
# CHECK: stablehlo.select %[[INF]], {{.*}}, %[[R]] : tensor<2x3xi1>, tensor<2x3xf32>
unary("abs_complex", hg.abs, "complex64")

# CHECK-LABEL: TEST: sign_uint uint8[2,3]
# CHECK: stablehlo.compare NE, {{.*}}, UNSIGNED
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3xui8>
unary("sign_uint", hg.sign, "uint8")

# CHECK-LABEL: TEST: add_broadcast float32[3]
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK: stablehlo.add {{.*}} : tensor<2x3xf32>
binary("add_broadcast", hg.add, xshape=(3,), yshape=(2, 3))

# CHECK-LABEL: TEST: less_int int32[2,3]
# CHECK: stablehlo.compare LT, %arg0, %arg1, SIGNED
binary("less_int", hg.less, "int32")

# CHECK-LABEL: TEST: less_uint uint16[2,3]
# CHECK: stablehlo.compare LT, %arg0, %arg1, UNSIGNED
binary("less_uint", hg.less, "uint16")

# CHECK-LABEL: TEST: floor_divide_int int32[2,3]
# CHECK: stablehlo.divide
# CHECK: stablehlo.remainder
# CHECK: stablehlo.select
binary("floor_divide_int", hg.floor_divide, "int32")

# CHECK-LABEL: TEST: divide_int int16[2,3]
# CHECK-DAG: stablehlo.convert %arg0 : (tensor<2x3xi16>) -> tensor<2x3xf64>
# CHECK-DAG: stablehlo.convert %arg1 : (tensor<2x3xi16>) -> tensor<2x3xf64>
# CHECK: stablehlo.divide {{.*}} : tensor<2x3xf64>
binary("divide_int", hg.divide, "int16")

# CHECK-LABEL: TEST: maximum float32[2,3]
# CHECK: stablehlo.maximum %arg0, %arg1 : tensor<2x3xf32>
binary("maximum", hg.maximum)

# CHECK-LABEL: TEST: logical_and_int int32[2,3]
# CHECK: stablehlo.compare NE
# CHECK: stablehlo.and {{.*}} : tensor<2x3xi1>
binary("logical_and_int", hg.logical_and, "int32")

# CHECK-LABEL: TEST: where float32[2,3]
# CHECK: stablehlo.select
c = hg.tensor("c", (2, 3), "bool")
x = hg.tensor("x", (2, 3), "float32")
print("TEST: where float32[2,3]")
print(hg.compile(hg.Graph([c, x], hg.where(c, x, 0.0)), pipeline="O0").lower().as_text())

# CHECK-LABEL: TEST: cast_f32_to_bool float32[2,3]
# CHECK: stablehlo.compare NE, %arg0, {{.*}}, FLOAT
unary("cast_f32_to_bool", lambda x: hg.astype(x, "bool"))

# CHECK-LABEL: TEST: cast_c64_to_f64 complex64[2,3]
# CHECK: stablehlo.real
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3xf64>
unary("cast_c64_to_f64", lambda x: hg.astype(x, "float64"), "complex64")

# (float64: float32 arcsin lowers to a polynomial on the CPU, see ops/fast_math.py)
# CHECK-LABEL: TEST: arcsin float64[2,3]
# CHECK: chlo.asin {{.*}} -> tensor<2x3xf64>
unary("arcsin", hg.arcsin, "float64")

# CHECK-LABEL: TEST: arccosh float64[2,3]
# CHECK: chlo.acosh {{.*}} -> tensor<2x3xf64>
unary("arccosh", hg.arccosh, "float64")

# complex inverse functions compute on the first quadrant (|re| + |im| j) and put the
# signs back by symmetry, so signed zeros pick the side of a branch cut; arcsin(z) is
# -i asinh(iz), the parts swapped
# CHECK-LABEL: TEST: arcsin_complex complex64[2,3]
# CHECK-DAG: %[[RE:.+]] = stablehlo.real %arg0
# CHECK-DAG: %[[IM:.+]] = stablehlo.imag %arg0
# CHECK-DAG: %[[ARE:.+]] = stablehlo.abs %[[RE]]
# CHECK-DAG: %[[AIM:.+]] = stablehlo.abs %[[IM]]
# CHECK: %[[Q:.+]] = stablehlo.complex %[[AIM]], %[[ARE]]
# CHECK: chlo.asinh %[[Q]]
# CHECK: stablehlo.bitcast_convert %[[RE]]
# CHECK: stablehlo.bitcast_convert %[[IM]]
# CHECK: stablehlo.complex
unary("arcsin_complex", hg.arcsin, "complex64")

# complex division is NumPy's (Smith's algorithm) in real arithmetic
# CHECK-LABEL: TEST: divide_complex complex128[2,3]
# CHECK-NOT: stablehlo.divide {{.*}} complex
# CHECK: stablehlo.divide {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.complex {{.*}} : tensor<2x3xcomplex<f64>>
binary("divide_complex", hg.divide, "complex128")

# complex power: npy_cpow's cases around cexp(b * clog(a)) (no stablehlo.power)
# CHECK-LABEL: TEST: power_complex complex64[2,3]
# CHECK-NOT: stablehlo.power
# CHECK: stablehlo.log
# CHECK: stablehlo.exponential
# CHECK: stablehlo.shift_right_logical
# CHECK-NOT: stablehlo.power
# CHECK: return
binary("power_complex", hg.power, "complex64")

# CHECK-LABEL: TEST: sinh complex64[2,3]
# CHECK: chlo.sinh {{.*}} -> tensor<2x3xcomplex<f32>>
unary("sinh", hg.sinh, "complex64")

# CHECK-LABEL: TEST: cbrt float32[2,3]
# CHECK: stablehlo.cbrt {{.*}} : tensor<2x3xf32>
unary("cbrt", hg.cbrt)

# 2**x = exp(f ln 2) * 2**n with n = round(x), the power of two made from its bits
# CHECK-LABEL: TEST: exp2 float32[2,3]
# CHECK: %[[R:.+]] = stablehlo.round_nearest_even %arg0 : tensor<2x3xf32>
# CHECK: %[[N:.+]] = stablehlo.clamp %{{.+}}, %[[R]], %{{.+}} : tensor<2x3xf32>
# CHECK: stablehlo.subtract %arg0, %[[N]] : tensor<2x3xf32>
# CHECK: stablehlo.exponential
# CHECK: stablehlo.shift_left {{.*}} : tensor<2x3xi32>
# CHECK: stablehlo.bitcast_convert {{.*}} : (tensor<2x3xi32>) -> tensor<2x3xf32>
# CHECK: stablehlo.is_finite %arg0
# CHECK: stablehlo.select
unary("exp2", hg.exp2)

# CHECK-LABEL: TEST: trunc float32[2,3]
# CHECK-DAG: stablehlo.ceil %arg0
# CHECK-DAG: stablehlo.floor %arg0
# CHECK: stablehlo.select {{.*}} tensor<2x3xf32>
unary("trunc", hg.trunc)

# CHECK-LABEL: TEST: signbit float32[2,3]
# CHECK: stablehlo.bitcast_convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
# CHECK: stablehlo.compare LT, {{.*}}, SIGNED {{.*}} -> tensor<2x3xi1>
unary("signbit", hg.signbit)

# CHECK-LABEL: TEST: bitwise_count int16[2,3]
# CHECK: %[[A:.+]] = stablehlo.abs %arg0 : tensor<2x3xi16>
# CHECK: %[[N:.+]] = stablehlo.popcnt %[[A]] : tensor<2x3xi16>
# CHECK: stablehlo.convert %[[N]] : (tensor<2x3xi16>) -> tensor<2x3xui8>
unary("bitwise_count", hg.bitwise_count, "int16")

# CHECK-LABEL: TEST: real complex128[2,3]
# CHECK: stablehlo.real %arg0 : (tensor<2x3xcomplex<f64>>) -> tensor<2x3xf64>
unary("real", hg.real, "complex128")

# CHECK-LABEL: TEST: angle complex64[2,3]
# CHECK-DAG: %[[RE:.+]] = stablehlo.real %arg0
# CHECK-DAG: %[[IM:.+]] = stablehlo.imag %arg0
# CHECK: stablehlo.atan2 %[[IM]], %[[RE]] : tensor<2x3xf32>
unary("angle", hg.angle, "complex64")

# CHECK-LABEL: TEST: arctan2 float32[2,3]
# CHECK: stablehlo.atan2 %arg0, %arg1 : tensor<2x3xf32>
binary("arctan2", hg.arctan2)

# CHECK-LABEL: TEST: nextafter float64[2,3]
# CHECK: chlo.next_after %arg0, %arg1 : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
binary("nextafter", hg.nextafter, "float64")

# CHECK-LABEL: TEST: hypot float32[2,3]
# CHECK: stablehlo.sqrt {{.*}} : tensor<2x3xf32>
# CHECK: chlo.is_inf
# CHECK: stablehlo.select {{.*}} tensor<2x3xf32>
binary("hypot", hg.hypot)

# CHECK-LABEL: TEST: left_shift int8[2,3]
# CHECK-DAG: %[[SH:.+]] = stablehlo.shift_left %arg0, %arg1 : tensor<2x3xi8>
# CHECK-DAG: stablehlo.compare LT, %arg1, {{.*}}, SIGNED
# CHECK: stablehlo.select {{.*}}, %[[SH]], {{.*}} : tensor<2x3xi1>, tensor<2x3xi8>
binary("left_shift", hg.left_shift, "int8")

# CHECK-LABEL: TEST: right_shift uint32[2,3]
# CHECK: stablehlo.shift_right_logical %arg0, %arg1 : tensor<2x3xui32>
binary("right_shift", hg.right_shift, "uint32")

# CHECK-LABEL: TEST: logaddexp float32[2,3]
# CHECK: stablehlo.log_plus_one
# CHECK: stablehlo.maximum %arg0, %arg1 : tensor<2x3xf32>
# CHECK: stablehlo.select {{.*}} tensor<2x3xf32>
binary("logaddexp", hg.logaddexp)

# CHECK-LABEL: TEST: fmod float64[2,3]
# CHECK: stablehlo.remainder %arg0, %arg1 : tensor<2x3xf64>
binary("fmod", hg.fmod, "float64")

# CHECK-LABEL: TEST: fmax float32[2,3]
# CHECK: stablehlo.maximum %arg0, %arg1
# CHECK: stablehlo.compare NE, %arg0, %arg0, FLOAT
# CHECK: stablehlo.select
binary("fmax", hg.fmax)

# bool -> float is a select of 1 and 0: XLA rewrites convert(pred) * y into
# select(pred, y, 0), which would lose False * nan == nan
# CHECK-LABEL: TEST: bool_times_float bool[2,3]
# CHECK-NOT: stablehlo.convert
# CHECK: %[[ONE:.+]] = stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
# CHECK: %[[ZERO:.+]] = stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
# CHECK: %[[F:.+]] = stablehlo.select %arg0, %[[ONE]], %[[ZERO]] : tensor<2x3xi1>, tensor<2x3xf32>
# CHECK: stablehlo.multiply %[[F]], %arg1
print_ir("bool_times_float", hg.Graph([b := hg.tensor("x", (2, 3), "bool"), f := hg.tensor("y", (2, 3), "float32")],
                                      b * f))

# complex products part by part, as NumPy's: XLA's simplifier takes a complex x * 1
# for x, where NumPy's 1 * (inf + 2j) is inf + nan j
# CHECK-LABEL: TEST: multiply_complex complex64[2,3]
# CHECK-NOT: stablehlo.multiply %arg0, %arg1
# CHECK-DAG: %[[A:.+]] = stablehlo.real %arg0
# CHECK-DAG: %[[B:.+]] = stablehlo.imag %arg0
# CHECK-DAG: %[[C:.+]] = stablehlo.real %arg1
# CHECK-DAG: %[[D:.+]] = stablehlo.imag %arg1
# CHECK-DAG: %[[AC:.+]] = stablehlo.multiply %[[A]], %[[C]]
# CHECK-DAG: %[[BD:.+]] = stablehlo.multiply %[[B]], %[[D]]
# CHECK-DAG: %[[AD:.+]] = stablehlo.multiply %[[A]], %[[D]]
# CHECK-DAG: %[[BC:.+]] = stablehlo.multiply %[[B]], %[[C]]
# CHECK-DAG: %[[RE:.+]] = stablehlo.subtract %[[AC]], %[[BD]]
# CHECK-DAG: %[[IM:.+]] = stablehlo.add %[[AD]], %[[BC]]
# CHECK: stablehlo.complex %[[RE]], %[[IM]]
binary("multiply_complex", hg.multiply, "complex64")

# log(exp(x)), log(x ** y), sqrt(x * x): the inner result passes an optimization
# barrier, which XLA's simplifier does not see through
# CHECK-LABEL: TEST: log_exp float32[2,3]
# CHECK: %[[E:.+]] = stablehlo.exponential %arg0
# CHECK: %[[B:.+]] = stablehlo.optimization_barrier %[[E]]
# CHECK: stablehlo.log %[[B]]
unary("log_exp", lambda x: hg.log(hg.exp(x)))

# CHECK-LABEL: TEST: log_pow float32[2,3]
# CHECK: %[[P:.+]] = stablehlo.power %arg0, %arg1
# CHECK: %[[B:.+]] = stablehlo.optimization_barrier %[[P]]
# CHECK: stablehlo.log %[[B]]
binary("log_pow", lambda x, y: hg.log(hg.power(x, y)))

# CHECK-LABEL: TEST: sqrt_square float32[2,3]
# CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %arg0
# CHECK: %[[B:.+]] = stablehlo.optimization_barrier %[[M]]
# CHECK: stablehlo.sqrt %[[B]]
unary("sqrt_square", lambda x: hg.sqrt(x * x))

# CHECK-LABEL: TEST: exp_times_exp float32[2,3]
# CHECK: %[[A:.+]] = stablehlo.exponential %arg0
# CHECK: %[[E:.+]] = stablehlo.exponential %arg1
# CHECK: %[[B:.+]] = stablehlo.optimization_barrier %[[E]]
# CHECK: stablehlo.multiply %[[A]], %[[B]]
binary("exp_times_exp", lambda x, y: hg.exp(x) * hg.exp(y))

# a plain log has no barrier
# CHECK-LABEL: TEST: log float32[2,3]
# CHECK-NOT: optimization_barrier
# CHECK: stablehlo.log %arg0
unary("log", hg.log)

# x ** 0.5 with a scalar exponent is NumPy's sqrt (sqrt(-inf) is nan, pow gives inf)
# CHECK-LABEL: TEST: pow_half float32[2,3]
# CHECK-NOT: stablehlo.power
# CHECK: stablehlo.sqrt %arg0
unary("pow_half", lambda x: x ** 0.5)

# a product of two different values keeps fusing with its sqrt
# CHECK-LABEL: TEST: sqrt_product float32[2,3]
# CHECK-NOT: optimization_barrier
# CHECK: stablehlo.sqrt
binary("sqrt_product", lambda x, y: hg.sqrt(x * y))

# complex sqrt: computed at |im| and conjugated back where im has its sign bit set
# (XLA's ignores -0.0), then C99's values where a part is not finite
# CHECK-LABEL: TEST: sqrt_complex complex64[2,3]
# CHECK: %[[IM:.+]] = stablehlo.imag %arg0
# CHECK: %[[A:.+]] = stablehlo.abs %[[IM]] : tensor<2x3xf32>
# CHECK: %[[Z:.+]] = stablehlo.complex %{{.+}}, %[[A]]
# CHECK: stablehlo.sqrt %[[Z]] : tensor<2x3xcomplex<f32>>
# CHECK: stablehlo.bitcast_convert %[[IM]]
# CHECK: chlo.is_inf %[[IM]]
# CHECK: stablehlo.complex
unary("sqrt_complex", hg.sqrt, "complex64")

# complex sinh: XLA's value, then glibc's csinh where a part is not finite
# CHECK-LABEL: TEST: sinh_complex complex128[2,3]
# CHECK: stablehlo.is_finite
# CHECK: chlo.sinh %arg0 : tensor<2x3xcomplex<f64>>
# CHECK: stablehlo.select
# CHECK: stablehlo.complex
unary("sinh_complex", hg.sinh, "complex128")

# complex sin through sinh(i z): the parts swapped in, and out
# CHECK-LABEL: TEST: sin_complex complex64[2,3]
# CHECK: stablehlo.negate
# CHECK: %[[IZ:.+]] = stablehlo.complex
# CHECK: chlo.sinh %[[IZ]]
unary("sin_complex", hg.sin, "complex64")

# integer power by squaring over every bit of the exponent (XLA's stops after six)
# CHECK-LABEL: TEST: power_int16 int16[2,3]
# CHECK-COUNT-15: stablehlo.and %{{.+}}, %{{.+}} : tensor<2x3xi16>
# CHECK: stablehlo.compare LT, %arg1
# CHECK: stablehlo.power %arg0, %arg1
binary("power_int16", hg.power, "int16")

# a constant exponent under 64 keeps XLA's power
# CHECK-LABEL: TEST: power_int16_cube int16[2,3]
# CHECK-NOT: stablehlo.shift_right_logical
# CHECK: stablehlo.power
unary("power_int16_cube", lambda x: hg.power(x, 3), "int16")

# An operand that is NaN everywhere makes add/subtract/multiply/divide/maximum/minimum
# NaN everywhere: the result is the constant (XLA:CPU's float32 exp of an argument
# LLVM knows to be NaN returns garbage).
# CHECK-LABEL: TEST: exp_of_x_plus_nan float32[2,3]
# CHECK: %[[NAN:.+]] = stablehlo.constant dense<0x7FC00000> : tensor<2x3xf32>
# CHECK-NOT: stablehlo.add
# CHECK: stablehlo.exponential %[[NAN]]
unary("exp_of_x_plus_nan", lambda x: hg.exp(x + float("nan")))

# CHECK-LABEL: TEST: maximum_with_nan float64[4]
# CHECK: %[[NAN:.+]] = stablehlo.constant dense<0x7FF8000000000000> : tensor<4xf64>
# CHECK-NOT: stablehlo.maximum
# CHECK: return %[[NAN]]
unary("maximum_with_nan", lambda x: hg.maximum(x, float("nan")), "float64", (4,))

# A NaN operand of a complex op is not folded (complex NaN products are not all NaN)
# CHECK-LABEL: TEST: complex_times_nan complex64[2]
# CHECK: stablehlo.multiply
unary("complex_times_nan", lambda x: x * float("nan"), "complex64", (2,))
