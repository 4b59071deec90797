#!/usr/bin/env python3
"""Hostile clients for test_faults.sh, on raw sockets.

  hostile_client.py PORT idle                 connect, send nothing; print the seconds until the
                                              server closes the connection
  hostile_client.py PORT trickle              send a request's head one byte every 0.2 s, never
                                              finishing it; print the seconds until closed
  hostile_client.py PORT noread N TARGET      pipeline N GETs of TARGET, print "sent", never
                                              read; print the seconds until the server hangs up
  hostile_client.py PORT hold N FILE          open N connections, print "holding", keep them
                                              open while FILE exists
  hostile_client.py PORT raw HEX              send the request whose bytes are HEX, print the
                                              status line and the body of the answer

"Closed" is EOF or a reset; a connection still open after 10 s prints "open".
"""
import select
import socket
import sys
import os
import time


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    return s


def wait_closed(s, started, limit=10.0):
    """Seconds from `started` until the peer closes `s` (reads and drops any data), or None."""
    while time.monotonic() - started < limit:
        s.settimeout(max(0.01, limit - (time.monotonic() - started)))
        try:
            if not s.recv(65536):
                return time.monotonic() - started
        except socket.timeout:
            return None
        except ConnectionError:
            return time.monotonic() - started
    return None


def report(seconds):
    print("open" if seconds is None else f"{seconds:.2f}")


def main():
    port, mode, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    if mode == "idle":
        s = connect(port)
        report(wait_closed(s, time.monotonic()))
    elif mode == "trickle":
        s = connect(port)
        started = time.monotonic()
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        head = b"X-Slow: " + b"a" * 200
        s.setblocking(False)
        for byte in head:
            try:
                if not s.recv(65536):
                    report(time.monotonic() - started)
                    return
            except BlockingIOError:
                pass
            except ConnectionError:
                report(time.monotonic() - started)
                return
            try:
                s.send(bytes([byte]))
            except (BrokenPipeError, ConnectionError):
                report(time.monotonic() - started)
                return
            time.sleep(0.2)
            if time.monotonic() - started > 10:
                break
        report(None)
    elif mode == "noread":
        count, target = int(args[0]), args[1]
        s = connect(port, rcvbuf=4096)
        request = f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        started = time.monotonic()
        s.settimeout(5)
        try:
            s.sendall(request * count)
        except (socket.timeout, ConnectionError):
            pass
        print("sent", flush=True)
        # Wait for the server to hang up (FIN or reset) without reading a byte.
        poller = select.poll()
        poller.register(s, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        while time.monotonic() - started < 10:
            if any(e & (select.POLLRDHUP | select.POLLHUP | select.POLLERR) for _, e in poller.poll(50)):
                report(time.monotonic() - started)
                return
        report(None)
    elif mode == "hold":
        count, flag = int(args[0]), args[1]
        held = []
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(2)
            try:
                s.connect(("127.0.0.1", port))  # completes from the backlog even when not accepted
            except OSError:
                s.close()
                continue
            held.append(s)
        print("holding", len(held), flush=True)
        while os.path.exists(flag):
            time.sleep(0.05)
        for s in held:
            s.close()
    elif mode == "raw":
        s = connect(port)
        s.sendall(bytes.fromhex(args[0]))
        s.settimeout(10)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                body += chunk
        except (socket.timeout, ConnectionError):
            print("no answer")
            return
        if not data:
            print("no answer")
            return
        print(head.split(b"\r\n")[0].decode("latin-1"))
        sys.stdout.flush()
        sys.stdout.buffer.write(body + b"\n")
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
