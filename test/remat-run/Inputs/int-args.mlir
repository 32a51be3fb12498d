// Integer arguments passed through (copied by an elementwise op), to read
// back with --outputs the values remat-run generated for them.
#id = affine_map<(i) -> (i)>
func.func @ids(%ids: tensor<256xi64>, %targets: tensor<256xi32>) -> (tensor<256xi64>, tensor<256xi32>) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<256xi64>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ids : tensor<256xi64>) outs(%e : tensor<256xi64>) {
  ^bb0(%v: i64, %o: i64):
    %r = arith.addi %v, %c0 : i64
    linalg.yield %r : i64
  } -> tensor<256xi64>
  %c1 = arith.constant 0 : i32
  %e2 = tensor.empty() : tensor<256xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%targets : tensor<256xi32>) outs(%e2 : tensor<256xi32>) {
  ^bb0(%v: i32, %o: i32):
    %r = arith.addi %v, %c1 : i32
    linalg.yield %r : i32
  } -> tensor<256xi32>
  return %a, %b : tensor<256xi64>, tensor<256xi32>
}
