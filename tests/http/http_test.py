#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HTTP tests of `trainplan serve` (python3 standard library only).

    http_test.py path/to/trainplan

Starts `trainplan serve --port 0`, reads the URL it prints, calls every
route, and checks:
  - the page's files: status, content type, security headers, HEAD;
  - /api/presets and /api/estimate give byte for byte what the CLI's
    --json prints for the same input (flags <-> JSON object, docs/serve.md);
  - errors: the CLI's message for the same bad input, status 400, and the
    {"error": {code, path, line, column, message}} shape; malformed JSON
    (with line and column), wrong types, oversized bodies (413, 411
    without a length), unknown routes (404), wrong methods (405 + Allow),
    wrong content type (415), a foreign Host header (403);
  - /api/search, /api/plan and /api/explain: byte for byte the CLI's
    --json answer, run in the server's process; /api/search in pages ("offset"/"limit"),
    page by page the same objects as the CLI's --json;
  - a few concurrent clients, server-side time of /api/estimate, and a
    clean stop on SIGTERM (exit 0: under ASan that also means no leak);
  - `serve --bind` refuses a non-loopback address without --allow-remote.
Only the loopback address is contacted, every wait is bounded, and the
whole run stops itself after DEADLINE_S.
"""
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

DEADLINE_S = 150          # the whole test
IO_TIMEOUT_S = 20         # one request (generous for sanitizer builds)
START_TIMEOUT_S = 20      # until the URL is printed

failures = []
checks = 0
t_start = time.monotonic()


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)
    if time.monotonic() - t_start > DEADLINE_S:
        print("FAIL: deadline of %d s passed" % DEADLINE_S, flush=True)
        failures.append("deadline")
        raise SystemExit(finish())


def finish():
    n_fail = len(failures)
    print("%d passed, %d failed" % (checks - n_fail, n_fail), flush=True)
    return 1 if n_fail else 0


class Server:
    def __init__(self, exe, *args):
        self.proc = subprocess.Popen([exe, "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True)
        self.url = None
        line = [None]

        def read():
            line[0] = self.proc.stdout.readline()
        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(START_TIMEOUT_S)
        prefix = "trainplan: serving on "
        if not line[0] or not line[0].startswith(prefix):
            self.stop()
            raise SystemExit("FAIL: no URL printed (got %r)" % (line[0],))
        self.url = line[0][len(prefix):].strip()
        u = urllib.parse.urlsplit(self.url)
        assert u.hostname == "::1" or u.hostname.startswith("127."), u.hostname  # loopback only
        self.host, self.port = u.hostname, u.port

    def request(self, method, path, body=None, headers=None, raw_headers=None):
        """(status, headers dict lower-case, body bytes)."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=IO_TIMEOUT_S)
        try:
            if raw_headers is not None:
                # header names are case-insensitive: "Host" too is ours (a second Host is a 400)
                c.putrequest(method, path, skip_host=any(k.lower() == "host" for k in raw_headers),
                             skip_accept_encoding=True)
                for k, v in raw_headers.items():
                    c.putheader(k, v)
                c.endheaders()
                if body is not None:
                    c.send(body)
            else:
                c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data
        finally:
            c.close()

    def post_json(self, path, obj=None, raw=None):
        body = raw if raw is not None else json.dumps(obj).encode()
        return self.request("POST", path, body=body,
                            headers={"Content-Type": "application/json"})

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read()
        return self.proc.returncode, err


