// A returned value computed early from an argument, then a larger step
// (test/remat-opt/lower-bound-moves.test).
func.func @step(%w: tensor<1024xf32>, %x: tensor<4096xf32>) -> (tensor<1024xf32>, tensor<f32>) {
  %e0 = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%w : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4096xf32>) outs(%e1 : tensor<4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4096xf32>
  %c0 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%y : tensor<4096xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r, %s : tensor<1024xf32>, tensor<f32>
}
