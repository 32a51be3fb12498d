"""long-chain.py N: a func.func of N elementwise ops in a chain (about 370
bytes of MLIR each), for tests that need remat-opt to run for a while."""
import sys

n = int(sys.argv[1])
print("#id = affine_map<(i, j) -> (i, j)>")
print("func.func @chain(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {")
prev = "%x"
for i in range(n):
    print(f"  %e{i} = tensor.empty() : tensor<64x64xf32>")
    print(f"  %v{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}}"
          f" ins({prev} : tensor<64x64xf32>) outs(%e{i} : tensor<64x64xf32>) {{")
    print("  ^bb0(%a: f32, %o: f32):\n    %r = arith.mulf %a, %a : f32\n    linalg.yield %r : f32")
    print("  } -> tensor<64x64xf32>")
    prev = f"%v{i}"
print(f"  return {prev} : tensor<64x64xf32>\n}}")