def run_cli(exe, args, timeout=IO_TIMEOUT_S):
    p = subprocess.run([exe, *args], capture_output=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def flags(obj):
    """The request -> argv mapping of src/io/request.h."""
    out = []
    for k, v in obj.items():
        if isinstance(v, list):
            out += sum((flags({k: x}) for x in v), [])
        elif v is True:
            out.append("--" + k)
        elif v is False or v is None:
            continue
        elif isinstance(v, float):
            out.append("--%s=%s" % (k, repr(v)))
        else:
            out.append("--%s=%s" % (k, v))
    return out


def error_shape(data):
    try:
        e = json.loads(data)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    keys = {"code", "path", "line", "column", "message"}
    if set(e) != keys or not isinstance(e["message"], str) or not e["message"]:
        return None
    return e


SECURITY = {
    "content-security-policy": "default-src 'self'",
    "x-content-type-options": "nosniff",
}


def check_security(h, what):
    for k, v in SECURITY.items():
        check(k in h and h[k].startswith(v), "%s: header %s %r" % (what, k, h.get(k)))
    csp = h.get("content-security-policy", "")
    check("http" not in csp and "*" not in csp, what + ": CSP names no external source")


ESTIMATES = [
    {},
    {"gpus": 8, "tp": 2},
    {"model": "llama-3-70b", "gpus": 64, "tp": 8, "pp": 4, "seq-len": 8192,
     "global-batch": 512, "distributed-optimizer": True},
    {"model": "llama-3-70b", "gpus": 8},                      # does not fit
    {"model": "llama-2-7b", "gpu": "a100-80gb", "gpus": 16, "pp": 4, "vpp": 2,
     "recompute": "selective", "micro-batch": 2, "global-batch": 64, "zero": 1},
    {"model": "mixtral-8x7b", "gpus": 32, "ep": 4, "tp": 2, "fsdp": True, "sp": False,
     "no-sp": True},
    {"gpus": 8, "fragmentation": 0.05, "gpu-memory-gb": 40.5, "precision": "fp8"},
    {"gpus": "8", "tp": "2", "seq-len": 4096, "recompute": "full", "recompute-every": 2},
]

BAD_ESTIMATES = [
    {"tp": "x"},
    {"tp": 3, "gpus": 8},
    {"tpp": 2},
    {"model": "llama-3-9b"},
    {"recompute": "fulll"},
    {"tp": 2.5},
    {"gpus": 0},
    {"sp": 1},
    {"tp": True},
    {"global-batch": 7, "gpus": 8},
]

HF_CONFIG = """{
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 2048,
  "intermediate_size": 5632,
  "num_attention_heads": 32,
  "num_hidden_layers": 22,
  "num_key_value_heads": 4,
  "vocab_size": 32000,
  "rms_norm_eps": 1e-05,
  "hidden_act": "silu",
  "tie_word_embeddings": false,
  "max_position_embeddings": 2048
}
"""


def test_static(s):
    for path, ctype in [("/", "text/html"), ("/index.html", "text/html"),
                        ("/app.js", "text/javascript"), ("/style.css", "text/css"),
                        ("/favicon.svg", "image/svg+xml")]:
        st, h, body = s.request("GET", path)
        check(st == 200, "GET %s -> %d" % (path, st))
        check(h.get("content-type", "").startswith(ctype), "GET %s content type %r" %
              (path, h.get("content-type")))
        check(len(body) > 0, "GET %s has a body" % path)
        check_security(h, "GET " + path)
    st, h, body = s.request("GET", "/")
    page = body.decode()
    for ext in ("http://", "https://", "//fonts", "cdn"):
        check(ext not in page.replace("http://www.w3.org", ""),
              "index.html references nothing external (%s)" % ext)
    st, h, body = s.request("HEAD", "/")
    check(st == 200 and body == b"", "HEAD / -> 200 without a body (%d, %d bytes)" %
          (st, len(body)))


def test_presets(s, exe):
    st, h, body = s.request("GET", "/api/presets")
    check(st == 200, "GET /api/presets -> %d" % st)
    check(h.get("content-type", "").startswith("application/json"), "presets content type")
    check_security(h, "GET /api/presets")
    rc, out, err = run_cli(exe, ["presets", "--json"])
    check(rc == 0, "trainplan presets --json exits 0 (%d: %s)" % (rc, err))
    check(json.loads(body) == json.loads(out), "/api/presets == trainplan presets --json")
    st, h, _ = s.request("POST", "/api/presets", body=b"{}",
                         headers={"Content-Type": "application/json"})
    check(st == 405 and "GET" in h.get("allow", ""), "POST /api/presets -> 405 with Allow")


def test_estimate(s, exe):
    for obj in ESTIMATES:
        st, h, body = s.post_json("/api/estimate", obj)
        rc, out, err = run_cli(exe, ["estimate", "--json", *flags(obj)])
        check(rc == 0, "CLI estimate %s exits 0 (%d: %s)" % (flags(obj), rc, err.strip()))
        check(st == 200, "POST /api/estimate %s -> %d %s" % (obj, st, body[:300]))
        check(body == out, "estimate %s: API body == CLI stdout, byte for byte" % (obj,))
        check("server-timing" in h, "estimate has Server-Timing")
    # a pasted Hugging Face config.json == --model FILE (named after the file)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model-config.json")
        with open(path, "w") as f:
            f.write(HF_CONFIG)
        obj = {"gpus": 4, "tp": 2}
        st, h, body = s.post_json("/api/estimate", dict(obj, **{"model-config": HF_CONFIG}))
        rc, out, err = run_cli(exe, ["estimate", "--json", "--model", path, *flags(obj)])
        check(rc == 0 and st == 200, "model-config: CLI %d, API %d %s" % (rc, st, body[:200]))
        check(body == out, "model-config: API body == CLI stdout for --model FILE")
        # the same as an object
        st, h, body2 = s.post_json("/api/estimate",
                                   dict(obj, **{"model-config": json.loads(HF_CONFIG)}))
        check(st == 200 and body2 == out, "model-config as an object")
    # a broken pasted config: position inside the pasted text
    st, h, body = s.post_json("/api/estimate", {"model-config": '{\n  "hidden_size": 2048,\n  oops\n}'})
    e = error_shape(body)
    check(st == 400 and e and e["line"] == 3 and e["path"].startswith("model-config"),
          "broken model-config -> 400 at line 3 (%d %s)" % (st, e))
    st, h, body = s.post_json("/api/estimate", {"model-config": HF_CONFIG, "layers": 4})
    e = error_shape(body)
    check(st == 400 and e and e["path"] == "layers", "model-config + layers -> 400 (%s)" % e)
    # a vision-language config with its tower's training settings: image-tokens and
    # freeze-vision apply to the pasted model as to --model FILE (issue 16)
    vlm_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hf",
                            "qwen2.5-vl-7b", "config.json")
    with open(vlm_path) as f:
        vlm = f.read()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model-config.json")
        with open(path, "w") as f:
            f.write(vlm)
        for obj in ({"gpus": 8, "tp": 2, "image-tokens": 1024},
                    {"gpus": 8, "image-tokens": 256, "freeze-vision": True}):
            st, h, body = s.post_json("/api/estimate", dict(obj, **{"model-config": vlm}))
            rc, out, err = run_cli(exe, ["estimate", "--json", "--model", path, *flags(obj)])
            check(rc == 0 and st == 200, "VLM model-config %s: CLI %d, API %d %s"
                  % (obj, rc, st, body[:200]))
            check(body == out, "VLM model-config %s: API body == CLI stdout for --model FILE"
                  % (obj,))
            j = json.loads(body) if st == 200 else {}
            check(j.get("model", {}).get("vision", {}).get("image_tokens") == obj["image-tokens"],
                  "VLM model-config: the image tokens reach the model (%s)"
                  % j.get("model", {}).get("vision"))
    # on a text model, as on the CLI: the field and what is missing
    st, h, body = s.post_json("/api/estimate", {"model-config": HF_CONFIG, "image-tokens": 256})
    e = error_shape(body)
    check(st == 400 and e and e["path"] == "image-tokens"
          and "needs a model with a vision tower" in e["message"],
          "text model-config + image-tokens -> 400 (%s)" % e)


