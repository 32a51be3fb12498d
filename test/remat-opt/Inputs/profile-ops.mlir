// A matmul (flops), then a transpose and a broadcast (no flops, only bytes moved):
// the three kinds of op whose costs the profiles rank differently (profile-flops.test).
func.func @step(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> (tensor<64x16xf32>, tensor<16x64xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %et = tensor.empty() : tensor<64x16xf32>
  %t = linalg.transpose ins(%y : tensor<16x64xf32>) outs(%et : tensor<64x16xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<16x64xf32>
  %bb = linalg.broadcast ins(%b : tensor<64xf32>) outs(%eb : tensor<16x64xf32>) dimensions = [0]
  return %t, %bb : tensor<64x16xf32>, tensor<16x64xf32>
}
