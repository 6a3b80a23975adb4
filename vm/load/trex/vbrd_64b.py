"""64-byte UDP frames: the packet-rate limit of the DUT.

  trex> start -f vm/load/trex/vbrd_64b.py -m 10mpps --port 0
  trex> start -f vm/load/trex/vbrd_64b.py -m 10mpps --port 0 -t size=128,flows=1000

Pairs with vm/load/conf/vbrd_64b.conf (plain routing, no QoS). Tunables:
size (frame bytes with FCS, 64..9018), flows (source addresses cycled
over 16.0.0.1.., 1 = a single flow, which lands on one RX queue).
"""

from trex.stl.api import *  # noqa: F401,F403  (TRex >= 2.40: trex.stl; trex_stl_lib.api is its alias)

from vbrd_addr import host, nth, pad_to


class Vbrd64B:
    """One UDP stream of SIZE-byte frames over FLOWS source addresses."""

    def get_streams(self, direction=0, size=64, flows=1, **kwargs):
        size, flows = int(size), int(flows)
        base = Ether() / IP(src=host(direction, 0, 1), dst=host(direction, 1, 1)) / \
            UDP(sport=1025, dport=12, chksum=0)
        vm = []
        if flows > 1:
            vm = [STLVmFlowVar(name="src", min_value=host(direction, 0, 1),
                               max_value=nth(direction, 0, flows), size=4, op="inc"),
                  STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
                  STLVmFixIpv4(offset="IP")]
        return [STLStream(name="udp%d" % size,
                          packet=STLPktBuilder(pkt=pad_to(base, size), vm=vm),
                          mode=STLTXCont(pps=1),
                          flow_stats=STLFlowStats(pg_id=1))]



def register():
    return Vbrd64B()
