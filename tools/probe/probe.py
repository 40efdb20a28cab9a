#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
probe.py: measure a trainplan hardware profile on this machine.

    python3 tools/probe/probe.py --out my-h100.json --gpu h100-sxm
    torchrun --nproc_per_node 8 tools/probe/probe.py --out node.json      # + collectives
    torchrun --nnodes 2 --nproc_per_node 8 ... tools/probe/probe.py --out 2nodes.json
    python3 tools/probe/probe.py --spawn 8 --out node.json   # one node, no torchrun
    trainplan estimate --gpu h100-sxm --hw-profile my-h100.json ...

It measures, with PyTorch, what trainplan's kernel-level model needs
(docs/hardware.md has the file format, docs/model.md section 1b the model):

  - a GEMM sweep (M, N, K by dtype: bf16, and fp8 where torch._scaled_mm
    runs); the profile's maximum achievable matmul rate is the sweep's best
    (the MAMF method of S. Bekman's mamf-finder.py: the best of many shapes);
  - an attention sweep: torch's scaled_dot_product_attention (FlashAttention
    or cuDNN where torch picks them; the plain math where torch has no SDPA),
    forward and backward, causal, by sequence length and head dim;
  - HBM bandwidth: a device-to-device copy of a large tensor (read + write);
  - the host link (CUDA only): copies between pinned host memory and the GPU,
    each direction, every rank at once (GPUs that share a link, as a GB200
    superchip's two may share its NVLink-C2C, then show their share); the
    profile keeps the slower direction of the slowest rank, which trainplan
    takes as --pcie-gbps's default (nvbandwidth's host_to_device_memcpy_ce
    and device_to_host_memcpy_ce measure the same one GPU at a time);
  - under torchrun (WORLD_SIZE > 1): all-reduce, all-gather, reduce-scatter,
    all-to-all and send/recv by message size, as nccl-tests reports them
    (busbw: all-reduce 2(n-1)/n, all-gather / reduce-scatter / all-to-all
    (n-1)/n, send/recv 1 times bytes / time). The link is "nvlink" when
    every rank is on one node with CUDA, "network" when every rank is on
    its own node, and "pcie" on one node without CUDA (the CPU mode).
    Mixed layouts are written too; trainplan keeps them but maps only
    single-link curves onto its model.

--device cpu --tiny runs everything on tiny shapes on the CPU: the numbers
are meaningless, the file is real. The tests run it that way
(tests/probe/probe_test.sh) and load the result with trainplan.
Rank 0 writes the file; the other ranks only take part in the collectives.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time

FORMAT = "trainplan-hw-profile-1"

# nccl-tests' bus-bandwidth factors (PERFORMANCE.md of nccl-tests)
BUSBW_FACTOR = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "send_recv": lambda n: 1.0,
}


def busbw_gb_per_s(op, nbytes, seconds, n):
    """nccl-tests' busbw in GB/s (1e9) of one collective of nbytes on n ranks."""
    if seconds <= 0.0:
        raise ValueError("a collective took no time")
    return nbytes / seconds * BUSBW_FACTOR[op](n) / 1e9


def link_of(world, local_world, cuda):
    """The one link a collective on this layout measures (or 'network' when mixed)."""
    if local_world >= world:
        return "nvlink" if cuda else "pcie"
    return "network"


def gemm_shapes(tiny):
    """(M, N, K) of the sweep: multiples of 128 from 1k to 16k (tiny: 32..128)."""
    if tiny:
        return [(32, 32, 32), (64, 64, 64), (64, 128, 96), (128, 128, 128)]
    dims = [1024, 2048, 4096, 6144, 8192, 12288, 16384]
    shapes = [(d, d, d) for d in dims]
    # training shapes: tokens x (hidden, 3*hidden, 4*hidden) x hidden
    for h in (4096, 8192):
        for n in (h, 3 * h, 4 * h):
            shapes.append((8192, n, h))
            shapes.append((8192, h, n))
    return shapes


