#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The hostile-input catalogue (issue 8), run as data-driven tests.

tests/hostile/cases.tsv holds one bad (or extreme) input per line; this
script runs each through the trainplan binary (flags and files) or through
`trainplan serve --port 0` (HTTP bodies) and compares the exit code (the
HTTP status for bodies) and the exact error message with the expected ones.
The same data is the catalogue table in docs/RELIABILITY.md, between the
markers <!-- hostile:begin --> and <!-- hostile:end -->:

    hostile.py test TRAINPLAN [--doc docs/RELIABILITY.md]   run every case (and check the doc)
    hostile.py doc docs/RELIABILITY.md                       rewrite the doc's table
    hostile.py record TRAINPLAN [ID...]                      print what each case gives now

cases.tsv columns (tab-separated; '#' starts a comment line):
  id       unique name
  area     flag | model-json | hf-config | gpu-json | runs-csv | megatron | deepspeed |
           torchtitan | nemo | plan-file | http | extreme
  what     what is hostile about it (one phrase, for the doc)
  input    '-' (none); 'text:...' literal text (Python escapes: \\n, \\xff);
           'model:K=V;K=V' the base trainplan model JSON with keys set
           (V is raw JSON; '-K' deletes); 'hf:...' the same over a Llama
           Hugging Face config.json; 'gpu:...' over a GPU JSON;
           'ds:...' over a DeepSpeed config; 'gen:NAME' a generated input
           (GENERATORS below). File inputs are written to a temporary
           file, named by {in} in args. Instead of a file, {in} may be
           made a FIFO no one writes to ('fifo:'), a directory ('dir:') or
           a symbolic link to TARGET ('link:TARGET') (issue 14).
  args     the trainplan arguments (shell words); {in} is the input file,
           {gen:NAME} a generated string. For http: METHOD PATH.
  exit     expected exit code (http: HTTP status)
  message  expected stderr, exactly (lines joined with ' / '); for http the
           error body's "message". 'json' = exit 0 and stdout is strict JSON
           (no NaN or Infinity anywhere); 'json:K=V;...' also checks dotted
           keys of it. 'clean:TEXT' = the exit code as given, stdout holds
           TEXT and neither stdout nor stderr holds a control character
           (C0 but newline, DEL, C1): untrusted text was defused (issue 14).
           A message ending in ' ...' is a prefix (for what
           varies from run to run, e.g. the counts of a search stopped at
           --time-limit).
