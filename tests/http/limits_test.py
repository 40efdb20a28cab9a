#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`trainplan serve` under attack (issue 14; python3 standard library only).

    limits_test.py path/to/trainplan

Loopback only, and bounded: every wait is a liveness bound, the long
searches are stopped by the server's own --time-limit, and nothing here
times the server's speed as a pass/fail (the latencies are printed for
docs/RELIABILITY.md). Checks:
  - no request reads a file: "model" and "gpu" as a string, an array, an
    object or a number, on /api/estimate, /api/search and /api/plan, get a
    400 whose message is the same for an existing file, a JSON file, a
    missing path and a FIFO no one writes (the path itself aside), and
    never shows the file's content or its key names; a FIFO never blocks
    a worker (the presets answer right after);
  - framing: two Host headers, two Content-Length headers, or an HTTP/1.1
    request without Host get 400; HTTP/1.0 without Host is still served;
  - the idle timeout after a POST is --timeout, not --timeout + 60 s;
  - `serve --log` writes a control character of the path as \\xHH, so an
    encoded newline cannot forge a log line;
  - one search past the deadline: 503 {"error": {"code": "deadline"}} (and a
    plan and an explain);
  - eight long searches at once (2 compute threads, a queue of 3): every
    one gets a status (200, 503 "deadline", or 503 "busy" with
    Retry-After), while GET / and /api/estimate keep answering 200;
  - SIGTERM while searches run: the server stops promptly with exit 0.