def attention_shapes(tiny):
    """(batch, heads, seq, head_dim) of the attention sweep."""
    if tiny:
        return [(1, 2, 32, 16), (1, 2, 64, 16)]
    # 16k tokens per call at 512 to 16k tokens per sequence: the FlashAttention-3
    # paper's points (its Figures 5-6), which trainplan's curve by sequence
    # length interpolates (kernel.c; the head-dim-128 rows replace it)
    return [(b, 16, s, d) for d in (64, 128) for (b, s) in ((32, 512), (16, 1024), (8, 2048),
                                                            (4, 4096), (2, 8192), (1, 16384))]


def message_sizes(tiny):
    if tiny:
        return [1024, 8192, 65536]
    return [2 ** e for e in range(10, 34, 2)]  # 1 KiB .. 8 GiB


class Timer:
    """Wall time of a callable, synchronising the device (median of iters)."""

    def __init__(self, torch, device, iters, warmup):
        self.torch, self.device, self.iters, self.warmup = torch, device, iters, warmup

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()

    def __call__(self, fn):
        for _ in range(self.warmup):
            fn()
        self.sync()
        times = []
        for _ in range(self.iters):
            t0 = time.perf_counter()
            fn()
            self.sync()
            times.append(time.perf_counter() - t0)
        times.sort()
        return times[len(times) // 2]


def gemm_sweep(torch, dev, timer, tiny):
    rows = []
    for m, n, k in gemm_shapes(tiny):
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        t = timer(lambda: torch.matmul(a, b))
        rows.append([m, n, k, "bf16", 2.0 * m * n * k / t / 1e12])
    fp8 = getattr(torch, "float8_e4m3fn", None)
    if fp8 is not None and dev.type == "cuda" and hasattr(torch, "_scaled_mm"):
        for m, n, k in gemm_shapes(tiny):
            try:
                a = torch.randn(m, k, device=dev).to(fp8)
                b = torch.randn(n, k, device=dev).to(fp8).t()
                one = torch.tensor(1.0, device=dev)
                t = timer(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                                   out_dtype=torch.bfloat16))
            except (RuntimeError, TypeError):
                break  # this torch or GPU has no fp8 GEMM
            rows.append([m, n, k, "fp8", 2.0 * m * n * k / t / 1e12])
    return rows


def attention_sweep(torch, dev, timer, tiny):
    import torch.nn.functional as F
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    rows = []
    for b, h, s, d in attention_shapes(tiny):
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        if sdpa is not None:
            def fwd():
                return sdpa(q, k, v, is_causal=True)
            kernel = "sdpa"
        else:
            mask = torch.ones(s, s, device=dev, dtype=torch.bool).triu(1)

            def fwd():
                w = (q @ k.transpose(-1, -2)) / math.sqrt(d)
                return torch.softmax(w.masked_fill(mask, float("-inf")), dim=-1) @ v
            kernel = "math"
        out = fwd()
        grad = torch.randn_like(out)
        t_f = timer(fwd)
        t_fb = timer(lambda: torch.autograd.grad(fwd(), (q, k, v), grad))
        # causal attention: 4*b*h*s^2*d / 2 FLOPs forward, 2.5x that backward
        flops = 4.0 * b * h * s * s * d / 2.0
        rows.append({"batch": b, "heads": h, "seq": s, "head_dim": d, "causal": True,
                     "kernel": kernel, "fwd_tflops": flops / t_f / 1e12,
                     "bwd_tflops": 2.5 * flops / max(t_fb - t_f, 1e-12) / 1e12})
    return rows


def hbm_bandwidth(torch, dev, timer, tiny):
    n = (1 << 18) if tiny else (1 << 30)  # elements of 2 bytes: 512 KiB or 2 GiB
    src = torch.empty(n, device=dev, dtype=torch.bfloat16).fill_(1.0)
    dst = torch.empty_like(src)
    t = timer(lambda: dst.copy_(src))
    return 2.0 * 2.0 * n / t / 1e9  # read + write