"""
import codecs
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases.tsv")
BEGIN, END = "<!-- hostile:begin -->", "<!-- hostile:end -->"
RUN_TIMEOUT_S = 60

BASE_MODEL = {
    "name": "hostile", "norm": "rmsnorm", "mlp": "swiglu", "position": "rotary",
    "tie_embeddings": False, "num_layers": 4, "hidden": 256, "num_heads": 4,
    "num_kv_heads": 4, "ffn_hidden": 1024, "vocab": 1000, "max_positions": 4096,
}
BASE_HF = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
BASE_DS = {
    "train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 4, "bf16": {"enabled": True},
    "zero_optimization": {"stage": 3},
}
BASES = {"model": BASE_MODEL, "hf": BASE_HF, "ds": BASE_DS}

CSV_HEADER_FILE = os.path.join(HERE, "..", "..", "data", "runs", "runs-dev.csv")


def gpu_base():
    path = os.path.join(HERE, "..", "..", "presets", "gpus", "h100-sxm.json")
    with open(path) as f:
        return json.load(f)


def runs_header():
    with open(CSV_HEADER_FILE) as f:  # in the repository: never made up
        return f.readline().rstrip("\r\n")


# One runs-file row the validator evaluates (issue 14): Megatron's 1.7B weak-scaling run.
RUNS_COLUMNS = ("id,source,model_name,params_reported,layers,hidden,heads,kv_heads,ffn_hidden,"
                "vocab,seq_len,moe_experts,moe_topk,gpu_type,num_gpus,gpus_per_node,interconnect,"
                "precision,tp,pp,dp,cp,ep,sp,zero_or_fsdp,recompute,micro_batch,global_batch,"
                "interleave_v,measured_tflops_per_gpu,tflops_basis,peak_tflops_for_mfu,"
                "measured_mfu,measured_hfu,measured_tokens_per_sec,tokens_per_sec_unit,"
                "measured_step_time_s,measured_memory_gb_per_gpu,memory_metric,notes")
RUNS_ROW = {"id": "r1", "source": "s", "model_name": "GPT 1.7B", "layers": "24",
            "hidden": "2304", "heads": "24", "kv_heads": "24", "ffn_hidden": "9216",
            "vocab": "51200", "seq_len": "2048", "gpu_type": "A100-SXM4-80GB", "num_gpus": "32",
            "gpus_per_node": "8", "precision": "fp16", "tp": "1", "pp": "1", "dp": "32",
            "cp": "1", "ep": "1", "zero_or_fsdp": "0", "recompute": "full", "micro_batch": "16",
            "global_batch": "512", "measured_tflops_per_gpu": "137", "tflops_basis": "HFU",
            "peak_tflops_for_mfu": "312"}


def runs_csv(**cells):
    cols = RUNS_COLUMNS.split(",")
    row = dict(RUNS_ROW, **cells)
    return RUNS_COLUMNS + "\n" + ",".join(row.get(c, "") for c in cols) + "\n"


def nested(open_, close, inner, n):
    return open_ * n + inner + close * n


GENERATORS = {
    "deep-array-100k": lambda: nested("[", "]", "", 100000),
    "deep-object-20k": lambda: nested('{"a":', "}", "1", 20000),
    "deep-hf-10k": lambda: '{"model_type": "llama", "rope_scaling": ' +
                           nested('{"a":', "}", "1", 10000) + "}",
    "name-1m": lambda: json.dumps(dict(BASE_MODEL, name="x" * 1000000)),
    "key-100k": lambda: json.dumps(dict(BASE_MODEL, **{"k" * 100000: 1})),
    "string-100k": lambda: "m" * 100000,
    "number-10k-digits": lambda: json.dumps(BASE_MODEL).replace('"hidden": 256',
                                                                '"hidden": ' + "9" * 10000),
    "csv-10k-cols": lambda: ",".join("c%d" % i for i in range(10000)) + "\n" +
                            ",".join("1" for _ in range(10000)) + "\n",
    "csv-1m-empty-rows": lambda: runs_header() + "\n" + ("," * runs_header().count(",") + "\n") * 1000000,
    "csv-2m-empty-cols": lambda: "," * 2000000 + "\n",
    "json-5m-empty-objects": lambda: "[" + ",".join(["{}"] * 5500000) + "]",
    "json-2m-zeros": lambda: "[" + ",".join(["0"] * 2000000) + "]",
    "csv-header-only": lambda: runs_header() + "\n",
    "csv-bad-row": lambda: runs_header() + "\n" + "x,y\n",
    "megatron-10k-args": lambda: " ".join("--num-layers 2" for _ in range(10000)),
    "titan-long-line": lambda: "[model]\nflavor = \"" + "8" * 2000 + "\"\n",
    "titan-10k-keys": lambda: "[model]\nflavor = \"8B\"\n[job]\n" +
                              "".join("k%d = 1\n" % i for i in range(10000)),
    "body-1m-string": lambda: json.dumps({"model": "m" * 1000000}),
    "body-deep-30k": lambda: nested("[", "]", "", 30000),
    "invalid-utf8": lambda: "\udcff\udcfe",  # bytes 0xff 0xfe in argv
    "gpu-16mib": lambda: " " * (17 << 20) + "{}",
    "name-250": lambda: "n" * 250,
    "name-250-ds": lambda: "d" * 250,
    "name-255": lambda: "f" * 255,
    "name-256": lambda: "o" * 256,
    "esc-model": lambda: "\x1b[31mred",
    "runs-row": lambda: runs_csv(),
    "runs-measured-subnormal": lambda: runs_csv(measured_tflops_per_gpu="1e-320"),
    "runs-measured-hex": lambda: runs_csv(measured_tflops_per_gpu="0x89"),
}

SPECIAL_INPUTS = ("fifo:", "dir:", "link:")


def make_special(spec, path):
    """Put a FIFO, a directory or a symbolic link at path (issue 14)."""
    kind, _, rest = spec.partition(":")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        os.mkdir(path)
    else:
        os.symlink(rest, path)


def unescape(s):
    return codecs.decode(s, "unicode_escape").encode("latin-1")


def patched(kind, spec):
    obj = gpu_base() if kind == "gpu" else json.loads(json.dumps(BASES[kind]))
    for item in filter(None, spec.split(";")):
        if item.startswith("-"):
            obj.pop(item[1:], None)
            continue
        k, v = item.split("=", 1)
        obj[k] = "__RAW__%s__" % k  # raw JSON text spliced in below
        obj.setdefault("__raw", {})[k] = v
    raw = obj.pop("__raw", {})
    text = json.dumps(obj, indent=1)
    for k, v in raw.items():
        text = text.replace('"__RAW__%s__"' % k, v)
    return unescape_raw(text)


def unescape_raw(text):
    # Values may carry \\xNN escapes for bytes that are not UTF-8.
    if "\\x" in text:
        return unescape(text)
    return text.encode()


def make_input(spec):
    if spec == "-":
        return None
    kind, _, rest = spec.partition(":")
    if kind == "text":
        return unescape(rest)
    if kind == "gen":
        return GENERATORS[rest]().encode()
    if kind in ("model", "hf", "ds", "gpu"):
        return patched(kind, rest)
    raise SystemExit("bad input spec %r" % spec)


SUFFIX = {"hf-config": "config.json", "runs-csv": ".csv", "megatron": ".txt",
          "model-json": ".json", "gpu-json": ".json", "deepspeed": ".json",
          "plan-file": ".json", "flag": ".json", "extreme": ".json",
          "torchtitan": ".toml", "nemo": ".yaml"}


def load_cases():
    cases = []
    with open(CASES, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 7:
                raise SystemExit("cases.tsv:%d: %d columns, want 7" % (n, len(cols)))
            c = dict(zip(("id", "area", "what", "input", "args", "exit", "message"), cols))
            c["exit"] = int(c["exit"])
            c["line"] = n
            cases.append(c)
    ids = [c["id"] for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit("cases.tsv: duplicate ids %s" % sorted(dup))
    return cases


def expand_args(args, infile):
    out = []
    for w in shlex.split(args):
        if infile:
            w = w.replace("{in}", infile)
        while "{gen:" in w:
            i = w.index("{gen:")
            j = w.index("}", i)
            w = w[:i] + GENERATORS[w[i + 5:j]]() + w[j + 1:]
        out.append(w)
    return out


def reject_constant(name):
    raise ValueError("non-finite number %s in JSON output" % name)


def check_json(stdout, spec):
    try:
        doc = json.loads(stdout, parse_constant=reject_constant)
    except ValueError as e:
        return "stdout is not strict JSON: %s" % e
    for item in filter(None, spec.split(";")):
        k, v = item.split("=", 1)
        cur = doc
        for part in k.split("."):
            cur = cur[int(part)] if isinstance(cur, list) else cur.get(part)
        if json.dumps(cur) != v and str(cur) != v:
            return "%s = %s, want %s" % (k, json.dumps(cur), v)
    return None


def run_cli(exe, c, tmp):
    special = c["input"].startswith(SPECIAL_INPUTS)
    data = None if special else make_input(c["input"])
    infile = None
    if special or data is not None:
        infile = os.path.join(tmp, c["id"] + SUFFIX.get(c["area"], ".txt"))
        if c["area"] == "hf-config":
            os.makedirs(os.path.join(tmp, c["id"]), exist_ok=True)
            infile = os.path.join(tmp, c["id"], "config.json")
    if special:
        make_special(c["input"], infile)
    elif data is not None:
        with open(infile, "wb") as f:
            f.write(data)
    argv = [exe] + expand_args(c["args"], infile)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=RUN_TIMEOUT_S,
                           cwd=tmp)
    except subprocess.TimeoutExpired:
        return -999, "timed out after %d s" % RUN_TIMEOUT_S, ""
    if c["message"].startswith("clean:"):
        return p.returncode, p.stderr, p.stdout  # bytes: verdict() looks for control characters
    err = p.stderr.decode("utf-8", "backslashreplace").strip()
    if infile:
        err = err.replace(infile, "{in}")
    err = " / ".join(l for l in err.splitlines())
    return p.returncode, err, p.stdout.decode("utf-8", "replace")


def control_chars(data):
    """The control characters in data (bytes): C0 but newline, DEL, C1."""
    text = data.decode("utf-8", "replace")
    return sorted({ch for ch in text if (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) <= 0x9f})


def check_clean(out, err, want):
    for name, data in (("stdout", out), ("stderr", err)):
        bad = control_chars(data)
        if bad:
            return "%s holds control characters %r" % (name, bad)
    if want.encode() not in out:
        return "stdout lacks %r (stdout %r)" % (want, out[:300])
    return None


class FakeSock:
    """A received HTTP response, for http.client.HTTPResponse to parse."""

    def __init__(self, data):
        import io
        self.f = io.BytesIO(data)

    def makefile(self, *args, **kwargs):
        return self.f


class Server:
    def __init__(self, exe):
        self.proc = subprocess.Popen([exe, "serve", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        line = [None]

        def read():
            line[0] = self.proc.stdout.readline()
        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(20)
        prefix = "trainplan: serving on "
        if not line[0] or not line[0].startswith(prefix):
            self.stop()
            raise RuntimeError("serve printed no URL (%r)" % (line[0],))
        u = urllib.parse.urlsplit(line[0][len(prefix):].strip())
        self.host, self.port = u.hostname, u.port

    def request(self, method, path, body):
        """(status, body bytes). Raw socket: a server that answers 413 and closes
        before the whole body is sent is right, so a failed send is not an error."""
        import socket
        sock = socket.create_connection((self.host, self.port), timeout=RUN_TIMEOUT_S)
        try:
            body = body or b""
            head = ("%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                    "Content-Length: %d\r\nConnection: close\r\n\r\n"
                    % (method, path, self.host, self.port, len(body))).encode()
            try:
                sock.sendall(head)
                for i in range(0, len(body), 65536):
                    sock.sendall(body[i:i + 65536])
            except (BrokenPipeError, ConnectionResetError):
                pass
            data = b""
            while True:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            sock.close()
        r = http.client.HTTPResponse(FakeSock(data))
        r.begin()
        return r.status, r.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_http(server, c):
    method, path = shlex.split(c["args"])
    body = make_input(c["input"])
    try:
        st, data = server.request(method, path, body)
    except (OSError, http.client.HTTPException) as e:
        return -999, "request failed: %s" % e, ""
    try:
        e = json.loads(data)["error"]
        msg = e["message"]
    except (ValueError, KeyError, TypeError):
        msg = data.decode("utf-8", "backslashreplace")[:200] if st != 200 else ""
    return st, msg, data.decode("utf-8", "backslashreplace") if st == 200 else ""


def run_case(exe, server, c, tmp):
    if c["area"] == "http":
        if server is None:
            return None
        return run_http(server, c)
    return run_cli(exe, c, tmp)


def verdict(c, got):
    rc, msg, out = got
    if rc != c["exit"]:
        return "exit %d, want %d (message %r)" % (rc, c["exit"], msg[:300])
    want = c["message"]
    if want.startswith("clean:"):
        return check_clean(out, msg, want[6:])
    if want == "json" or want.startswith("json:"):
        return check_json(out, want[5:] if want.startswith("json:") else "")
    if want.endswith(" ...") and msg.startswith(want[:-4]):
        return None  # the rest varies from run to run (counts of a timed stop)
    if msg != want:
        return "message %r, want %r" % (msg, want)
    return None


def serve_available(exe):
    p = subprocess.run([exe, "serve", "--help"], capture_output=True, timeout=RUN_TIMEOUT_S)
    return p.returncode == 0


# ---- the doc table -----------------------------------------------------------

AREA_TITLES = [
    ("flag", "Command-line flags"), ("extreme", "Numeric extremes (valid or a clear error)"),
    ("model-json", "trainplan model JSON (--model FILE)"), ("gpu-json", "GPU JSON (--gpu FILE)"),
    ("hf-config", "Hugging Face config.json (--model DIR/config.json)"),
    ("runs-csv", "Measured-runs CSV (validate FILE)"),
    ("megatron", "Megatron-LM arguments (--from-megatron FILE)"),
    ("deepspeed", "DeepSpeed JSON (--from-deepspeed FILE)"),
    ("torchtitan", "torchtitan job TOML or Python configuration (--from-torchtitan FILE)"),
    ("nemo", "NeMo / Megatron-Bridge YAML overrides (--from-nemo FILE)"),
    ("plan-file", "Plan file (plan --plan-file FILE)"),
    ("http", "HTTP bodies (trainplan serve)"),
    ("file", "Files that are not regular files, and names (issue 14)"),
    ("output", "Untrusted text in the output (issue 14)"),
]


def md(s, limit=110):
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")
    return s if len(s) <= limit else s[:limit - 3] + "..."


def doc_table(cases):
    out = [BEGIN, "",
           "Generated from `tests/hostile/cases.tsv` by `tests/hostile/hostile.py doc "
           "docs/RELIABILITY.md`; ctest's `hostile` test fails when this table and the data "
           "differ. %d cases. `{in}` is the input file; the exit column is the HTTP status for "
           "bodies. `json` means exit 0 with strict JSON on stdout (no NaN or Infinity)." % len(cases),
           ""]
    for area, title in AREA_TITLES:
        rows = [c for c in cases if c["area"] == area]
        if not rows:
            continue
        out += ["### %s (%d)" % (title, len(rows)), "",
                "| id | hostile input | arguments | exit | message |", "|---|---|---|---|---|"]
        for c in rows:
            inp = "" if c["input"] == "-" else " (`%s`)" % md(c["input"], 60)
            out.append("| %s | %s%s | `%s` | %d | %s |" % (
                c["id"], md(c["what"]), inp, md(c["args"], 70), c["exit"], md(c["message"], 200)))
        out.append("")
    unknown = {c["area"] for c in cases} - {a for a, _ in AREA_TITLES}
    if unknown:
        raise SystemExit("unknown areas %s" % sorted(unknown))
    out.append(END)
    return "\n".join(out)


def doc_replace(text, table):
    if BEGIN not in text or END not in text:
        raise SystemExit("the doc has no %s ... %s markers" % (BEGIN, END))
    a = text.index(BEGIN)
    b = text.index(END) + len(END)
    return text[:a] + table + text[b:]


def main(argv):
    if len(argv) < 3 or argv[1] not in ("test", "doc", "record"):
        print(__doc__)
        return 2
    cases = load_cases()
    if argv[1] == "doc":
        with open(argv[2], encoding="utf-8") as f:
            text = f.read()
        new = doc_replace(text, doc_table(cases))
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(new)
        print("%s: %d cases" % (argv[2], len(cases)))
        return 0
    exe = os.path.abspath(argv[2])
    rest = argv[3:]
    doc = None
    if "--doc" in rest:
        i = rest.index("--doc")
        doc = rest[i + 1]
        rest = rest[:i] + rest[i + 2:]
    if argv[1] == "record" and rest:
        cases = [c for c in cases if c["id"] in rest]
    server = None
    if os.environ.get("TP_HOSTILE_NO_HTTP"):
        cases = [c for c in cases if c["area"] != "http"]  # the valgrind run
        doc = None
    shard = os.environ.get("TP_HOSTILE_SHARD")  # "i/n": every n-th case from the i-th
    if shard:
        i, n = (int(x) for x in shard.split("/"))
        cases = cases[i::n]
        doc = None
    if any(c["area"] == "http" for c in cases):
        if serve_available(exe):
            server = Server(exe)
        else:
            print("SKIP http cases: this trainplan has no serve")
    failures = 0
    skipped = 0
    try:
        with tempfile.TemporaryDirectory(prefix="tp_hostile_") as tmp:
            for c in cases:
                got = run_case(exe, server, c, tmp)
                if got is None:
                    skipped += 1
                    continue
                if argv[1] == "record":
                    print("%s\t%d\t%s" % (c["id"], got[0], got[1]))
                    continue
                bad = verdict(c, got)
                if bad:
                    failures += 1
                    print("FAIL %s (cases.tsv:%d): %s" % (c["id"], c["line"], bad))
            if server is not None and server.proc.poll() is not None:
                failures += 1
                print("FAIL the server exited during the cases (status %s)" % server.proc.returncode)
    finally:
        if server is not None:
            server.stop()
    if argv[1] == "record":
        return 0
    if doc:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        if doc_replace(text, doc_table(cases)) != text:
            failures += 1
            print("FAIL %s: the catalogue table differs from cases.tsv; run "
                  "tests/hostile/hostile.py doc %s" % (doc, doc))
    print("%d cases: %d passed, %d failed, %d skipped" %
          (len(cases), len(cases) - failures - skipped, failures, skipped))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
