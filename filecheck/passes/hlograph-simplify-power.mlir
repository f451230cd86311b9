// RUN: hlograph-opt %s -p hlograph-simplify-power --split-input-file | filecheck %s

// CHECK-LABEL: func.func @power_one(
func.func @power_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.power
  // CHECK: return %arg0
  %c = stablehlo.constant dense<1.0> : tensor<3xf32>
  %0 = stablehlo.power %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_zero(
func.func @power_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  // nan ** 0 and 0 ** 0 are 1
  // CHECK: %[[C:.+]] = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
  // CHECK: return %[[C]]
  %c = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.power %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_two(
func.func @power_two(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
  // CHECK: return %[[M]]
  %c = stablehlo.constant dense<2.0> : tensor<3xf32>
  %0 = stablehlo.power %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_minus_one(
func.func @power_minus_one(%x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: %[[ONE:.+]] = stablehlo.constant dense<1.000000e+00> : tensor<3xf64>
  // CHECK: %[[D:.+]] = stablehlo.divide %[[ONE]], %arg0 : tensor<3xf64>
  // CHECK: return %[[D]]
  %c = stablehlo.constant dense<-1.0> : tensor<3xf64>
  %0 = stablehlo.power %x, %c : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @power_three_int(
func.func @power_three_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: %[[SQ:.+]] = stablehlo.multiply %arg0, %arg0 : tensor<3xi32>
  // CHECK: %[[CU:.+]] = stablehlo.multiply %[[SQ]], %arg0 : tensor<3xi32>
  // CHECK: return %[[CU]]
  %c = stablehlo.constant dense<3> : tensor<3xi32>
  %0 = stablehlo.power %x, %c : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @power_three_float_no_match(
func.func @power_three_float_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // x * x * x rounds twice, pow once
  // CHECK: stablehlo.power
  %c = stablehlo.constant dense<3.0> : tensor<3xf32>
  %0 = stablehlo.power %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_minus_one_int_no_match(
func.func @power_minus_one_int_no_match(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: stablehlo.power
  %c = stablehlo.constant dense<-1> : tensor<3xi32>
  %0 = stablehlo.power %x, %c : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @power_half_of_abs(
func.func @power_half_of_abs(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[A:.+]] = stablehlo.abs %arg0
  // CHECK: %[[S:.+]] = stablehlo.sqrt %[[A]] : tensor<3xf32>
  // CHECK: return %[[S]]
  %a = stablehlo.abs %x : tensor<3xf32>
  %c = stablehlo.constant dense<0.5> : tensor<3xf32>
  %0 = stablehlo.power %a, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_half_no_match(
func.func @power_half_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // (-0.0) ** 0.5 is +0.0, sqrt(-0.0) is -0.0
  // CHECK: stablehlo.power
  %c = stablehlo.constant dense<0.5> : tensor<3xf32>
  %0 = stablehlo.power %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @power_complex_no_match(
func.func @power_complex_no_match(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  // CHECK: stablehlo.power
  %c = stablehlo.constant dense<(2.0, 0.0)> : tensor<3xcomplex<f32>>
  %0 = stablehlo.power %x, %c : tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
