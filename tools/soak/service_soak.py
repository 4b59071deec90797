#!/usr/bin/env python3
"""Soak of the example HTTP service graph-service under normal and hostile clients at once.

  service_soak.py --service PATH [--duration SECONDS] [--json FILE] [--normal N] [--hostile N]
                  [--sample-every SECONDS] [--max-live N] [--max-health-misses N]
                  [--random-seed N] [--] [graph-service options, e.g. --threads-per-connection]

Starts PATH on 127.0.0.1 (a free port, 2 s idle, read and write timeouts; the options it does
not know itself go to the service), then for --duration seconds runs at once:
  - normal clients (keep-alive http.client connections): create, read, update and delete persons,
    create KNOWS edges, list edges, neighbors, persons and paths. Every answer must be 2xx or 4xx
    (or 503 "connection") with a JSON body, a person the client created and has not deleted must
    read back 200 with its name, and a connection must not drop;
  - hostile clients on raw sockets: idle connections, requests trickled one byte at a time,
    pipelined requests whose answers are never read, bytes that are not UTF-8 in the path, query,
    a header or the body, garbage, truncated requests, huge header lines and targets, deeply
    nested JSON, numbers beyond double and int64. An answer must be well-formed HTTP, 4xx (201
    where a number is one the service may accept) with a JSON body; a complete request must be
    answered; a connection the service should time out must be closed;
  - a monitor: every --sample-every seconds GET /health must answer 200 within 2 s, and the
    service's resident memory (VmRSS), threads and open descriptors are sampled.
Then every acknowledged person not acknowledged deleted must read back 200 with its name, the
descriptors must come back to within 50 of the count before the clients started, and SIGTERM
must end the service with status 0 within 10 s after it printed "stopped". Prints a summary and
writes it with the samples to --json. Exits 1 on any failure, 2 when the service does not start.
Python 3 standard library only.
"""
import argparse
import collections
import datetime
import http.client
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
TIMEOUT_MS = 2000  # the service's idle, read and write timeouts
FD_SLACK = 50  # descriptors allowed above the count before the clients started
MAX_FAILURE_MESSAGES = 200  # kept for the JSON file
MAX_PRINTED_FAILURES = 50  # printed as they happen


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def strict_json(body):
    """The parsed JSON of `body` (bytes); raises ValueError when it is not strict JSON (UTF-8,
    no NaN or Infinity)."""
    def no_constant(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(body.decode("utf-8"), parse_constant=no_constant)


def excerpt(data, limit=160):
    """`data` (bytes) printable, shortened in the middle when long."""
    if len(data) > limit:
        data = data[: limit // 2] + b"...(%d bytes)..." % len(data) + data[-limit // 2:]
    return repr(data)


class Stats:
    """Counters and failures shared by every client thread. `checks` are the failed checks of the
    whole run (service exit, lost persons, descriptors, health), kept apart from the failures
    of single requests so that a flood of the latter does not hide them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = collections.defaultdict(collections.Counter)  # "group kind" -> outcome -> n
        self.failures = 0
        self.messages = []
        self.checks = []
        self.events = collections.Counter()

    def count(self, group, kind, outcome):
        with self.lock:
            self.requests[f"{group} {kind}"][str(outcome)] += 1

    def event(self, name):
        with self.lock:
            self.events[name] += 1

    def fail(self, message):
        """A request that failed."""
        with self.lock:
            self.failures += 1
            if len(self.messages) < MAX_FAILURE_MESSAGES:
                self.messages.append(f"[{utc_now()}] {message}")
            if self.failures <= MAX_PRINTED_FAILURES:
                sys.stderr.write(f"FAIL: {message}\n")
            elif self.failures == MAX_PRINTED_FAILURES + 1:
                sys.stderr.write("FAIL: ... more failed requests are counted, not printed\n")
            sys.stderr.flush()

    def check_failed(self, message):
        """A check of the whole run that failed."""
        with self.lock:
            self.checks.append(message)
            sys.stderr.write(f"FAIL: {message}\n")
            sys.stderr.flush()

    def total(self, group=None):
        with self.lock:
            return sum(sum(c.values()) for k, c in self.requests.items() if group is None or k.startswith(group + " "))


# -- the service -------------------------------------------------------------------------------

class Service:
    """graph-service as a child process; its output is collected by a thread."""

    def __init__(self, path, extra):
        self.args = [path, "--address", HOST, "--port", "0", "--idle-timeout-ms", str(TIMEOUT_MS),
                     "--read-timeout-ms", str(TIMEOUT_MS), "--write-timeout-ms", str(TIMEOUT_MS)] + extra
        self.lines = []
        self.listening = threading.Event()
        self.port = None
        self.process = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if line.startswith("listening on ") and self.port is None:
                self.port = int(line.rsplit(":", 1)[1])
                self.listening.set()

    def wait_listening(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.listening.wait(0.05):
                return True
            if self.process.poll() is not None:
                self.reader.join(1)
                return False
        return False

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def status(self):
        """(VmRSS KiB, threads, open descriptors), None for what cannot be read."""
        rss = threads = fds = None
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
            fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            pass
        return rss, threads, fds

    def stop(self, limit):
        """SIGTERM; (exit status or None when still running after `limit` s, seconds taken)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(limit)
        except subprocess.TimeoutExpired:
            status = None
        seconds = time.monotonic() - started
        if status is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(2)
        return status, seconds

    def kill(self):
        if self.alive():
            self.process.kill()
            self.process.wait()


# -- normal clients ----------------------------------------------------------------------------

class Shared:
    """Ids every normal client may use as the other end of an edge or a path."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ids = []

    def add(self, person_id):
        with self.lock:
            self.ids.append(person_id)
            if len(self.ids) > 4000:
                del self.ids[:1000]

    def pick(self, rnd):
        with self.lock:
            return rnd.choice(self.ids) if self.ids else "nobody"


class NormalClient(threading.Thread):
    """One keep-alive connection doing what an application would. A connection unused for half
    the idle timeout is replaced before the next request (the service closes idle ones)."""

    def __init__(self, number, port, stats, shared, stop, seed, max_live):
        super().__init__(name=f"normal-{number}", daemon=True)
        self.number, self.port, self.stats, self.shared, self.stop = number, port, stats, shared, stop
        self.rnd = random.Random(seed)
        self.max_live = max_live
        self.live = {}  # id -> name: acknowledged, not deleted
        self.acknowledged = 0
        self.deleted = set()
        self.uncertain = set()  # a DELETE without an answer: the person may or may not exist
        self.sequence = 0
        self.connection = None
        self.last_used = 0.0

    # One request; (status, parsed body or None) or None after a failure (already recorded).
    def request(self, kind, method, path, body=None):
        if self.connection is not None and time.monotonic() - self.last_used > TIMEOUT_MS / 2000:
            self.connection.close()
            self.connection = None
            self.stats.event("normal: idle connection replaced")
        if self.connection is None:
            self.connection = http.client.HTTPConnection(HOST, self.port, timeout=30)
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
            closing = response.getheader("Connection", "").lower() == "close"
        except (OSError, http.client.HTTPException) as e:
            self.stats.count("normal", kind, "dropped")
            self.stats.fail(f"normal client {self.number}: {method} {path}: connection failed: {e!r}")
            self.connection.close()
            self.connection = None
            self.stop.wait(0.2)  # the service may be gone: do not spin
            return None
        self.last_used = time.monotonic()
        status = response.status
        if closing:
            self.connection.close()
            self.connection = None
        self.stats.count("normal", kind, status)
        parsed = None
        if status != 204:
            try:
                parsed = strict_json(payload)
            except ValueError as e:
                self.stats.fail(f"normal client {self.number}: {method} {path}: {status} with a body that "
                                f"is not JSON ({e}): {excerpt(payload)}")
                return None
        elif payload:
            self.stats.fail(f"normal client {self.number}: {method} {path}: 204 with a body {excerpt(payload)}")
        if 500 <= status and not (status == 503 and isinstance(parsed, dict) and parsed.get("error") == "connection"):
            self.stats.fail(f"normal client {self.number}: {method} {path}: {status} {excerpt(payload)}")
            return None
        if not (200 <= status < 300 or 400 <= status < 500 or status == 503):
            self.stats.fail(f"normal client {self.number}: {method} {path}: unexpected status {status}")
            return None
        return status, parsed

    def expect(self, result, statuses, what):
        """Records a failure unless `result` has one of `statuses` (503 "connection" excepted)."""
        if result is None or result[0] in statuses or result[0] == 503:
            return result is not None and result[0] in statuses
        self.stats.fail(f"normal client {self.number}: {what}: status {result[0]}, expected "
                        f"{' or '.join(map(str, statuses))}: {json.dumps(result[1])[:200]}")
        return False

    def own(self):
        return self.rnd.choice(list(self.live)) if self.live else None

    def create(self):
        self.sequence += 1
        name = f"n{self.number}-{self.sequence}"
        body = {"name": name, "age": self.rnd.randint(1, 99), "score": self.rnd.random() * 100,
                "tags": ["soak", self.rnd.randint(0, 9)]}
        if self.rnd.random() < 0.5:
            body["email"] = f"{name}@example.com"
            if self.rnd.random() < 0.05 and self.sequence > 1:
                body["email"] = f"n{self.number}-{self.sequence - 1}@example.com"  # a 409 when it exists
        result = self.request("create", "POST", "/persons", body)
        if result and result[0] == 201:
            vertex = result[1]
            person_id = vertex.get("id") if isinstance(vertex, dict) else None
            if not isinstance(person_id, str) or vertex.get("properties", {}).get("name") != name:
                self.stats.fail(f"normal client {self.number}: POST /persons: 201 without the person: {vertex}")
                return
            self.live[person_id] = name
            self.acknowledged += 1
            self.shared.add(person_id)
        elif result:
            self.expect(result, (201, 409), "POST /persons")

    def read(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        result = self.request("get", "GET", f"/persons/{person_id}")
        if self.expect(result, (200,), f"GET /persons/{person_id} (created, not deleted)"):
            name = result[1].get("properties", {}).get("name") if isinstance(result[1], dict) else None
            if name != self.live[person_id]:
                self.stats.fail(f"normal client {self.number}: GET /persons/{person_id}: name {name!r}, "
                                f"expected {self.live[person_id]!r}")

    def patch(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        body = {"age": self.rnd.randint(1, 99), "nickname": self.rnd.choice([None, "nick", "ß→∑"])}
        result = self.request("patch", "PATCH", f"/persons/{person_id}", body)
        if self.expect(result, (200,), f"PATCH /persons/{person_id}"):
            properties = result[1].get("properties", {}) if isinstance(result[1], dict) else {}
            if properties.get("age") != body["age"] or properties.get("name") != self.live[person_id]:
                self.stats.fail(f"normal client {self.number}: PATCH /persons/{person_id}: {result[1]}")

    def knows(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        other = self.own() if self.rnd.random() < 0.3 else self.shared.pick(self.rnd)
        body = {"since": self.rnd.randint(1990, 2030)} if self.rnd.random() < 0.7 else None
        result = self.request("knows", "POST", f"/persons/{person_id}/knows/{other}", body)
        self.expect(result, (201, 404), f"POST /persons/{person_id}/knows/{other}")

    def edges(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        direction = self.rnd.choice(["out", "in", "both"])
        result = self.request("edges", "GET", f"/persons/{person_id}/edges?direction={direction}&limit=50")
        self.expect(result, (200,), f"GET /persons/{person_id}/edges")

    def neighbors(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        depth = self.rnd.randint(1, 3)
        result = self.request("neighbors", "GET", f"/persons/{person_id}/neighbors?depth={depth}&label=KNOWS&limit=50")
        self.expect(result, (200,), f"GET /persons/{person_id}/neighbors")

    def paths(self):
        if self.live and self.rnd.random() < 0.5:
            a, b = self.own(), self.own()  # this client's KNOWS edges join these
        else:
            a, b = self.shared.pick(self.rnd), self.shared.pick(self.rnd)
        result = self.request("paths", "GET", f"/paths?from={a}&to={b}&max_depth=4")
        if result:
            self.expect(result, (200, 404), f"GET /paths?from={a}&to={b}")

    def list(self):
        after = self.shared.pick(self.rnd)
        query = f"limit={self.rnd.choice([10, 100])}" + (f"&after={after}" if self.rnd.random() < 0.7 else "")
        result = self.request("list", "GET", f"/persons?{query}")
        self.expect(result, (200,), f"GET /persons?{query}")

    def delete(self):
        person_id = self.own()
        if person_id is None:
            return self.create()
        result = self.request("delete", "DELETE", f"/persons/{person_id}")
        if result is None:
            self.uncertain.add(person_id)  # sent; whether it was done is unknown
            del self.live[person_id]
        elif result[0] == 503:
            pass
        elif self.expect(result, (204,), f"DELETE /persons/{person_id} (created, not deleted)"):
            del self.live[person_id]
            self.deleted.add(person_id)

    def run(self):
        operations = [(self.create, 18), (self.read, 20), (self.patch, 10), (self.knows, 15), (self.edges, 10),
                      (self.neighbors, 10), (self.paths, 5), (self.list, 5), (self.delete, 7)]
        functions = [f for f, _ in operations]
        weights = [w for _, w in operations]
        while not self.stop.is_set():
            if len(self.live) >= self.max_live:
                self.delete()  # hold the graph near its size: memory should stay flat
            else:
                self.rnd.choices(functions, weights)[0]()
        if self.connection is not None:
            self.connection.close()


# -- hostile clients ---------------------------------------------------------------------------

class Answer:
    def __init__(self, status, headers, body, raw_head):
        self.status, self.headers, self.body, self.raw_head = status, headers, body, raw_head


class Malformed(Exception):
    pass


class Reader:
    """Reads HTTP/1.1 responses from a socket, keeping what follows one for the next."""

    def __init__(self, sock):
        self.sock, self.buffer = sock, b""

    def _more(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("no answer in time")
        self.sock.settimeout(left)
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buffer += chunk

    def read(self, seconds=10.0):
        """The next answer; None when the connection ended before its first byte. Raises
        Malformed for a broken answer, socket.timeout when none came in time."""
        deadline = time.monotonic() + seconds
        try:
            while b"\r\n\r\n" not in self.buffer:
                self._more(deadline)
        except (EOFError, ConnectionError):
            if not self.buffer:
                return None
            raise Malformed(f"connection ended inside an answer's head: {excerpt(self.buffer)}")
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise Malformed(f"bad status line {excerpt(lines[0])}")
        headers = {}
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon:
                raise Malformed(f"bad header line {excerpt(line)}")
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        if "transfer-encoding" in headers:
            raise Malformed(f"unexpected Transfer-Encoding {headers['transfer-encoding']}")
        length = int(headers.get("content-length", "0"))
        try:
            while len(self.buffer) < length:
                self._more(deadline)
        except (EOFError, ConnectionError):
            raise Malformed(f"connection ended inside a body: {len(self.buffer)} of {length} bytes")
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return Answer(int(parts[1]), headers, body, head)


def request(method, target, headers=(), body=None, close=True):
    """The bytes of an HTTP/1.1 request; `target`, header values and `body` are bytes or str."""
    def b(x):
        return x if isinstance(x, bytes) else x.encode()
    lines = [b(method) + b" " + b(target) + b" HTTP/1.1", b"Host: x"]
    for name, value in headers:
        lines.append(b(name) + b": " + b(value))
    if body is not None:
        lines.append(b"Content-Type: application/json")
        lines.append(b"Content-Length: %d" % len(b(body)))
    if close:
        lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + (b(body) if body is not None else b"")


def four_xx(answer):
    return None if 400 <= answer.status < 500 else f"status {answer.status}, expected 4xx"


def number_accepted(sent):
    """4xx, or 201 with the number it was sent (a double may round)."""
    def check(answer):
        if 400 <= answer.status < 500:
            return None
        if answer.status != 201:
            return f"status {answer.status}, expected 4xx or 201"
        got = strict_json(answer.body).get("properties", {}).get("age")
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return f"201 with age {got!r}, sent {sent}"
        want = float(sent)
        if got != want and abs(got - want) > abs(want) * 1e-15:
            return f"201 with age {got!r}, sent {sent}"
        return None
    return check


class Case:
    """A hostile request. `required`: complete and small, so it must be answered. `pipeline`: the
    service parses it as HTTP, so it may share a keep-alive connection with others."""

    def __init__(self, group, name, data, check=four_xx, required=True, pipeline=False):
        self.group, self.name, self.data, self.check = group, name, data, check
        self.required, self.pipeline = required, pipeline


def hostile_cases():
    cases = []

    def add(group, name, method, target, headers=(), body=None, check=four_xx, **kw):
        cases.append(Case(group, name, request(method, target, headers, body), check, **kw))
        if kw.get("required", True):
            cases[-1].pipeline = True

    # Bytes that are not UTF-8: the service answers 400 naming where.
    add("utf8", "query value", "GET", "/persons?limit=%FF")
    add("utf8", "query name", "GET", "/persons?%FF=1")
    add("utf8", "path segment", "GET", "/persons/%FF/edges")
    add("utf8", "path id", "GET", "/persons/%FF")
    add("utf8", "overlong", "DELETE", "/persons/%C0%AF")
    add("utf8", "surrogate", "GET", "/persons/%ED%A0%80/neighbors?depth=2")
    add("utf8", "beyond U+10FFFF", "GET", "/paths?from=%F4%90%80%80&to=x")
    add("utf8", "raw byte in target", "GET", b"/persons/\xff")
    add("utf8", "raw byte in query", "GET", b"/persons?after=\xfe\xfe")
    add("utf8", "timeout_ms", "GET", "/health?timeout_ms=%FF")
    add("utf8", "body", "POST", "/persons", body=b'{"name":"\xff"}')
    add("utf8", "truncated sequence", "PATCH", "/persons/x", body=b'{"name":"\xc3("}')
    add("utf8", "edge body", "POST", "/persons/a/knows/b", body=b'{"since":"\xe2\x82"}')
    add("utf8", "X-Timeout-Ms", "GET", "/persons", headers=[("X-Timeout-Ms", b"\xff")])
    add("utf8", "X-Timeout-Ms CESU", "GET", "/persons", headers=[("X-Timeout-Ms", b"\xed\xb0\x80")])
    # Numbers beyond double or int64.
    for value in ["1e400", "-1e400", "99999999999999999999999", "-99999999999999999999999",
                  "18446744073709551615", "9223372036854775808", "1e-400", "123456789012345678901234567890e-10"]:
        add("number", f"age {value}", "POST", "/persons", body='{"name":"hostile","age":%s}' % value,
            check=number_accepted(value))
    add("number", "bare 1e400", "POST", "/persons", body="1e400")
    add("number", "patch 1e400", "PATCH", "/persons/x", body='{"age":1e400}')
    add("number", "limit", "GET", "/persons?limit=99999999999999999999999")
    add("number", "limit 1e400", "GET", "/persons?limit=1e400")
    add("number", "depth", "GET", "/persons/x/neighbors?depth=99999999999999999999999")
    add("number", "top", "GET", "/pagerank?top=99999999999999999999999")
    add("number", "max_depth", "GET", "/paths?from=a&to=b&max_depth=1e400")
    add("number", "X-Timeout-Ms", "GET", "/persons", headers=[("X-Timeout-Ms", "99999999999999999999999")])
    add("number", "X-Timeout-Ms negative", "GET", "/health", headers=[("X-Timeout-Ms", "-1")])
    add("number", "timeout_ms", "GET", "/persons?timeout_ms=1e400")
    # Deeply nested JSON.
    deep = 100_000
    add("nested", "open arrays", "POST", "/persons", body="[" * deep)
    add("nested", "balanced arrays", "POST", "/persons", body="[" * deep + "]" * deep)
    add("nested", "property value", "POST", "/persons", body='{"name":"n","tags":' + "[" * deep + "]" * deep + "}")
    add("nested", "objects", "POST", "/persons", body='{"a":' * (deep // 2) + "1" + "}" * (deep // 2))
    add("nested", "patch", "PATCH", "/persons/x", body='{"tags":' + "[" * deep + "]" * deep + "}")
    add("nested", "edge body", "POST", "/persons/a/knows/b", body='{"since":' + "[" * deep)
    add("nested", "moderate", "POST", "/persons", body='{"name":"n","tags":' + "[" * 300 + "]" * 300 + "}")
    # Beast's limits: the service answers 400 and closes, perhaps before it has read all of it.
    big = 100_000
    add("huge", "header line", "GET", "/health", headers=[("X-Big", "a" * big)], required=False)
    add("huge", "target", "GET", "/persons/" + "a" * big, required=False)
    add("huge", "many headers", "GET", "/health", headers=[(f"X-N{i}", "v") for i in range(5000)], required=False)
    cases.append(Case("huge", "body over 1 MiB", request("POST", "/persons", body="[" * (2 << 20)), required=False))
    cases.append(Case("huge", "Content-Length 1e23", b"POST /persons HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 99999999999999999999999\r\n\r\n{}", required=False))
    # Not HTTP, or broken HTTP.
    cases.append(Case("garbage", "NOT HTTP", b"NOT HTTP\r\n\r\n"))
    cases.append(Case("garbage", "zeros", b"\x00" * 64 + b"\r\n\r\n", required=False))
    cases.append(Case("garbage", "HTTP/9.9", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", required=False))
    cases.append(Case("garbage", "bad chunk", b"POST /persons HTTP/1.1\r\nHost: x\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n\r\n", required=False))
    cases.append(Case("garbage", "length and chunked", b"POST /persons HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", check=lambda a: None if a.status < 500
                      else f"status {a.status}", required=False))
    cases.append(Case("garbage", "header without colon", b"GET /health HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
                      required=False))
    return cases


TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
              "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}


def server_side(service_pid, service_port, client_port):
    """The service's end of the loopback connection from `client_port`, from /proc/net/tcp:
    (state, send queue bytes, receive queue bytes, whether a descriptor of the service holds it),
    or None when the kernel has forgotten it."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            field = row.split()
            if int(field[1].rsplit(":", 1)[1], 16) != service_port or int(field[2].rsplit(":", 1)[1], 16) != client_port:
                continue
            tx, rx = (int(x, 16) for x in field[4].split(":"))
            held = False
            if field[9] != "0":
                try:
                    fd_dir = f"/proc/{service_pid}/fd"
                    held = any(os.readlink(f"{fd_dir}/{fd}") == f"socket:[{field[9]}]" for fd in os.listdir(fd_dir))
                except OSError:
                    pass
            return TCP_STATES.get(field[3], field[3]), tx, rx, held
    return None


class HostileClient(threading.Thread):
    def __init__(self, number, port, service_pid, stats, stop, seed):
        super().__init__(name=f"hostile-{number}", daemon=True)
        self.number, self.port, self.service_pid, self.stats, self.stop = number, port, service_pid, stats, stop
        self.rnd = random.Random(seed)
        self.cases = hostile_cases()
        self.required = [c for c in self.cases if c.pipeline]

    def connect(self, rcvbuf=None):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(10)
        s.connect((HOST, self.port))
        return s

    def wait_closed(self, s, limit):
        """Seconds until the service closes `s` (reading and dropping its data), None if it
        did not within `limit`."""
        started = time.monotonic()
        while time.monotonic() - started < limit:
            s.settimeout(max(0.01, min(0.5, limit - (time.monotonic() - started))))
            try:
                if not s.recv(65536):
                    return time.monotonic() - started
            except socket.timeout:
                if self.stop.is_set() and time.monotonic() - started > limit / 2:
                    return None
            except ConnectionError:
                return time.monotonic() - started
        return None

    def check_answer(self, case, answer, what, kind=None):
        """Records the answer's outcome under `kind` (default: the case's group); a failure when
        it is not one the case allows."""
        kind = kind or case.group
        if answer is None:
            if case.required:
                self.stats.count("hostile", kind, "no answer")
                self.stats.fail(f"hostile {case.group} {case.name!r} ({what}): closed without an answer; "
                                f"request {excerpt(case.data)}")
            else:
                self.stats.count("hostile", kind, "closed")
            return
        self.stats.count("hostile", kind, answer.status)
        problem = None
        try:
            strict_json(answer.body)
        except ValueError as e:
            problem = f"a body that is not JSON ({e}): {excerpt(answer.body)}"
        if problem is None:
            try:
                problem = case.check(answer)
            except (ValueError, AttributeError, TypeError) as e:
                problem = f"an answer the check could not read ({e!r}): {excerpt(answer.body)}"
        if problem:
            status_line = answer.raw_head.split(b"\r\n")[0]
            self.stats.fail(f"hostile {case.group} {case.name!r} ({what}): {problem}; answer "
                            f"{excerpt(status_line)} {excerpt(answer.body)}; request {excerpt(case.data)}")

    def send_case(self):
        """One request on its own connection; a big one may be cut short by the 400."""
        case = self.rnd.choice(self.cases)
        s = self.connect()
        try:
            try:
                s.sendall(case.data)
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                if case.required:
                    self.stats.fail(f"hostile {case.group} {case.name!r}: connection ended while sending "
                                    f"{excerpt(case.data)}")
            try:
                answer = Reader(s).read(10)
            except (socket.timeout, ConnectionError) as e:
                if case.required or isinstance(e, socket.timeout):
                    self.stats.count("hostile", case.group, "no answer")
                    self.stats.fail(f"hostile {case.group} {case.name!r}: no answer ({e!r}); request "
                                    f"{excerpt(case.data)}")
                else:
                    self.stats.count("hostile", case.group, "reset")
                return
            except Malformed as e:
                self.stats.count("hostile", case.group, "malformed")
                self.stats.fail(f"hostile {case.group} {case.name!r}: malformed answer: {e}; request "
                                f"{excerpt(case.data)}")
                return
            self.check_answer(case, answer, "alone")
        finally:
            s.close()

    def pipelined(self):
        """Several parseable hostile requests at once on one keep-alive connection; each is answered."""
        chosen = [self.rnd.choice(self.required) for _ in range(self.rnd.randint(2, 6))]
        data = [c.data.replace(b"Connection: close\r\n", b"") for c in chosen]
        s = self.connect()
        try:
            s.sendall(b"".join(data))
            reader = Reader(s)
            for case in chosen:
                try:
                    answer = reader.read(10)
                except (socket.timeout, ConnectionError, Malformed) as e:
                    self.stats.count("hostile", "pipelined", "no answer")
                    self.stats.fail(f"hostile pipelined {case.group} {case.name!r}: {e!r}; requests "
                                    f"{[c.name for c in chosen]}")
                    return
                self.check_answer(case, answer, "pipelined", "pipelined")
                if answer is None:
                    return
        finally:
            s.close()

    def idle(self):
        s = self.connect()
        try:
            self.closed_or_fail("idle", self.wait_closed(s, TIMEOUT_MS / 1000 + 8), "an idle connection", s)
        finally:
            s.close()

    def closed_or_fail(self, kind, seconds, what, s):
        """Counts how a connection the service should have timed out ended (`seconds` None: this
        end saw no close). The service may have closed its descriptor while the kernel still holds
        its unsent answers and the FIN behind our full receive window: only a connection a
        descriptor of the service still holds is a failure."""
        if seconds is not None:
            self.stats.count("hostile", kind, "closed")
            return
        if self.stop.is_set():
            self.stats.count("hostile", kind, "stopped")
            return
        try:
            peer = server_side(self.service_pid, self.port, s.getsockname()[1])
        except OSError:
            peer = None
        if peer is None or not peer[3]:
            self.stats.count("hostile", kind, f"closed, {peer[0]} behind a full window" if peer else "closed")
            return
        self.stats.count("hostile", kind, "still open")
        self.stats.fail(f"hostile {kind}: {what} was still held by the service {TIMEOUT_MS / 1000 + 8:.0f} s later "
                        f"(timeouts are {TIMEOUT_MS} ms): its end is {peer[0]}, {peer[1]} bytes to send, "
                        f"{peer[2]} received and not read")

    def trickle_forever(self):
        """A request head one byte every 0.1 s, never finished: the read timeout must end it."""
        s = self.connect()
        started = time.monotonic()
        limit = TIMEOUT_MS / 1000 + 8
        try:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            s.setblocking(False)
            for byte in b"X-Slow: " + b"a" * 10_000:
                readable, _, _ = select.select([s], [], [], 0.1)
                if readable:
                    try:
                        if not s.recv(65536):
                            break
                    except (BlockingIOError, ConnectionError):
                        break
                try:
                    s.send(bytes([byte]))
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionError):
                    break
                if time.monotonic() - started > limit:
                    self.closed_or_fail("trickle-forever", None, "a connection trickling an endless head", s)
                    return
            self.stats.count("hostile", "trickle-forever", "closed")
        finally:
            s.close()

    def trickle_complete(self):
        """A short request that is not UTF-8, one byte every 10 ms: answered 400 in time."""
        case = self.rnd.choice([c for c in self.required if len(c.data) < 80])
        s = self.connect()
        started = time.monotonic()
        try:
            try:
                for byte in case.data:
                    s.sendall(bytes([byte]))
                    time.sleep(0.01)
                answer = Reader(s).read(10)
            except (socket.timeout, ConnectionError, Malformed) as e:
                late = time.monotonic() - started > TIMEOUT_MS / 1000 * 0.75
                self.stats.count("hostile", "trickle-complete", "timed out" if late else "no answer")
                if not late:
                    self.stats.fail(f"hostile trickle-complete {case.name!r}: {e!r}")
                return
            if answer is None and time.monotonic() - started > TIMEOUT_MS / 1000 * 0.75:
                self.stats.count("hostile", "trickle-complete", "timed out")  # the machine was too slow
                return
            self.check_answer(case, answer, "trickled", "trickle-complete")
        finally:
            s.close()

    def noread(self):
        """Pipelined requests with big answers, never read (4 KiB receive buffer): the write
        timeout must end it."""
        s = self.connect(rcvbuf=4096)
        started = time.monotonic()
        try:
            s.settimeout(5)
            try:
                s.sendall(b"GET /persons?limit=1000 HTTP/1.1\r\nHost: x\r\n\r\n" * 300)
            except (socket.timeout, ConnectionError):
                pass
            poller = select.poll()
            poller.register(s, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
            limit = TIMEOUT_MS / 1000 + 8
            while time.monotonic() - started < limit:
                if any(e & (select.POLLRDHUP | select.POLLHUP | select.POLLERR) for _, e in poller.poll(100)):
                    self.stats.count("hostile", "noread", "closed")
                    return
                if self.stop.is_set() and time.monotonic() - started > limit / 2:
                    self.stats.count("hostile", "noread", "stopped")
                    return
            self.closed_or_fail("noread", None, "a connection that does not read its answers", s)
        finally:
            s.close()

    def truncated(self):
        """The start of a request, then close (or half-close and read: a 400 or nothing)."""
        case = self.rnd.choice(self.cases)
        cut = self.rnd.randint(1, max(1, min(len(case.data), 4096) - 1))
        s = self.connect()
        try:
            try:
                s.sendall(case.data[:cut])
            except (BrokenPipeError, ConnectionResetError):
                return
            if self.rnd.random() < 0.5:
                self.stats.count("hostile", "truncated", "closed")
                return
            s.shutdown(socket.SHUT_WR)
            try:
                answer = Reader(s).read(TIMEOUT_MS / 1000 + 8)
            except (socket.timeout, ConnectionError, Malformed) as e:
                self.stats.count("hostile", "truncated", "no end")
                self.stats.fail(f"hostile truncated: {e!r} after {excerpt(case.data[:cut])}")
                return
            if answer is None:
                self.stats.count("hostile", "truncated", "closed")
            else:
                self.check_answer(Case("truncated", case.name, case.data[:cut], required=False), answer,
                                  "half-closed")
        finally:
            s.close()

    def garbage(self):
        """Random bytes ending a head; a 400 or nothing."""
        data = bytes(self.rnd.getrandbits(8) for _ in range(self.rnd.randint(1, 2000))) + b"\r\n\r\n"
        case = Case("garbage", "random bytes", data, required=False)
        s = self.connect()
        try:
            try:
                s.sendall(data)
                answer = Reader(s).read(TIMEOUT_MS / 1000 + 8)
            except (BrokenPipeError, ConnectionResetError):
                self.stats.count("hostile", "garbage", "reset")
                return
            except (socket.timeout, Malformed) as e:
                self.stats.count("hostile", "garbage", "no end")
                self.stats.fail(f"hostile garbage: {e!r}; request {excerpt(data, 4200)}")
                return
            self.check_answer(case, answer, "random")
        finally:
            s.close()

    def run(self):
        attacks = [(self.send_case, 30), (self.pipelined, 10), (self.idle, 4), (self.trickle_forever, 4),
                   (self.trickle_complete, 6), (self.noread, 4), (self.truncated, 10), (self.garbage, 10)]
        functions = [f for f, _ in attacks]
        weights = [w for _, w in attacks]
        while not self.stop.is_set():
            attack = self.rnd.choices(functions, weights)[0]
            try:
                attack()
            except (OSError, ValueError) as e:  # connect failed (service gone), or a bug of this script
                self.stats.count("hostile", attack.__name__, "error")
                self.stats.fail(f"hostile {attack.__name__}: {e!r}")
                self.stop.wait(0.5)
            self.stop.wait(0.02)


# -- monitor and main --------------------------------------------------------------------------

def health(port):
    """(ok, milliseconds, detail)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(HOST, port, timeout=2)
    try:
        connection.request("GET", "/health")
        response = connection.getresponse()
        body = response.read()
        ms = (time.monotonic() - started) * 1000
        parsed = strict_json(body)
        ok = response.status == 200 and isinstance(parsed, dict) and parsed.get("status") == "ok" and ms <= 2000
        return ok, ms, parsed if ok else f"{response.status} {excerpt(body)} in {ms:.0f} ms"
    except (OSError, http.client.HTTPException, ValueError) as e:
        return False, (time.monotonic() - started) * 1000, repr(e)
    finally:
        connection.close()


def mib(kib):
    return "?" if kib is None else f"{kib / 1024:.1f}"


def first_max_last(values):
    values = [v for v in values if v is not None]
    return {"first": values[0], "max": max(values), "last": values[-1]} if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Options it does not know go to graph-service.")
    parser.add_argument("--service", required=True, help="path of graph-service")
    parser.add_argument("--duration", type=float, default=600, help="seconds of load (default 600)")
    parser.add_argument("--json", help="write the summary and the samples to this file")
    parser.add_argument("--normal", type=int, default=4, help="normal client threads (default 4)")
    parser.add_argument("--hostile", type=int, default=3, help="hostile client threads (default 3)")
    parser.add_argument("--sample-every", type=float, default=5, help="seconds between samples (default 5)")
    parser.add_argument("--max-live", type=int, default=300,
                        help="persons each normal client keeps at most (default 300)")
    parser.add_argument("--max-health-misses", type=int, default=0, help="allowed missed health checks (default 0)")
    parser.add_argument("--random-seed", type=int, default=None,
                        help="seed of the clients' choices (default: from the time; graph-service's --seed is its own)")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    seed = args.random_seed if args.random_seed is not None else int(time.time())
    mode = "threads" if "--threads-per-connection" in extra else "fibers"

    stats = Stats()
    service = Service(args.service, extra)
    if not service.wait_listening(30):
        service.kill()
        print("\n".join(service.lines), file=sys.stderr)
        print(f"service_soak: {' '.join(service.args)} did not start (exit status {service.process.poll()})",
              file=sys.stderr)
        return 2
    port = service.port
    print(f"service soak: {mode} mode, {args.duration:g} s, {args.normal} normal + {args.hostile} hostile "
          f"clients, random seed {seed}, pid {service.pid}, port {port}", flush=True)
    print(f"  {' '.join(service.args)}", flush=True)

    samples = []
    health_misses = 0
    health_ms = []
    started = time.monotonic()

    def sample(phase, check_health=True):
        nonlocal health_misses
        ok, ms, detail = health(port) if check_health else (None, None, None)
        if check_health:
            if ok:
                health_ms.append(ms)
                if detail.get("mode") != mode:
                    stats.check_failed(f"GET /health says mode {detail.get('mode')!r}, expected {mode!r}")
            else:
                health_misses += 1
                print(f"health check missed: {detail}", file=sys.stderr, flush=True)
        rss, threads, fds = service.status()
        entry = {"t": round(time.monotonic() - started, 1), "phase": phase, "health_ok": ok,
                 "health_ms": None if ms is None else round(ms, 1), "rss_kib": rss, "threads": threads,
                 "fds": fds, "requests": stats.total(), "failures": stats.failures}
        samples.append(entry)
        print(f"[{entry['t']:6.1f}s] {phase:8} requests {entry['requests']:7d}  failures {stats.failures}  "
              f"health {'-' if ms is None else f'{ms:.0f} ms' if ok else 'MISSED'}  rss {mib(rss)} MiB  "
              f"threads {'?' if threads is None else threads}  fds {'?' if fds is None else fds}", flush=True)
        return entry

    baseline = sample("start")
    stop = threading.Event()
    shared = Shared()
    normals = [NormalClient(i, port, stats, shared, stop, seed * 1000 + i, args.max_live) for i in range(args.normal)]
    hostiles = [HostileClient(i, port, service.pid, stats, stop, seed * 1000 + 500 + i) for i in range(args.hostile)]
    for t in normals + hostiles:
        t.start()

    end = started + args.duration
    next_sample = started + args.sample_every
    service_died = False
    while time.monotonic() < end:
        time.sleep(max(0.0, min(0.5, next_sample - time.monotonic(), end - time.monotonic())))
        if not service.alive():
            service_died = True
            stats.check_failed(f"the service exited during the load with status {service.process.returncode}"
                               f"{' (signal %d)' % -service.process.returncode if service.process.returncode < 0 else ''}")
            break
        if time.monotonic() >= next_sample or time.monotonic() >= end:
            sample("load")
            next_sample += args.sample_every

    stop.set()
    hung = []
    for t in normals + hostiles:
        t.join(TIMEOUT_MS / 1000 + 30)
        if t.is_alive():
            hung.append(t.name)
    if hung:
        stats.check_failed(f"client threads did not end: {', '.join(hung)}")

    # Every acknowledged person not acknowledged deleted reads back with its name.
    expected = {pid: name for c in normals for pid, name in c.live.items()}
    acknowledged = sum(c.acknowledged for c in normals)
    deleted = sum(len(c.deleted) for c in normals)
    uncertain = sum(len(c.uncertain) for c in normals)
    missing = []
    read_back = 0
    if not service_died and service.alive():
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        for pid, name in expected.items():
            try:
                connection.request("GET", f"/persons/{pid}")
                response = connection.getresponse()
                body = response.read()
                parsed = strict_json(body) if response.status == 200 else None
                got = parsed.get("properties", {}).get("name") if isinstance(parsed, dict) else None
                read_back += 1
                if response.status != 200 or got != name:
                    missing.append(f"{pid}: {response.status} {excerpt(body)}")
            except (OSError, http.client.HTTPException, ValueError) as e:
                missing.append(f"{pid}: {e!r}")
                connection.close()
                connection = http.client.HTTPConnection(HOST, port, timeout=30)
        connection.close()
        if missing:
            shown = "; ".join(missing[:10]) + ("; ..." if len(missing) > 10 else "")
            stats.check_failed(f"{len(missing)} of {len(expected)} acknowledged persons not read back: {shown}")

    # Descriptors after the clients stopped: back to within FD_SLACK of the start.
    settle_end = time.monotonic() + TIMEOUT_MS / 1000 + 8
    final = sample("after", check_health=not service_died)
    while (final["fds"] or 0) > (baseline["fds"] or 0) + FD_SLACK and time.monotonic() < settle_end and service.alive():
        time.sleep(1)
        final = sample("after", check_health=False)
    if service.alive() and final["fds"] is not None and baseline["fds"] is not None \
            and final["fds"] > baseline["fds"] + FD_SLACK:
        stats.check_failed(f"descriptors grew: {baseline['fds']} before the clients, {final['fds']} after they ended")
    if health_misses > args.max_health_misses:
        stats.check_failed(f"{health_misses} health checks missed (allowed {args.max_health_misses})")

    # SIGTERM: exit 0 within 10 s, having printed "stopped".
    exit_status, exit_seconds = (service.process.returncode, 0.0) if not service.alive() else service.stop(10)
    said_stopped = "stopped" in service.lines
    if service_died:
        pass
    elif exit_status is None:
        stats.check_failed("the service did not exit within 10 s of SIGTERM")
    elif exit_status != 0:
        stats.check_failed(f"the service exited with status {exit_status} after SIGTERM")
    elif not said_stopped:
        stats.check_failed('the service did not print "stopped"')

    # Summary.
    rss = first_max_last([s["rss_kib"] for s in samples])
    fds = first_max_last([s["fds"] for s in samples])
    threads = first_max_last([s["threads"] for s in samples])
    ok = stats.failures == 0 and not stats.checks
    print(f"\nservice soak summary ({mode} mode, {time.monotonic() - started:.0f} s, random seed {seed})")
    print("  requests by kind:")
    for kind in sorted(stats.requests):
        outcomes = stats.requests[kind]
        detail = ", ".join(f"{o}: {n}" for o, n in sorted(outcomes.items()))
        print(f"    {kind:28} {sum(outcomes.values()):8d}  ({detail})")
    print(f"  requests: {stats.total('normal')} normal, {stats.total('hostile')} hostile")
    for name, n in sorted(stats.events.items()):
        print(f"  {name}: {n}")
    print(f"  persons: {acknowledged} acknowledged, {deleted} deleted, {uncertain} uncertain deletes, "
          f"{read_back} of {len(expected)} read back, {len(missing)} missing")
    health_max = f", slowest {max(health_ms):.0f} ms" if health_ms else ""
    print(f"  health: {len(health_ms) + health_misses} checks, {health_misses} missed{health_max}")
    if rss:
        print(f"  rss (MiB): first {mib(rss['first'])}, max {mib(rss['max'])}, last {mib(rss['last'])}")
    if fds:
        after = " (after the clients ended)" if final["fds"] is not None else " (the service is gone)"
        print(f"  fds: first {fds['first']}, max {fds['max']}, last {fds['last']}{after}")
    if threads:
        print(f"  threads: first {threads['first']}, max {threads['max']}, last {threads['last']}")
    print(f"  exit: status {exit_status} after {exit_seconds:.1f} s, "
          f"{'printed' if said_stopped else 'did not print'} \"stopped\"")
    print(f"  failed requests: {stats.failures}")
    for m in stats.messages[:20]:
        print(f"    {m}")
    if stats.failures > 20:
        print(f"    ... {stats.failures - 20} more" + (f" ({len(stats.messages)} in the JSON file)" if args.json else ""))
    print(f"  failed checks: {len(stats.checks)}")
    for m in stats.checks:
        print(f"    {m}")
    print(f"service soak: {'OK' if ok else 'FAILED'}", flush=True)

    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        report = {
            "ok": ok, "mode": mode, "duration_s": args.duration, "random_seed": seed, "started_utc": START_UTC,
            "service": service.args, "normal_clients": args.normal, "hostile_clients": args.hostile,
            "requests": {k: dict(v) for k, v in sorted(stats.requests.items())}, "events": dict(stats.events),
            "failures": stats.failures, "failure_messages": stats.messages, "failed_checks": stats.checks,
            "persons": {"acknowledged": acknowledged, "deleted": deleted, "uncertain_deletes": uncertain,
                        "expected": len(expected), "read_back": read_back, "missing": missing},
            "health": {"checks": len(health_ms) + health_misses, "misses": health_misses,
                       "max_ms": round(max(health_ms), 1) if health_ms else None},
            "rss_kib": rss, "fds": fds, "threads": threads,
            "exit": {"status": exit_status, "seconds": round(exit_seconds, 2), "printed_stopped": said_stopped},
            "service_output": service.lines[-200:], "samples": samples,
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"samples: {args.json}")
    return 0 if ok else 1


START_UTC = utc_now()

if __name__ == "__main__":
    sys.exit(main())
