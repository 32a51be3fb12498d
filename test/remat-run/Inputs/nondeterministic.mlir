// Not deterministic, without any state global: the output is scaled by
// libc's rand(), whose hidden state advances at every call.
#id = affine_map<(i) -> (i)>
func.func private @rand() -> i32
func.func @noisy(%x: tensor<16xf32>) -> tensor<16xf32> {
  %rnd = func.call @rand() : () -> i32
  %scale = arith.sitofp %rnd : i32 to f32
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %scale : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}