def host_link(torch, dist, dev, timer, tiny):
    """Pinned host <-> GPU copy rates, GB/s per direction, the slowest rank's
    (every rank copies at once); None without CUDA (no host link to time)."""
    if dev.type != "cuda":
        return None
    n = (1 << 20) if tiny else (1 << 30)  # bytes: 1 MiB or 1 GiB (nvbandwidth's sizes)
    host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    gpu = torch.empty(n, dtype=torch.uint8, device=dev)
    rates = []
    for fn in (lambda: gpu.copy_(host, non_blocking=True),
               lambda: host.copy_(gpu, non_blocking=True)):
        if dist:
            dist.barrier()
        rates.append(n / timer(fn) / 1e9)
    if dist:
        x = torch.tensor(rates, device=dev, dtype=torch.float64)
        dist.all_reduce(x, op=dist.ReduceOp.MIN)
        rates = x.tolist()
    return {"h2d": rates[0], "d2h": rates[1], "bytes": n}


def host_link_fields(link, world):
    """The profile's host-link keys from host_link()'s measurement."""
    if not link:
        return {}
    if not (link["h2d"] > 0 and link["d2h"] > 0):
        raise ValueError("host link rates must be positive")
    return {"host_link_gb_per_s": round(min(link["h2d"], link["d2h"]), 4),
            "host_link_source": (f"pinned host memory <-> GPU copies of {link['bytes']} bytes, "
                                 f"{world} rank(s) at once, the slowest rank: host to device "
                                 f"{link['h2d']:.1f}, device to host {link['d2h']:.1f} GB/s; "
                                 f"the slower direction")}


