# RUN: env HLOGRAPH_FAST_MATH_MIN_ELEMENTS=0 %PYTHON %s | filecheck %s
# (the threshold set to 0: the small shapes below take the fast path, which
# otherwise starts at 4096 elements; the last case shows the default)
# On the CPU, float32 (float16, bfloat16) sin, cos and tan lower to a range
# reduction by pi/2 and polynomials in float64 (lowering/rules/fast_math.py),
# behind a stablehlo.case that runs XLA's own op when some argument is huge;
# arctan, arcsin and arccos to one float64 arctan kernel; float64 keeps XLA's ops.
# float64 divisions and square roots cost XLA:CPU ~10x float32's: the rules take
# float32's reciprocal (rsqrt) and refine it with a float64 Newton step.
import hlograph as hg
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: sin float32[2,3]
# x itself against +-2**27, not |x| (XLA would hoist a shared |x| out of the case and
# write it to memory)
# CHECK-NOT: stablehlo.abs %arg0
# CHECK: %[[HI:.+]] = stablehlo.compare GT, %arg0, {{.*}}, FLOAT
# CHECK: %[[LO:.+]] = stablehlo.compare LT, %arg0, {{.*}}, FLOAT
# CHECK: %[[BIG:.+]] = stablehlo.or %[[HI]], %[[LO]] : tensor<2x3xi1>
# CHECK: %[[ANY:.+]] = stablehlo.reduce(%[[BIG]] init: {{.*}}) applies stablehlo.or across dimensions = [0, 1]
# CHECK: %[[I:.+]] = stablehlo.convert %[[ANY]] : (tensor<i1>) -> tensor<i32>
# CHECK: "stablehlo.case"(%[[I]]) ({
# CHECK-NOT: stablehlo.sine
# CHECK: %[[D:.+]] = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
# CHECK: %[[AD:.+]] = stablehlo.abs %[[D]] : tensor<2x3xf64>
# CHECK: %[[Q:.+]] = stablehlo.multiply %[[AD]], {{.*}} : tensor<2x3xf64>
# CHECK: %[[K:.+]] = stablehlo.floor {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.multiply %[[K]], {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.convert %[[K]] : (tensor<2x3xf64>) -> tensor<2x3xi32>
# CHECK: stablehlo.select {{.*}} : tensor<2x3xi1>, tensor<2x3xf64>
# CHECK: %[[R:.+]] = stablehlo.convert {{.*}} : (tensor<2x3xf64>) -> tensor<2x3xf32>
# sin(x) rounds to x for |x| < 2**-12: x itself there (subnormals too)
# CHECK-NOT: stablehlo.abs %arg0
# CHECK: %[[BELOW:.+]] = stablehlo.compare LT, %arg0, {{.*}}, FLOAT
# CHECK: %[[ABOVE:.+]] = stablehlo.compare GT, %arg0, {{.*}}, FLOAT
# CHECK: %[[SMALL:.+]] = stablehlo.and %[[BELOW]], %[[ABOVE]] : tensor<2x3xi1>
# CHECK: %[[RS:.+]] = stablehlo.select %[[SMALL]], %arg0, %[[R]] : tensor<2x3xi1>, tensor<2x3xf32>
# CHECK-NEXT: stablehlo.return %[[RS]] : tensor<2x3xf32>
# CHECK-NEXT: }, {
# CHECK-NEXT: %[[S:.+]] = stablehlo.sine %arg0 : tensor<2x3xf32>
# CHECK-NEXT: stablehlo.return %[[S]] : tensor<2x3xf32>
# CHECK-NEXT: }) : (tensor<i32>) -> tensor<2x3xf32>
unary("sin", hg.sin)

# CHECK-LABEL: TEST: cos float32[4]
# CHECK: "stablehlo.case"
# CHECK-NOT: stablehlo.cosine
# CHECK: stablehlo.floor {{.*}} : tensor<4xf64>
# CHECK: }, {
# CHECK-NEXT: stablehlo.cosine %arg0 : tensor<4xf32>
unary("cos", hg.cos, shape=(4,))

# CHECK-LABEL: TEST: tan float32[]
# CHECK: "stablehlo.case"
# CHECK-NOT: stablehlo.tan
# sin/cos (or cos/sin) through float32's reciprocal and a float64 Newton step
# CHECK: %[[D:.+]] = stablehlo.convert {{.*}} : (tensor<f64>) -> tensor<f32>
# CHECK: %[[Q:.+]] = stablehlo.divide {{.*}}, %[[D]] : tensor<f32>
# CHECK: stablehlo.convert %[[Q]] : (tensor<f32>) -> tensor<f64>
# CHECK: }, {
# CHECK-NEXT: stablehlo.tan %arg0 : tensor<f32>
unary("tan", hg.tan, shape=())

