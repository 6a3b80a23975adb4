#!/usr/bin/env python3
"""Replay a TRex profile's packets through vbrd (tests/tcl/test_load_profiles.tcl).

  load_replay.py plan OUTDIR PACKETS PROFILE.py...   build each profile's streams
        through the TRex stand-in (tools/trex-standin) and write, per profile,
        OUTDIR/NAME.frames (the frames to send, streams interleaved by their
        rates) and OUTDIR/NAME.json (streams, pg_ids, packets per stream, and
        the key of each frame). PACKETS: frames of the fastest stream; the
        others get their share by their pps, at least 20.
  load_replay.py send IFACE PLAN.json SRC_MAC DST_MAC   send the frames raw
        with the given outer MACs (as TRex's port config sets them), in
        bursts of 32 with 1 ms between them
  load_replay.py recv IFACE PLAN.json OUT.json TIMEOUT_S   print "ready", then
        count received frames per stream (and per destination MAC) until all
        expected frames arrived or TIMEOUT_S passed; write OUT.json

A frame's key is its innermost IPv4 header's source, destination, protocol,
total length and its L4 ports: what routing (TTL, MACs) and VXLAN
decapsulation leave unchanged. Two streams with one key are refused.
"""

import json
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 3
sys.dont_write_bytecode = True  # no __pycache__ in vm/load or the stand-in


def frame_key(f):
    """Key of frame F (bytes): 'src dst proto len sport dport' of its innermost IPv4."""
    off, etype = 12, None
    while True:
        etype = struct.unpack_from("!H", f, off)[0]
        if etype == 0x8100:
            off += 4
            continue
        off += 2
        break
    if etype != 0x0800:
        return None
    ihl = (f[off] & 15) * 4
    tot, proto = struct.unpack_from("!H", f, off + 2)[0], f[off + 9]
    src, dst = socket.inet_ntoa(f[off + 12:off + 16]), socket.inet_ntoa(f[off + 16:off + 20])
    l4 = off + ihl
    sport = dport = 0
    if proto in (6, 17) and len(f) >= l4 + 4:
        sport, dport = struct.unpack_from("!HH", f, l4)
        if proto == 17 and dport == 4789 and len(f) >= l4 + 8 + 8 + 14:
            return frame_key(f[l4 + 16:])  # VXLAN: the inner frame
    return "%s %s %d %d %d %d" % (src, dst, proto, tot, sport, dport)


def plan(outdir, packets, profiles):
    """Build each profile's frames and its plan (see the module doc)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "trex-standin"))
    from trex.stl.api import STLProfile, STLTXSingleBurst
    for path in profiles:
        name = os.path.splitext(os.path.basename(path))[0]
        streams = STLProfile.load_py(path, direction=0).get_streams()
        top = max(s.mode.rate[1] for s in streams)
        plist, frames_of = [], []
        for i, s in enumerate(streams):
            if s.mode.rate[0] != "pps":
                raise SystemExit("%s: stream %s: rate %s, the replay needs pps"
                                 % (name, s.name, s.mode.rate[0]))
            n = max(20, int(round(packets * s.mode.rate[1] / top)))
            if isinstance(s.mode, STLTXSingleBurst):
                n = min(n, s.mode.total_pkts)
            fr = s.packet.standin_packets(n, seed=1 + i)
            frames_of.append(fr)
            plist.append({"name": s.name, "pg_id": s.get_pg_id(),
                          "latency": bool(s.flow_stats and s.flow_stats.latency),
                          "sent": n, "bytes": sum(len(f) for f in fr)})
        keys = {}
        for i, fr in enumerate(frames_of):
            for f in fr:
                k = frame_key(f)
                if k is None or keys.setdefault(k, i) != i:
                    raise SystemExit("%s: streams %s and %s share the key %r"
                                     % (name, plist[keys[k]]["name"], plist[i]["name"], k))
        # interleave: each stream spread evenly over the sequence
        order = sorted(((j + 0.5) / len(fr), i, j) for i, fr in enumerate(frames_of)
                       for j in range(len(fr)))
        fpath = os.path.join(outdir, name + ".frames")
        with open(fpath, "wb") as out:
            for _, i, j in order:
                f = frames_of[i][j]
                out.write(struct.pack("!H", len(f)) + f)
        with open(os.path.join(outdir, name + ".json"), "w") as out:
            json.dump({"profile": name, "frames": fpath, "streams": plist, "keys": keys}, out)
        print("%s: %s" % (name, ", ".join("%s %d" % (p["name"], p["sent"]) for p in plist)))


def read_frames(path):
    """The frames of a .frames file."""
    data = open(path, "rb").read()
    off, out = 0, []
    while off < len(data):
        n = struct.unpack_from("!H", data, off)[0]
        out.append(data[off + 2:off + 2 + n])
        off += 2 + n
    return out


def send(iface, plan_path, src_mac, dst_mac):
    """Send a plan's frames on IFACE with these outer MACs."""
    p = json.load(open(plan_path))
    macs = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex(src_mac.replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    frames = read_frames(p["frames"])
    for i, f in enumerate(frames):
        s.send(macs + f[12:])
        if i % 32 == 31:
            time.sleep(0.001)
    print("sent %d" % len(frames))


def recv(iface, plan_path, out_path, timeout):
    """Count what arrives on IFACE per stream of the plan."""
    p = json.load(open(plan_path))
    keys = p["keys"]
    want = sum(st["sent"] for st in p["streams"])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE: hold a whole run
    s.bind((iface, 0))
    got = [0] * len(p["streams"])
    macs = [{} for _ in p["streams"]]
    unmatched, samples = 0, []
    print("ready", flush=True)
    deadline = time.time() + timeout
    while sum(got) < want:
        left = deadline - time.time()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        f, addr = s.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        i = keys.get(frame_key(f) or "")
        if i is None:
            unmatched += 1
            if len(samples) < 3:
                samples.append(f[:64].hex())
            continue
        got[i] += 1
        m = f[:6].hex(":")
        macs[i][m] = macs[i].get(m, 0) + 1
    res = {"streams": [dict(st, received=got[i], dst_macs=macs[i])
                       for i, st in enumerate(p["streams"])],
           "unmatched": unmatched, "unmatched_samples": samples}
    json.dump(res, open(out_path, "w"))
    print("received %d of %d, %d unmatched" % (sum(got), want, unmatched))


def main(argv):
    """Dispatch the subcommand."""
    if len(argv) >= 4 and argv[1] == "plan":
        plan(argv[2], int(argv[3]), argv[4:])
    elif len(argv) == 6 and argv[1] == "send":
        send(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 6 and argv[1] == "recv":
        recv(argv[2], argv[3], argv[4], float(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
