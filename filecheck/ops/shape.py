# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def nullary(name, fn):
    print_ir(name, hg.Graph([], fn()))


# CHECK-LABEL: TEST: reshape float32[2,3]
# CHECK: stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
unary("reshape", lambda x: hg.reshape(x, (3, -1)))

# CHECK-LABEL: TEST: reshape_to_0d int8[1,1]
# CHECK: stablehlo.reshape %arg0 : (tensor<1x1xi8>) -> tensor<i8>
unary("reshape_to_0d", lambda x: hg.reshape(x, ()), "int8", (1, 1))

# CHECK-LABEL: TEST: transpose float32[2,3,4]
# CHECK: stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
unary("transpose", lambda x: hg.transpose(x, (-1, 0, 1)), shape=(2, 3, 4))

# CHECK-LABEL: TEST: transpose_default bfloat16[2,3]
# CHECK: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
unary("transpose_default", lambda x: x.T, "bfloat16")

# CHECK-LABEL: TEST: broadcast_to float32[3,1]
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
unary("broadcast_to", lambda x: hg.broadcast_to(x, (2, 3, 4)), shape=(3, 1))

# CHECK-LABEL: TEST: expand_dims complex64[2,3]
# CHECK: stablehlo.reshape %arg0 : (tensor<2x3xcomplex<f32>>) -> tensor<1x2x3x1xcomplex<f32>>
unary("expand_dims", lambda x: hg.expand_dims(x, (0, -1)), "complex64")

# CHECK-LABEL: TEST: squeeze bool[1,3,1]
# CHECK: stablehlo.reshape %arg0 : (tensor<1x3x1xi1>) -> tensor<3xi1>
unary("squeeze", hg.squeeze, "bool", (1, 3, 1))


# CHECK-LABEL: TEST: concatenate float32[2,3]
# CHECK: stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
def concatenate():
    x, y = hg.tensor("x", (2, 3), "float32"), hg.tensor("y", (2, 1), "float32")
    print_ir("concatenate", hg.Graph([x, y], hg.concatenate([x, y], axis=-1)))


concatenate()


# CHECK-LABEL: TEST: concatenate_promote int8[3]
# CHECK: stablehlo.convert %arg0 : (tensor<3xi8>) -> tensor<3xf32>
# CHECK: stablehlo.concatenate {{.*}}, dim = 0 : (tensor<3xf32>, tensor<2xf32>) -> tensor<5xf32>
def concatenate_promote():
    x, y = hg.tensor("x", (3,), "int8"), hg.tensor("y", (2,), "float32")
    print_ir("concatenate_promote", hg.Graph([x, y], hg.concatenate([x, y])))


concatenate_promote()


# CHECK-LABEL: TEST: stack int32[2]
# CHECK-DAG: %[[A:.+]] = stablehlo.reshape %arg0 : (tensor<2xi32>) -> tensor<2x1xi32>
# CHECK-DAG: %[[B:.+]] = stablehlo.reshape %arg1 : (tensor<2xi32>) -> tensor<2x1xi32>
# CHECK: stablehlo.concatenate %[[A]], %[[B]], dim = 1 : {{.*}} -> tensor<2x2xi32>
def stack():
    x, y = hg.tensor("x", (2,), "int32"), hg.tensor("y", (2,), "int32")
    print_ir("stack", hg.Graph([x, y], hg.stack([x, y], axis=1)))


stack()

# CHECK-LABEL: TEST: zeros
# CHECK: stablehlo.constant dense<0.000000e+00> : tensor<2x3xf64>
nullary("zeros", lambda: hg.zeros((2, 3)))

# CHECK-LABEL: TEST: full_int8
# CHECK: stablehlo.constant dense<-7> : tensor<4xi8>
nullary("full_int8", lambda: hg.full(4, -7, "int8"))

# CHECK-LABEL: TEST: full_scalar_input float32[]
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
unary("full_scalar_input", lambda s: hg.full((2, 2), s), shape=())

# CHECK-LABEL: TEST: ones_like uint8[2,3]
# CHECK: stablehlo.constant dense<1> : tensor<2x3xui8>
unary("ones_like", hg.ones_like, "uint8")

# CHECK-LABEL: TEST: arange_int
# CHECK: stablehlo.iota dim = 0 : tensor<5xi64>
# CHECK-NOT: stablehlo.multiply
nullary("arange_int", lambda: hg.arange(5))

