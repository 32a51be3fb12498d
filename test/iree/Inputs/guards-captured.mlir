#id = affine_map<(d0) -> (d0)>
util.func public @step(%w: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>) {
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<4xf32>
  %flip = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %c3, %i : index
    %v = tensor.extract %w[%j] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%flip, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.mulf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() {remat.clone = 1 : i64} : tensor<4xf32>
  %flip2 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e2 : tensor<4xf32>) attrs = {remat.clone = 2 : i64} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %c3, %i : index
    %v = tensor.extract %w[%j] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%u, %flip2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  util.return %s : tensor<4xf32>
}
