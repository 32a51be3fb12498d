// A static form of upstream MLIR's dominance_violation_bug_1 (test/corpus/mlir-upstream/
// Dialect__Linalg__one-shot-bufferize.mlir): a slice of a non-writable argument
// filled in place and inserted back (One-Shot's matching-subset rule).
func.func @step(%A : tensor<8x8xf32> {bufferization.writable = false}) -> tensor<8x8xf32> {
  %f0 = arith.constant 0.0 : f32
  %sA = tensor.extract_slice %A[0, 0][6, 6][1, 1] : tensor<8x8xf32> to tensor<6x6xf32>
  %ssA = tensor.extract_slice %sA[0, 0][4, 4][1, 1] : tensor<6x6xf32> to tensor<4x4xf32>
  %FA = linalg.fill ins(%f0 : f32) outs(%ssA : tensor<4x4xf32>) -> tensor<4x4xf32>
  %rsA = tensor.insert_slice %FA into %sA[0, 0][4, 4][1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  %rA = tensor.insert_slice %rsA into %A[0, 0][6, 6][1, 1] : tensor<6x6xf32> into tensor<8x8xf32>
  return %rA : tensor<8x8xf32>
}

func.func @writable(%A : tensor<8x8xf32>) -> tensor<8x8xf32> {
  %f0 = arith.constant 0.0 : f32
  %sA = tensor.extract_slice %A[0, 0][6, 6][1, 1] : tensor<8x8xf32> to tensor<6x6xf32>
  %ssA = tensor.extract_slice %sA[0, 0][4, 4][1, 1] : tensor<6x6xf32> to tensor<4x4xf32>
  %FA = linalg.fill ins(%f0 : f32) outs(%ssA : tensor<4x4xf32>) -> tensor<4x4xf32>
  %rsA = tensor.insert_slice %FA into %sA[0, 0][4, 4][1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  %rA = tensor.insert_slice %rsA into %A[0, 0][6, 6][1, 1] : tensor<6x6xf32> into tensor<8x8xf32>
  return %rA : tensor<8x8xf32>
}