# float16 has no huge arguments: no branch
# CHECK-LABEL: TEST: sin_f16 float16[3]
# CHECK-NOT: stablehlo.case
# CHECK: stablehlo.convert %arg0 : (tensor<3xf16>) -> tensor<3xf64>
# CHECK-NOT: stablehlo.sine
# CHECK: stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf16>
# CHECK: stablehlo.select {{.*}}, %arg0, {{.*}} : tensor<3xi1>, tensor<3xf16>
# CHECK-NEXT: return
unary("sin_f16", hg.sin, "float16", (3,))

# CHECK-LABEL: TEST: sin_bf16 bfloat16[3]
# CHECK: "stablehlo.case"
# CHECK: stablehlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf64>
# CHECK: stablehlo.sine %arg0 : tensor<3xbf16>
unary("sin_bf16", hg.sin, "bfloat16", (3,))

# CHECK-LABEL: TEST: sin_f64 float64[3]
# CHECK-NOT: stablehlo.case
# CHECK: stablehlo.sine %arg0 : tensor<3xf64>
unary("sin_f64", hg.sin, "float64", (3,))

# complex cos is cosh(i z) with C99's special values (lowering/rules/elemwise.py)
# CHECK-LABEL: TEST: cos_c64 complex64[3]
# CHECK-NOT: stablehlo.case
# CHECK: chlo.cosh {{.*}} : tensor<3xcomplex<f32>>
unary("cos_c64", hg.cos, "complex64", (3,))

# CHECK-LABEL: TEST: arctan float32[3]
# CHECK-NOT: chlo.atan
# CHECK: %[[D:.+]] = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
# CHECK: %[[A:.+]] = stablehlo.abs %[[D]] : tensor<3xf64>
# CHECK: stablehlo.compare LT, %[[A]], {{.*}}, FLOAT
# CHECK: %[[Q0:.+]] = stablehlo.divide {{.*}} : tensor<3xf32>
# CHECK: %[[Q:.+]] = stablehlo.convert %[[Q0]] : (tensor<3xf32>) -> tensor<3xf64>
# CHECK: %[[R:.+]] = stablehlo.add %[[Q]], {{.*}} : tensor<3xf64>
# CHECK-NEXT: %[[T:.+]] = stablehlo.multiply {{.*}}, %[[R]] : tensor<3xf64>
# CHECK-NEXT: stablehlo.multiply %[[T]], %[[T]] : tensor<3xf64>
# CHECK: stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf32>
# CHECK: stablehlo.select {{.*}}, %arg0, {{.*}} : tensor<3xi1>, tensor<3xf32>
# CHECK-NEXT: return
unary("arctan", hg.arctan, shape=(3,))

# CHECK-LABEL: TEST: arcsin float32[3]
# CHECK-NOT: chlo.asin
# CHECK: %[[D:.+]] = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
# CHECK: %[[V:.+]] = stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf32>
# CHECK: stablehlo.rsqrt %[[V]] : tensor<3xf32>
# CHECK: %[[R:.+]] = stablehlo.select {{.*}} : tensor<3xi1>, tensor<3xf64>
# CHECK: stablehlo.multiply %[[D]], %[[R]] : tensor<3xf64>
unary("arcsin", hg.arcsin, shape=(3,))

# CHECK-LABEL: TEST: arccos float32[3]
# CHECK-NOT: chlo.acos
# CHECK: stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
# CHECK: stablehlo.rsqrt {{.*}} : tensor<3xf32>
# pi/2 - arcsin(x)
# CHECK: stablehlo.negate %{{.+}} : tensor<3xf64>
# CHECK-NEXT: %[[A:.+]] = stablehlo.select {{.*}} : tensor<3xi1>, tensor<3xf64>
# CHECK-NEXT: %[[PIO2:.+]] = stablehlo.constant dense<1.5707963267948966> : tensor<3xf64>
# CHECK-NEXT: %[[C:.+]] = stablehlo.subtract %[[PIO2]], %[[A]] : tensor<3xf64>
# CHECK-NEXT: stablehlo.convert %[[C]] : (tensor<3xf64>) -> tensor<3xf32>
# CHECK-NEXT: return
unary("arccos", hg.arccos, shape=(3,))

# CHECK-LABEL: TEST: arcsin_f64 float64[3]
# CHECK: chlo.asin %arg0 : tensor<3xf64> -> tensor<3xf64>
unary("arcsin_f64", hg.arcsin, "float64", (3,))


# With the default threshold, small tensors keep XLA's op
# CHECK-LABEL: TEST: sin_small_default
# CHECK-NOT: stablehlo.case
# CHECK: stablehlo.sine %arg0 : tensor<3xf32>
import os  # noqa: E402
del os.environ["HLOGRAPH_FAST_MATH_MIN_ELEMENTS"]
unary("sin_small_default", hg.sin, shape=(3,))
