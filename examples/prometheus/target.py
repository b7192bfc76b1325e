#!/usr/bin/env python3
"""Scrape targets for the e2e check: each NAME=PORT given listens on 127.0.0.1:PORT and
answers GET /metrics with one gauge that names it, e2e_target_info{target="NAME"} 1.

    target.py a=9101 b=9102

Standard library only; runs until it is stopped.
"""

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def handler(name):
    body = ('# TYPE e2e_target_info gauge\ne2e_target_info{target="%s"} 1\n' % name).encode()

    class Metrics(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):
            pass

    return Metrics


def main():
    servers = []
    for spec in sys.argv[1:]:
        name, _, port = spec.partition("=")
        servers.append(ThreadingHTTPServer(("127.0.0.1", int(port)), handler(name)))
    if not servers:
        sys.exit("usage: target.py NAME=PORT...")
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    servers[0].serve_forever()


if __name__ == "__main__":
    main()
