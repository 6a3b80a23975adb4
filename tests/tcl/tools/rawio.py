#!/usr/bin/env python3
# rawio.py IFACE WAIT_MS HEX...: send each frame (hex) on IFACE from a raw
# socket, then print in hex every frame IFACE receives for WAIT_MS ms
# (frames the host itself sends are left out).
import select, socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
for h in sys.argv[3:]:
    s.send(bytes.fromhex(h))
deadline = time.time() + int(sys.argv[2]) / 1000
while True:
    left = deadline - time.time()
    if left <= 0 or not select.select([s], [], [], left)[0]:
        break
    data, addr = s.recvfrom(65535)
    if addr[2] != socket.PACKET_OUTGOING:
        print(data.hex())
