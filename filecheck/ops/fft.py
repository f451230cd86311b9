# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import fft as ff
import hlograph.lowering.rules.fft  # noqa: F401
from hlograph.testing import print_ir


def unary(name, fn, dtype, shape):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# trailing axis, no resizing, "backward": the bare stablehlo.fft
# CHECK-LABEL: TEST: fft_trailing complex64[3,8]
# CHECK-NOT: stablehlo.transpose
# CHECK: stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
# CHECK-NOT: stablehlo.multiply
# CHECK: return
unary("fft_trailing", ff.FFT((1,), (8,)), "complex64", (3, 8))

# a middle axis moved last and back, zero-padded from 6 to 8 points, scaled by 1/sqrt(8)
# CHECK-LABEL: TEST: fft_moved_padded_ortho complex64[4,6,5]
# CHECK: stablehlo.transpose %arg0, dims = [0, 2, 1] {{.*}} -> tensor<4x5x6xcomplex<f32>>
# CHECK: %[[ZERO:.+]] = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
# CHECK: stablehlo.pad %{{.+}}, %[[ZERO]], low = [0, 0, 0], high = [0, 0, 2], interior = [0, 0, 0] {{.*}} -> tensor<4x5x8xcomplex<f32>>
# CHECK: %[[Y:.+]] = stablehlo.fft %{{.+}}, type = FFT, length = [8]
# CHECK: %[[S:.+]] = stablehlo.constant dense<(0.353553385,0.000000e+00)> : tensor<4x5x8xcomplex<f32>>
# CHECK: stablehlo.multiply %[[Y]], %[[S]]
# CHECK: stablehlo.transpose %{{.+}}, dims = [0, 2, 1] {{.*}} -> tensor<4x8x5xcomplex<f32>>
unary("fft_moved_padded_ortho", ff.FFT((1,), (8,), "ortho"), "complex64", (4, 6, 5))

# IFFT is normalized by stablehlo.fft itself ("backward"); "forward" multiplies by n
# CHECK-LABEL: TEST: ifft_cropped_forward complex128[2,9]
# CHECK: stablehlo.slice %arg0 [0:2, 0:4] {{.*}} -> tensor<2x4xcomplex<f64>>
# CHECK: stablehlo.fft %{{.+}}, type = IFFT, length = [4]
# CHECK: stablehlo.constant dense<(4.000000e+00,0.000000e+00)> : tensor<2x4xcomplex<f64>>
# CHECK: stablehlo.multiply
unary("ifft_cropped_forward", ff.IFFT((1,), (4,), "forward"), "complex128", (2, 9))

# CHECK-LABEL: TEST: ifft_backward complex64[5]
# CHECK: stablehlo.fft %arg0, type = IFFT, length = [5]
# CHECK-NOT: stablehlo.multiply
# CHECK: return
unary("ifft_backward", ff.IFFT((0,), (5,)), "complex64", (5,))

# RFFT over two axes, "forward": 1/(4*6)
# CHECK-LABEL: TEST: rfft2_forward float32[3,4,6]
# CHECK-NOT: stablehlo.transpose
# CHECK: stablehlo.fft %arg0, type = RFFT, length = [4, 6] : (tensor<3x4x6xf32>) -> tensor<3x4x4xcomplex<f32>>
# CHECK: stablehlo.constant dense<(0.0416666679,0.000000e+00)> : tensor<3x4x4xcomplex<f32>>
# CHECK: stablehlo.multiply
unary("rfft2_forward", ff.RFFT((1, 2), (4, 6), "forward"), "float32", (3, 4, 6))

# IRFFT with axes (2, 0): axis 0 is the halved one, moved last; its 4 bins cropped to
# 3 // 2 + 1 = 2, axis 2 padded from 5 to 7; "forward" multiplies by 7 * 3
# CHECK-LABEL: TEST: irfft_axes_forward complex128[4,6,5]
# CHECK: stablehlo.transpose %arg0, dims = [1, 2, 0] {{.*}} -> tensor<6x5x4xcomplex<f64>>
# CHECK: stablehlo.slice %{{.+}} [0:6, 0:5, 0:2]
# CHECK: stablehlo.pad %{{.+}}, %{{.+}}, low = [0, 0, 0], high = [0, 2, 0], interior = [0, 0, 0] {{.*}} -> tensor<6x7x2xcomplex<f64>>
# CHECK: stablehlo.fft %{{.+}}, type = IRFFT, length = [7, 3] : (tensor<6x7x2xcomplex<f64>>) -> tensor<6x7x3xf64>
# CHECK: stablehlo.constant dense<2.100000e+01> : tensor<6x7x3xf64>
# CHECK: stablehlo.multiply
# CHECK: stablehlo.transpose %{{.+}}, dims = [2, 0, 1] {{.*}} -> tensor<3x6x7xf64>
unary("irfft_axes_forward", ff.IRFFT((2, 0), (7, 3), "forward"), "complex128", (4, 6, 5))

# the NumPy namespace: float32 -> complex64, then one RFFT
# CHECK-LABEL: TEST: np_rfft float32[4,6]
# CHECK: stablehlo.fft %arg0, type = RFFT, length = [6] : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
unary("np_rfft", hg.fft.rfft, "float32", (4, 6))

# int inputs convert to complex128; four axes make two transforms (3 + 1 axes)
# CHECK-LABEL: TEST: np_fftn_4d int32[2,3,2,4]
# CHECK: stablehlo.convert %arg0 {{.*}} -> tensor<2x3x2x4xcomplex<f64>>
# CHECK-NOT: stablehlo.transpose
# CHECK: stablehlo.fft %{{.+}}, type = FFT, length = [3, 2, 4]
# CHECK: stablehlo.transpose %{{.+}}, dims = [1, 2, 3, 0]
# CHECK: stablehlo.fft %{{.+}}, type = FFT, length = [2]
# CHECK: stablehlo.transpose %{{.+}}, dims = [3, 0, 1, 2]
unary("np_fftn_4d", hg.fft.fftn, "int32", (2, 3, 2, 4))
