// x divided in place by its first element: the kernel writes the buffer the
// scalar is read from, so the read must not move into it (on the GPU its
// threads would race; run sequentially, iteration 0 overwrites x[0] before the
// others read it). It is copied to the host first (host-reads.test).
#id = affine_map<(d0) -> (d0)>
func.func @step(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %x[%c0] : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%x : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.divf %a, %s : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}
