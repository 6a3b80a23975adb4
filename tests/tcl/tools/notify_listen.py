#!/usr/bin/env python3
"""A stand-in for systemd's notification socket (sd_notify(3)): receive
vbrd's datagrams and record each, in order, one JSON line per datagram.

    notify_listen.py SOCKET OUT [--on-ready CMD ...]

SOCKET is a path, or @NAME for the abstract namespace (as NOTIFY_SOCKET
says it). Each datagram becomes a line of OUT (flushed at once):

    {"t_ms": ms since start, "msg": {"READY": "1", "STATUS": ...},
     "on_ready": [{"cmd", "rc", "out"}, ...]}

--on-ready CMD (a shell command, repeatable) runs when a datagram holds
READY=1, before the next datagram is read: what it prints is what was
true when vbrd said it was ready (its ports up, a packet through). The
listener ends after a datagram with STOPPING=1, or on SIGTERM.
"""
import json
import os
import socket
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    path, out = args[0], args[1]
    on_ready = []
    rest = args[2:]
    while rest:
        if rest[0] != "--on-ready" or len(rest) < 2:
            sys.exit(__doc__)
        on_ready.append(rest[1])
        rest = rest[2:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if path.startswith("@"):
        s.bind("\0" + path[1:])
    else:
        if os.path.exists(path):
            os.unlink(path)
        s.bind(path)
    t0 = time.monotonic()
    with open(out, "w") as f:
        print(json.dumps({"listening": path}), file=f, flush=True)
        while True:
            data = s.recv(4096).decode("utf-8", "replace")
            t = round((time.monotonic() - t0) * 1000, 1)
            msg = dict(l.split("=", 1) for l in data.split("\n") if "=" in l)
            rec = {"t_ms": t, "msg": msg, "on_ready": []}
            if msg.get("READY") == "1":
                for cmd in on_ready:
                    p = subprocess.run(cmd, shell=True, capture_output=True, text=True,
                                       timeout=20)
                    rec["on_ready"].append({"cmd": cmd, "rc": p.returncode,
                                            "out": (p.stdout + p.stderr)[-2000:]})
            print(json.dumps(rec), file=f, flush=True)
            if msg.get("STOPPING") == "1":
                break
    if not path.startswith("@"):
        os.unlink(path)


if __name__ == "__main__":
    main()
