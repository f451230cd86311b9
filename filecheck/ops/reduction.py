# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def reduction(name, fn, dtype="float32", shape=(2, 3, 4)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: sum_int8 int8[2,3,4]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3x4xi64>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0, 2]
# CHECK-SAME: -> tensor<3xi64>
reduction("sum_int8", lambda x: hg.sum(x, axis=(0, -1)), "int8")

# CHECK-LABEL: TEST: sum_float16 float16[2,3,4]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3x4xf32>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0, 1, 2]
# CHECK-SAME: -> tensor<f32>
# CHECK: stablehlo.convert {{.*}} -> tensor<f16>
reduction("sum_float16", hg.sum, "float16")

# CHECK-LABEL: TEST: prod_keepdims float64[2,3,4]
# CHECK: %[[R:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.multiply across dimensions = [1]
# CHECK-SAME: -> tensor<2x4xf64>
# CHECK: stablehlo.reshape %[[R]] : (tensor<2x4xf64>) -> tensor<2x1x4xf64>
reduction("prod_keepdims", lambda x: hg.prod(x, axis=1, keepdims=True), "float64")

# CHECK-LABEL: TEST: max float32[2,3,4]
# CHECK: %[[NAN:.+]] = stablehlo.compare NE, %arg0, %arg0, FLOAT
# CHECK: %[[INIT:.+]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK: %[[R:.+]]:2 = stablehlo.reduce(%arg0 init: %[[INIT]]), (%[[NAN]] init: {{.*}}) across dimensions = [2]
# CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xi1>)
# CHECK: stablehlo.maximum
# CHECK: stablehlo.or
# CHECK: stablehlo.select %[[R]]#1, {{.*}}, %[[R]]#0 : tensor<2x3xi1>, tensor<2x3xf32>
reduction("max", lambda x: hg.max(x, axis=-1))

# CHECK-LABEL: TEST: min_uint8 uint8[2,3,4]
# CHECK: %[[INIT:.+]] = stablehlo.constant dense<255> : tensor<ui8>
# CHECK: stablehlo.reduce({{.*}} init: %[[INIT]]) applies stablehlo.minimum across dimensions = [0]
# CHECK-SAME: -> tensor<3x4xui8>
reduction("min_uint8", lambda x: hg.min(x, axis=0), "uint8")

# CHECK-LABEL: TEST: max_complex complex64[2,3,4]
# CHECK: stablehlo.reduce({{.*}}) across dimensions = [2]
# CHECK-SAME: -> tensor<2x3xcomplex<f32>>
# CHECK: stablehlo.select {{.*}} tensor<complex<f32>>
reduction("max_complex", lambda x: hg.max(x, axis=2), "complex64")

# CHECK-LABEL: TEST: mean_int32 int32[2,3,4]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3x4xf64>
# CHECK: %[[S:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1]
# CHECK: %[[N:.+]] = stablehlo.constant dense<3.000000e+00> : tensor<2x4xf64>
# CHECK: stablehlo.divide %[[S]], %[[N]] : tensor<2x4xf64>
reduction("mean_int32", lambda x: hg.mean(x, axis=1), "int32")

# CHECK-LABEL: TEST: all_float32 float32[2,3,4]
# CHECK: stablehlo.compare NE, {{.*}} -> tensor<2x3x4xi1>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.and across dimensions = [0, 1, 2]
# CHECK-SAME: -> tensor<i1>
reduction("all_float32", hg.all)

# CHECK-LABEL: TEST: any_bool bool[2,3,4]
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.or across dimensions = [1]
# CHECK-SAME: -> tensor<2x4xi1>
reduction("any_bool", lambda x: hg.any(x, axis=1), "bool")

# CHECK-LABEL: TEST: argmax float32[2,3,4]
# CHECK: %[[IOTA:.+]] = stablehlo.iota dim = 1 : tensor<2x3x4xi64>
# CHECK: stablehlo.reduce(%arg0 init: {{.*}}), (%[[IOTA]] init: {{.*}}) across dimensions = [1]
# CHECK-SAME: -> (tensor<2x4xf32>, tensor<2x4xi64>)
# CHECK: stablehlo.compare GT
# CHECK: stablehlo.compare NE
# CHECK: stablehlo.compare LT, {{.*}}, SIGNED
# CHECK: stablehlo.return
reduction("argmax", lambda x: hg.argmax(x, axis=-2))

# CHECK-LABEL: TEST: argmin_flat int16[2,3,4]
# CHECK: stablehlo.reshape %arg0 : (tensor<2x3x4xi16>) -> tensor<24xi16>
# CHECK: stablehlo.reduce({{.*}}) across dimensions = [0]
# CHECK-SAME: -> (tensor<i16>, tensor<i64>)
# CHECK: stablehlo.compare LT, {{.*}}, SIGNED
# CHECK: stablehlo.reshape {{.*}} : (tensor<i64>) -> tensor<1x1x1xi64>
reduction("argmin_flat", lambda x: hg.argmin(x, keepdims=True), "int16")

