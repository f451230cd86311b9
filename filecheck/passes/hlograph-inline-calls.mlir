// RUN: hlograph-opt %s -p hlograph-inline-calls --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p hlograph-inline-calls,symbol-dce --split-input-file | filecheck %s --check-prefix=DCE

// CHECK-LABEL: func.func public @called_once(
func.func public @called_once(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %arg0, %arg0
  // CHECK-NEXT: return %[[A]]
  // The callee stays (other ops may refer to it): symbol-dce drops it.
  // CHECK: func.func private @double(
  // DCE-LABEL: func.func public @called_once(
  // DCE-NOT: @double
  %0 = call @double(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @double(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func public @called_twice(
func.func public @called_twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NEXT: %[[A:.+]] = stablehlo.multiply %arg0, %arg0
  // CHECK-NEXT: %[[B:.+]] = stablehlo.multiply %[[A]], %[[A]]
  // CHECK-NEXT: return %[[B]]
  // CHECK-NOT: call @
  %0 = call @square(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = call @square(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func private @square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func public @nested_calls(
func.func public @nested_calls(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  // CHECK-NEXT: %[[E:.+]] = stablehlo.exponential %arg0
  // CHECK-NEXT: %[[C:.+]] = stablehlo.convert %[[E]]
  // CHECK-NEXT: return %[[E]], %[[C]]
  // CHECK-NOT: call @
  %0:2 = call @outer(%x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}
func.func private @outer(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0 = call @inner(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.convert %0 : (tensor<3xf32>) -> tensor<3xi32>
  return %0, %1 : tensor<3xf32>, tensor<3xi32>
}
func.func private @inner(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.exponential %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func public @call_in_loop_body(
func.func public @call_in_loop_body(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: do {
  // CHECK: %[[M:.+]] = stablehlo.multiply %iterArg
  // CHECK-NEXT: stablehlo.return %[[M]]
  // CHECK-NOT: call @
  %0 = stablehlo.while(%it = %x) : tensor<f32>
    cond {
      %c = stablehlo.constant dense<1.0e+03> : tensor<f32>
      %p = stablehlo.compare LT, %it, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %n = func.call @step(%it) : (tensor<f32>) -> tensor<f32>
      stablehlo.return %n : tensor<f32>
    }
  return %0 : tensor<f32>
}
func.func private @step(%x: tensor<f32>) -> tensor<f32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.multiply %x, %c : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func public @public_callee_is_kept(
func.func public @public_callee_is_kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NEXT: %[[N:.+]] = stablehlo.negate %arg0
  // CHECK-NEXT: return %[[N]]
  // CHECK: func.func public @helper(
  %0 = call @helper(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func public @helper(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func public @recursive_no_match(
func.func public @recursive_no_match(%x: tensor<i32>) -> tensor<i32> {
  // CHECK: call @rec(%arg0)
  %0 = call @rec(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @rec(%x: tensor<i32>) -> tensor<i32> {
  %0 = call @rec(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func public @declaration_no_match(
func.func public @declaration_no_match(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: call @external(%arg0)
  // CHECK: func.func private @external(tensor<f32>) -> tensor<f32>
  %0 = call @external(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @external(tensor<f32>) -> tensor<f32>

// -----

// CHECK-LABEL: func.func public @callee_referenced_by_custom_call(
// DCE-LABEL: func.func public @callee_referenced_by_custom_call(
func.func public @callee_referenced_by_custom_call(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK-NOT: call @body
  // CHECK: stablehlo.cosine %arg0
  // DCE: func.func private @body(
  %0 = call @body(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.custom_call @host_callback(%x) {called_computations = [@body]} : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func private @body(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.cosine %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
