// RUN: not hlograph-run %s 2>&1 | filecheck %s
// RUN: not hlograph-run -O2 %s 2>&1 | filecheck %s

// A failed check names itself and its location, says how far off it is and
// where, and the exit code is 1; the passing check is not reported.
// CHECK-NOT: check #0
// CHECK: check_fail.mlir:[[# @LINE + 12]]:5: error: check #1 (check.expect_eq) failed: 2 of 4 elements differ (max abs difference 3); first mismatch at index [1]: actual 2, expected 5
// CHECK-NEXT: at index [3]: actual 4, expected 1
// CHECK: check_fail.mlir:[[# @LINE + 11]]:5: error: check #2 (check.expect_close, max 3 ULP) failed: 1 of 2 elements differ by more than 3 ULP (max ULP difference 4194304, max abs difference 1); first mismatch at index [1]: actual 2.0, expected 3.0 (4194304 ULP)
// CHECK: check_fail.mlir: 2 of 3 checks failed
// CHECK-NOT: Traceback

func.func @main() -> tensor<4xi32> {
    %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %b = stablehlo.constant dense<[1, 5, 3, 1]> : tensor<4xi32>
    %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %y = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<4xi32>, tensor<4xi32>) -> ()
    stablehlo.custom_call @check.expect_eq(%a, %b) {has_side_effect = true} : (tensor<4xi32>, tensor<4xi32>) -> ()
    stablehlo.custom_call @check.expect_close(%x, %y) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %a : tensor<4xi32>
}
