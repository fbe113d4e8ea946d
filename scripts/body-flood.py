#!/usr/bin/env python3
"""Many clients start large bodies at once against a running fenec-server.

  body-flood.py PORT PID [CLIENTS] [TOKEN]

Each client sends a POST /docs/t header declaring a 64 MiB body, then the
body 1 MiB a round (64 rounds at most, 120 s at most); prints the answers
by status, the bytes sent and the server's peak RSS (PID's VmRSS, sampled
every 10 ms). Loopback only; bounded in count and time.
"""
import socket
import sys
import threading
import time

port, pid = int(sys.argv[1]), int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
token = sys.argv[4] if len(sys.argv) > 4 else ""
size = 64 << 20
peak, stop = [0], [False]


def rss_kib():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def sample():
    while not stop[0]:
        peak[0] = max(peak[0], rss_kib())
        time.sleep(0.01)


threading.Thread(target=sample, daemon=True).start()
auth = f"Authorization: Bearer {token}\r\n" if token else ""
socks = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall((f"POST /docs/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
               f"Content-Length: {size}\r\n\r\n").encode())
    socks.append(s)
sent, codes = 0, {}
deadline = time.time() + 120
for rnd in range(64):
    if time.time() > deadline:
        break
    for i, s in enumerate(socks):
        if s is None:
            continue
        try:
            s.setblocking(False)
            try:
                d = s.recv(4096)
                if d:
                    code = d.split(b" ")[1].decode()
                    codes[code] = codes.get(code, 0) + 1
                    s.close()
                    socks[i] = None
                    continue
            except BlockingIOError:
                pass
            s.setblocking(True)
            s.settimeout(5)
            s.sendall((b"[" if rnd == 0 else b" ") + b" " * ((1 << 20) - 1))
            sent += 1
        except OSError as e:
            codes[type(e).__name__] = codes.get(type(e).__name__, 0) + 1
            socks[i] = None
stop[0] = True
still = sum(1 for s in socks if s)
print(f"clients={n} answered={codes} still_sending={still} MiB_sent={sent} peak_rss_MiB={peak[0] / 1024:.0f}")
