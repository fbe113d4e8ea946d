#!/usr/bin/env python3
"""fenec-server on a real file system that fills up: ext4 on a loop device.

Four clients put while a filler file takes the last free block. Then: puts
are refused 507 `no_space` (never a 5xx that means lost, never fail-stopped),
/health answers 503 `no_space`, every acknowledged document reads back. The
filler goes, the clients go on writing with no restart, the server is killed
(kill -9) and started again: every acknowledged document is there, with its
own value. Counts, not times: the time from the space returning to the first
write taken is printed, never judged here.

Needs root and loop devices (as fs-bench's file systems); skipped (exit 77)
with the reason where they are missing. Everything it sets up is torn down.
FENEC_SERVER_BIN names the binary (meson sets it); FENEC_TEST_DIR the scratch
parent; FENEC_SEED the seed.
"""
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def run(*argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout.strip()


class Server:
    def __init__(self, binary, data, log):
        self.binary, self.data, self.log = binary, data, log
        self.proc, self.port = None, 0

    def start(self):
        self.proc = subprocess.Popen([self.binary, "--listen", "127.0.0.1:0", "--data", self.data],
                                     stdout=subprocess.PIPE, stderr=open(self.log, "a"), text=True)
        line = self.proc.stdout.readline()
        m = re.search(r":(\d+) ", line)
        if not m:
            raise RuntimeError(f"fenec-server did not start: {line!r} (see {self.log})")
        self.port = int(m.group(1))

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def request(self, method, path, body=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            return r.status, r.read().decode()
        finally:
            c.close()


class Clients:
    """Four clients putting ~1 KB documents; each answer is counted by status."""

    def __init__(self, server):
        self.server = server
        self.lock = threading.Lock()
        self.acked = {}  # id -> tag
        self.status = {}
        self.bodies_507 = []
        self.stop = threading.Event()

    def put(self, client, seq):
        tag = f"{client}-{seq}"
        body = json.dumps([{"client": client, "seq": seq, "body": "x" * 1000, "tag": tag}])
        try:
            status, text = self.server.request("POST", "/docs/log", body)
        except OSError:
            return None
        with self.lock:
            self.status[status] = self.status.get(status, 0) + 1
            if status == 200:
                self.acked[json.loads(text)["ids"][0]] = tag
            elif status == 507 and len(self.bodies_507) < 3:
                self.bodies_507.append(text)
        return status

    def run(self, first_seq, each, until_refused=0):
        """Each client puts up to `each` documents, or stops after `until_refused` 507s."""
        def loop(client):
            refused = 0
            for seq in range(first_seq, first_seq + each):
                if self.stop.is_set():
                    return
                s = self.put(client, seq)
                if s is None:
                    return
                if s == 507:
                    refused += 1
                    if until_refused and refused >= until_refused:
                        return
        ts = [threading.Thread(target=loop, args=(c,)) for c in range(4)]
        for t in ts:
            t.start()
        return ts


def fill(path):
    """Writes until the file system has no block left; returns the bytes written."""
    n = 0
    chunk = b"\0" * (1 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                w = os.write(fd, chunk)
            except OSError:
                break
            n += w
            if w < len(chunk):
                break
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                n += 4096
        except OSError:
            pass
        try:
            os.fsync(fd)
        except OSError:
            pass
    finally:
        os.close(fd)
    return n


def verify(server, acked, phase):
    lost, other = [], []
    for doc_id, tag in acked.items():
        status, text = server.request("GET", f"/docs/log/{doc_id}")
        if status == 404:
            lost.append(doc_id)
        elif status != 200 or json.loads(text)["doc"]["tag"] != tag:
            other.append((doc_id, status, text[:120]))
    if lost or other:
        raise AssertionError(f"{phase}: {len(lost)} acknowledged documents lost (ids {lost[:5]}), "
                             f"{len(other)} answered otherwise {other[:3]}")


def main():
    binary = os.environ.get("FENEC_SERVER_BIN")
    if not binary:
        skip("FENEC_SERVER_BIN not set (meson test sets it)")
    if os.geteuid() != 0:
        skip("not root: losetup, mkfs and mount need root")
    if not os.path.exists("/dev/loop-control"):
        skip("no /dev/loop-control: this machine has no loop devices")
    for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
        if not shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
            skip(f"{tool} not installed")
    seed = int(os.environ.get("FENEC_SEED", random.SystemRandom().randrange(1 << 63)))
    print(f"seed={seed} (replay with FENEC_SEED={seed})")
    rng = random.Random(seed)
    os.environ["PATH"] += ":/usr/sbin:/sbin"

    scratch = tempfile.mkdtemp(prefix="full-disk-", dir=os.environ.get("FENEC_TEST_DIR"))
    img, mnt, dev = os.path.join(scratch, "fs.img"), os.path.join(scratch, "mnt"), None
    server = None
    try:
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        dev = run("losetup", "--find", "--show", img)
        run("mkfs.ext4", "-q", "-F", dev)
        os.makedirs(mnt)
        run("mount", "-t", "ext4", dev, mnt)
        server = Server(binary, os.path.join(mnt, "db"), os.path.join(scratch, "server.log"))
        server.start()
        status, text = server.request(
            "POST", "/query",
            json.dumps({"statement": "CREATE COLLECTION log (client INT, seq INT, body TEXT, tag TEXT @unique)"}))
        assert status == 200, text

        clients = Clients(server)
        for t in clients.run(0, 50 + rng.randrange(200)):
            t.join()
        filled = fill(os.path.join(mnt, "filler"))
        # The clients go on until each has been refused 20 times (at most 20 000 puts each).
        for t in clients.run(1000, 20000, until_refused=20):
            t.join()
        refused = clients.status.get(507, 0)
        assert refused > 0, f"the full disk never refused a put: {clients.status}"
        assert set(clients.status) <= {200, 507}, f"answers other than 200 and 507: {clients.status}"
        assert all(json.loads(b)["error"]["code"] == "no_space" for b in clients.bodies_507), clients.bodies_507
        status, text = server.request("GET", "/health")
        assert status == 503 and json.loads(text)["status"] == "no_space", (status, text)
        verify(server, clients.acked, "while full")
        acked_full = len(clients.acked)

        os.unlink(os.path.join(mnt, "filler"))
        freed_at = time.monotonic()
        resumed = None
        for i in range(500):  # bounded: at most 500 tries, 10 ms apart
            if clients.put(7, 100000 + i) == 200:
                resumed = time.monotonic() - freed_at
                break
            time.sleep(0.01)
        assert resumed is not None, "writes never resumed once space returned"
        status, text = server.request("GET", "/health")
        assert status == 200, (status, text)
        before = clients.status.get(507, 0)
        for t in clients.run(30000, 200):
            t.join()
        assert clients.status.get(507, 0) == before, "refused again with space back"

        server.kill()
        server.start()
        verify(server, clients.acked, "after kill -9 and restart")
        print(f"filler {filled >> 20} MiB; {acked_full} acknowledged before the space returned, {refused} refused "
              f"(507 no_space); writes taken again {resumed * 1000:.0f} ms after the filler went; "
              f"{len(clients.acked)} acknowledged in all, 0 lost across kill -9")
    finally:
        if server:
            server.kill()
        if dev:
            subprocess.run(["umount", mnt], capture_output=True)
            subprocess.run(["losetup", "-d", dev], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
