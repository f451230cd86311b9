# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def index(name, idx, dtype="float32", shape=(4, 5)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], x[idx]))


# CHECK-LABEL: TEST: getitem_int float32[4,5]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [1:2, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
# CHECK: stablehlo.reshape %[[S]] : (tensor<1x5xf32>) -> tensor<5xf32>
index("getitem_int", 1)

# CHECK-LABEL: TEST: getitem_negative_int int8[4,5]
# CHECK: stablehlo.slice %arg0 [0:4, 4:5] : (tensor<4x5xi8>) -> tensor<4x1xi8>
# CHECK: stablehlo.reshape {{.*}} -> tensor<4xi8>
index("getitem_negative_int", (slice(None), -1), "int8")

# CHECK-LABEL: TEST: getitem_strided float32[4,5]
# CHECK: stablehlo.slice %arg0 [1:4:2, 0:5] : (tensor<4x5xf32>) -> tensor<2x5xf32>
# CHECK-NOT: stablehlo.reshape
index("getitem_strided", slice(1, None, 2))

# A negative step slices the same elements in ascending order, then reverses.
# CHECK-LABEL: TEST: getitem_negative_step complex128[4,5]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [0:4, 0:5:2] : (tensor<4x5xcomplex<f64>>) -> tensor<4x3xcomplex<f64>>
# CHECK: stablehlo.reverse %[[S]], dims = [1] : tensor<4x3xcomplex<f64>>
index("getitem_negative_step", (Ellipsis, slice(None, None, -2)), "complex128")

# CHECK-LABEL: TEST: getitem_reverse float32[4,5]
# CHECK-NOT: stablehlo.slice
# CHECK: stablehlo.reverse %arg0, dims = [0] : tensor<4x5xf32>
index("getitem_reverse", slice(None, None, -1))

# CHECK-LABEL: TEST: getitem_newaxis bool[4,5]
# CHECK-NOT: stablehlo.slice
# CHECK: stablehlo.reshape %arg0 : (tensor<4x5xi1>) -> tensor<1x4x1x5xi1>
index("getitem_newaxis", (None, slice(None), None), "bool")

# CHECK-LABEL: TEST: getitem_empty float32[4,5]
# CHECK: stablehlo.slice %arg0 [0:0, 0:5] : (tensor<4x5xf32>) -> tensor<0x5xf32>
index("getitem_empty", slice(3, 1))

# CHECK-LABEL: TEST: getitem_scalar float64[4,5]
# CHECK: stablehlo.slice %arg0 [3:4, 2:3]
# CHECK: stablehlo.reshape {{.*}} : (tensor<1x1xf64>) -> tensor<f64>
index("getitem_scalar", (-1, 2), "float64")
