// A step with a tm_tensor.scatter (scatter.test plans it at 50%): the
// scatter's 16 KiB table t is used by the first layer and again by the last
// gradient; the layers' activations a1..a6 are kept for the backward part.
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @step(%upd: tensor<16x1x64xf32>, %idx: tensor<16x1xi64>, %x: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = "tm_tensor.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<16x1x64xf32>, tensor<16x1xi64>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %em1 = tensor.empty() : tensor<64x64xf32>
  %a1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %t : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em1 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.mulf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em2 = tensor.empty() : tensor<64x64xf32>
  %a2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a1 : tensor<64x64xf32>) outs(%em2 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %o: f32):
    %m = math.tanh %p0 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em3 = tensor.empty() : tensor<64x64xf32>
  %a3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a2 : tensor<64x64xf32>) outs(%em3 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %o: f32):
    %m = math.tanh %p0 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em4 = tensor.empty() : tensor<64x64xf32>
  %a4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a3 : tensor<64x64xf32>) outs(%em4 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %o: f32):
    %m = math.tanh %p0 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em5 = tensor.empty() : tensor<64x64xf32>
  %a5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a4 : tensor<64x64xf32>) outs(%em5 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %o: f32):
    %m = math.tanh %p0 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em6 = tensor.empty() : tensor<64x64xf32>
  %a6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a5 : tensor<64x64xf32>) outs(%em6 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %o: f32):
    %m = math.tanh %p0 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em7 = tensor.empty() : tensor<64x64xf32>
  %g6 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a6, %a5 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em7 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.mulf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em8 = tensor.empty() : tensor<64x64xf32>
  %g5 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g6, %a4 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em8 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.mulf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em9 = tensor.empty() : tensor<64x64xf32>
  %g4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g5, %a3 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em9 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.addf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em10 = tensor.empty() : tensor<64x64xf32>
  %g3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g4, %a2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em10 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.mulf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em11 = tensor.empty() : tensor<64x64xf32>
  %g2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g3, %a1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em11 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.addf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %em12 = tensor.empty() : tensor<64x64xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g2, %t : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em12 : tensor<64x64xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o: f32):
    %m = arith.addf %p0, %p1 : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %ez = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%cst : f32) outs(%ez : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%a6 : tensor<64x64xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.addf %o, %p : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %loss, %g1 : tensor<f32>, tensor<64x64xf32>
}