def test_estimate_errors(s, exe):
    for obj in BAD_ESTIMATES:
        st, h, body = s.post_json("/api/estimate", obj)
        e = error_shape(body)
        rc, out, err = run_cli(exe, ["estimate", "--json", *flags(obj)])
        check(rc == 2, "CLI estimate %s exits 2 (%d)" % (flags(obj), rc))
        check(st == 400, "POST /api/estimate %s -> 400 (%d)" % (obj, st))
        check(e is not None, "error body shape for %s: %s" % (obj, body[:200]))
        if e:
            check(e["message"] in err, "same message as the CLI for %s:\n  API %r\n  CLI %r" %
                  (obj, e["message"], err.strip()))
    # files are never read
    st, h, body = s.post_json("/api/estimate", {"model": "/etc/passwd"})
    e = error_shape(body)
    check(st == 400 and e and e["path"] == "model" and "passwd" in e["message"],
          "model as a path -> 400 (%s)" % e)
    st, h, body = s.post_json("/api/estimate", {"gpu": "../gpus/h100.json"})
    check(st == 400, "gpu as a path -> 400")
    # malformed and mistyped JSON
    for raw, line, col in [(b'{"tp": 2,', 1, 9), (b'{"tp": 2,\n "pp": }', 2, 8),
                           (b'', 1, 1), (b'\xff\xfe', 1, 1), (b'{"a":1} x', 1, 9)]:
        st, h, body = s.post_json("/api/estimate", raw=raw)
        e = error_shape(body)
        check(st == 400 and e and e["code"] == "parse", "malformed %r -> 400 parse (%d %s)" %
              (raw, st, e))
        if e and raw:
            check(e["line"] == line, "malformed %r: line %d (got %d)" % (raw, line, e["line"]))
        check_security(h, "400 reply")
    for obj in ([1, 2], "x", 3, None):
        st, h, body = s.post_json("/api/estimate", obj)
        check(st == 400 and error_shape(body), "body %r -> 400" % (obj,))
    for obj in ({"tp": [2]}, {"tp": {"a": 1}}, {"TP": 2}, {"tp=2": 1}, {"--tp": 2}):
        st, h, body = s.post_json("/api/estimate", obj)
        check(st == 400 and error_shape(body), "bad key/value %r -> 400 (%d)" % (obj, st))
    st, h, body = s.post_json("/api/estimate", raw=b'{"tp": 2, "tp": 4}')
    check(st == 400 and error_shape(body), "duplicate key -> 400")


