// Complex arithmetic inside a step with real arguments and results
// (test/remat-run/complex.test).
#map = affine_map<(d0) -> (d0)>
func.func @step(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xcomplex<f32>>
  %z = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xcomplex<f32>>) {
  ^bb0(%x: f32, %y: f32, %o: complex<f32>):
    %c = complex.create %x, %y : complex<f32>
    %m = complex.mul %c, %c : complex<f32>
    %x2 = complex.exp %m : complex<f32>
    %d = complex.div %x2, %c : complex<f32>
    linalg.yield %d : complex<f32>
  } -> tensor<4xcomplex<f32>>
  %k = arith.constant dense<[(1.0, 2.0), (0.5, -1.0), (0.0, 1.0), (2.0, 0.0)]> : tensor<4xcomplex<f32>>
  %e2 = tensor.empty() : tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %re, %ab = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]} ins(%z, %k : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) outs(%e2, %e3 : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%p: complex<f32>, %q: complex<f32>, %o1: f32, %o2: f32):
    %s = complex.add %p, %q : complex<f32>
    %r = complex.re %s : complex<f32>
    %n = complex.abs %s : complex<f32>
    linalg.yield %r, %n : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %re, %ab : tensor<4xf32>, tensor<4xf32>
}
