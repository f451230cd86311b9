// RUN: hlograph-opt %s -p hlograph-fold-reductions --split-input-file | filecheck %s

// CHECK-LABEL: func.func @sum_of_splat_float(
func.func @sum_of_splat_float() -> tensor<f32> {
  // 12 * 1.5: every partial sum is exact
  // CHECK-NOT: stablehlo.reduce
  // CHECK: %[[C:.+]] = stablehlo.constant dense<1.800000e+01> : tensor<f32>
  // CHECK: return %[[C]]
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @sum_of_splat_float_that_rounds_no_match(
func.func @sum_of_splat_float_that_rounds_no_match() -> tensor<f32> {
  // 0.1 + 0.1 + 0.1 rounds differently in different orders
  // CHECK: stablehlo.reduce
  %c = stablehlo.constant dense<0.1> : tensor<4x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @sum_of_splat_int_wraps(
func.func @sum_of_splat_int_wraps() -> tensor<3xi8> {
  // 3 + 4 * 100 = 403 = 147 (mod 256) = -109
  // CHECK: %[[C:.+]] = stablehlo.constant dense<-109> : tensor<3xi8>
  // CHECK: return %[[C]]
  %c = stablehlo.constant dense<100> : tensor<i8>
  %i = stablehlo.constant dense<3> : tensor<i8>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<4x3xi8>
  %r = stablehlo.reduce(%b init: %i) applies stablehlo.add across dimensions = [0] : (tensor<4x3xi8>, tensor<i8>) -> tensor<3xi8>
  return %r : tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @max_of_splat(
func.func @max_of_splat() -> tensor<4xf32> {
  // CHECK: %[[C:.+]] = stablehlo.constant dense<2.500000e+00> : tensor<4xf32>
  // CHECK: return %[[C]]
  %c = stablehlo.constant dense<2.5> : tensor<4x1000xf32>
  %i = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%c init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<4x1000xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sum_over_broadcast_dims(
func.func @sum_over_broadcast_dims(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK-NOT: stablehlo.reduce
  // CHECK: %[[K:.+]] = stablehlo.constant dense<20> : tensor<3xi32>
  // CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %[[K]] : tensor<3xi32>
  // CHECK: return %[[M]]
  %z = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.broadcast_in_dim %x, dims = [2] : (tensor<3xi32>) -> tensor<4x5x3xi32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5x3xi32>, tensor<i32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @sum_over_broadcast_dims_with_init(
func.func @sum_over_broadcast_dims_with_init(%x: tensor<1x3xi32>, %i: tensor<i32>) -> tensor<3x2xi32> {
  // the size-1 dim of x is reduced too; the result is x broadcast along the kept dim
  // CHECK: %[[R:.+]] = stablehlo.reshape %arg0 : (tensor<1x3xi32>) -> tensor<3xi32>
  // CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %[[R]], dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
  // CHECK: %[[M:.+]] = stablehlo.multiply %[[B]], {{.*}} : tensor<3x2xi32>
  // CHECK: %[[I:.+]] = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
  // CHECK: %[[S:.+]] = stablehlo.add %[[M]], %[[I]]
  // CHECK: return %[[S]]
  %b = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<4x3x2xi32>
  %r = stablehlo.reduce(%b init: %i) applies stablehlo.add across dimensions = [0] : (tensor<4x3x2xi32>, tensor<i32>) -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @max_over_broadcast_dims_float(
func.func @max_over_broadcast_dims_float(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.reduce
  // CHECK: return %arg0
  %i = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %r = stablehlo.reduce(%b init: %i) applies stablehlo.maximum across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @float_sum_over_broadcast_dims_no_match(
func.func @float_sum_over_broadcast_dims_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // x + x + x is not 3 * x
  // CHECK: stablehlo.reduce
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @sum_over_a_real_dim_no_match(
func.func @sum_over_a_real_dim_no_match(%x: tensor<3xi32>) -> tensor<4xi32> {
  // CHECK: stablehlo.reduce
  %z = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xi32>) -> tensor<4x3xi32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x3xi32>, tensor<i32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
