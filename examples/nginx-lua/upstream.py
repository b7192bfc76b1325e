#!/usr/bin/env python3
"""A demo upstream: answers every GET with its name, and keeps itself registered.

    BALLAST_TOKEN=<token> upstream.py --name a --port 9001 --ballast http://127.0.0.1:8080 --service demo --weight 300

BALLAST_TOKEN (environment, needed with --ballast) is sent as a bearer token on every
registry call: a registrant token whose services cover --service (or an operator's or
admin's). It is read from the environment rather than an option, which ps would show.

It registers with PUT /v1/services/{service}/instances/{name} and then heartbeats a
third of a lease apart; a 404 to a heartbeat (the lease ran out and the instance was
removed) registers it again. Ballast being down only costs bounded retries: requests
keep being served and the heartbeats go on, on the next node when several are given.
Standard library only.
"""

import argparse
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REGISTRY_TIMEOUT = 2.0


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so that nginx's upstream keepalive can reuse connections.
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes; with Nagle's algorithm the
    # second waits for nginx's delayed ACK, 40 ms on every request.
    disable_nagle_algorithm = True

    def do_GET(self):
        body = (self.server.name + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def call(node, token, method, path, body=None):
    url = urllib.parse.urlsplit(node)
    connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=REGISTRY_TIMEOUT)
    try:
        headers = {"Authorization": "Bearer " + token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def keep_registered(args, address, token):
    instance = f"/v1/services/{args.service}/instances/{args.name}"
    registration = {"address": address, "port": args.port, "weight": args.weight}
    if args.zone:
        registration["zone"] = args.zone
    registered = False
    node = 0
    while True:
        try:
            if not registered:
                status, text = call(args.ballast[node], token, "PUT", instance, registration)
                registered = status in (200, 201)
                if not registered:
                    print(f"{args.name}: registration refused ({status}): {text}", file=sys.stderr, flush=True)
            else:
                status, text = call(args.ballast[node], token, "POST", instance + "/heartbeat")
                # The lease ran out and the instance was removed: register again.
                registered = status != 404
                if status in (401, 403):
                    print(f"{args.name}: registry refused the token ({status}): {text}", file=sys.stderr, flush=True)
        except OSError as error:
            print(f"{args.name}: {args.ballast[node]} unreachable: {error}", file=sys.stderr, flush=True)
            node = (node + 1) % len(args.ballast)
        time.sleep(args.heartbeat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", required=True, help="what it answers, and its instance id")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--ballast", action="append", default=[], help="a registry node URL; repeat for several")
    parser.add_argument("--service", default="demo")
    parser.add_argument("--weight", type=int, default=100)
    parser.add_argument("--zone", help="the zone to register in (default none)")
    parser.add_argument("--address", help="the address to register (default: --bind, or this host's address)")
    parser.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats (lease 30 s)")
    args = parser.parse_args()
    token = os.environ.get("BALLAST_TOKEN", "")
    # http.client refuses a header value with CR or LF itself; this says why first.
    if args.ballast and (not token or any(not "!" <= c <= "~" for c in token)):
        parser.error("BALLAST_TOKEN must be set to a token (printable ASCII, no spaces) to register with --ballast")

    server = ThreadingHTTPServer((args.bind, args.port), Handler)
    server.daemon_threads = True
    server.name = args.name
    if args.ballast:
        address = args.address or (args.bind if args.bind != "0.0.0.0" else socket.gethostbyname(socket.gethostname()))
        threading.Thread(target=keep_registered, args=(args, address, token), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
