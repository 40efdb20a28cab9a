#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Abuse tests of `trainplan serve` (issue 8; python3 standard library only).

    abuse_test.py path/to/trainplan

Starts `serve --port 0 --timeout 2 --max-connections 40` and checks:
  - slowloris: 24 connections that stop halfway through their headers and
    8 that trickle a header byte every 0.2 s do not keep a normal client
    from being answered: 20 estimates, each on a new connection, all 200
    with the right body, while every slow connection is still open (so
    the client did not wait for them to be cut);
  - the stalled ones are closed by the server once idle for --timeout
    (connection timeout), and the tricklers once they stop;
  - all connections taken (the limit) by stalled clients: a new client
    waits in the kernel's backlog (or is refused) and is served once the
    connection timeout has cut them;
  - a header block larger than the server's per-connection memory is
    refused (431) or cut, and the server keeps serving;
  - a body announced as 10 MB: 413 from the headers alone, before any of
    it is sent, and the connection is closed rather than read;
  - malformed JSON -> 400 with a message; an unknown route -> 404;
  - binding: loopback names start; non-loopback addresses (IPv4, IPv6,
    IPv4-mapped) are refused without --allow-remote, naming the flag.
No check times the server's speed: the waits are liveness bounds (several
times the 2 s timeout), and the whole run stops itself after DEADLINE_S.
"""
import http.client
import json
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from http_test import Server, check, finish, run_cli, error_shape  # noqa: E402

TIMEOUT_S = 2             # the server's --timeout
MAX_CONN = 40             # the server's --max-connections
LIVENESS_S = 6 * TIMEOUT_S  # bound on "is cut once idle for the timeout" (sanitizer builds)


def partial(s, text):
    """A connection that has sent text (a request cut short)."""
    c = socket.create_connection((s.host, s.port), timeout=10)
    c.sendall(text.encode())
    return c


def is_closed(c, wait_s):
    """True when the peer closed c (EOF or reset) within wait_s seconds."""
    c.settimeout(wait_s)
    try:
        while True:
            d = c.recv(4096)
            if not d:
                return True
            # a reply (408/431, ...) before the close is fine: keep reading
    except socket.timeout:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def still_open(c):
    """True when the server has not closed c (nothing to read, no EOF)."""
    c.setblocking(False)
    try:
        d = c.recv(1, socket.MSG_PEEK)
        return False if d == b"" else True
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        c.setblocking(True)


def estimate_once(s, obj):
    st, h, body = s.post_json("/api/estimate", obj)
    return st, body


def test_slowloris(s):
    head = "POST /api/estimate HTTP/1.1\r\nHost: %s:%d\r\n" % (s.host, s.port)
    stalled = [partial(s, head + "Content-Type: appl") for _ in range(24)]
    tricklers = [partial(s, head) for _ in range(8)]
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for c in tricklers:
                try:
                    c.sendall(b"X")  # a header name that never ends
                except OSError:
                    pass
            stop.wait(0.2)
    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    try:
        obj = {"gpus": 8, "tp": 2}
        want = estimate_once(s, obj)[1]
        got = [estimate_once(s, obj) for _ in range(20)]
        check(all(st == 200 and body == want for st, body in got),
              "20 estimates answered while %d slow connections are open (%s)" %
              (len(stalled) + len(tricklers), sorted({st for st, _ in got})))
        n_trickle_open = sum(still_open(c) for c in tricklers)
        check(n_trickle_open == len(tricklers),
              "the normal client did not wait for the slow ones: %d of %d tricklers still open" %
              (n_trickle_open, len(tricklers)))
        # the stalled: idle for --timeout, then cut
        t0 = time.monotonic()
        n_cut = sum(is_closed(c, max(0.1, LIVENESS_S - (time.monotonic() - t0))) for c in stalled)
        check(n_cut == len(stalled), "stalled partial requests cut by the connection timeout "
              "(%d of %d within %d s)" % (n_cut, len(stalled), LIVENESS_S))
        print("stalled connections cut after %.1f s (--timeout %d)" %
              (time.monotonic() - t0, TIMEOUT_S), flush=True)
        # tricklers outlive the idle timeout while they send (MHD's timeout is an idle timeout)
        n_trickle_open = sum(still_open(c) for c in tricklers)
        print("tricklers still open after %.1f s: %d of %d" %
              (time.monotonic() - t0, n_trickle_open, len(tricklers)), flush=True)
    finally:
        stop.set()
        t.join(5)
    t0 = time.monotonic()
    n_cut = sum(is_closed(c, max(0.1, LIVENESS_S - (time.monotonic() - t0))) for c in tricklers)
    check(n_cut == len(tricklers), "tricklers cut once they stop (%d of %d)" % (n_cut, len(tricklers)))
    for c in stalled + tricklers:
        c.close()


def test_connection_limit(s):
    """All connections taken by stalled clients: a new client waits (MHD stops
    accepting at the limit; the kernel's backlog holds it) or is refused, and
    is served once the connection timeout has cut the stalled ones."""
    head = "GET / HTTP/1.1\r\nHost: %s:%d\r\n" % (s.host, s.port)
    hogs = [partial(s, head) for _ in range(MAX_CONN)]
    time.sleep(0.3)  # let the server accept them all
    t0 = time.monotonic()
    deadline = t0 + LIVENESS_S
    st = 0
    while time.monotonic() < deadline and st != 200:
        try:
            c = http.client.HTTPConnection(s.host, s.port, timeout=LIVENESS_S)
            c.request("GET", "/api/presets")
            st = c.getresponse().status
            c.close()
        except (ConnectionError, http.client.HTTPException, socket.timeout, OSError):
            time.sleep(0.2)
    waited = time.monotonic() - t0
    n_cut = sum(not still_open(c) for c in hogs)
    check(st == 200, "a client behind %d stalled connections is served in the end" % MAX_CONN)
    check(n_cut > 0, "... once the timeout had cut stalled ones (%d of %d cut)" % (n_cut, MAX_CONN))
    print("connection limit: served after %.1f s, when %d of %d stalled were cut" %
          (waited, n_cut, MAX_CONN), flush=True)
    for c in hogs:
        c.close()


def test_big_header(s):
    c = socket.create_connection((s.host, s.port), timeout=10)
    try:
        c.sendall(("GET / HTTP/1.1\r\nHost: %s:%d\r\nX-Big: " % (s.host, s.port)).encode())
        try:
            c.sendall(b"a" * (256 * 1024) + b"\r\n\r\n")
        except OSError:
            pass  # cut while sending: refused
        c.settimeout(10)
        try:
            data = c.recv(4096)
        except OSError:
            data = b""
        check(data == b"" or data.startswith(b"HTTP/1.1 431") or data.startswith(b"HTTP/1.1 413"),
              "a 256 KiB header is refused (%r)" % data[:40])
    finally:
        c.close()
    st, h, body = s.request("GET", "/api/presets")
    check(st == 200, "still serving after the big header (%d)" % st)


def test_big_body(s):
    c = socket.create_connection((s.host, s.port), timeout=10)
    try:
        c.sendall(("POST /api/estimate HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                   "Content-Length: 10000000\r\n\r\n" % (s.host, s.port)).encode())
        r = http.client.HTTPResponse(c)
        r.begin()  # before a byte of the body was sent
        body = r.read()
        e = error_shape(body)
        check(r.status == 413 and e and e["code"] == "too-large",
              "10 MB announced -> 413 before the body (%d %s)" % (r.status, e))
        # the server does not read the body: it closes the connection
        cut = False
        try:
            for _ in range(200):
                c.sendall(b" " * 65536)  # 12.5 MB in all, more than announced
        except OSError:
            cut = True
        check(cut or is_closed(c, LIVENESS_S), "the connection is closed, not read to the end")
    finally:
        c.close()


def test_bad_requests(s):
    st, h, body = s.post_json("/api/estimate", raw=b'{"tp": 2,,}')
    e = error_shape(body)
    check(st == 400 and e and e["code"] == "parse" and "JSON" in e["message"],
          "malformed JSON -> 400 with a message (%d %s)" % (st, e))
    st, h, body = s.request("GET", "/api/unknown")
    e = error_shape(body)
    check(st == 404 and e and e["code"] == "not-found", "unknown route -> 404 (%d)" % st)


def test_bind(exe):
    for addr in ("10.0.0.1", "0.0.0.0", "::", "::ffff:192.168.1.1", "2001:db8::1"):
        rc, out, err = run_cli(exe, ["serve", "--port", "0", "--bind", addr])
        check(rc == 2 and "--allow-remote" in err and "serving" not in out.decode(),
              "--bind %s refused without --allow-remote (%d: %s)" % (addr, rc, err.strip()))
    for addr in ("127.0.0.2", "::1", "localhost"):
        try:
            srv = Server(exe, "--bind", addr)
        except SystemExit as e:  # no IPv6 loopback on this machine
            print("note: --bind %s could not start: %s" % (addr, e), flush=True)
            continue
        st, h, body = srv.request("GET", "/api/presets")
        check(st == 200, "--bind %s serves (%d)" % (addr, st))
        rc, err = srv.stop()
        check(rc == 0, "--bind %s stops cleanly (%d)" % (addr, rc))


def main():
    if len(sys.argv) != 2:
        print("usage: abuse_test.py path/to/trainplan", file=sys.stderr)
        return 2
    exe = sys.argv[1]
    test_bind(exe)
    s = Server(exe, "--threads", "2", "--timeout", str(TIMEOUT_S),
               "--max-connections", str(MAX_CONN))
    try:
        test_bad_requests(s)
        test_big_body(s)
        test_big_header(s)
        test_slowloris(s)
        test_connection_limit(s)
    finally:
        rc, err = s.stop()
    check(rc == 0, "serve exits 0 after the abuse (%d); stderr:\n%s" % (rc, err[-2000:]))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
