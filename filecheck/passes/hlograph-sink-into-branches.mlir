// RUN: hlograph-opt %s -p hlograph-sink-into-branches --split-input-file | filecheck %s

// A chain of elementwise consumers moves into every branch of a case.
// CHECK-LABEL: func.func @chain_into_case(
func.func @chain_into_case(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  // CHECK: %[[C:.+]] = "stablehlo.case"(%arg2) ({
  // CHECK-NEXT: %[[S:.+]] = stablehlo.sine %arg0
  // CHECK-NEXT: %[[M:.+]] = stablehlo.multiply %[[S]], %arg1
  // CHECK-NEXT: %[[T:.+]] = stablehlo.tanh %[[M]]
  // CHECK-NEXT: stablehlo.return %[[T]]
  // CHECK: %[[K:.+]] = stablehlo.cosine %arg0
  // CHECK-NEXT: %[[M2:.+]] = stablehlo.multiply %[[K]], %arg1
  // CHECK-NEXT: %[[T2:.+]] = stablehlo.tanh %[[M2]]
  // CHECK-NEXT: stablehlo.return %[[T2]]
  // CHECK: return %[[C]]
  %c = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %s = stablehlo.cosine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %m = stablehlo.multiply %c, %y : tensor<4xf32>
  %t = stablehlo.tanh %m : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// An if, and a consumer reading the result twice.
// CHECK-LABEL: func.func @square_into_if(
func.func @square_into_if(%x: tensor<3xf64>, %p: tensor<i1>) -> tensor<3xf64> {
  // CHECK: "stablehlo.if"(%arg1) ({
  // CHECK-NEXT: %[[E:.+]] = stablehlo.log %arg0
  // CHECK-NEXT: %[[Q:.+]] = stablehlo.multiply %[[E]], %[[E]]
  // CHECK-NEXT: stablehlo.return %[[Q]]
  // CHECK: %[[N:.+]] = stablehlo.negate %arg0
  // CHECK-NEXT: %[[Q2:.+]] = stablehlo.multiply %[[N]], %[[N]]
  // CHECK-NEXT: stablehlo.return %[[Q2]]
  %r = "stablehlo.if"(%p) ({
    %e = stablehlo.log %x : tensor<3xf64>
    stablehlo.return %e : tensor<3xf64>
  }, {
    %n = stablehlo.negate %x : tensor<3xf64>
    stablehlo.return %n : tensor<3xf64>
  }) : (tensor<i1>) -> tensor<3xf64>
  %q = stablehlo.multiply %r, %r : tensor<3xf64>
  return %q : tensor<3xf64>
}

// -----

// Left in place: a result with two users, and a consumer of another result type.
// CHECK-LABEL: func.func @stays(
func.func @stays(%x: tensor<4xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  // CHECK: "stablehlo.case"
  // CHECK: stablehlo.sine
  // CHECK-NEXT: stablehlo.return
  // CHECK: stablehlo.cosine
  // CHECK-NEXT: stablehlo.return
  // CHECK: stablehlo.exponential
  // CHECK: stablehlo.tanh
  // CHECK: "stablehlo.case"
  // CHECK: stablehlo.compare
  %a = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %s = stablehlo.cosine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %e = stablehlo.exponential %a : tensor<4xf32>
  %t = stablehlo.tanh %a : tensor<4xf32>
  %b = "stablehlo.case"(%i) ({
    stablehlo.return %x : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %c = stablehlo.compare GT, %b, %x, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %e, %t, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Left in place: the consumer's other operand is computed after the case.
// CHECK-LABEL: func.func @operand_after(
func.func @operand_after(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  // CHECK: "stablehlo.case"
  // CHECK: stablehlo.sine
  // CHECK-NEXT: stablehlo.return
  // CHECK: }) : (tensor<i32>) -> tensor<4xf32>
  // CHECK-NEXT: stablehlo.exponential
  // CHECK-NEXT: stablehlo.add
  %a = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %e = stablehlo.exponential %x : tensor<4xf32>
  %s2 = stablehlo.add %a, %e : tensor<4xf32>
  return %s2 : tensor<4xf32>
}

// -----

// Left in place: moved in, the product would meet XLA's exp(a) * exp(b) -> exp(a + b)
// (and convert(bool) * y -> select), which the lowering keeps apart.
// CHECK-LABEL: func.func @kept_apart(
func.func @kept_apart(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: "stablehlo.case"
  // CHECK: stablehlo.exponential
  // CHECK-NEXT: stablehlo.return
  // CHECK: stablehlo.multiply
  // CHECK: "stablehlo.case"
  // CHECK: stablehlo.convert
  // CHECK-NEXT: stablehlo.return
  // CHECK: stablehlo.multiply
  %e = "stablehlo.case"(%i) ({
    %v = stablehlo.exponential %x : tensor<4xf32>
    stablehlo.return %v : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %sq = stablehlo.multiply %e, %e : tensor<4xf32>
  %f = "stablehlo.case"(%i) ({
    %v = stablehlo.convert %b : (tensor<4xi1>) -> tensor<4xf32>
    stablehlo.return %v : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %m = stablehlo.multiply %f, %x : tensor<4xf32>
  return %sq, %m : tensor<4xf32>, tensor<4xf32>
}
