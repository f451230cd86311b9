# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import conv
import hlograph.lowering.rules.conv  # noqa: F401
from hlograph.testing import print_ir


def case(name, fn, ashape, bshape, dtype="float32"):
    a, b = hg.tensor("a", ashape, dtype), hg.tensor("b", bshape, dtype)
    print_ir(name, hg.Graph([a, b], fn(a, b)))


# CHECK-LABEL: TEST: conv_nchw float32[1,2,6,5]
# CHECK: stablehlo.convolution(%arg0, %arg1)
# CHECK-SAME: dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]
# CHECK-SAME: window = {stride = [2, 1], pad = {{\[\[}}0, 1], [1, 1]]
# CHECK-SAME: (tensor<1x2x6x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x5xf32>
case("conv_nchw", lambda a, b: conv.conv_general_dilated(a, b, (2, 1), "SAME"), (1, 2, 6, 5), (3, 2, 3, 3))

# CHECK-LABEL: TEST: conv_nhwc float64[2,5,6,4]
# CHECK: stablehlo.convolution(%arg0, %arg1)
# CHECK-SAME: dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
# CHECK-SAME: rhs_dilate = [2, 1]
# CHECK-SAME: -> tensor<2x3x5x3xf64>
case("conv_nhwc", lambda a, b: conv.conv_general_dilated(
    a, b, rhs_dilation=(2, 1), dimension_numbers=("NHWC", "HWIO", "NHWC")), (2, 5, 6, 4), (2, 2, 4, 3), "float64")

# CHECK-LABEL: TEST: conv_grouped float32[1,4,7]
# CHECK: stablehlo.convolution(%arg0, %arg1)
# CHECK-SAME: lhs_dilate = [2]
# CHECK-SAME: feature_group_count = 2
# CHECK-SAME: (tensor<1x4x7xf32>, tensor<6x2x3xf32>) -> tensor<1x6x11xf32>
case("conv_grouped", lambda a, b: conv.conv_general_dilated(
    a, b, padding=((0, 0),), lhs_dilation=(2,), feature_group_count=2), (1, 4, 7), (6, 2, 3))

# CHECK-LABEL: TEST: conv_float16 float16[1,2,5]
# CHECK: %[[A:.+]] = stablehlo.convert %arg0 : (tensor<1x2x5xf16>) -> tensor<1x2x5xf32>
# CHECK: %[[C:.+]] = stablehlo.convolution
# CHECK-SAME: -> tensor<1x3x4xf32>
# CHECK: stablehlo.convert %[[C]] : (tensor<1x3x4xf32>) -> tensor<1x3x4xf16>
case("conv_float16", conv.conv_general_dilated, (1, 2, 5), (3, 2, 2), "float16")

# numpy.convolve flips the kernel and pads for mode 'full'
# CHECK-LABEL: TEST: convolve_full float64[5]
# CHECK: %[[V:.+]] = stablehlo.reverse %arg1, dims = [0] : tensor<3xf64>
# CHECK: %[[K:.+]] = stablehlo.reshape %[[V]] : (tensor<3xf64>) -> tensor<1x1x3xf64>
# CHECK: stablehlo.convolution(%{{.+}}, %[[K]])
# CHECK-SAME: pad = {{\[\[}}2, 2]]
# CHECK-SAME: (tensor<1x1x5xf64>, tensor<1x1x3xf64>) -> tensor<1x1x7xf64>
# CHECK: stablehlo.reshape %{{.+}} : (tensor<1x1x7xf64>) -> tensor<7xf64>
case("convolve_full", conv.convolve, (5,), (3,), "float64")

# CHECK-LABEL: TEST: conv_batch_groups float32[4,2,5]
# CHECK: stablehlo.convolution(%arg0, %arg1)
# CHECK-SAME: batch_group_count = 2
# CHECK-SAME: (tensor<4x2x5xf32>, tensor<6x2x2xf32>) -> tensor<2x6x4xf32>
case("conv_batch_groups", lambda a, b: conv.conv_general_dilated(a, b, batch_group_count=2), (4, 2, 5), (6, 2, 2))

# the strides of a transposed convolution become lhs dilation
# CHECK-LABEL: TEST: conv_transpose float32[1,4,5,2]
# CHECK: stablehlo.convolution(%arg0, %arg1)
# CHECK-SAME: dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
# CHECK-SAME: window = {stride = [1, 1], pad = {{\[\[}}2, 1], [1, 1]], lhs_dilate = [2, 1]
# CHECK-SAME: (tensor<1x4x5x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x8x5x3xf32>
case("conv_transpose", lambda a, b: conv.conv_transpose(a, b, (2, 1), "SAME"), (1, 4, 5, 2), (3, 3, 2, 3))

# transpose_kernel flips the kernel's spatial dims and swaps its feature dims
# CHECK-LABEL: TEST: conv_transpose_kernel float32[1,2,6]
# CHECK: %[[R:.+]] = stablehlo.reverse %arg1, dims = [2] : tensor<2x3x3xf32>
# CHECK: %[[T:.+]] = stablehlo.transpose %[[R]], dims = [1, 0, 2] : (tensor<2x3x3xf32>) -> tensor<3x2x3xf32>
# CHECK: stablehlo.convolution(%arg0, %[[T]])
# CHECK-SAME: lhs_dilate = [2]
# CHECK-SAME: -> tensor<1x3x13xf32>
case("conv_transpose_kernel", lambda a, b: conv.conv_transpose(
    a, b, (2,), "VALID", dimension_numbers=("NCH", "OIH", "NCH"), transpose_kernel=True), (1, 2, 6), (2, 3, 3))
