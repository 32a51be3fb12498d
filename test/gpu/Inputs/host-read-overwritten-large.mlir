// A scalar read from %s, then %s overwritten in place (the fill), then the
// scalar used by a kernel: the read cannot move into that kernel, past the
// write, and its buffer is too large to copy to the host (bad-input.test).
#none = affine_map<() -> ()>
func.func @step(%s: tensor<1024xf32>, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %k = tensor.extract %s[%c0] : tensor<1024xf32>
  %two = arith.constant 2.0 : f32
  %w = linalg.fill ins(%two : f32) outs(%s : tensor<1024xf32>) -> tensor<1024xf32>
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %k : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %y, %w : tensor<8xf32>, tensor<1024xf32>
}