# CHECK-LABEL: TEST: cumsum float32[2,3,4]
# CHECK: "stablehlo.reduce_window"
# CHECK-SAME: padding = dense<{{\[\[}}0, 0], [2, 0], [0, 0]]> : tensor<3x2xi64>
# CHECK-SAME: window_dimensions = array<i64: 1, 3, 1>
# CHECK: stablehlo.add
# CHECK: -> tensor<2x3x4xf32>
reduction("cumsum", lambda x: hg.cumsum(x, axis=1))

# CHECK-LABEL: TEST: cumprod_flat_uint8 uint8[2,2,3]
# CHECK: stablehlo.reshape {{.*}} -> tensor<12xui8>
# CHECK: stablehlo.convert {{.*}} -> tensor<12xui64>
# CHECK: "stablehlo.reduce_window"
# CHECK-SAME: window_dimensions = array<i64: 12>
# CHECK: stablehlo.multiply
# CHECK: -> tensor<12xui64>
reduction("cumprod_flat_uint8", hg.cumprod, "uint8", shape=(2, 2, 3))

# a complex running product starts from the first slice, never from the identity 1
# (1 * (inf + 2j) is inf + nan j): no reduce_window, whose padding would lead
# CHECK-LABEL: TEST: cumprod_complex complex64[2,4]
# CHECK-NOT: reduce_window
# CHECK: %[[T:.+]] = stablehlo.transpose %arg0
# CHECK: %[[FIRST:.+]] = stablehlo.slice %[[T]] [0:1, 0:2]
# CHECK: %[[REST:.+]] = stablehlo.slice %[[T]] [1:4, 0:2]
# CHECK: %[[R0:.+]] = stablehlo.slice %[[REST]] [0:1, 0:2]
# CHECK: stablehlo.multiply %[[FIRST]], %[[R0]]
# CHECK: stablehlo.concatenate %[[FIRST]], %{{.+}}, dim = 0
reduction("cumprod_complex", lambda x: hg.cumprod(x, axis=1), "complex64", shape=(2, 4))

# a complex product over no axes is 1 * x, part by part (1 * (inf + 2j) is inf + nan j)
# CHECK-LABEL: TEST: prod_complex_0d complex64[]
# CHECK-DAG: %[[RE:.+]] = stablehlo.real %arg0
# CHECK-DAG: %[[IM:.+]] = stablehlo.imag %arg0
# CHECK: %[[ONCE:.+]] = stablehlo.complex
# CHECK: stablehlo.reduce(%[[ONCE]] init: {{.*}}) applies stablehlo.multiply across dimensions = []
reduction("prod_complex_0d", hg.prod, "complex64", shape=())

# a complex mean of one element divides by 1 + 0j part by part, as NumPy (XLA takes
# x / 1 for x): a + |b| * 0 + (b + |a| * 0) j
# CHECK-LABEL: TEST: mean_complex_one complex64[2,1]
# CHECK: %[[S:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1]
# CHECK-NOT: stablehlo.divide
# CHECK-DAG: %[[RE:.+]] = stablehlo.real %[[S]]
# CHECK-DAG: %[[IM:.+]] = stablehlo.imag %[[S]]
# CHECK: stablehlo.complex
reduction("mean_complex_one", lambda x: hg.mean(x, axis=1), "complex64", shape=(2, 1))

# CHECK-LABEL: TEST: softmax float32[2,3,4]
# CHECK: %[[M:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.maximum across dimensions = [2]
# CHECK: stablehlo.broadcast_in_dim %[[M]], dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>
# CHECK: %[[E:.+]] = stablehlo.exponential
# CHECK: stablehlo.reduce(%[[E]] init: {{.*}}) applies stablehlo.add across dimensions = [2]
# CHECK: stablehlo.divide %[[E]], {{.*}} : tensor<2x3x4xf32>
reduction("softmax", hg.softmax)

# CHECK-LABEL: TEST: log_softmax float64[2,3,4]
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.maximum across dimensions = [0]
# CHECK: stablehlo.is_finite
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0]
# CHECK: stablehlo.log {{.*}} : tensor<3x4xf64>
# CHECK: stablehlo.subtract {{.*}} : tensor<2x3x4xf64>
reduction("log_softmax", lambda x: hg.log_softmax(x, axis=0), "float64")

# CHECK-LABEL: TEST: logsumexp_bfloat16 bfloat16[2,3,4]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3x4xf32>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.maximum across dimensions = [0, 1]
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0, 1]
# CHECK: stablehlo.log {{.*}} : tensor<4xf32>
# CHECK: stablehlo.convert {{.*}} -> tensor<4xbf16>
reduction("logsumexp_bfloat16", lambda x: hg.logsumexp(x, axis=(0, 1)), "bfloat16")

