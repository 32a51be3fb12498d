"""accumulate.py N [--read-early]: a step with N values live at once, summed into an accumulator in place.

@step(%a, %b): v_i = a * (i + 1) for i < N, all computed first (all live), then
s_0 = b + v_0, s_i = s_{i-1} + v_i, each written into the previous sum's buffer
(linalg.add outs(s_{i-1})); returns s_{N-1} = b + a * N (N + 1) / 2. With
--read-early, s_5 is also read by the last op (its buffer's chain cannot be cut
before it). test/remat-run/accumulate.test.
"""
import sys


def main():
    n = int(sys.argv[1])
    read_early = "--read-early" in sys.argv
    t = "tensor<16xf32>"
    lines = ["#map = affine_map<(d0) -> (d0)>",
             "func.func @step(%%a: %s, %%b: %s) -> %s {" % (t, t, t)]
    for i in range(n):
        lines += ["  %%e%d = tensor.empty() : %s" % (i, t),
                  "  %%v%d = linalg.generic {indexing_maps = [#map, #map], iterator_types = [\"parallel\"]}"
                  " ins(%%a : %s) outs(%%e%d : %s) {" % (i, t, i, t),
                  "  ^bb0(%x: f32, %o: f32):",
                  "    %%c = arith.constant %d.0 : f32" % (i + 1),
                  "    %y = arith.mulf %x, %c : f32",
                  "    linalg.yield %y : f32",
                  "  } -> %s" % t]
    acc = "%b"
    for i in range(n):
        lines.append("  %%s%d = linalg.add ins(%s, %%v%d : %s, %s) outs(%s : %s) -> %s"
                     % (i, acc, i, t, t, acc, t, t))
        acc = "%%s%d" % i
    if read_early:
        lines.append("  %%e = tensor.empty() : %s" % t)
        lines.append("  %%late = linalg.add ins(%s, %%s5 : %s, %s) outs(%%e : %s) -> %s" % (acc, t, t, t, t))
        acc = "%late"
    lines += ["  return %s : %s" % (acc, t), "}"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
