// torch-mlir guards the rotary embedding's reciprocal with a cf.assert in the
// payload (test/gpu/assert.test).
#map = affine_map<(d0) -> (d0)>
func.func @step(%a: tensor<8xf32>) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf one, %in, %cst : f32
    cf.assert %c, "unimplemented: tensor with zero element"
    %d = arith.divf %one, %in : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
