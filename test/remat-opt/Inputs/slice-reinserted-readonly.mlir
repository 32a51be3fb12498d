// A static form of upstream's dominance_violation_bug_1 (Linalg one-shot-bufferize.mlir):
// a non-writable argument sliced, filled and re-inserted. remat's schedule
// simulation of the unchanged function disagrees with its timeline (a bug,
// test/remat-opt/internal-error-exit.test).
func.func @dv(%A : tensor<16x16xf32> {bufferization.writable = false}) -> tensor<16x16xf32> {
  %f0 = arith.constant 0.0 : f32
  %sA = tensor.extract_slice %A[0, 0][8, 8][1, 1] : tensor<16x16xf32> to tensor<8x8xf32>
  %ssA = tensor.extract_slice %sA[0, 0][4, 4][1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %FA = linalg.fill ins(%f0 : f32) outs(%ssA : tensor<4x4xf32>) -> tensor<4x4xf32>
  %rsA = tensor.insert_slice %FA into %sA[0, 0][4, 4][1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  %rA = tensor.insert_slice %rsA into %A[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<16x16xf32>
  return %rA : tensor<16x16xf32>
}
