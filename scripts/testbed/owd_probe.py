"""One-way delay probe for the testbed (testbed.Testbed.probe runs it on two hosts).

  owd_probe.py serve PORT COUNT          answers COUNT UDP pings, then exits; prints "ready"
  owd_probe.py ping ADDR PORT COUNT GAP  sends COUNT pings GAP seconds apart; prints one line
                                         "t1 t2 t3 t4" (ns) per answered ping

t1/t4 are the pinger's CLOCK_MONOTONIC_RAW at send/receive, t2/t3 the server's at
receive/send: each host's own clock (its time namespace), so with the hosts' known offsets the
one-way delays follow exactly. A ping without an answer within 1 s is skipped.
"""
import socket
import struct
import sys
import time

RAW = time.CLOCK_MONOTONIC_RAW
FMT = "<qqqq"  # seq, t1, t2, t3


def now():
    return time.clock_gettime_ns(RAW)


def serve(port, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.settimeout(30)
    print("ready", flush=True)
    for _ in range(count):
        try:
            data, addr = s.recvfrom(64)
        except socket.timeout:
            return
        t2 = now()
        seq, t1, _, _ = struct.unpack(FMT, data[:32])
        s.sendto(struct.pack(FMT, seq, t1, t2, now()), addr)


def ping(addr, port, count, gap):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((addr, port))
    s.settimeout(1.0)
    for seq in range(count):
        t1 = now()
        s.send(struct.pack(FMT, seq, t1, 0, 0))
        try:
            while True:
                data = s.recv(64)
                t4 = now()
                rseq, rt1, t2, t3 = struct.unpack(FMT, data[:32])
                if rseq == seq and rt1 == t1:
                    print(t1, t2, t3, t4)
                    break
        except socket.timeout:
            pass
        time.sleep(gap)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), int(sys.argv[3]))
    else:
        ping(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
