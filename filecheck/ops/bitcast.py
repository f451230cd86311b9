# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def unary(name, fn, dtype, shape):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# one width: NumPy's view, the bare stablehlo.bitcast_convert
# CHECK-LABEL: TEST: bitcast_same_width float32[3,4]
# CHECK: stablehlo.bitcast_convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xui32>
# CHECK-NEXT: return
unary("bitcast_same_width", lambda x: hg.bitcast(x, "uint32"), "float32", (3, 4))

# wider -> narrower adds a trailing dim of the bytes
# CHECK-LABEL: TEST: bitcast_to_narrower float64[5]
# CHECK: stablehlo.bitcast_convert %arg0 : (tensor<5xf64>) -> tensor<5x4xbf16>
# CHECK-NEXT: return
unary("bitcast_to_narrower", lambda x: hg.bitcast(x, "bfloat16"), "float64", (5,))

# narrower -> wider consumes the trailing dim
# CHECK-LABEL: TEST: bitcast_to_wider uint8[2,8]
# CHECK: stablehlo.bitcast_convert %arg0 : (tensor<2x8xui8>) -> tensor<2xi64>
# CHECK-NEXT: return
unary("bitcast_to_wider", lambda x: hg.bitcast(x, "int64"), "uint8", (2, 8))

# bool is a byte of 0 or 1: through uint8 one way, a compare with 0 the other
# CHECK-LABEL: TEST: bitcast_from_bool bool[4]
# CHECK: stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xui8>
# CHECK-NEXT: stablehlo.bitcast_convert %{{.+}} : (tensor<4xui8>) -> tensor<4xi8>
unary("bitcast_from_bool", lambda x: hg.bitcast(x, "int8"), "bool", (4,))

# CHECK-LABEL: TEST: bitcast_to_bool uint8[4]
# CHECK: stablehlo.compare NE, %arg0, %{{.+}}
# CHECK-NOT: bitcast_convert
# CHECK: return
unary("bitcast_to_bool", lambda x: hg.bitcast(x, "bool"), "uint8", (4,))

# x.view(dtype) of another width: the last axis changes size (a reshape beside the bitcast)
# CHECK-LABEL: TEST: view_to_narrower float32[2,3]
# CHECK: stablehlo.bitcast_convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3x2xui16>
# CHECK: stablehlo.reshape %{{.+}} : (tensor<2x3x2xui16>) -> tensor<2x6xui16>
unary("view_to_narrower", lambda x: x.view("uint16"), "float32", (2, 3))
