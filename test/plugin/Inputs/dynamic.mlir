func.func @dyn(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = arith.addf %x, %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
