"""nested.py KIND N: a step nested N levels deep (test/remat-opt/nesting-limits.test).
KIND: regions ("x.op"() ({ ... }) regions of an unknown op), if (scf.if yielding
a tensor in both branches), type (tuple<...>), attr ([...]), loc (fused[...])."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "regions":
    s = "func.func @f() {\n" + '"x.op"() ({\n' * n + '"x.end"() : () -> ()\n' + "}) : () -> ()\n" * n + "return\n}\n"
elif kind == "if":
    s = "func.func @f(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {\n"
    s += "".join("%%r%d = scf.if %%c -> tensor<4xf32> {\n" % i for i in range(n))
    s += "scf.yield %x : tensor<4xf32>\n"
    for i in range(n - 1, -1, -1):
        s += "} else {\nscf.yield %x : tensor<4xf32>\n}\n"
        if i > 0:
            s += "scf.yield %%r%d : tensor<4xf32>\n" % i
    s += "return %r0 : tensor<4xf32>\n}\n"
elif kind == "type":
    s = "func.func @f(%a: " + "tuple<" * n + "f32" + ">" * n + ") {\nreturn\n}\n"
elif kind == "attr":
    s = "func.func @f() attributes {x = " + "[" * n + "1" + "]" * n + "} {\nreturn\n}\n"
elif kind == "loc":
    s = "func.func @f() {\nreturn loc(" + "fused[" * n + "unknown" + "]" * n + ")\n}\n"
sys.stdout.write(s)