# CHECK-LABEL: TEST: cumsum_long float32[20,3]
# CHECK: %[[ZERO:.+]] = stablehlo.constant dense<-0.000000e+00> : tensor<1x3xf32>
# CHECK: %[[LOOP:.+]]:3 = stablehlo.while({{.*}} = %{{.+}}, {{.*}} = %[[ZERO]], %[[OUT:.+]] = %arg0) : tensor<i64>, tensor<1x3xf32>, tensor<20x3xf32>
# CHECK: stablehlo.compare LT
# CHECK: do
# CHECK: stablehlo.dynamic_slice %[[OUT]], {{.*}} sizes = [8, 3] : {{.*}} -> tensor<8x3xf32>
# CHECK-COUNT-8: stablehlo.add {{.*}} : tensor<1x3xf32>
# CHECK: %[[ROWS:.+]] = stablehlo.concatenate {{.*}} -> tensor<8x3xf32>
# CHECK: stablehlo.dynamic_update_slice %[[OUT]], %[[ROWS]], {{.*}} -> tensor<20x3xf32>
# CHECK: stablehlo.slice %[[LOOP]]#2 [16:20, 0:3]
# CHECK: stablehlo.add %[[LOOP]]#1, {{.*}} : tensor<1x3xf32>
# CHECK: stablehlo.slice %[[LOOP]]#2 [0:16, 0:3]
# CHECK: stablehlo.concatenate {{.*}} -> tensor<20x3xf32>
reduction("cumsum_long", lambda x: hg.cumsum(x, axis=0), shape=(20, 3))

# CHECK-LABEL: TEST: cummax_int8 int8[2,5]
# CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x5xi8>) -> tensor<5x2xi8>
# CHECK: %[[INIT:.+]] = stablehlo.constant dense<-128> : tensor<1x2xi8>
# CHECK: %[[ROW:.+]] = stablehlo.slice %[[T]] [0:1, 0:2]
# CHECK: stablehlo.maximum %[[INIT]], %[[ROW]] : tensor<1x2xi8>
# CHECK-COUNT-4: stablehlo.maximum
# CHECK: stablehlo.concatenate {{.*}} -> tensor<5x2xi8>
# CHECK: stablehlo.transpose {{.*}} dims = [1, 0] : (tensor<5x2xi8>) -> tensor<2x5xi8>
reduction("cummax_int8", lambda x: hg.cummax(x, axis=-1), "int8", shape=(2, 5))

# CHECK-LABEL: TEST: var_complex64 complex64[2,3,4]
# CHECK: %[[S:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [2]
# CHECK-SAME: -> tensor<2x3xcomplex<f32>>
# CHECK: %[[M:.+]] = stablehlo.divide %[[S]]
# CHECK: stablehlo.broadcast_in_dim %[[M]], dims = [0, 1]
# CHECK: %[[D:.+]] = stablehlo.subtract %arg0
# CHECK: stablehlo.real %[[D]] : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
# CHECK: stablehlo.imag %[[D]]
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [2]
# CHECK-SAME: -> tensor<2x3xf32>
# CHECK: stablehlo.constant dense<3.000000e+00> : tensor<2x3xf32>
reduction("var_complex64", lambda x: hg.var(x, axis=-1, ddof=1), "complex64")

# CHECK-LABEL: TEST: std_int8 int8[2,3,4]
# CHECK: stablehlo.convert {{.*}} -> tensor<2x3x4xf64>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0, 1, 2]
# CHECK: stablehlo.multiply {{.*}} : tensor<2x3x4xf64>
# CHECK: stablehlo.sqrt {{.*}} : tensor<f64>
# CHECK: stablehlo.reshape {{.*}} -> tensor<1x1x1xf64>
reduction("std_int8", lambda x: hg.std(x, keepdims=True), "int8")

# On the CPU a large running reduction is one in-module loop (an XLA FFI call),
# on a [pre, n, post] view of the operand.
# CHECK-LABEL: TEST: cumsum_large_cpu float32[64,32,16]
# CHECK: %[[V:.+]] = stablehlo.reshape %arg0 : (tensor<64x32x16xf32>) -> tensor<64x32x16xf32>
# CHECK: %[[C:.+]] = stablehlo.custom_call @hlograph_cumadd_float32(%[[V]])
# CHECK-SAME: api_version = 4
# CHECK: stablehlo.reshape %[[C]] : (tensor<64x32x16xf32>) -> tensor<64x32x16xf32>
reduction("cumsum_large_cpu", lambda x: hg.cumsum(x, axis=1), shape=(64, 32, 16))

# CHECK-LABEL: TEST: cummax_large_cpu int32[256,256]
# CHECK: stablehlo.reshape %arg0 : (tensor<256x256xi32>) -> tensor<256x256x1xi32>
# CHECK: stablehlo.custom_call @hlograph_cummax_int32
reduction("cummax_large_cpu", lambda x: hg.cummax(x, axis=1), "int32", shape=(256, 256))
