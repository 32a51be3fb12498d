// Three results of three layouts (a rank-1 descriptor, an f32, a rank-2
// descriptor) for test/remat-run/results-out.test.
func.func @step(%x: tensor<4xf32>, %s: f32) -> (tensor<4xf32>, f32, tensor<2x2xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %t = arith.addf %s, %s : f32
  %r = tensor.expand_shape %y [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %y, %t, %r : tensor<4xf32>, f32, tensor<2x2xf32>
}
