// A scalar read from %s, then %s overwritten in place (the fill), then the
// scalar used by a kernel: the read cannot move into that kernel, past the
// write, so it is copied to the host where it is (host-reads.test).
#none = affine_map<() -> ()>
func.func @step(%s: tensor<f32>, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %k = tensor.extract %s[] : tensor<f32>
  %two = arith.constant 2.0 : f32
  %w = linalg.fill ins(%two : f32) outs(%s : tensor<f32>) -> tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %k : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %y, %w : tensor<8xf32>, tensor<f32>
}
