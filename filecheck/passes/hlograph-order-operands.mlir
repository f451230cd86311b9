// RUN: hlograph-opt %s -p hlograph-order-operands --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p hlograph-order-operands,cse --split-input-file | filecheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @commuted_multiply(
// CSE-LABEL: func.func @commuted_multiply(
func.func @commuted_multiply(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK: %[[M0:.+]] = stablehlo.multiply %arg0, %arg1
  // CHECK: %[[M1:.+]] = stablehlo.multiply %arg0, %arg1
  // CSE: %[[M:.+]] = stablehlo.multiply %arg0, %arg1
  // CSE-NOT: stablehlo.multiply
  // CSE: return %[[M]], %[[M]]
  %0 = stablehlo.multiply %a, %b : tensor<3xf32>
  %1 = stablehlo.multiply %b, %a : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @constant_to_the_right(
func.func @constant_to_the_right(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: %[[C:.+]] = stablehlo.constant
  // CHECK: stablehlo.add %arg0, %[[C]]
  %c = stablehlo.constant dense<7> : tensor<3xi32>
  %0 = stablehlo.add %c, %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @earlier_value_first(
func.func @earlier_value_first(%x: tensor<3xi1>, %y: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>) {
  // CHECK: %[[N:.+]] = stablehlo.not %arg1
  // CHECK: stablehlo.and %arg0, %[[N]]
  // CHECK: stablehlo.compare EQ, %arg0, %[[N]]
  %n = stablehlo.not %y : tensor<3xi1>
  %0 = stablehlo.and %n, %x : tensor<3xi1>
  %1 = stablehlo.compare EQ, %n, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @ordered_ops_no_match(
func.func @ordered_ops_no_match(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi1>) {
  // a float max of -0.0 and +0.0 is its first operand; LT and subtract do not commute
  // CHECK: stablehlo.maximum %arg1, %arg0
  // CHECK: stablehlo.subtract %arg1, %arg0
  // CHECK: stablehlo.compare LT, %arg1, %arg0
  %0 = stablehlo.maximum %b, %a : tensor<3xf32>
  %1 = stablehlo.subtract %b, %a : tensor<3xf32>
  %2 = stablehlo.compare LT, %b, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xi1>
}
