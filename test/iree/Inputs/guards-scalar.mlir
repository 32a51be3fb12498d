#id = affine_map<(d0, d1) -> (d0, d1)>
util.func public @step(%seed: tensor<i64>, %x: tensor<2x4xf32>) -> (tensor<2x4xf32>) {
  %c7 = arith.constant 7 : i64
  %s0 = tensor.extract %seed[] : tensor<i64>
  %s = arith.muli %s0, %c7 : i64
  %e = tensor.empty() : tensor<2x4xf32>
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %h = arith.xori %ii, %s : i64
    %f = arith.uitofp %h : i64 to f32
    linalg.yield %f : f32
  } -> tensor<2x4xf32>
  %iota = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.uitofp %ii : i64 to f32
    linalg.yield %f : f32
  } -> tensor<2x4xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %iota, %x : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %y = arith.mulf %a, %c : f32
    %z = arith.addf %y, %b : f32
    linalg.yield %z : f32
  } -> tensor<2x4xf32>
  %e2 = tensor.empty() {remat.clone = 1 : i64} : tensor<2x4xf32>
  %mask2 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e2 : tensor<2x4xf32>) attrs = {remat.clone = 2 : i64} {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %h = arith.xori %ii, %s : i64
    %f = arith.uitofp %h : i64 to f32
    linalg.yield %f : f32
  } -> tensor<2x4xf32>
  %e3 = tensor.empty() {remat.clone = 3 : i64} : tensor<2x4xf32>
  %iota2 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e3 : tensor<2x4xf32>) attrs = {remat.clone = 4 : i64} {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.uitofp %ii : i64 to f32
    linalg.yield %f : f32
  } -> tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%u, %mask2, %iota2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %y = arith.mulf %a, %b : f32
    %z = arith.addf %y, %c : f32
    linalg.yield %z : f32
  } -> tensor<2x4xf32>
  util.return %r : tensor<2x4xf32>
}
