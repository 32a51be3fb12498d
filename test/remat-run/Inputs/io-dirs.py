"""io-dirs.py REMAT_RUN MLIR TMPDIR: feeds small-step.mlir known inputs through
--inputs-dir and checks the raw outputs of --outputs-dir against a reference."""
import os
import struct
import subprocess
import sys

run, mlir, tmp = sys.argv[1:4]
ins, outs = os.path.join(tmp, "in"), os.path.join(tmp, "out")
os.makedirs(ins, exist_ok=True)
os.makedirs(outs, exist_ok=True)
x = [((i * 7) % 11 - 5) / 8.0 for i in range(32)]  # 4x8, exact in f32
w = [((i * 5) % 13 - 6) / 16.0 for i in range(32)]  # 8x4
for i, a in enumerate([x, w]):
    with open(os.path.join(ins, f"arg{i}.bin"), "wb") as f:
        f.write(struct.pack(f"<{len(a)}f", *a))
mm = [sum(x[i * 8 + k] * w[k * 4 + j] for k in range(8)) for i in range(4) for j in range(4)]
loss = sum(max(v, 0.0) for v in mm)
subprocess.run([run, f"--inputs-dir={ins}", f"--outputs-dir={outs}", mlir], check=True)
with open(os.path.join(outs, "out0.bin"), "rb") as f:
    got_loss = struct.unpack("<f", f.read())[0]
with open(os.path.join(outs, "out1.bin"), "rb") as f:
    got_mm = struct.unpack("<16f", f.read())
assert abs(got_loss - loss) < 1e-5, (got_loss, loss)
assert all(abs(a - b) < 1e-6 for a, b in zip(got_mm, mm)), (got_mm, mm)
print("outputs match the reference")
