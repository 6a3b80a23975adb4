"""VXLAN (RFC 7348) into vbrd's tunnel: the decapsulating side.

Direction 0 (port 0): VXLAN packets from the remote gateway 10.0.1.2 to
vbrd's tunnel address 10.0.1.1, VNI 1000, outer UDP source port over
FLOWS values (a VTEP's flow entropy), outer UDP checksum 0 (as most VTEPs
send); inside, UDP from 16.0.0.x to 48.0.0.x. vbrd decapsulates and
routes the inner packets out of port 1, so TRex port 1 receives them
plain: the rates of port 0 (opackets, outer) and port 1 (ipackets, inner)
differ by the 50 bytes of encapsulation.

Direction 1 (port 1): plain UDP from 48.0.0.x to 16.0.0.x, which vbrd
encapsulates toward 10.0.1.2 (the path group of the paired config):
TRex port 0 receives VXLAN.

  trex> start -f vm/load/trex/vbrd_vxlan.py -m 2mpps --port 0
  trex> start -f vm/load/trex/vbrd_vxlan.py -m 2mpps --port 1   # encapsulation

Pairs with vm/load/conf/vbrd_vxlan.conf. Tunables: size (inner frame
bytes with FCS), flows, vni.
"""

from trex.stl.api import *  # noqa: F401,F403

from vbrd_addr import DUT_IP, GEN_IP, host, pad_to


class VbrdVxlan:
    """Encapsulated traffic on port 0, plain traffic on port 1."""

    def get_streams(self, direction=0, size=128, flows=254, vni=1000, **kwargs):
        size, flows, vni = int(size), max(1, min(254, int(flows))), int(vni)
        inner = pad_to(Ether(src="02:00:00:00:01:10", dst="02:00:00:00:01:01") /
                       IP(src=host(direction, 0, 1), dst=host(direction, 1, 1)) /
                       UDP(sport=1025, dport=12, chksum=0), size)
        if int(direction) & 1:
            vm = [STLVmFlowVar(name="src", min_value=host(direction, 0, 1),
                               max_value=host(direction, 0, flows), size=4, op="inc"),
                  STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
                  STLVmFixIpv4(offset="IP")]
            return [STLStream(name="plain", packet=STLPktBuilder(pkt=Ether() / inner[IP], vm=vm),
                              mode=STLTXCont(pps=1), flow_stats=STLFlowStats(pg_id=2))]
        pkt = Ether() / IP(src=GEN_IP[0], dst=DUT_IP[0]) / \
            UDP(sport=49152, dport=4789, chksum=0) / VXLAN(vni=vni, flags=0x08) / inner
        vm = [STLVmFlowVar(name="src", min_value=host(direction, 0, 1),
                           max_value=host(direction, 0, flows), size=4, op="inc"),
              STLVmFlowVar(name="entropy", min_value=49152, max_value=49152 + flows - 1,
                           size=2, op="inc"),
              STLVmWrFlowVar(fv_name="src", pkt_offset="IP:1.src"),
              STLVmWrFlowVar(fv_name="entropy", pkt_offset="UDP.sport"),
              STLVmFixIpv4(offset="IP:1"),
              STLVmFixIpv4(offset="IP")]
        return [STLStream(name="vxlan", packet=STLPktBuilder(pkt=pkt, vm=vm),
                          mode=STLTXCont(pps=1), flow_stats=STLFlowStats(pg_id=1))]


def register():
    return VbrdVxlan()
