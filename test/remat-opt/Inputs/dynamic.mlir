func.func @dyn(%a: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%d) : tensor<?x16xf32>
  %r = linalg.copy ins(%a : tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}
