// A small step used by several remat-run tests: out = relu(x @ w) summed, and x @ w.
func.func @small(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<f32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %es = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%mm : tensor<4x4xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    %t = arith.addf %r, %o : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %s, %mm : tensor<f32>, tensor<4x4xf32>
}