# Errors name the request key in "path", and the message says what is wrong
# with its value without the CLI's "--flag: " (src/io/fields.h).
KEYED_ERRORS = [
    ({"tp": 3}, "tp", "3 does not divide the number of attention heads (32)"),
    ({"tp": "x"}, "tp", 'expected an integer, got "x"'),
    ({"gpus": 2, "global-batch": 3}, "global-batch",
     "3 is not divisible by micro-batch * dp = 1 * 2"),
    ({"fragmentation": 2}, "fragmentation", "2 is out of range (0, or [1e-06, 1])"),
    ({"heads": 7, "kv-heads": 7}, "heads",
     "7 heads do not divide hidden size 4096 (set the head dimension)"),
]


def test_error_keys(s):
    for obj, path, message in KEYED_ERRORS:
        st, h, body = s.post_json("/api/estimate", obj)
        e = error_shape(body)
        check(st == 400 and e and e["path"] == path and e["message"] == message,
              "%s -> 400 at %r: %r (%d %s)" % (obj, path, message, st, e))


def test_limits(s):
    pad = 65536 - len(b'{"gpus": 8}')
    exact = b'{"gpus": 8' + b" " * pad + b"}"
    check(len(exact) == 65536, "test body is 64 KiB")
    st, h, body = s.post_json("/api/estimate", raw=exact)
    check(st == 200, "a 64 KiB body is accepted (%d)" % st)
    st, h, body = s.post_json("/api/estimate", raw=exact + b" ")
    e = error_shape(body)
    check(st == 413 and e and e["code"] == "too-large", "64 KiB + 1 -> 413 (%d %s)" % (st, e))
    # a large declared length is refused before any body is sent
    st, h, body = s.request("POST", "/api/estimate", raw_headers={
        "Host": "%s:%d" % (s.host, s.port), "Content-Type": "application/json",
        "Content-Length": str(10 ** 9)})
    check(st == 413, "Content-Length 1e9 with no body -> 413 at once (%d)" % st)
    # chunked: no length -> 411, answered from the headers alone
    sock = socket.create_connection((s.host, s.port), timeout=IO_TIMEOUT_S)
    try:
        sock.sendall(("POST /api/estimate HTTP/1.1\r\nHost: %s:%d\r\n"
                      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                      % (s.host, s.port)).encode())
        r = http.client.HTTPResponse(sock)
        r.begin()
        st, body = r.status, r.read()
    finally:
        sock.close()
    check(st == 411 and error_shape(body), "chunked body without length -> 411 (%d)" % st)


