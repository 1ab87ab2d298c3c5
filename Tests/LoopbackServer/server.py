#!/usr/bin/env python3
"""Loopback HTTP server for the integration tests (standard library only).

Binds 127.0.0.1 on a free port, prints the port, and serves until its standard input closes
(the test process exits) or no request has come for 300 seconds, so it always stops by itself
(an idle limit, not a lifetime: a full test run on a loaded machine may take minutes).
"""
import json
import os
import select
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

USER = {"id": 1, "name": "Ada"}
# Token rotation (/rot/...): the access token a login gives is already expired, a refresh token
# works once and is replaced, as OAuth servers that rotate refresh tokens do.
ROTATION = {"access": set(), "refresh": set(), "serial": 0}
ROTATION_PASSWORD = "kiwi"
COUNTER = {"value": 0}
COUNTER_LOCK = threading.Lock()
LAST_REQUEST = {"at": time.monotonic()}  # when the latest request came (the idle limit)
IDLE_LIMIT = 300
SEEN = set()
HITS = {}  # key -> {"count": n, "conditional": m}
GATES = {}  # /stream/gate id, or "shared" + a gated /shared id -> threading.Event


def hit(key, conditional=False):
    with COUNTER_LOCK:
        entry = HITS.setdefault(key, {"count": 0, "conditional": 0})
        entry["count"] += 1
        if conditional:
            entry["conditional"] += 1
        return entry["count"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", content_type="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status not in (204, 205):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status not in (204, 205):
            self.wfile.write(body)

    def wait_unless_closed(self, seconds, gate=None):
        """Waits `seconds`, or until `gate` (a threading.Event) is set; False as soon as the
        client closes the connection."""
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0 or (gate is not None and gate.is_set()):
                return True
            readable, _, _ = select.select([self.connection], [], [], min(0.05, left))
            if readable:
                try:
                    closed = self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    closed = True
                if closed:
                    return False
                # Another request waits: not a hang-up.
                if gate is not None:
                    gate.wait(max(0, end - time.time()))
                else:
                    time.sleep(max(0, end - time.time()))
                return True

    def read_chunked(self):
        """A request body sent with Transfer-Encoding: chunked (an httpBodyStream), read whole so
        that the connection stays in step for the next request."""
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return body
            body += self.rfile.read(size)
            self.rfile.readline()  # the CRLF after the chunk

    def handle_any(self):
        LAST_REQUEST["at"] = time.monotonic()
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        streamed = url.path == "/upload"  # read in chunks by its route, never whole
        body = self.rfile.read(length) if length and not streamed else b""
        if not streamed and self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = self.read_chunked()
        route = url.path
        if route == "/envelope/ok":
            self.send(200, {"code": 0, "msg": "ok", "data": USER})
        elif route == "/envelope/drift":
            self.send(200, {"code": "0", "msg": "ok", "data": {"id": "1", "name": "Ada"}})
        elif route == "/envelope/fail":
            self.send(200, {"code": 1001, "msg": "token expired", "data": None})
        elif route == "/auth":
            ok = self.headers.get("Authorization") == "Bearer fresh"
            self.send(200, {"code": 0 if ok else 1001, "msg": "ok" if ok else "token expired",
                            "data": USER if ok else None})
        elif route == "/auth401":
            if self.headers.get("Authorization") == "Bearer fresh":
                self.send(200, {"code": 0, "msg": "ok", "data": USER})
            else:
                self.send(401, {"code": 401, "msg": "unauthorized"})
        elif route == "/redirect":
            # `status` (default 302) to `to`; the body says which method and body it got.
            query = dict(parse_qsl(url.query))
            self.send(int(query.get("status", "302")), {"method": self.command, "bodyBytes": len(body)},
                      headers=[("Location", query.get("to", "/headers"))])
        elif route == "/loop":
            # Redirects to itself, forever, with `status` (default 307).
            status = int(dict(parse_qsl(url.query)).get("status", "307"))
            self.send(status, b"", headers=[("Location", self.path)])
        elif route == "/challenge":
            # 401 with the WWW-Authenticate of `scheme` (basic, digest or another) and a body that
            # is no envelope, unless the request carries `Bearer fresh`.
            scheme = dict(parse_qsl(url.query)).get("scheme", "basic")
            if self.headers.get("Authorization") == "Bearer fresh":
                self.send(200, {"code": 0, "msg": "ok", "data": USER})
                return
            challenge = {
                "basic": 'Basic realm="loopback"',
                "digest": 'Digest realm="loopback", qop="auth", nonce="6e6f6e6365", opaque="0a0b", algorithm=MD5',
            }.get(scheme, 'Custom realm="loopback"')
            self.send(401, {"error": "sign in", "scheme": scheme},
                      headers=[("WWW-Authenticate", challenge)])
        elif route == "/headers":
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "host": self.headers.get("Host") or "",
                "headers": {name: value for name, value in self.headers.items()},
            }})
        elif route == "/login/form":
            self.send(200, "token=plain-secret&user=ada".encode(), "application/x-www-form-urlencoded",
                      headers=[("Set-Cookie", "session=planted-cookie; HttpOnly")])
        elif route == "/profile":
            meta = json.dumps({"refresh_token": "planted-refresh", "theme": "dark"})
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "name": "Ada", "password": "planted-password", "meta": meta,
            }}, headers=[("Set-Cookie", "session=planted-set-cookie; HttpOnly")])
        elif route == "/once":
            # 200 with a fresh count the first time an id is asked for, 500 after that.
            ident = dict(parse_qsl(url.query)).get("id", "")
            with COUNTER_LOCK:
                first = ident not in SEEN
                SEEN.add(ident)
                COUNTER["value"] += 1
                value = COUNTER["value"]
            if first:
                self.send(200, {"code": 0, "msg": "ok", "data": {"count": value}})
            else:
                self.send(500, b"busy", "text/plain")
        elif route == "/bytes":
            # n bytes in 64 KB chunks, with an optional pause between chunks (seconds). With an
            # `id`, a client that goes before the last byte is counted as `disconnect-<id>`, a
            # body sent whole as `bytes-done-<id>` (see /count). With `hold` (and an id), the
            # body stops after `hold` bytes until /bytes/release?id= comes (60 s at most) or the
            # client goes: a client too busy to stop in time cannot have it all.
            query = dict(parse_qsl(url.query))
            n, pause = int(query.get("n", "0")), float(query.get("pause", "0"))
            ident = query.get("id")
            hold = int(query.get("hold", "-1")) if ident is not None else -1
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n))
            self.end_headers()
            chunk, sent = b"x" * 65536, 0
            try:
                while sent < n:
                    piece = chunk[:min(len(chunk), n - sent)]
                    self.wfile.write(piece)
                    self.wfile.flush()
                    sent += len(piece)
                    if 0 <= hold <= sent:
                        hold = -1
                        with COUNTER_LOCK:
                            gate = GATES.setdefault("bytes" + ident, threading.Event())
                        if not self.wait_unless_closed(60, gate):
                            raise BrokenPipeError()
                    if pause:
                        time.sleep(pause)
            except (BrokenPipeError, ConnectionResetError):
                if ident is not None:
                    hit("disconnect-" + ident)
                self.close_connection = True
                return
            if ident is not None:
                hit("bytes-done-" + ident)
        elif route == "/repeat":
            self.repeat(dict(parse_qsl(url.query)))
        elif route.startswith("/stream/"):
            self.stream(route, dict(parse_qsl(url.query)))
        elif route.startswith("/feed/"):
            self.feed(route, dict(parse_qsl(url.query)))
        elif route == "/upload":
            received = 0
            while received < length:
                received += len(self.rfile.read(min(65536, length - received)))
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "received": received, "contentType": self.headers.get("Content-Type") or ""}})
        elif route == "/count":
            key = dict(parse_qsl(url.query)).get("key", "")
            with COUNTER_LOCK:
                entry = dict(HITS.get(key, {"count": 0, "conditional": 0}))
            self.send(200, {"code": 0, "msg": "ok", "data": entry})
        elif route == "/error/400":
            self.send(400, {"code": 40001, "msg": "phone invalid"})
        elif route == "/problem":
            self.send(422, {"type": "https://example.com/probs/out-of-credit", "title": "Out of credit",
                            "status": 422, "detail": "Your balance is 30, but that costs 50."},
                      "application/problem+json")
        elif route == "/reply":
            # Answers `status` (default 200) with `body` as it is (default none) and `type` as
            # its Content-Type (default application/json): an error body of any API's shape.
            query = dict(parse_qsl(url.query))
            self.send(int(query.get("status", "200")), query.get("body", "").encode(),
                      query.get("type", "application/json"))
        elif route == "/flaky":
            # The first `fails` requests of an id answer `status` (with Retry-After when given).
            query = dict(parse_qsl(url.query))
            n = hit("flaky" + query.get("id", ""))
            if n <= int(query.get("fails", "1")):
                headers = [("Retry-After", query["after"])] if "after" in query else []
                self.send(int(query.get("status", "503")), b"busy", "text/plain", headers)
            else:
                self.send(200, {"code": 0, "msg": "ok", "data": {"count": n}})
        elif route == "/limited":
            # The first `fails` requests of an id answer `status` (default 429) with every other
            # query item as a header (X-RateLimit-Reset=..., Retry-After=..., RateLimit=...).
            query = dict(parse_qsl(url.query))
            n = hit("limited" + query.get("id", ""))
            if n <= int(query.get("fails", "1")):
                # A value "+N" is the epoch second N seconds from now, on this server's clock.
                headers = [(k, str(int(time.time()) + int(v[1:])) if v.startswith("+") else v)
                           for k, v in query.items() if k not in ("id", "fails", "status")]
                self.send(int(query.get("status", "429")), {"message": "API rate limit exceeded"},
                          headers=headers)
            else:
                self.send(200, {"code": 0, "msg": "ok", "data": {"count": n}})
        elif route == "/pages":
            # `total` items (default 23), `per` a page (default 10), page `page` (from 1), as
            # {"items": [...], "authorization": ..., "port": ...}, in an envelope when `envelope`
            # is 1. `link` says how the next link is written: relative (default), absolute (this
            # Host), cross (localhost), other:PORT (127.0.0.1:PORT), loop (this page again), or
            # raw:URL (URL itself, e.g. raw:file:///etc/passwd). The links copy the request's
            # query but the names listed in `omit` (comma-separated), as a server that writes its
            # own links does. The page also says which `api_key` query item, method, body and
            # Content-Type it got.
            # Page `fail` answers 500, page `flaky` 503 the first time; page `slow` waits 3 s first;
            # page `hold` waits (60 s at most) for /pages/release of the id, and counts
            # ("pages-aborted" + id) a client that hangs up before.
            query = dict(parse_qsl(url.query))
            hit("pages" + query.get("id", ""))
            page, per, total = int(query.get("page", "1")), int(query.get("per", "10")), int(query.get("total", "23"))
            if query.get("slow") == str(page):
                time.sleep(3)
            if query.get("hold") == str(page):
                with COUNTER_LOCK:
                    gate = GATES.setdefault("pages" + query.get("id", ""), threading.Event())
                if not self.wait_unless_closed(60, gate):
                    hit("pages-aborted" + query.get("id", ""))
                    self.close_connection = True
                    return
            if query.get("fail") == str(page):
                self.send(500, b"page failed", "text/plain")
                return
            if query.get("flaky") == str(page) and hit("pages-flaky" + query.get("id", "")) == 1:
                self.send(503, b"busy", "text/plain")
                return
            port = self.server.server_address[1]
            body = {"items": [{"id": i} for i in range((page - 1) * per + 1, min(page * per, total) + 1)],
                    "authorization": self.headers.get("Authorization") or "",
                    "apiKey": self.headers.get("X-Api-Key") or "", "port": port,
                    "apiKeyQuery": ",".join(v for k, v in parse_qsl(url.query) if k == "api_key"),
                    "method": self.command, "body": body.decode("utf-8", "replace"),
                    "contentType": self.headers.get("Content-Type") or ""}
            if query.get("envelope") == "1":
                body = {"code": 0, "msg": "ok", "data": body}
            last = max(1, -(-total // per))

            def at(n):
                omitted = query.get("omit", "").split(",")
                q = {k: v for k, v in query.items() if k not in omitted}
                q["page"] = str(n)
                path = "/pages?" + "&".join("%s=%s" % (k, v) for k, v in sorted(q.items()))
                mode = query.get("link", "relative")
                if mode.startswith("raw:"):
                    return mode[len("raw:"):]
                if mode == "absolute":
                    return "http://%s%s" % (self.headers.get("Host"), path)
                if mode == "cross":
                    return "http://localhost:%d%s" % (port, path)
                if mode.startswith("other:"):
                    return "http://127.0.0.1:%s%s" % (mode[len("other:"):], path)
                return path

            links = ['<%s>; rel="first"' % at(1)]
            if page < last:
                target = at(page) if query.get("link") == "loop" else at(page + 1)
                links.append('<%s>; title="page, next; more"; REL="Next"' % target)
            links.append('<%s>; rel=last' % at(last))
            self.send(200, body, headers=[("Link", ", ".join(links))])
        elif route == "/bytes/release":
            with COUNTER_LOCK:
                GATES.setdefault("bytes" + dict(parse_qsl(url.query)).get("id", ""), threading.Event()).set()
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": 0}})
        elif route == "/pages/release":
            with COUNTER_LOCK:
                GATES.setdefault("pages" + dict(parse_qsl(url.query)).get("id", ""), threading.Event()).set()
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": 0}})
        elif route == "/cursor":
            # Five items a page, 12 in all, with the next page's cursor (null on the last).
            query = dict(parse_qsl(url.query))
            hit("cursor" + query.get("id", ""))
            start = int(query.get("cursor") or "0")
            items = [{"id": i} for i in range(start + 1, min(start + 5, 12) + 1)]
            following = str(start + 5) if start + 5 < 12 else None
            self.send(200, {"code": 0, "msg": "ok", "data": {"items": items, "next": following}})
        elif route == "/plain/repo":
            # A GitHub-style plain JSON API: the body is the value. It has a `code` member that
            # is data, not a business code; `status` answers that status with a GitHub error.
            query = dict(parse_qsl(url.query))
            hit("plain" + query.get("id", ""))
            status = int(query.get("status", "200"))
            if status != 200:
                self.send(status, {"message": "Not Found", "code": 1,
                                   "documentation_url": "https://docs.example.test/rest"})
            else:
                self.send(200, {"id": 7, "name": "envelope", "code": 99,
                                "owner": {"login": "ada", "id": "18"}})
        elif route == "/delay":
            time.sleep(float(dict(parse_qsl(url.query)).get("seconds", "1")))
            self.send(200, {"code": 0, "msg": "ok", "data": USER})
        elif route == "/etag":
            # Revalidated on every use (no-cache); a matching If-None-Match is a 304.
            key = "etag" + dict(parse_qsl(url.query)).get("id", "")
            conditional = self.headers.get("If-None-Match") is not None
            hit(key, conditional)
            if self.headers.get("If-None-Match") == '"v1"':
                self.send(304, b"", headers=[("ETag", '"v1"'), ("Cache-Control", "no-cache")])
            else:
                self.send(200, {"code": 0, "msg": "ok", "data": USER},
                          headers=[("ETag", '"v1"'), ("Cache-Control", "no-cache")])
        elif route == "/max-age":
            query = dict(parse_qsl(url.query))
            n = hit("max-age" + query.get("id", ""))
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": n}},
                      headers=[("Cache-Control", "max-age=" + query.get("age", "60"))])
        elif route == "/nostore":
            n = hit("nostore")
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": n, "secret": "planted-no-store"}},
                      headers=[("Cache-Control", "no-store")])
        elif route == "/cookie/set":
            user = dict(parse_qsl(url.query)).get("user", "")
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": 0}},
                      headers=[("Set-Cookie", "session=planted-cookie-" + user + "; Path=/")])
        elif route == "/cookie/whoami":
            # The user the session cookie of /cookie/set names ("nobody" without one); the
            # cookie's value itself is never in the body.
            cookie = self.headers.get("Cookie", "")
            user = "nobody"
            for part in cookie.split(";"):
                name, _, value = part.strip().partition("=")
                if name == "session" and value.startswith("planted-cookie-"):
                    user = value[len("planted-cookie-"):]
            # `X-Sign-Out: 1` ends the session with this answer (the cookie expires).
            ended = [("Set-Cookie", "session=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT")]
            self.send(200, {"code": 0, "msg": "ok", "data": {"user": user, "count": hit("whoami" + user)}},
                      headers=ended if self.headers.get("X-Sign-Out") else [])
        elif route == "/status/404json":
            self.send(404, {"code": 404, "msg": "not found"})
        elif route == "/status/500html":
            self.send(500, b"<html><body><h1>500 Internal Server Error</h1></body></html>", "text/html")
        elif route == "/nocontent":
            self.send(204)
        elif route == "/shared":
            # Counts the requests of an id ("shared" + id), answers after `seconds` (default 1)
            # with the count, and counts ("shared-aborted" + id) a client that hangs up before.
            # The first `fails` requests of the id (default 0) answer 503 instead. With `gate=1`
            # it answers as soon as /shared/release of the id comes (`seconds` at the latest), so
            # that a test decides when, however busy the machine is.
            query = dict(parse_qsl(url.query))
            ident = query.get("id", "")
            gate = None
            if query.get("gate"):
                with COUNTER_LOCK:
                    gate = GATES.setdefault("shared" + ident, threading.Event())
            n = hit("shared" + ident)
            if not self.wait_unless_closed(float(query.get("seconds", "1")), gate):
                hit("shared-aborted" + ident)
                self.close_connection = True
                return
            if n <= int(query.get("fails", "0")):
                self.send(503, b"busy", "text/plain")
            else:
                self.send(200, {"code": 0, "msg": "ok", "data": {"count": n}})
        elif route == "/shared/release":
            with COUNTER_LOCK:
                GATES.setdefault("shared" + dict(parse_qsl(url.query)).get("id", ""), threading.Event()).set()
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": 0}})
        elif route == "/slow":
            time.sleep(3)
            self.send(200, {"code": 0, "data": USER})
        elif route == "/reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            os.close(self.connection.detach())  # linger 0: the kernel answers with RST
            self.close_connection = True
        elif route == "/big":
            blob = "x" * (10 * 1024 * 1024)
            self.send(200, {"code": 0, "msg": "ok", "data": {"blob": blob}})
        elif route == "/counter":
            with COUNTER_LOCK:
                COUNTER["value"] += 1
                value = COUNTER["value"]
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": value}})
        elif route == "/login":
            account = json.loads(body or b"{}")
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "name": account.get("name", ""), "token": "secret-" + account.get("name", ""),
            }}, headers=[("Set-Cookie", "session=abc123; HttpOnly"), ("X-Request-Id", "42")])
        elif route == "/rot/login":
            account = json.loads(body or b"{}")
            if account.get("password") != ROTATION_PASSWORD:
                self.send(401, {"code": 40102, "msg": "wrong password", "data": None})
                return
            with COUNTER_LOCK:
                ROTATION["serial"] += 1
                serial = ROTATION["serial"]
                ROTATION["refresh"].add("refresh-%d" % serial)
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "access_token": "expired-%d" % serial, "refresh_token": "refresh-%d" % serial}})
        elif route == "/rot/refresh":
            token = json.loads(body or b"{}").get("refresh_token")
            with COUNTER_LOCK:
                valid = token in ROTATION["refresh"]
                if valid:
                    ROTATION["refresh"].discard(token)
                    ROTATION["serial"] += 1
                    serial = ROTATION["serial"]
                    ROTATION["access"].add("access-%d" % serial)
                    ROTATION["refresh"].add("refresh-%d" % serial)
            if not valid:
                self.send(401, {"code": 40101, "msg": "refresh token invalid", "data": None})
                return
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "access_token": "access-%d" % serial, "refresh_token": "refresh-%d" % serial}})
        elif route == "/rot/me":
            token = (self.headers.get("Authorization") or "")[len("Bearer "):]
            with COUNTER_LOCK:
                valid = token in ROTATION["access"]
            if valid:
                self.send(200, {"code": 0, "msg": "ok", "data": USER})
            else:
                self.send(401, {"code": 40100, "msg": "token expired", "data": None})
        elif route == "/anything":
            # As httpbin's /anything: the URL, query items, headers, form and JSON it was sent,
            # answered with the status named by `status` (200 when there is none).
            args = dict(parse_qsl(url.query))
            is_form = self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded")
            try:
                sent_json = json.loads(body) if body and not is_form else None
            except ValueError:
                sent_json = None
            self.send(int(args.get("status", "200")), {
                "url": "http://%s%s" % (self.headers.get("Host"), self.path),
                "args": args,
                "headers": dict(self.headers.items()),
                "form": dict(parse_qsl(body.decode())) if is_form else {},
                "json": sent_json,
            })
        elif route == "/echo":
            self.send(200, {"code": 0, "msg": "ok", "data": {
                "method": self.command,
                "query": url.query,
                "contentType": self.headers.get("Content-Type") or "",
                "body": body.decode("utf-8", "replace"),
                "form": dict(parse_qsl(body.decode())) if self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded") else {},
                "headers": {name: value for name, value in self.headers.items()},
            }})
        else:
            self.send(404, b"no route", "text/plain")

    def stream(self, route, query):
        """Chunked bodies (Transfer-Encoding: chunked, no Content-Length) for streaming tests.

        /stream/chunks?n=N&size=S&pause=P: N chunks of S bytes (`chunk i:` then dots, the last
          byte a newline), P seconds apart.
        /stream/gate?id=X: one chunk, then waits (up to 120 s) for /stream/release?id=X, then one
          more that says whether the gate was released.
        /stream/stall?seconds=S: one chunk, then nothing for S seconds, then one more.
        /stream/reset: one chunk, then the connection reset (RST) mid-body.
        /stream/endless?id=X: a 1 KB chunk every 10 ms until the client goes; the disconnect is
          counted as `disconnect-X` (see /count).
        /stream/release?id=X: opens the gate X.
        """
        ident = query.get("id", "")
        if route == "/stream/release":
            with COUNTER_LOCK:
                GATES.setdefault(ident, threading.Event()).set()
            self.send(200, {"code": 0, "msg": "ok", "data": {"count": 0}})
            return
        self.send_response(200)
        self.send_header("Content-Type", query.get("type", "application/octet-stream"))
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        def numbered(i, size):
            text = ("chunk %d:" % i).encode()
            return (text + b"." * max(0, size - len(text) - 1) + b"\n")[:max(size, 1)]

        try:
            if route == "/stream/chunks":
                n, size, pause = int(query.get("n", "3")), int(query.get("size", "16")), float(query.get("pause", "0"))
                for i in range(n):
                    if i and pause:
                        time.sleep(pause)
                    chunk(numbered(i, size))
            elif route == "/stream/gate":
                chunk(b"first\n")
                with COUNTER_LOCK:
                    gate = GATES.setdefault(ident, threading.Event())
                chunk(b"second (released)\n" if gate.wait(120) else b"second (gate timed out)\n")
            elif route == "/stream/stall":
                chunk(b"first\n")
                time.sleep(float(query.get("seconds", "10")))
                chunk(b"second\n")
            elif route == "/stream/reset":
                chunk(b"first\n")
                time.sleep(0.2)
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                os.close(self.connection.detach())  # linger 0: the kernel answers with RST
                self.close_connection = True
                return
            elif route == "/stream/endless":
                block = b"y" * 1023 + b"\n"
                while True:
                    chunk(block)
                    time.sleep(0.01)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            hit("disconnect-" + ident)
            self.close_connection = True

    def feed(self, route, query):
        """Streamed API bodies (chunked, cut into `size`-byte chunks `pause` seconds apart).

        /feed/ndjson?n=N: N JSON lines {"id": i, "price": "i.5"} (the price a string: drift),
          with a blank line and CRLF line ends among them.
        /feed/chat: an OpenAI-style text/event-stream ending in `data: [DONE]`.
        /feed/drop?id=X: Server-Sent Events; the first connection sends events 1 and 2 and drops
          in the middle of the third; a reconnection gets the events after its Last-Event-ID
          (recorded as hit `last-event-id-X-<id>`) and [DONE].
        /feed/envelope?order=before|after&code=C&n=N: {"code": C, "msg": …, "data": {"list":
          [N items]}} with the code before or after the data.
        /feed/auth: 401 (an envelope) unless `Authorization: Bearer fresh`; then 3 JSON lines.
        /feed/endless?id=X: JSON lines until the client goes (counted as `disconnect-X`).
        """
        ident = query.get("id", "")
        size, pause = int(query.get("size", "7")), float(query.get("pause", "0"))
        kind = "application/x-ndjson"
        if route == "/feed/ndjson":
            n = int(query.get("n", "5"))
            body = "".join('{"id": %d, "price": "%d.5"}%s' % (i, i, "\r\n" if i % 2 else "\n\n")
                           for i in range(n)).encode()
        elif route == "/feed/chat":
            kind = "text/event-stream"
            body = (b'data: {"delta": "Hel"}\n\n'
                    b': keep-alive\n\n'
                    b'event: message\nid: 7\ndata: {"delta":\ndata: "lo"}\n\n'
                    b'retry: 1500\ndata: {"delta": "!"}\r\n\r\n'
                    b'data: [DONE]\n\n'
                    b'data: {"delta": "after the end"}\n\n')
        elif route == "/feed/drop":
            kind = "text/event-stream"
            last = self.headers.get("Last-Event-ID")
            if last is None:
                body = b'retry: 50\nid: 1\ndata: {"delta": "a"}\n\nid: 2\ndata: {"delta": "b"}\n\nid: 3\ndata: {"del'
            else:
                hit("last-event-id-%s-%s" % (ident, last))
                body = b'id: 3\ndata: {"delta": "c"}\n\ndata: [DONE]\n\n'
        elif route == "/feed/envelope":
            n = int(query.get("n", "3"))
            items = json.dumps([{"id": i, "price": i + 0.5} for i in range(n)])
            code = query.get("code", "0")
            head = '"code": %s, "msg": "m"' % code
            data = '"data": {"list": %s}' % items
            order = [head, data] if query.get("order", "before") == "before" else [data, head]
            body = ("{" + ", ".join(order) + "}").encode()
        elif route == "/feed/auth":
            if self.headers.get("Authorization") != "Bearer fresh":
                self.send(401, {"code": 40100, "msg": "token expired", "data": None})
                return
            body = b'{"id": 1, "price": 1}\n{"id": 2, "price": 2}\n{"id": 3, "price": 3}\n'
        elif route == "/feed/endless":
            body = None
        else:
            self.send(404, b"no feed", "text/plain")
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if body is None:
                i = 0
                while True:
                    line = b'{"id": %d, "price": 1}\n' % i
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                    self.wfile.flush()
                    i += 1
                    time.sleep(0.005)
            for start in range(0, len(body), size):
                if start and pause:
                    time.sleep(pause)
                piece = body[start:start + size]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            if route == "/feed/drop" and self.headers.get("Last-Event-ID") is None:
                # Dropped: no last chunk; the connection just closes.
                self.close_connection = True
                return
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            hit("disconnect-" + ident)
            self.close_connection = True

    def repeat(self, query):
        """A large body generated while it is sent, for the benchmarks (EnvelopeBenchmarks
        --stream-calls): head, `blocks` copies of a pre-built block, tail; one chunk per block.

        /repeat?kind=ndjson|envelope|sse&blocks=N: ndjson: 1000 JSON lines a block; envelope:
          {"code":0,"msg":"ok","data":{"items":[row, then `,row` 1000 times a block ]}}; sse:
          1000 events `data: <row padded to 190 bytes>` a block.
        &pause=S: the first line or event alone, then S seconds of nothing, then the rest.
        &part=head|block|tail: that piece alone (Content-Length), to rebuild the body in memory.
        """
        kind, blocks = query.get("kind", "ndjson"), int(query.get("blocks", "1"))
        pause = float(query.get("pause", "0"))
        rows = [('{"id":%d,"name":"user %d \\"quoted\\" [x]","price":%s,"tags":["a","b%d"],'
                 '"active":%s}') % (i, i, repr((i % 1000) * 0.25), i % 7, "true" if i % 3 == 0 else "false")
                for i in range(1000)]
        head, tail = b"", b""
        if kind == "envelope":
            head = ('{"code":0,"msg":"ok","data":{"items":[' + rows[0]).encode()
            block = "".join("," + row for row in rows).encode()
            tail = b"]}}"
            kind_type = "application/json"
        elif kind == "sse":
            block = "".join("data: " + row.ljust(190) + "\n\n" for row in rows).encode()
            kind_type = "text/event-stream"
        else:
            block = "".join(row + "\n" for row in rows).encode()
            kind_type = "application/x-ndjson"
        part = query.get("part")
        if part:
            self.send(200, {"head": head, "block": block, "tail": tail}.get(part, b""), kind_type)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(data):
            if data:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        try:
            chunk(head)
            for i in range(blocks):
                if i == 0 and pause:
                    end = b"\n\n" if kind == "sse" else b"\n"
                    first = block.index(end) + len(end)
                    chunk(block[:first])
                    self.wfile.flush()
                    time.sleep(pause)
                    chunk(block[first:])
                else:
                    chunk(block)
            chunk(tail)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Clients that time out or cancel on purpose close early; that is not a server error.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop_when_idle():
        while time.monotonic() - LAST_REQUEST["at"] < IDLE_LIMIT:
            time.sleep(5)
        server.shutdown()

    threading.Thread(target=stop_when_idle, daemon=True).start()
    sys.stdin.read()  # returns when the test process closes the pipe or exits
    server.shutdown()


main()