# CHECK-LABEL: TEST: arange_int_step
# CHECK: %[[I:.+]] = stablehlo.iota dim = 0 : tensor<4xi16>
# CHECK: %[[M:.+]] = stablehlo.multiply %[[I]], {{.*}} : tensor<4xi16>
# CHECK: stablehlo.add %[[M]], {{.*}} : tensor<4xi16>
nullary("arange_int_step", lambda: hg.arange(10, 0, -3, dtype="int16"))

# A step with few significant bits: i * step is exact, one multiply and one add.
# CHECK-LABEL: TEST: arange_float_exact_step
# CHECK: %[[I:.+]] = stablehlo.iota dim = 0 : tensor<6xf64>
# CHECK: %[[M:.+]] = stablehlo.multiply %[[I]], {{.*}} : tensor<6xf64>
# CHECK: stablehlo.add %[[M]], {{.*}} : tensor<6xf64>
nullary("arange_float_exact_step", lambda: hg.arange(1.0, 4.0, 0.5))

# float32 with an inexact step: the product is an exact integer rounded once by convert.
# CHECK-LABEL: TEST: arange_float32
# CHECK: %[[I:.+]] = stablehlo.iota dim = 0 : tensor<7xi64>
# CHECK: %[[M:.+]] = stablehlo.multiply %[[I]], {{.*}} : tensor<7xi64>
# CHECK: %[[F:.+]] = stablehlo.convert %[[M]] : (tensor<7xi64>) -> tensor<7xf32>
# CHECK: %[[P:.+]] = stablehlo.multiply %[[F]], {{.*}} : tensor<7xf32>
# CHECK: stablehlo.add %[[P]], {{.*}} : tensor<7xf32>
nullary("arange_float32", lambda: hg.arange(0.1, 2.0, 0.3, dtype="float32"))

# float64 with an inexact step: the step is split in two halves whose products are exact.
# CHECK-LABEL: TEST: arange_float64
# CHECK: %[[I:.+]] = stablehlo.iota dim = 0 : tensor<10xf64>
# CHECK-DAG: %[[HI:.+]] = stablehlo.multiply %[[I]], {{.*}} : tensor<10xf64>
# CHECK-DAG: %[[LO:.+]] = stablehlo.multiply %[[I]], {{.*}} : tensor<10xf64>
# CHECK: %[[P:.+]] = stablehlo.add %[[HI]], %[[LO]] : tensor<10xf64>
# CHECK: stablehlo.add %[[P]], {{.*}} : tensor<10xf64>
nullary("arange_float64", lambda: hg.arange(0.5, 1.5, 0.1))

# CHECK-LABEL: TEST: arange_float16
# CHECK: stablehlo.iota dim = 0 : tensor<5xf32>
# CHECK: stablehlo.convert {{.*}} : (tensor<5xf32>) -> tensor<5xf16>
nullary("arange_float16", lambda: hg.arange(0, 2.5, 0.5, dtype="float16"))

# CHECK-LABEL: TEST: arange_short
# CHECK: stablehlo.constant dense<[3.000000e+00, 5.500000e+00]> : tensor<2xf64>
# CHECK-NOT: stablehlo.iota
nullary("arange_short", lambda: hg.arange(3.0, 6.0, 2.5))

# CHECK-LABEL: TEST: eye
# CHECK-DAG: %[[R:.+]] = stablehlo.iota dim = 0 : tensor<3x4xi64>
# CHECK-DAG: %[[C:.+]] = stablehlo.iota dim = 1 : tensor<3x4xi64>
# CHECK: %[[K:.+]] = stablehlo.add %[[R]], {{.*}} : tensor<3x4xi64>
# CHECK: %[[EQ:.+]] = stablehlo.compare EQ, %[[K]], %[[C]], SIGNED
# CHECK: stablehlo.convert %[[EQ]] : (tensor<3x4xi1>) -> tensor<3x4xf32>
nullary("eye", lambda: hg.eye(3, 4, k=1, dtype="float32"))

# CHECK-LABEL: TEST: eye_off_matrix
# CHECK: stablehlo.constant dense<0> : tensor<2x2xi32>
# CHECK-NOT: stablehlo.iota
nullary("eye_off_matrix", lambda: hg.eye(2, k=5, dtype="int32"))
