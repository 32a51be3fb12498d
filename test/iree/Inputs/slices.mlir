#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @slices(%x: tensor<4x32x96xf32>) -> (tensor<4x32x32xf32>, tensor<1x32x96xf32>, tensor<2x32x96xf32>) {
  %row = tensor.extract_slice %x[1, 0, 0] [1, 32, 96] [1, 1, 1] : tensor<4x32x96xf32> to tensor<1x32x96xf32>
  %rows = tensor.extract_slice %x[2, 0, 0] [2, 32, 96] [1, 1, 1] : tensor<4x32x96xf32> to tensor<2x32x96xf32>
  %er = tensor.empty() : tensor<1x32x96xf32>
  %yr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%row : tensor<1x32x96xf32>) outs(%er : tensor<1x32x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<1x32x96xf32>
  %ers = tensor.empty() : tensor<2x32x96xf32>
  %yrs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rows : tensor<2x32x96xf32>) outs(%ers : tensor<2x32x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<2x32x96xf32>
  %q = tensor.extract_slice %x[0, 0, 32] [4, 32, 32] [1, 1, 1] : tensor<4x32x96xf32> to tensor<4x32x32xf32>
  %e = tensor.empty() : tensor<4x32x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<4x32x32xf32>) outs(%e : tensor<4x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x32x32xf32>
  return %y, %yr, %yrs : tensor<4x32x32xf32>, tensor<1x32x96xf32>, tensor<2x32x96xf32>
}