def collectives(torch, dist, dev, timer, tiny, world, local_world):
    """Curves of every collective this backend runs; rank 0's view."""
    link = link_of(world, local_world, dev.type == "cuda")
    # bf16 as training sends it; gloo (the CPU mode) reduces no bf16
    dtype, dname, size = ((torch.bfloat16, "bf16", 2) if dev.type == "cuda"
                          else (torch.float32, "fp32", 4))
    curves = []
    for op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"):
        if op == "send_recv" and world < 2:
            continue
        points = []
        for nbytes in message_sizes(tiny):
            elems = max(world, nbytes // size // world * world)
            x = torch.ones(elems, device=dev, dtype=dtype)
            try:
                fn = collective_fn(torch, dist, op, x, world)
                t = timer(fn)
            except (RuntimeError, AttributeError, ValueError):
                points = []  # this backend does not run this collective
                break
            # all ranks agree on the slowest rank's time
            tt = torch.tensor([t], device=dev, dtype=torch.float64)
            dist.all_reduce(tt, op=dist.ReduceOp.MAX)
            n = 2 if op == "send_recv" else world
            points.append([elems * size, busbw_gb_per_s(op, elems * size, float(tt.item()), n)])
        if points:
            curves.append({"op": op, "link": link, "gpus": 2 if op == "send_recv" else world,
                           "gpus_per_node": min(local_world, 2 if op == "send_recv" else world),
                           "dtype": dname, "source": "tools/probe/probe.py on this machine",
                           "points": points})
    return curves


def collective_fn(torch, dist, op, x, world):
    rank = dist.get_rank()
    if op == "all_reduce":
        return lambda: dist.all_reduce(x)
    if op == "all_gather":
        out = torch.empty(x.numel() * world, device=x.device, dtype=x.dtype)
        try:
            dist.all_gather_into_tensor(out, x)  # NCCL; absent or refused on old gloo
            return lambda: dist.all_gather_into_tensor(out, x)
        except (RuntimeError, AttributeError):
            parts = list(out.chunk(world))
            return lambda: dist.all_gather(parts, x)
    if op == "reduce_scatter":
        out = torch.empty(x.numel() // world, device=x.device, dtype=x.dtype)
        fn = getattr(dist, "reduce_scatter_tensor", None)
        if fn is None:
            raise AttributeError("no reduce_scatter_tensor")
        fn(out, x)  # fails here on a backend without it
        return lambda: fn(out, x)
    if op == "all_to_all":
        out = torch.empty_like(x)
        dist.all_to_all_single(out, x)
        return lambda: dist.all_to_all_single(out, x)
    # send/recv: rank 0 and the last rank (another node when there are several)
    peer = world - 1

    def pingpong():
        if rank == 0:
            dist.send(x, peer)
            dist.recv(x, peer)
        elif rank == peer:
            dist.recv(x, 0)
            dist.send(x, 0)
    # one message each way per call: time / 2 is one transfer
    return lambda: (pingpong(), None)[1]


def profile(args, torch, dev, gemm_rows, attn_rows, hbm, curves, world, link=None):
    """The profile document trainplan reads (hwprofile.c)."""
    best = {}
    for m, n, k, dtype, tflops in gemm_rows:
        best[dtype] = max(best.get(dtype, 0.0), tflops)
    if dev.type == "cuda":
        props = torch.cuda.get_device_properties(dev)
        sms, dev_name = props.multi_processor_count, props.name
    else:
        sms, dev_name = os.cpu_count() or 1, "cpu"
    doc = {
        "format": FORMAT,
        "name": args.name or (dev_name.lower().replace(" ", "-") + "-probe"),
        "measured": "probe",
        "source": (f"tools/probe/probe.py on {dev_name}, {world} rank(s), torch {torch.__version__}"
                   + (", tiny CPU shapes: for tests, not a measurement" if args.tiny else "")),
        "sm_count": int(sms),
        "gemm_tile": [128, 256],
        "matmul_tflops": {k: round(v, 4) for k, v in sorted(best.items())},
        "matmul_source": "best of the gemm_sweep below (MAMF method)",
        "hbm_gb_per_s": round(hbm, 4),
        "hbm_source": "device-to-device copy, read + write bytes / time",
        "gemm_sweep": [[m, n, k, d, round(t, 4)] for m, n, k, d, t in gemm_rows],
        "attention": attn_rows,
        "probe": {"torch": torch.__version__, "device": dev_name, "world_size": world,
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  "tiny": bool(args.tiny), "iters": args.iters},
    }
    if attn_rows:
        # the attention kernel's best forward rate, as matmul_tflops is the
        # GEMMs' (trainplan derives its attention rate from it, model.md 2)
        top = max(attn_rows, key=lambda r: r["fwd_tflops"])
        doc["attention_tflops"] = {"bf16": round(top["fwd_tflops"], 4)}
        doc["attention_source"] = (f"best forward rate of the attention sweep below "
                                   f"(kernel {top['kernel']}, seq {top['seq']}, "
                                   f"head dim {top['head_dim']}, causal)")
    if args.gpu:
        doc["gpu"] = args.gpu
    doc.update(host_link_fields(link, world))
    if curves:
        for c in curves:
            if c["op"] == "send_recv":  # a ping-pong is two transfers
                c["points"] = [[b, 2.0 * w] for b, w in c["points"]]
            c["points"] = [[b, round(w, 6)] for b, w in c["points"] if w > 0.0]
        doc["collectives"] = [c for c in curves if c["points"]]
    return doc


def check_profile(doc):
    """The constraints trainplan's reader enforces that a probe could break."""
    assert doc["format"] == FORMAT
    assert isinstance(doc["sm_count"], int) and 1 <= doc["sm_count"] <= 100000
    assert doc["matmul_tflops"].get("bf16", 0) > 0
    assert doc.get("attention_tflops", {"bf16": 1}).get("bf16", 0) > 0
    assert 0 < doc.get("host_link_gb_per_s", 1) <= 1e4
    for c in doc.get("collectives", []):
        sizes = [b for b, _ in c["points"]]
        assert sizes == sorted(set(sizes)), "message sizes must increase"
        assert c["gpus"] >= 2
    return doc


def spawn_worker(rank, world, argv, init_file):
    """One rank of --spawn: torchrun's environment, then the normal path."""
    os.environ.update({"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world),
                       "LOCAL_WORLD_SIZE": str(world), SPAWN_INIT: "file://" + init_file})
    rc = main(argv)
    if rc:
        raise SystemExit(rc)


# The ranks of --spawn meet in a file, not on a TCP port: a port found free
# and released before torch binds it again can be taken in between by any
# other process (a test suite's servers, run in parallel), and the ranks then
# fail to meet. The file must not exist before the first rank opens it
# (torch.distributed FileStore).
SPAWN_INIT = "TRAINPLAN_PROBE_INIT_METHOD"


def spawn(n, argv):
    """Run n ranks on this node without torchrun (--spawn N): for machines
    whose torchrun does not start (Debian's torch 1.13 under Python 3.11)."""
    import shutil
    import tempfile
    import torch.multiprocessing as mp
    rest = [a for i, a in enumerate(argv) if a != "--spawn" and (i == 0 or argv[i - 1] != "--spawn")]
    tmp = tempfile.mkdtemp(prefix="trainplan-probe-")
    try:
        mp.spawn(spawn_worker, args=(n, rest, os.path.join(tmp, "rendezvous")), nprocs=n, join=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", required=True, help="profile JSON to write (rank 0)")
    ap.add_argument("--name", help="profile name (default: the device's)")
    ap.add_argument("--gpu", help="the trainplan GPU preset this profile describes")
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--tiny", action="store_true", help="tiny shapes (tests, CPU)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--skip-attention", action="store_true")
    ap.add_argument("--spawn", type=int, default=0, metavar="N",
                    help="start N ranks on this node itself (instead of torchrun)")
    args = ap.parse_args(argv)
    if args.iters < 1 or args.warmup < 0:
        ap.error("--iters must be >= 1 and --warmup >= 0")
    if args.spawn:
        if args.spawn < 2 or "WORLD_SIZE" in os.environ:
            ap.error("--spawn N needs N >= 2 and no torchrun around it")
        return spawn(args.spawn, list(sys.argv[1:] if argv is None else argv))
    try:
        import torch
    except ImportError:
        print("probe.py: PyTorch is not installed (pip install torch, or Debian's "
              "python3-torch)", file=sys.stderr)
        return 2
    cuda = torch.cuda.is_available() and args.device != "cpu"
    if args.device == "cuda" and not cuda:
        print("probe.py: --device cuda but no CUDA device", file=sys.stderr)
        return 2
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    dist = None
    if world > 1:
        import torch.distributed as dist
        if cuda:
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        backend = "nccl" if cuda else "gloo"
        if SPAWN_INIT in os.environ:  # --spawn: the ranks meet in a file
            dist.init_process_group(backend, init_method=os.environ[SPAWN_INIT],
                                    world_size=world, rank=int(os.environ.get("RANK", "0")))
        else:  # torchrun's environment (MASTER_ADDR, MASTER_PORT)
            dist.init_process_group(backend)
    dev = torch.device("cuda") if cuda else torch.device("cpu")
    timer = Timer(torch, dev, args.iters, args.warmup)
    rank = dist.get_rank() if dist else 0
    gemm_rows = gemm_sweep(torch, dev, timer, args.tiny)
    attn_rows = [] if args.skip_attention else attention_sweep(torch, dev, timer, args.tiny)
    hbm = hbm_bandwidth(torch, dev, timer, args.tiny)
    link = host_link(torch, dist, dev, timer, args.tiny)
    curves = collectives(torch, dist, dev, timer, args.tiny, world, local_world) if dist else []
    if rank == 0:
        doc = check_profile(profile(args, torch, dev, gemm_rows, attn_rows, hbm, curves, world,
                                    link))
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, args.out)
        print(f"probe.py: wrote {args.out}: bf16 matmul {doc['matmul_tflops']['bf16']:.3f} "
              f"TFLOP/s, HBM {hbm:.1f} GB/s, "
              + (f"host link {doc['host_link_gb_per_s']:.1f} GB/s, " if link else "")
              + f"{len(curves)} collective curve(s)")
    if dist:
        dist.barrier()
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
