-- pktgen_stub.lua SCRIPT.lua: run a pktgen-dpdk Lua script against a stub
-- of pktgen's Lua API (test-only: tests/tcl/test_load_profiles.tcl). Each
-- function the scripts of vm/load/pktgen use checks its argument count and
-- kinds as pktgen's lpktgenlib.c does; any other pktgen.X raises, so a
-- script cannot pass here while calling something this stub does not know.
-- Nothing is sent: portStats/pktStats return zero counters.
local calls = 0
local function portlist(p)
  assert(type(p) == "string" and (p == "all" or p:match("^[%d,%-]+$")), "bad portlist " .. tostring(p))
end
local function f(n, check)
  return function(...)
    local a = table.pack(...)
    if a.n ~= n then error(("pktgen stub: %d arguments, want %d"):format(a.n, n), 2) end
    calls = calls + 1
    if check then check(...) end
  end
end
local setkeys = { count = 1, size = 1, rate = 1, burst = 1, sport = 1, dport = 1,
                  ttl = 1, seq_cnt = 1, seqCnt = 1, prime = 1 }
local seqfields = { eth_dst_addr = 1, eth_src_addr = 1, ip_dst_addr = 1, ip_src_addr = 1,
                    sport = 1, dport = 1, ipProto = 1, ethType = 1, vlanid = 1,
                    pktSize = 1, cos = 1, tos = 1, gtpu_teid = 1 }
local function onoff(p, s) portlist(p); assert(({enable=1, disable=1, on=1, off=1})[s], "bad state " .. tostring(s)) end
local function range_fn(p, what, v)
  portlist(p); assert(({start=1, inc=1, min=1, max=1})[what], "bad range field " .. tostring(what))
end
local stats = function(n)
  return function(p, kind)
    calls = calls + 1
    local t = {}
    t[tonumber(p)] = { ipackets = 0, opackets = 0, ierrors = 0, oerrors = 0, imissed = 0,
                      ibytes = 0, obytes = 0, pkts_rx = 0, pkts_tx = 0, mbits_rx = 0, mbits_tx = 0 }
    t.n = 1
    return t
  end
end
local api = {
  set = f(3, function(p, what, v) portlist(p); assert(setkeys[what], "set does not support " .. tostring(what)) end),
  set_mac = f(3, function(p, which, mac) portlist(p); assert(which == "src" or which == "dst"); assert(mac:match("^%x%x:%x%x:%x%x:%x%x:%x%x:%x%x$"), "bad mac") end),
  set_ipaddr = f(3, function(p, which, ip) portlist(p); assert(which == "src" or which == "dst") end),
  set_proto = f(2, function(p, proto) portlist(p); assert(({udp=1, tcp=1, icmp=1})[proto], "bad proto") end),
  set_type = f(2, function(p, t) portlist(p); assert(({ipv4=1, ipv6=1})[t], "bad type") end),
  seqTable = f(3, function(i, p, t)
    assert(math.type(i) == "integer" and i >= 0 and i < 16, "seq index 0..15"); portlist(p)
    for k in pairs(t) do assert(seqfields[k], "seqTable field " .. k) end
    assert(t.pktSize and t.pktSize >= 64 and t.pktSize <= 9618, "pktSize") end),
  set_range = f(2, onoff),
  latency = f(2, onoff),
  vxlan = f(2, onoff),
  vxlan_id = f(4, function(p) portlist(p) end),
  tos = f(2, function(p, v) portlist(p); assert(v >= 0 and v <= 255) end),
  start = f(1, portlist), stop = f(1, portlist), clear = f(1, portlist),
  delay = f(1, function(ms) assert(ms >= 0) end),
  portStats = stats(), pktStats = stats(),
  range = setmetatable({
    src_ip = f(3, range_fn), dst_ip = f(3, range_fn), src_port = f(3, range_fn),
    dst_port = f(3, range_fn), pkt_size = f(3, range_fn),
  }, { __index = function(_, k) error("pktgen stub: no pktgen.range." .. k, 2) end }),
}
pktgen = setmetatable(api, { __index = function(_, k) error("pktgen stub: no pktgen." .. k, 2) end })
dofile(arg[1])
print(("stub: %d calls, ok"):format(calls))
