// Integer token ids and f32 weights (test/gpu/manifest-exe.test); its
// manifest, int-ids.manifest.json, gives the ids the range [10, 20).
#map = affine_map<(d0) -> (d0)>
func.func @ids_step(%w: tensor<4xf32>, %ids: tensor<4xi64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%w, %ids : tensor<4xf32>, tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %i: i64, %o: f32):
    %f = arith.sitofp %i : i64 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