"""
import json
import os
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from http_test import Server, check, finish, error_shape  # noqa: E402

LIVENESS_S = 20  # bound on any single wait (sanitizer builds are slow)
# An answer that needs no work (a refused file, a search stopped at its
# deadline) must come within this. It is well below the client's socket
# timeout (http_test.IO_TIMEOUT_S, = LIVENESS_S), so a slow or blocked
# answer fails its check instead of only timing out.
PROMPT_S = 5

# A search whose layout count explodes (divisor-rich GPU count and layer
# count, a batch with 960 divisors): about 4 s on an idle core in a release
# build, longer under sanitizers; every deadline below is shorter.
LONG = {"model": "llama-3-8b", "gpus": 55440, "gpus-per-node": 16, "layers": 55440,
        "hidden": 256, "heads": 8, "kv-heads": 8, "ffn-hidden": 1024, "vocab": 1000,
        "global-batch": 232792560, "seq-len": 128}

ROUTES = [("/api/estimate", {}), ("/api/search", {"gpus": 8, "global-batch": 64}),
          ("/api/plan", {})]


def shapes(path):
    """The JSON shapes a file path can take as "model" or "gpu"."""
    return [("string", path), ("array", [path]), ("array-after-preset", ["llama-3-8b", path]),
            ("object", {"path": path}), ("nested", [[path]])]


def test_no_files(s, tmp):
    secret = os.path.join(tmp, "secret.txt")
    with open(secret, "w") as f:
        f.write("hunter2 topsecret\n")
    model = os.path.join(tmp, "model.json")
    with open(model, "w") as f:
        json.dump({"name": "leak", "private_key_name": 1, "num_layers": 2}, f)
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    missing = os.path.join(tmp, "missing.json")
    paths = [secret, model, fifo, missing, "/etc/passwd", "/dev/zero"]
    for route, base in ROUTES:
        for key in ("model", "gpu"):
            for shape, _ in shapes("P"):
                msgs = set()
                for p in paths:
                    value = dict(shapes(p))[shape]
                    t0 = time.monotonic()
                    try:
                        st, h, body = s.post_json(route, dict(base, **{key: value}))
                    except socket.timeout:
                        st, h, body = -1, {}, b""
                    dt = time.monotonic() - t0
                    check(dt < PROMPT_S, "%s %s=%s answered without blocking (%.2f s)" %
                          (route, key, p, dt))
                    e = error_shape(body)
                    check(st == 400 and e is not None,
                          "%s %s as %s (%s) -> 400 (%d)" % (route, key, shape, p, st))
                    if e is None:
                        continue
                    m = e["message"]
                    for leak in ("hunter2", "private_key_name", "root:", "No such file",
                                 "cannot read", "Permission"):
                        check(leak not in m, "%s %s %s: %r not in %r" % (route, key, p, leak, m))
                    msgs.add(m.replace(p, "P"))
                check(len(msgs) == 1, "%s %s as %s: one message whatever the file (%s)" %
                      (route, key, shape, sorted(msgs)))
    # a number and a bare name that could be a file in the server's directory: presets only
    for key, v in (("model", 5), ("gpu", 80), ("model", "fifo"), ("gpu", "secret.txt")):
        st, h, body = s.post_json("/api/estimate", {key: v})
        e = error_shape(body)
        check(st == 400 and e and "unknown %s" % key in e["message"],
              "%s=%r -> 400 unknown %s (%d %s)" % (key, v, key, st, e))
    st, h, body = s.request("GET", "/api/presets")
    check(st == 200, "the presets still answer after the FIFO requests (%d)" % st)


def raw(s, text, wait_s=LIVENESS_S):
    """Send text on a new connection; the status of the first response line."""
    c = socket.create_connection((s.host, s.port), timeout=wait_s)
    try:
        c.sendall(text.encode())
        data = b""
        while b"\r\n" not in data:
            d = c.recv(4096)
            if not d:
                break
            data += d
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        return int(line.split()[1]) if line.startswith("HTTP/") else -1
    finally:
        c.close()


def test_framing(s):
    host = "Host: %s:%d\r\n" % (s.host, s.port)
    body = '{"gpus": 8}'
    cl = "Content-Length: %d\r\n" % len(body)
    ct = "Content-Type: application/json\r\n"
    cases = [
        ("two Host headers", "GET / HTTP/1.1\r\n" + host + host + "\r\n", 400),
        ("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400),
        ("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", 200),
        ("two Content-Length headers",
         "POST /api/estimate HTTP/1.1\r\n" + host + ct + cl + cl + "\r\n" + body, 400),
        ("two different Content-Length headers",
         "POST /api/estimate HTTP/1.1\r\n" + host + ct + cl + "Content-Length: 3\r\n\r\n" + body,
         400),
        ("one of each", "POST /api/estimate HTTP/1.1\r\n" + host + ct + cl + "\r\n" + body, 200),
    ]
    for what, text, want in cases:
        st = raw(s, text)
        check(st == want, "%s -> %d (%d)" % (what, want, st))


def test_idle_timeout_after_post(exe):
    s = Server(exe, "--timeout", "2")
    try:
        body = '{"gpus": 8}'
        c = socket.create_connection((s.host, s.port), timeout=LIVENESS_S)
        c.sendall(("POST /api/estimate HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: "
                   "application/json\r\nContent-Length: %d\r\n\r\n%s"
                   % (s.host, s.port, len(body), body)).encode())
        t0 = time.monotonic()
        got = b""
        closed = False
        c.settimeout(LIVENESS_S)
        try:
            while True:
                d = c.recv(65536)
                if not d:
                    closed = True
                    break
                got += d
        except socket.timeout:
            pass
        dt = time.monotonic() - t0
        c.close()
        check(got.startswith(b"HTTP/1.1 200"), "the POST is answered")
        # --timeout 2: closed after about 2 s idle (before: 62 s, the timeout grew after a POST)
        check(closed and dt < 2 + 8, "idle keep-alive closed %.1f s after a POST (--timeout 2)" % dt)
    finally:
        rc, err = s.stop()
    check(rc == 0, "serve --timeout 2 exits 0 (%d)" % rc)


def test_log_escape(exe):
    s = Server(exe, "--log")
    try:
        st = raw(s, "GET /x%0Atrainplan:%20serve:%20GET%20/forged%20200%1B[31m HTTP/1.1\r\n"
                    + "Host: %s:%d\r\n\r\n" % (s.host, s.port))
        check(st == 404, "a path with an encoded newline -> 404 (%d)" % st)
    finally:
        rc, err = s.stop()
    lines = [ln for ln in err.splitlines() if "forged" in ln]
    check(len(lines) == 1 and lines[0].startswith("trainplan: serve: GET /x\\x0atrainplan:")
          and "\\x1b[31m" in lines[0] and "\x1b" not in err,
          "the newline and the escape are written as \\xHH on one line (%r)" % lines)


def test_deadline(exe):
    s = Server(exe, "--time-limit", "0.5")
    try:
        t0 = time.monotonic()
        try:
            st, h, body = s.post_json("/api/search", LONG)
        except socket.timeout:
            st, h, body = -1, {}, b""
        dt = time.monotonic() - t0
        e = error_shape(body)
        check(st == 503 and e and e["code"] == "deadline", "a search past 0.5 s -> 503 deadline "
              "(%d %s)" % (st, e))
        want = "the server's time limit of 0.5 s passed; the search stopped after "
        check(e is not None and e["message"].startswith(want) and "55440 GPUs, 55440 layers" in
              e["message"], "the 503 says why and names the inputs (%s)" % (e and e["message"]))
        check(dt < 0.5 + PROMPT_S, "answered soon after the 0.5 s deadline (%.2f s)" % dt)
        st, h, body = s.post_json("/api/plan", LONG)
        e = error_shape(body)
        check(st == 503 and e and e["code"] == "deadline", "a plan past 0.5 s -> 503 deadline "
              "(%d %s)" % (st, e))
        st, h, body = s.post_json("/api/explain", LONG)
        e = error_shape(body)
        check(st == 503 and e and e["code"] == "deadline", "an explain past 0.5 s -> 503 deadline "
              "(%d %s)" % (st, e))
    finally:
        rc, err = s.stop()
    check(rc == 0, "serve --time-limit 0.5 exits 0 (%d)" % rc)


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("inf")


def test_long_searches(exe):
    """8 long searches while the page and estimates are asked for (the RELIABILITY.md load)."""
    s = Server(exe, "--time-limit", "2", "--compute-threads", "2", "--queue", "3")
    longs = []
    lock = threading.Lock()

    def long_one():
        try:
            st, h, body = s.post_json("/api/search", LONG)
            e = error_shape(body) if st != 200 else None
            r = (st, e["code"] if e else None, h.get("retry-after"))
        except OSError as ex:
            r = (-1, repr(ex), None)
        with lock:
            longs.append(r)
    try:
        ts = [threading.Thread(target=long_one) for _ in range(8)]
        for t in ts:
            t.start()
        time.sleep(0.2)
        lat = {"/": [], "/api/estimate": []}
        errors = 0
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            for path in lat:
                t0 = time.monotonic()
                try:
                    if path == "/":
                        st, h, body = s.request("GET", "/")
                    else:
                        st, h, body = s.post_json(path, {"gpus": 8})
                except OSError:
                    st = -1
                lat[path].append((time.monotonic() - t0) * 1e3)
                errors += st != 200
        for t in ts:
            t.join(LIVENESS_S)
        for path, xs in lat.items():
            print("while 8 long searches run: %s %d requests, p50 %.2f ms, p99 %.2f ms, max "
                  "%.2f ms" % (path, len(xs), percentile(xs, 0.5), percentile(xs, 0.99),
                               max(xs) if xs else float("inf")), flush=True)
        print("cheap request errors: %d; searches: %s" % (errors, sorted(longs, key=str)),
              flush=True)
        check(errors == 0, "GET / and /api/estimate all 200 while the searches run (%d errors)"
              % errors)
        allx = lat["/"] + lat["/api/estimate"]
        check(len(allx) > 20 and max(allx) < 1000 * LIVENESS_S / 4,
              "cheap requests answered throughout (%d, max %.0f ms)" % (len(allx), max(allx)))
        check(len(longs) == 8 and all(st in (200, 503) for st, _, _ in longs),
              "every one of the 8 searches got a status: %s" % longs)
        busy = [r for r in longs if r[1] == "busy"]
        check(len(busy) >= 3 and all(r[0] == 503 and r[2] == "1" for r in busy),
              "2 running + 3 queued: the rest are 503 busy with Retry-After: 1 (%s)" % busy)
        check(all(r[1] in (None, "busy", "deadline") for r in longs),
              "a 503 says busy or deadline (%s)" % longs)
        check(any(r[1] == "deadline" for r in longs), "some searches ran into the deadline")
    finally:
        rc, err = s.stop()
    check(rc == 0, "serve exits 0 after the long searches (%d)" % rc)


def test_stop_while_running(exe):
    s = Server(exe, "--time-limit", "60", "--compute-threads", "1", "--queue", "2")
    done = []

    def long_one():
        try:
            done.append(s.post_json("/api/search", LONG)[0])
        except OSError:
            done.append(-1)  # the server may close it while stopping: no hang either way
    ts = [threading.Thread(target=long_one) for _ in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    try:
        rc = s.proc.wait(timeout=LIVENESS_S)
    except Exception:
        rc = None
    dt = time.monotonic() - t0
    rc2, err = s.stop()
    for t in ts:
        t.join(LIVENESS_S)
    check(rc == 0 and dt < LIVENESS_S / 2,
          "SIGTERM with searches running and queued: exit 0 in %.2f s (%s)" % (dt, rc))
    check(len(done) == 3 and all(x in (503, -1) for x in done),
          "the stopped searches end (503 shutting-down, or a closed connection): %s" % done)


def main():
    if len(sys.argv) != 2:
        print("usage: limits_test.py path/to/trainplan", file=sys.stderr)
        return 2
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        s = Server(exe)
        try:
            test_no_files(s, tmp)
            test_framing(s)
        finally:
            rc, err = s.stop()
        check(rc == 0, "serve exits 0 (%d): %s" % (rc, err[-1000:]))
    test_idle_timeout_after_post(exe)
    test_log_escape(exe)
    test_deadline(exe)
    test_long_searches(exe)
    test_stop_while_running(exe)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
