"""IMIX: 64, 570 and 1518-byte frames in the ratio 7:4:1 (the simple IMIX
FD.io CSIT uses), over 254 x 254 source/destination addresses.

  trex> start -f vm/load/trex/vbrd_imix.py -m 2mpps --port 0

-m is the total packet rate; the average frame is (7*64 + 4*570 +
1518) / 12 = 353.83 bytes. Each size has its own pg_id (1, 2, 3): the loss of each size
is in the streams view of `tui` (key s). Pairs with
vm/load/conf/vbrd_imix.conf (plain routing). Tunables: flows (addresses
per side, 1..254).
"""

from trex.stl.api import *  # noqa: F401,F403

from vbrd_addr import host, pad_to

# (frame bytes with FCS, share of packets, pg_id)
IMIX = ((64, 7, 1), (570, 4, 2), (1518, 1, 3))


class VbrdImix:
    """Three streams, one per IMIX size, with pps in the ratio 7:4:1."""

    def get_streams(self, direction=0, flows=254, **kwargs):
        flows = max(1, min(254, int(flows)))
        streams = []
        for size, share, pg_id in IMIX:
            base = Ether() / IP(src=host(direction, 0, 1), dst=host(direction, 1, 1)) / \
                UDP(sport=1025, dport=12, chksum=0)
            vm = [STLVmFlowVar(name="src", min_value=host(direction, 0, 1),
                               max_value=host(direction, 0, flows), size=4, op="inc"),
                  STLVmFlowVar(name="dst", min_value=host(direction, 1, 1),
                               max_value=host(direction, 1, flows), size=4, op="dec"),
                  STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
                  STLVmWrFlowVar(fv_name="dst", pkt_offset="IP.dst"),
                  STLVmFixIpv4(offset="IP")]
            streams.append(STLStream(name="imix%d" % size,
                                     packet=STLPktBuilder(pkt=pad_to(base, size), vm=vm),
                                     mode=STLTXCont(pps=share),
                                     flow_stats=STLFlowStats(pg_id=pg_id)))
        return streams


def register():
    return VbrdImix()
