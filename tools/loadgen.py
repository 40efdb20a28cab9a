#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small HTTP load generator, python3 standard library only: what
tools/loadtest.sh uses where wrk and curl are not installed.

    loadgen.py URL [--body JSON] [--seconds S] [--connections C] [--timeout T]
    loadgen.py URL --once [--body JSON] [--timeout T]

Without --once: C threads, each on one keep-alive connection, send GET URL
(or POST URL with the JSON body) for S seconds and print a summary in
wrk's words, so that loadtest.sh reads either: "N requests in S s",
"Requests/sec: R", latency percentiles, and, only when there were any,
"Socket errors: connect A, read B, write C, timeout D" and "Non-2xx or 3xx
responses: N". With --once: one request, and its status code on stdout
(000 when it failed), as `curl -w '%{http_code}'` prints it.

Python's threads share one interpreter lock: the rates are lower than
wrk's and are not comparable with the figures in docs/RELIABILITY.md,
which were taken with wrk. Errors, statuses and memory are what it checks.
"""
import argparse
import http.client
import socket
import sys
import threading
import time
import urllib.parse


def connect(u, timeout):
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)


def one(u, body, timeout, conn=None):
    """(status or None, error kind or None, connection to reuse or None)."""
    c = conn or connect(u, timeout)
    path = u.path or "/"
    try:
        if body is None:
            c.request("GET", path)
        else:
            c.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        keep = not r.will_close
        return r.status, None, (c if keep else None)
    except socket.timeout:
        kind = "timeout"
    except ConnectionRefusedError:
        kind = "connect"
    except (BrokenPipeError, ConnectionResetError):
        kind = "write"
    except (OSError, http.client.HTTPException):
        kind = "read"
    c.close()
    return None, kind, None


def run(u, body, seconds, conns, timeout):
    end = time.monotonic() + seconds
    lock = threading.Lock()
    lat, errors, non2xx = [], {"connect": 0, "read": 0, "write": 0, "timeout": 0}, [0]

    def worker():
        mine, conn = [], None
        while time.monotonic() < end:
            t0 = time.monotonic()
            st, kind, conn = one(u, body, timeout, conn)
            dt = time.monotonic() - t0
            with lock:
                if kind:
                    errors[kind] += 1
                elif not 200 <= st < 400:
                    non2xx[0] += 1
            if not kind:
                mine.append(dt)
        with lock:
            lat.extend(mine)

    t0 = time.monotonic()
    ts = [threading.Thread(target=worker) for _ in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.monotonic() - t0
    lat.sort()

    def pct(p):
        return 1e3 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
    n = len(lat) + sum(errors.values())
    print("  Latency Distribution (ms): 50%% %.2f, 90%% %.2f, 99%% %.2f, max %.2f"
          % (pct(0.5), pct(0.9), pct(0.99), 1e3 * lat[-1] if lat else float("nan")))
    print("  %d requests in %.2fs (python3 loadgen, %d connections)" % (n, wall, conns))
    if any(errors.values()):
        print("  Socket errors: connect %d, read %d, write %d, timeout %d"
              % (errors["connect"], errors["read"], errors["write"], errors["timeout"]))
    if non2xx[0]:
        print("  Non-2xx or 3xx responses: %d" % non2xx[0])
    print("Requests/sec: %.2f" % (n / wall if wall > 0 else 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--body", help="JSON body: POST it (else GET)")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--once", action="store_true", help="one request; print its status code")
    a = ap.parse_args()
    u = urllib.parse.urlsplit(a.url)
    body = a.body.encode() if a.body is not None else None
    if a.once:
        st, kind, conn = one(u, body, a.timeout)
        if conn:
            conn.close()
        print("%03d" % (st or 0))
        return 0
    run(u, body, a.seconds, a.connections, a.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
