"""One of the processes of ``test_multiprocess.py``: joins the others through
``mj.distributed``, runs a sharded jitted computation and a ``shard_map`` psum over a mesh
of every process's devices, and checks them against NumPy on this process's pieces.

Usage: ``python two_process_worker.py COORDINATOR_ADDRESS NUM_PROCESSES PROCESS_ID OUT_DIR``
with ``MJ_NUM_CPU_DEVICES`` set; saves its results to ``OUT_DIR/process<id>.npz`` (the
launching test compares them with one process's) and prints ``ok <process_id>``.
"""

import sys

import numpy as np

import mj
import mj.numpy as mnp
from mj.sharding import NamedSharding, P

address, num_processes, process_id, out_dir = (
    sys.argv[1],
    int(sys.argv[2]),
    int(sys.argv[3]),
    sys.argv[4],
)
mj.distributed.initialize(
    address,
    num_processes,
    process_id,
    initialization_timeout=60,
    coordinator_bind_address=address,  # 127.0.0.1 only: no IPv6 needed
)

local = mj.local_device_count()
assert mj.process_index() == process_id
assert mj.process_count() == num_processes
assert mj.device_count() == num_processes * local
assert {d.process_index for d in mj.local_devices()} == {process_id}
assert len(mj.local_devices(process_index=1 - process_id)) == local

rng = np.random.default_rng(21)  # every process draws the same global data
A = rng.normal(size=(8, 6)).astype(np.float32)
W = rng.normal(size=(6, 4)).astype(np.float32)
mesh = mj.make_mesh((mj.device_count(),), ("x",))
rows = NamedSharding(mesh, P("x"))
replicated = NamedSharding(mesh, P())


def check(x, want):
    """``x``'s pieces held here equal those of ``want``."""
    assert x.shape == want.shape, (x.shape, want.shape)
    shards = x.addressable_shards
    assert {s.device for s in shards} == set(mj.local_devices())
    for shard in shards:
        np.testing.assert_allclose(np.asarray(shard.data), want[shard.index], rtol=1e-5, atol=1e-5)


# a global array from per-device pieces, and one from this process's rows
a = mj.make_array_from_callback(A.shape, rows, lambda index: A[index])
assert not a.sharding.is_fully_addressable
check(a, A)
per_process = A.shape[0] // num_processes
mine = A[process_id * per_process : (process_id + 1) * per_process]
b = mj.make_array_from_process_local_data(rows, mine)
assert b.shape == A.shape
check(b, A)

# a sharded jitted computation: rows stay split, the result is split the same way
layer = mj.jit(lambda a, w: mnp.tanh(a @ w), out_shardings=rows)
hidden = layer(a, W)
check(hidden, np.tanh(A @ W))

# a reduction over every process's rows, replicated back: readable in full here
total = mj.jit(lambda a: (a**2).sum(axis=0), out_shardings=replicated)(b)
np.testing.assert_allclose(np.asarray(total), (A**2).sum(axis=0), rtol=1e-5)

# shard_map: each device multiplies its rows, psum adds the blocks across processes
psum_matmul = mj.shard_map(
    lambda a, w: mj.lax.psum(a.T @ (a @ w), "x"),
    mesh=mesh,
    in_specs=(P("x"), P()),
    out_specs=P(),
)
summed = mj.jit(psum_matmul)(a, W)
np.testing.assert_allclose(np.asarray(summed), A.T @ A @ W, rtol=1e-4)

message = ""
try:
    np.asarray(a)
except RuntimeError as e:
    message = str(e)
assert "non-addressable" in message, "reading a non-addressable array in full must fail"

np.savez(
    f"{out_dir}/process{process_id}.npz",
    hidden_rows=np.concatenate([np.asarray(s.data) for s in hidden.addressable_shards]),
    first_row=min(s.index[0].start for s in hidden.addressable_shards),
    total=np.asarray(total),
    summed=np.asarray(summed),
)
mj.distributed.shutdown()
print(f"ok {process_id}", flush=True)
