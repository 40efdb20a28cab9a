#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
steps.py: time real training steps of small Llama-shaped and MoE models on
one GPU and write them as rows of a trainplan runs file (issue 17, item 5).

    python3 tools/steps/steps.py --out rows.csv                 # the whole grid
    python3 tools/steps/steps.py --out rows.csv --models dense-125m,moe-8e-top2 \\
        --seq-lens 2048 --micro-batches 1,2 --recompute none    # a part of it
    python3 tools/steps/steps.py --out rows.csv --append ...    # add to a file
    timeout 580 python3 tools/steps/steps.py --out rows.csv --append   # again: resumes
    python3 tools/steps/steps.py --list                         # the grid's ids
    trainplan validate rows.csv                                 # compare

What it builds, in plain PyTorch (no torch.compile, no FSDP/DDP, one
process): a Llama-shaped decoder (token embedding, RMSNorm, grouped-query
attention with RoPE and causal attention, SwiGLU MLP, untied output head,
cross-entropy loss on the fp32 logits) and a dropless top-k MoE variant
(softmax router in fp32, top-k weights renormalised, E routed SwiGLU
experts, tokens gathered by index and a loop over the experts, no shared
expert, no auxiliary loss). Attention is F.scaled_dot_product_attention
(is_causal; torch picks its backend) where torch has it, else the masked
math (Debian's torch 1.13 on the CPU has no SDPA). The tokens are random.

What it measures, per configuration of the grid (models x sequence
lengths x micro-batches x recompute none/full, where full is
torch.utils.checkpoint around every layer): on CUDA with fp32 parameters
under bf16 autocast and torch.optim.AdamW (fp32 moments), the median time
of --iters steps after --warmup (zero_grad, forward, backward, optimizer
step, torch.cuda.synchronize), and the peak memory of those steps:
torch.cuda.max_memory_allocated and max_memory_reserved in GiB, the
peaks reset after the warm-up. A configuration that runs out of memory
is skipped with a "# skipped" line on stderr, not a row.

The rows (the columns of data/runs/runs-dev.csv): two per configuration,
`ID` with the step time and the max allocated figure, and `ID-reserved`
with the max reserved figure and no step time, so that `trainplan
validate` compares each memory metric like with like (docs/ACCURACY.md,
"Memory metrics") and counts each step time once. The source cell names
this script at its git commit, the date, the device and torch; the notes
say what ran. The framework cell is "none": trainplan's framework
profile without conventions (plain PyTorch has no profile of its own).
Rows are written as each configuration finishes: a run cut short keeps
what it measured, and --append skips the configurations whose id the file
has already, so that running the same command again resumes it.

--device cpu --tiny runs tiny shapes on the CPU in fp32 (no autocast:
the notes say so) for the tests (tests/cli/steps_test.sh): the times mean
nothing, there is no memory figure, and trainplan lists the rows as not
evaluated (CPU is no GPU it models).
"""
import argparse
import csv
import datetime
import gc
import inspect
import math
import os
import statistics
import subprocess
import sys
import time

# The column layout of data/runs/runs-dev.csv (its header, in order).
COLUMNS = [
    "id", "source", "model_name", "params_reported", "layers", "hidden", "heads", "kv_heads",
    "ffn_hidden", "vocab", "seq_len", "moe_experts", "moe_topk", "gpu_type", "num_gpus",
    "gpus_per_node", "interconnect", "precision", "tp", "pp", "dp", "cp", "ep", "sp",
    "zero_or_fsdp", "recompute", "micro_batch", "global_batch", "interleave_v",
    "measured_tflops_per_gpu", "tflops_basis", "peak_tflops_for_mfu", "measured_mfu",
    "measured_hfu", "measured_tokens_per_sec", "tokens_per_sec_unit", "measured_step_time_s",
    "measured_memory_gb_per_gpu", "memory_metric", "notes", "etp", "framework",
]

# The memory_metric cells, in words `trainplan validate` recognises
# (src/io/validate.c metric_of: "allocated", "reserved"; "GiB" sets the unit).
METRIC_ALLOCATED = "torch.cuda.max_memory_allocated (GiB)"
METRIC_RESERVED = "torch.cuda.max_memory_reserved (GiB)"

VOCAB, VOCAB_TINY = 32000, 512


class Shape:
    """One model of the grid: Llama-shaped, dense (experts 0) or MoE."""

    def __init__(self, name, layers, hidden, heads, kv_heads, ffn, experts=0, topk=0,
                 vocab=VOCAB):
        if hidden % heads or heads % kv_heads or (experts and not 1 <= topk <= experts):
            raise ValueError(f"{name}: inconsistent shape")
        self.name, self.layers, self.hidden, self.heads = name, layers, hidden, heads
        self.kv_heads, self.ffn, self.experts, self.topk, self.vocab = (kv_heads, ffn, experts,
                                                                        topk, vocab)

    @property
    def head_dim(self):
        return self.hidden // self.heads

    def params(self, active=False):
        """Parameters (active: the top-k experts' only), as steps.py builds them."""
        h, d = self.hidden, self.head_dim
        attn = h * self.heads * d * 2 + h * self.kv_heads * d * 2  # q, o; k, v
        if self.experts:
            n = self.topk if active else self.experts
            mlp = h * self.experts + n * 3 * h * self.ffn  # router + experts
        else:
            mlp = 3 * h * self.ffn
        layer = 2 * h + attn + mlp  # two RMSNorms
        return 2 * self.vocab * h + self.layers * layer + h  # embedding, head, final norm


# The grid's models: four dense sizes from 125M to 1.3B parameters at the
# shapes of the usual small Llama-style ladders (head dim 64 or 128, GQA),
# and two small MoE, one coarse (8 experts, top 2) and one fine-grained
# (32 experts, top 4). Each has a tiny stand-in for the CPU (--tiny).
MODELS = [
    (Shape("dense-125m", 12, 768, 12, 4, 2048),
     Shape("dense-125m", 2, 64, 4, 2, 128, vocab=VOCAB_TINY)),
    (Shape("dense-350m", 24, 1024, 16, 8, 2816),
     Shape("dense-350m", 2, 96, 4, 2, 192, vocab=VOCAB_TINY)),
    (Shape("dense-760m", 24, 1536, 12, 4, 4096),
     Shape("dense-760m", 3, 128, 4, 2, 256, vocab=VOCAB_TINY)),
    (Shape("dense-1.3b", 24, 2048, 16, 8, 5632),
     Shape("dense-1.3b", 3, 128, 8, 4, 320, vocab=VOCAB_TINY)),
    (Shape("moe-8e-top2", 12, 768, 12, 4, 1024, 8, 2),
     Shape("moe-8e-top2", 2, 64, 4, 2, 64, 8, 2, vocab=VOCAB_TINY)),
    (Shape("moe-32e-top4", 16, 1024, 8, 4, 512, 32, 4),
     Shape("moe-32e-top4", 2, 64, 4, 2, 32, 32, 4, vocab=VOCAB_TINY)),
]
SEQ_LENS, SEQ_LENS_TINY = [1024, 2048, 4096], [32, 64, 128]
MICRO_BATCHES = [1, 2, 4]
RECOMPUTE = ["none", "full"]


def shapes(tiny):
    """The grid's models by name (the tiny stand-ins with --tiny)."""
    return {(small if tiny else full).name: small if tiny else full for full, small in MODELS}


def human_count(n):
    """125.3M, 1.26B: the params_reported style of the runs file."""
    if n >= 1e9:
        return f"{n / 1e9:.3g}B"
    if n >= 1e6:
        return f"{n / 1e6:.4g}M"
    return f"{n / 1e3:.4g}K"


def gpu_type_of(device_name):
    """The runs file's gpu_type for torch.cuda.get_device_name (or "CPU").

    Known names map to the runs file's style (H100-SXM-80GB, which
    trainplan validate reads as its h100-sxm preset); others keep the
    device's own name, less the vendor, for validate to judge."""
    n = device_name.strip()
    if n.upper() == "CPU" or not n:
        return "CPU"
    u = n.upper()
    if "GH200" in u:
        return "GH200"
    for chip, mem in (("H200", "141GB"), ("H100", "80GB"), ("H800", "80GB")):
        if chip in u:
            if "PCIE" in u:
                return f"{chip}-PCIe-{mem}"
            if "NVL" in u:
                return f"{chip}-NVL"
            return f"{chip}-SXM-{mem}"
    if "A100" in u:
        return n.replace("NVIDIA ", "").replace(" ", "-")  # A100-SXM4-80GB as torch names it
    for pre in ("NVIDIA ", "AMD "):
        if n.startswith(pre):
            n = n[len(pre):]
    return n.replace(" ", "-")


def config_id(gpu_type, shape, seq, mb, recompute, tiny):
    short = gpu_type.split("-")[0].lower()
    return (f"steps-{short}-{'tiny-' if tiny else ''}{shape.name}-s{seq}-mb{mb}-rc{recompute}")


def parse_list(text, allowed, what, conv=str):
    """A comma-separated choice from allowed (in allowed's order); ValueError
    naming the option and the value otherwise."""
    want = []
    for w in text.split(","):
        w = w.strip()
        try:
            x = conv(w)
        except ValueError:
            raise ValueError(f"{what}: \"{w}\" is not one of {','.join(map(str, allowed))}")
        if x not in allowed:
            raise ValueError(f"{what}: \"{w}\" is not one of {','.join(map(str, allowed))}")
        want.append(x)
    return [a for a in allowed if a in want]


def grid(models, seq_lens, micro_batches, recompute):
    """The configurations, model by model, smallest activations first."""
    return [(m, s, b, r) for m in models for s in seq_lens for b in micro_batches
            for r in recompute]


def is_oom(exc, oom_type=None):
    """Whether exc is the device (or the host) running out of memory."""
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    if isinstance(exc, MemoryError):
        return True
    msg = str(exc)
    # cuBLAS reports a failed workspace allocation in its own words
    return isinstance(exc, RuntimeError) and any(
        w in msg for w in ("out of memory", "can't allocate memory", "CUBLAS_STATUS_ALLOC_FAILED"))


def git_commit(path):
    """The commit of the repository holding path, with " (modified)" when
    the file differs from it; "no git commit" outside a repository."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        head = subprocess.run(["git", "-C", d, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return "no git commit"
        dirty = subprocess.run(["git", "-C", d, "status", "--porcelain", "--",
                                os.path.abspath(path)], capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + (" (modified)" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "no git commit"


# ---------------------------------------------------------------- the model (needs torch)

def build_model(torch, shape, dev, recompute):
    """The decoder of shape on dev, fp32 parameters, normal(0, 0.02)."""
    import torch.nn as nn
    import torch.nn.functional as F
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    try:
        from torch.utils.checkpoint import checkpoint
    except ImportError:
        checkpoint = None

    def linear(i, o):
        return nn.Linear(i, o, bias=False, device=dev)

    class RMSNorm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(n, device=dev))

        def forward(self, x):
            x32 = x.float()
            return x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight

    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            h, d = shape.hidden, shape.head_dim
            self.q = linear(h, shape.heads * d)
            self.k = linear(h, shape.kv_heads * d)
            self.v = linear(h, shape.kv_heads * d)
            self.o = linear(shape.heads * d, h)

        def forward(self, x, cos, sin):
            b, s, _ = x.shape
            d, a, kv = shape.head_dim, shape.heads, shape.kv_heads
            q = self.q(x).view(b, s, a, d).transpose(1, 2)
            k = self.k(x).view(b, s, kv, d).transpose(1, 2)
            v = self.v(x).view(b, s, kv, d).transpose(1, 2)
            cos, sin = cos.to(q.dtype), sin.to(q.dtype)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if kv != a:  # grouped-query attention: each K/V head serves a/kv query heads
                k = k.repeat_interleave(a // kv, dim=1)
                v = v.repeat_interleave(a // kv, dim=1)
            if sdpa is not None:
                y = sdpa(q, k, v, is_causal=True)
            else:
                mask = torch.ones(s, s, device=x.device, dtype=torch.bool).triu(1)
                w = (q @ k.transpose(-1, -2)) / math.sqrt(d)
                y = torch.softmax(w.masked_fill(mask, float("-inf")), dim=-1).to(v.dtype) @ v
            return self.o(y.transpose(1, 2).reshape(b, s, a * d))

    class SwiGLU(nn.Module):
        def __init__(self, ffn):
            super().__init__()
            self.gate = linear(shape.hidden, ffn)
            self.up = linear(shape.hidden, ffn)
            self.down = linear(ffn, shape.hidden)

        def forward(self, x):
            return self.down(F.silu(self.gate(x)) * self.up(x))

    class MoE(nn.Module):
        """Dropless top-k: every token reaches its k experts."""

        def __init__(self):
            super().__init__()
            self.router = linear(shape.hidden, shape.experts)
            self.experts = nn.ModuleList(SwiGLU(shape.ffn) for _ in range(shape.experts))

        def forward(self, x):
            b, s, h = x.shape
            flat = x.reshape(b * s, h)
            probs = torch.softmax(self.router(flat).float(), dim=-1)
            weight, index = probs.topk(shape.topk, dim=-1)
            weight = weight / weight.sum(-1, keepdim=True)
            out = torch.zeros(b * s, h, device=x.device, dtype=torch.float32)
            for e, expert in enumerate(self.experts):
                tok, slot = (index == e).nonzero(as_tuple=True)
                if tok.numel() == 0:
                    continue
                y = expert(flat[tok]).float() * weight[tok, slot].unsqueeze(-1)
                out.index_add_(0, tok, y)
            return out.view(b, s, h)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.attn = RMSNorm(shape.hidden), Attention()
            self.norm2 = RMSNorm(shape.hidden)
            self.mlp = MoE() if shape.experts else SwiGLU(shape.ffn)

        def forward(self, x, cos, sin):
            x = x + self.attn(self.norm1(x), cos, sin)
            return x + self.mlp(self.norm2(x))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(shape.vocab, shape.hidden, device=dev)
            self.layers = nn.ModuleList(Layer() for _ in range(shape.layers))
            self.norm = RMSNorm(shape.hidden)
            self.head = linear(shape.hidden, shape.vocab)  # untied

        def forward(self, tokens, targets):
            s = tokens.shape[1]
            d = shape.head_dim
            inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device=tokens.device).float() / d))
            ang = torch.outer(torch.arange(s, device=tokens.device).float(), inv)
            ang = torch.cat((ang, ang), dim=-1)
            cos, sin = ang.cos(), ang.sin()
            x = self.embed(tokens)
            for layer in self.layers:
                if recompute == "full":
                    x = checkpoint_layer(layer, x, cos, sin)
                else:
                    x = layer(x, cos, sin)
            logits = self.head(self.norm(x))
            return F.cross_entropy(logits.float().view(-1, shape.vocab), targets.view(-1))

    # non-reentrant where torch has the choice (1.11 on): what current
    # frameworks use; it keeps the layer's input and re-runs its forward
    kw = {"use_reentrant": False} if checkpoint is not None and "use_reentrant" in \
        inspect.signature(checkpoint).parameters else {}

    def checkpoint_layer(layer, x, cos, sin):
        return checkpoint(layer, x, cos, sin, **kw)

    if recompute == "full" and checkpoint is None:
        raise RuntimeError("this torch has no torch.utils.checkpoint")
    model = Decoder()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                m.weight.normal_(0.0, 0.02)
    return model, ("F.scaled_dot_product_attention (is_causal; torch's backend choice)"
                   if sdpa is not None else "masked math attention (this torch has no SDPA)")


def sync(torch, dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def measure(torch, shape, dev, seq, mb, recompute, args, simulate_oom=False):
    """(median step s, max allocated GiB, max reserved GiB, what ran) of one
    configuration; the GiB are None on the CPU."""
    import contextlib
    torch.manual_seed(0)
    cuda = dev.type == "cuda"
    model, attn_kind = build_model(torch, shape, dev, recompute)
    n = sum(p.numel() for p in model.parameters())
    if n != shape.params():
        raise AssertionError(f"{shape.name}: built {n} parameters, Shape.params says "
                             f"{shape.params()}")
    if simulate_oom:
        raise RuntimeError("CUDA out of memory (simulated by --simulate-oom)")
    foreach = cuda
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1, foreach=foreach)
    tokens = torch.randint(0, shape.vocab, (mb, seq), device=dev)
    targets = torch.randint(0, shape.vocab, (mb, seq), device=dev)

    def autocast():
        if cuda:
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def step():
        opt.zero_grad(set_to_none=True)
        with autocast():
            loss = model(tokens, targets)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    sync(torch, dev)
    if cuda:
        torch.cuda.reset_peak_memory_stats(dev)
    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        loss = step()
        sync(torch, dev)
        times.append(time.perf_counter() - t0)
    if not math.isfinite(float(loss)):
        raise RuntimeError(f"{shape.name}: the loss is {float(loss)}")
    alloc = reserved = active = None
    if cuda:
        alloc = torch.cuda.max_memory_allocated(dev) / 2 ** 30
        reserved = torch.cuda.max_memory_reserved(dev) / 2 ** 30
        active = torch.cuda.memory_stats(dev).get("active_bytes.all.peak", 0) / 2 ** 30
    impl = "foreach" if foreach else "for-loop"
    what = {"attention": attn_kind, "params": n, "min_s": min(times), "max_s": max(times),
            "active": active,
            "optimizer": f"torch.optim.AdamW ({impl}, lr 1e-4, weight decay 0.1, fp32 moments), "
                         "zero_grad(set_to_none=True)"}
    return statistics.median(times), alloc, reserved, what


# ---------------------------------------------------------------- the rows

def rows_of(cid, shape, seq, mb, recompute, gpu_type, source, precision, step_s, alloc,
            reserved, what, args):
    """The two rows of one configuration (see the module docstring)."""
    cuda = alloc is not None
    moe = ""
    if shape.experts:
        moe = ("MoE every layer: softmax router in fp32, top-k weights renormalised, dropless, "
               "tokens gathered by index and a loop over the experts (index_add back), no "
               "shared expert, no auxiliary loss; ")
    params = human_count(shape.params())
    if shape.experts:
        params = f"{params} total / {human_count(shape.params(active=True))} active"
    rc = "full: torch.utils.checkpoint around every layer" if recompute == "full" else "none"
    common = (f"tools/steps/steps.py, one device, plain PyTorch eager (no torch.compile, no "
              f"DDP/FSDP); {precision}; {what['optimizer']}; attention {what['attention']}, "
              f"GQA by repeat_interleave of K/V, RoPE; RMSNorm in fp32; untied head; "
              f"loss F.cross_entropy on fp32-upcast logits; {moe}random tokens; recompute {rc}; "
              f"step = zero_grad, forward, backward, optimizer step, synchronised: median of "
              f"{args.iters} after {args.warmup} warm-up (min {what['min_s']:.6g} s, "
              f"max {what['max_s']:.6g} s)")
    if cuda:
        mem_note = (f"; memory peaks over the measured steps (reset after the warm-up): "
                    f"max_memory_allocated {alloc:.3f} GiB, "
                    f"max_memory_reserved {reserved:.3f} GiB, "
                    f"peak active (active_bytes.all.peak) {what['active']:.3f} GiB")
    else:
        mem_note = "; on the CPU: no memory figure, the times mean nothing (tests)"
    base = {c: "" for c in COLUMNS}
    base.update({
        "source": source, "model_name": f"Llama-shaped {'tiny ' if args.tiny else ''}"
        f"{shape.name} (tools/steps/steps.py)", "params_reported": params,
        "layers": shape.layers, "hidden": shape.hidden, "heads": shape.heads,
        "kv_heads": shape.kv_heads,
        "ffn_hidden": f"{shape.ffn} per expert" if shape.experts else shape.ffn,
        "vocab": shape.vocab, "seq_len": seq,
        "moe_experts": shape.experts or "", "moe_topk": shape.topk if shape.experts else "",
        "gpu_type": gpu_type, "num_gpus": 1, "gpus_per_node": 1,
        "interconnect": "single device, no communication", "precision": precision,
        "tp": 1, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": "n", "zero_or_fsdp": 0,
        "recompute": recompute, "micro_batch": mb, "global_batch": mb, "framework": "none",
    })
    first = dict(base, id=cid, measured_step_time_s=f"{step_s:.6g}",
                 notes=common + mem_note)
    second = dict(base, id=cid + "-reserved",
                  notes=f"the max_memory_reserved twin of row {cid} (its step time is there); "
                  + common + mem_note)
    if cuda:
        first.update(measured_memory_gb_per_gpu=f"{alloc:.4f}", memory_metric=METRIC_ALLOCATED)
        second.update(measured_memory_gb_per_gpu=f"{reserved:.4f}",
                      memory_metric=METRIC_RESERVED)
    return [first, second]


def open_out(path, append):
    """(file, CSV writer, ids already there) on path: a new file with the
    header, or (append) an existing one whose header must be COLUMNS."""
    if append and os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, newline="", encoding="utf-8") as f:
            rows = csv.reader(f)
            head = next(rows, [])
            if head != COLUMNS:
                raise ValueError(f"{path}: --append: its header is not the runs file's "
                                 f"({len(head)} columns)")
            ids = {r[0] for r in rows if r}
        f = open(path, "a", newline="", encoding="utf-8")
        return f, csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n"), ids
    f = open(path, "w", newline="", encoding="utf-8")
    w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    f.flush()
    return f, w, set()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Time training steps of small Llama-shaped and "
                                 "MoE models on one GPU; write them as rows of a trainplan runs "
                                 "file (the module's docstring says more).")
    ap.add_argument("--out", help="runs CSV to write (the columns of data/runs/runs-dev.csv)")
    ap.add_argument("--append", action="store_true",
                    help="add rows to an existing --out, skipping the ids it has")
    ap.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    ap.add_argument("--tiny", action="store_true", help="tiny shapes (tests, CPU)")
    ap.add_argument("--models", help="comma-separated names (default: all; --list shows them)")
    ap.add_argument("--seq-lens", help="comma-separated (default 1024,2048,4096; tiny 32,64,128)")
    ap.add_argument("--micro-batches", help="comma-separated (default 1,2,4)")
    ap.add_argument("--recompute", help="comma-separated none,full (default both)")
    ap.add_argument("--iters", type=int, default=10, help="measured steps (default 10)")
    ap.add_argument("--warmup", type=int, default=3, help="steps before them (default 3)")
    ap.add_argument("--list", action="store_true",
                    help="print the grid's ids (\"gpu\" for the device's name) and exit")
    ap.add_argument("--simulate-oom", default="", help=argparse.SUPPRESS)  # tests: ids to fail
    args = ap.parse_args(argv)
    if args.iters < 1 or args.warmup < 0:
        ap.error("--iters must be >= 1 and --warmup >= 0")
    models = shapes(args.tiny)
    seqs = SEQ_LENS_TINY if args.tiny else SEQ_LENS
    try:
        pick_m = parse_list(args.models, list(models), "--models") if args.models else list(models)
        pick_s = parse_list(args.seq_lens, seqs, "--seq-lens", int) if args.seq_lens else seqs
        pick_b = (parse_list(args.micro_batches, MICRO_BATCHES, "--micro-batches", int)
                  if args.micro_batches else MICRO_BATCHES)
        pick_r = parse_list(args.recompute, RECOMPUTE, "--recompute") if args.recompute \
            else RECOMPUTE
    except ValueError as e:
        ap.error(str(e))
    configs = grid([models[m] for m in pick_m], pick_s, pick_b, pick_r)
    if args.list:
        for shape, s, b, r in configs:
            print(config_id("gpu", shape, s, b, r, args.tiny), human_count(shape.params()))
        return 0
    if not args.out:
        ap.error("--out is required (or --list)")
    try:
        import torch
    except ImportError:
        print("steps.py: PyTorch is not installed (pip install torch, or Debian's "
              "python3-torch)", file=sys.stderr)
        return 2
    cuda = torch.cuda.is_available() and args.device != "cpu"
    if args.device == "cuda" and not cuda:
        print("steps.py: --device cuda but no CUDA device", file=sys.stderr)
        return 2
    dev = torch.device("cuda") if cuda else torch.device("cpu")
    dev_name = torch.cuda.get_device_name(dev) if cuda else "CPU"
    gpu_type = gpu_type_of(dev_name)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    source = (f"tools/steps/steps.py @ {git_commit(__file__)}, {date}, {dev_name}, "
              f"torch {torch.__version__}" + (f", CUDA {torch.version.cuda}" if cuda else "")
              + (", tiny CPU shapes: for tests, not a measurement" if args.tiny else ""))
    precision = ("bf16 (torch autocast, fp32 master weights)" if cuda
                 else "fp32 (CPU: no autocast)")
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    fail = {x for x in args.simulate_oom.split(",") if x}
    try:
        f, writer, have = open_out(args.out, args.append)
    except (OSError, ValueError) as e:
        print(f"steps.py: {e}", file=sys.stderr)
        return 2
    done = skipped = 0
    with f:
        for shape, seq, mb, rc in configs:
            cid = config_id(gpu_type, shape, seq, mb, rc, args.tiny)
            if cid in have:  # --append resumes a run cut short
                print(f"# already in {args.out}: {cid}", file=sys.stderr)
                continue
            result, oom = None, ""
            try:
                result = measure(torch, shape, dev, seq, mb, rc, args, simulate_oom=cid in fail)
            except Exception as e:  # noqa: BLE001 (only OOM is skipped; the rest re-raised)
                if not is_oom(e, oom_type):
                    raise
                oom = str(e).strip().split("\n")[0][:200]
            # out of the except block: the exception's frames no longer hold tensors
            gc.collect()
            if cuda:
                torch.cuda.empty_cache()
            if result is None:
                print(f"# skipped {cid}: out of memory on {dev_name}: {oom}", file=sys.stderr)
                skipped += 1
                continue
            step_s, alloc, reserved, what = result
            for row in rows_of(cid, shape, seq, mb, rc, gpu_type, source, precision, step_s,
                               alloc, reserved, what, args):
                writer.writerow(row)
            f.flush()
            done += 1
            mem = f", {alloc:.2f} / {reserved:.2f} GiB" if alloc is not None else ""
            print(f"steps.py: {cid}: {step_s * 1e3:.1f} ms/step{mem}", file=sys.stderr)
    print(f"steps.py: wrote {args.out}: {done} configuration(s), {2 * done} row(s), "
          f"{skipped} skipped (out of memory)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
