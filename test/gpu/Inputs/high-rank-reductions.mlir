// Reductions over rank 10 and 12 tensors with 2 outputs: the split needs
// one more dim per split (test/gpu/high-rank-reductions.test).
func.func @rank12(%a: tensor<2x2x2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%a : tensor<2x2x2x2x2x2x2x2x2x2x2x2xf32>) outs(%f : tensor<2xf32>) dimensions = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}
func.func @rank10(%a: tensor<2x2x2x2x2x2x2x2x2x2xf32>) -> tensor<2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%a : tensor<2x2x2x2x2x2x2x2x2x2xf32>) outs(%f : tensor<2xf32>) dimensions = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}
