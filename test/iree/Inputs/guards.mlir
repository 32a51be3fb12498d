#id = affine_map<(d0) -> (d0)>
util.func public @step(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %r = tensor.expand_shape %a [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"], remat.clone = 1 : i64} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %b2 = tensor.collapse_shape %r [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%b2, %b : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %y = arith.addf %in, %in2 : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  util.return %s, %a : tensor<4xf32>, tensor<4xf32>
}