def test_routes(s):
    st, h, body = s.request("GET", "/nope")
    e = error_shape(body)
    check(st == 404 and e and e["code"] == "not-found", "GET /nope -> 404 (%d)" % st)
    check_security(h, "404")
    st, h, body = s.request("GET", "/api/nope")
    check(st == 404, "GET /api/nope -> 404")
    st, h, body = s.post_json("/api/nope", {})
    check(st == 404, "POST /api/nope -> 404 (%d)" % st)
    for m in ("GET", "PUT", "DELETE"):
        st, h, body = s.request(m, "/api/estimate")
        check(st == 405 and h.get("allow") == "POST" and error_shape(body),
              "%s /api/estimate -> 405 Allow: POST (%d %r)" % (m, st, h.get("allow")))
    st, h, body = s.request("POST", "/", body=b"{}", headers={"Content-Type": "application/json"})
    check(st == 405 and "GET" in h.get("allow", ""), "POST / -> 405")
    st, h, body = s.request("POST", "/api/estimate", body=b"gpus=8",
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
    check(st == 415 and error_shape(body), "form body -> 415 (%d)" % st)
    st, h, body = s.request("POST", "/api/estimate", body=b"{}", headers={"Content-Type": "text/plain"})
    check(st == 415, "text/plain -> 415 (%d)" % st)
    st, h, body = s.request("GET", "/", headers={"Host": "evil.example:%d" % s.port})
    check(st == 403 and error_shape(body), "foreign Host -> 403 (%d)" % st)
    st, h, body = s.request("GET", "/", headers={"Host": "localhost:%d" % s.port})
    check(st == 200, "Host localhost:port -> 200 (%d)" % st)
    st, h, body = s.request("GET", "/api/presets?x=1")
    check(st == 200, "a query string is ignored (%d)" % st)


LATER = [
    ("/api/search", "search", {"gpus": 8, "global-batch": 64, "top": 3}),
    ("/api/search", "search", {"model": "llama-2-7b", "gpus": 16, "seq-len": 4096,
                               "global-batch": 128, "rank": "cost", "top": 2, "max-tp": 4}),
    ("/api/search", "search", {"model": "llama-3-70b", "gpus": 1, "global-batch": 8}),  # none fits
    ("/api/search", "search", {"gpus": 8, "global-batch": 64, "top": 2, "unfit": 3}),  # issue 19
    ("/api/search", "search", {"gpus": 8}),                          # no batch: 400
    ("/api/search", "search", {"gpus": 8, "global-batch": 64, "max-tp": "x"}),
    ("/api/plan", "plan", {"gpus": 8}),
    ("/api/plan", "plan", {"model": "llama-3-8b", "gpus": 64, "seq-len": 8192,
                           "global-batch-tokens": 4194304, "budget": 2e6,
                           "phase": ["name=4k,seq=4096", "name=32k,seq=32768,tokens=40e9"]}),
    ("/api/plan", "plan", {"gpus": 8, "mfu": 7}),                     # out of range: 400
    ("/api/explain", "explain", {"model": "llama-2-7b", "gpus": 64, "seq-len": 131072,
                                 "global-batch-tokens": 4194304}),   # README's: fits
    ("/api/explain", "explain", {"model": "llama-3.1-405b", "gpus": 16, "seq-len": 8192,
                                 "global-batch": 64}),                # does not fit: exit 1
    ("/api/explain", "explain", {"gpus": 8}),                         # no batch: 400
    ("/api/explain", "explain", {"gpus": 8, "global-batch": 8, "schedule": "gpipe"}),  # 400
]


def test_later_routes(s, exe):
    for route, cmd, obj in LATER:
        st, h, body = s.post_json(route, obj)
        rc, out, err = run_cli(exe, [cmd, "--json", *flags(obj)])
        check((st == 200 and rc in (0, 1)) or (st == 400 and rc == 2),
              "%s %s -> %d, CLI %s exits %d" % (route, obj, st, cmd, rc))
        if st == 200:
            check(body == out, "%s %s: API body == trainplan %s --json stdout" % (route, obj, cmd))
            check(h.get("x-trainplan-exit") == str(rc), "%s: X-Trainplan-Exit %r == CLI exit %d" %
                  (route, h.get("x-trainplan-exit"), rc))
        else:
            e = error_shape(body)
            check(e is not None and e["message"] in err,
                  "%s %s: the CLI's message (%s | %s)" % (route, obj, e, err.strip()))
        st, h, body = s.post_json(route, raw=b"{")
        check(st == 400 and error_shape(body), "%s malformed -> 400" % route)
        st, h, body = s.request("GET", route)
        check(st == 405, "GET %s -> 405" % route)
        for bad in ({"csv": True}, {"out": "/tmp/x"}, {"model": "/etc/passwd"},
                    {"plan-file": "/etc/passwd"}, {"markdown": True}, {"lr-schedule": True},
                    {"svg": "/tmp/x.svg"}, {"force": True}, {"lr-points": 10}):
            st, h, body = s.post_json(route, dict(obj, **bad))
            check(st == 400 and error_shape(body), "%s refuses %s (%d)" % (route, bad, st))


def test_search_pages(s, exe):
    """/api/search in pages: {"offset", "limit"} -> {"total", "offset", "limit", "results"}."""
    obj = {"gpus": 8, "global-batch": 64}
    rc, out, err = run_cli(exe, ["search", "--json", "--top", "1000", *flags(obj)], timeout=60)
    check(rc == 0, "CLI search --top 1000 exits 0 (%d: %s)" % (rc, err.strip()))
    full = json.loads(out)
    check(len(full) > 25, "the full list has more than one page (%d)" % len(full))
    pages = []
    for offset in (0, 10, 20):
        st, h, body = s.post_json("/api/search", dict(obj, offset=offset, limit=10))
        check(st == 200, "page at %d -> %d %s" % (offset, st, body[:200]))
        if st != 200:
            return
        p = json.loads(body)
        check(list(p) == ["total", "offset", "limit", "results"], "page keys %s" % list(p))
        check(p["total"] == len(full) and p["offset"] == offset and p["limit"] == 10,
              "page header total %d == CLI's %d, offset %d, limit 10" %
              (p["total"], len(full), p["offset"]))
        check(h.get("x-trainplan-exit") == "0", "a page carries X-Trainplan-Exit 0")
        pages += p["results"]
    # the same objects, in the same order, as the CLI's own --json
    check(pages == full[:30], "pages 0-2 == trainplan search --json --top 1000 [0:30]")
    check([r["search"]["rank"] for r in pages] == list(range(1, 31)), "ranks 1..30 across pages")
    # the query string works too and wins over the body
    st, h, body = s.post_json("/api/search?offset=5&limit=3", dict(obj, offset=0))
    p = json.loads(body) if st == 200 else {}
    check(st == 200 and p.get("results") == full[5:8], "?offset=5&limit=3 -> results [5:8] (%d)" % st)
    # past the end: an empty page, the total still says how many
    st, h, body = s.post_json("/api/search", dict(obj, offset=len(full) + 5, limit=10))
    p = json.loads(body) if st == 200 else {}
    check(st == 200 and p.get("results") == [] and p.get("total") == len(full),
          "offset past the end -> empty page with the total (%d %s)" % (st, body[:120]))
    # "top" bounds the ranked list the pages come from
    st, h, body = s.post_json("/api/search", dict(obj, top=12, offset=10, limit=10))
    p = json.loads(body) if st == 200 else {}
    check(st == 200 and p.get("total") == 12 and p.get("results") == full[10:12],
          "top 12, offset 10 -> the last two (%d %s)" % (st, str(p.get("total"))))
    # nothing fits: the closest layouts, paged the same way, exit 1
    st, h, body = s.post_json("/api/search", {"model": "llama-3-70b", "gpus": 1,
                                              "global-batch": 8, "limit": 2})
    p = json.loads(body) if st == 200 else {}
    check(st == 200 and h.get("x-trainplan-exit") == "1" and len(p.get("results", [])) <= 2,
          "nothing fits: a page of the closest, exit 1 (%d %s)" % (st, h.get("x-trainplan-exit")))
    # "unfit" (search --unfit): the closest that do not fit are not paged; every
    # page carries them, as the CLI's --json lists them after the ranked ones
    rc, out, err = run_cli(exe, ["search", "--json", "--top", "1000", "--unfit", "3", *flags(obj)],
                           timeout=60)
    withu = json.loads(out) if rc == 0 else []
    check(withu[:len(full)] == full and len(withu) == len(full) + 3,
          "CLI --unfit 3: the ranked list unchanged, 3 more (%d)" % len(withu))
    for offset in (0, 10):
        st, h, body = s.post_json("/api/search", dict(obj, unfit=3, offset=offset, limit=10))
        p = json.loads(body) if st == 200 else {}
        check(st == 200 and list(p) == ["total", "offset", "limit", "results", "unfit"] and
              p["total"] == len(full) and p["results"] == full[offset:offset + 10] and
              p["unfit"] == withu[len(full):] and
              all(not u["memory"]["fits"] for u in p["unfit"]),
              "unfit 3, offset %d: the page, then the 3 that do not fit (%d %s)" %
              (offset, st, list(p)))
    # bad page fields: 400 naming the field, the CLI never runs
    for bad, path in [({"offset": -1}, "offset"), ({"limit": 0}, "limit"),
                      ({"limit": 1001}, "limit"), ({"limit": "x"}, "limit"),
                      ({"offset": 2.5}, "offset"), ({"limit": True}, "limit")]:
        st, h, body = s.post_json("/api/search", dict(obj, **bad))
        e = error_shape(body)
        check(st == 400 and e and e["path"] == path, "page %s -> 400 at %s (%d %s)" % (bad, path, st, e))
    st, h, body = s.post_json("/api/search?limit=abc", obj)
    e = error_shape(body)
    check(st == 400 and e and e["path"] == "limit", "?limit=abc -> 400 (%d %s)" % (st, e))
    # estimate and plan take no page: "offset" is an unknown flag there, as on the CLI
    st, h, body = s.post_json("/api/estimate", {"offset": 1})
    check(st == 400 and error_shape(body), "estimate with offset -> 400 (%d)" % st)


def test_concurrency_and_time(s):
    obj = {"gpus": 64, "tp": 4, "pp": 2}
    expected = s.post_json("/api/estimate", obj)[2]
    results = []
    lock = threading.Lock()

    def worker():
        for _ in range(10):
            st, h, body = s.post_json("/api/estimate", obj)
            with lock:
                results.append((st, body == expected))
    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(IO_TIMEOUT_S * 2)
    check(len(results) == 80 and all(st == 200 and same for st, same in results),
          "80 concurrent estimates all 200 and identical (%d done)" % len(results))
    times = []
    for _ in range(30):
        st, h, _ = s.post_json("/api/estimate", obj)
        m = h.get("server-timing", "")
        if "dur=" in m:
            times.append(float(m.split("dur=")[1]))
    med = statistics.median(times) if times else float("inf")
    print("server time of /api/estimate: median %.3f ms, max %.3f ms (%d samples)" %
          (med, max(times) if times else float("inf"), len(times)), flush=True)
    # Reported, not asserted: speed is measured by benchmarks, never by a
    # timed test (the 1 ms target is for a release build on an idle core).
    check(len(times) == 30, "every response carries a Server-Timing duration")


def test_bind(exe):
    rc, out, err = run_cli(exe, ["serve", "--port", "0", "--bind", "0.0.0.0"])
    check(rc == 2 and "--allow-remote" in err, "--bind 0.0.0.0 refused (%d: %s)" % (rc, err.strip()))
    rc, out, err = run_cli(exe, ["serve", "--bind", "not-an-address"])
    check(rc == 2, "--bind not-an-address -> 2 (%d)" % rc)
    rc, out, err = run_cli(exe, ["serve", "--port", "70000"])
    check(rc == 2 and "--port" in err, "--port 70000 -> 2 (%d: %s)" % (rc, err.strip()))
    rc, out, err = run_cli(exe, ["serve", "--prot", "1"])
    check(rc == 2 and "--port" in err, "--prot suggests --port (%s)" % err.strip())


def main():
    if len(sys.argv) != 2:
        print("usage: http_test.py path/to/trainplan", file=sys.stderr)
        return 2
    exe = sys.argv[1]
    test_bind(exe)
    s = Server(exe, "--threads", "4")
    try:
        check(s.url.endswith("/"), "URL printed: %s" % s.url)
        test_static(s)
        test_presets(s, exe)
        test_estimate(s, exe)
        test_estimate_errors(s, exe)
        test_error_keys(s)
        test_limits(s)
        test_routes(s)
        test_later_routes(s, exe)
        test_search_pages(s, exe)
        test_concurrency_and_time(s)
    finally:
        rc, err = s.stop()
    check(rc == 0, "serve exits 0 on SIGTERM (%d); stderr:\n%s" % (rc, err[-2000:]))
    # a server with one thread works too
    s1 = Server(exe, "--threads", "1", "--max-connections", "4", "--timeout", "5")
    try:
        st, h, body = s1.post_json("/api/estimate", {"gpus": 8})
        check(st == 200, "--threads 1 server answers (%d)" % st)
    finally:
        rc, err = s1.stop()
    check(rc == 0, "one-thread serve exits 0 (%d): %s" % (rc, err[-2000:]))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
