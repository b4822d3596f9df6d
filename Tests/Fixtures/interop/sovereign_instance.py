#!/usr/bin/env python3
"""A real Sovereign-style instance for `--stack` tests: the public contract seed 004's shell
validates against, served over HTTPS. It shares no code with qualify.

  GET /api/instance       {status, product, instanceName, platformVersion}
  GET /api/health         {status: ok}
  GET /api/admin/health   403 (admin-key gated)
  GET anything else       an HTML page

Input (JSON on stdin): port, host ("localhost"), name, product ("sovereign"; another value
makes it not an instance), ca_file. Prints one line `{"origin": ...}` once it serves.
"""
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from test_ca import server_context

signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
host = config.get("host", "localhost")


class Instance(BaseHTTPRequestHandler):
    def answer(self, status, body, kind):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api/instance":
            self.answer(200, json.dumps({
                "status": "ok", "product": config.get("product", "sovereign"),
                "instanceName": config.get("name", "Real"), "platformVersion": "2.0.1"}),
                "application/json")
        elif path == "/api/health":
            self.answer(200, json.dumps({"status": "ok"}), "application/json")
        elif path == "/api/admin/health":
            self.answer(403, json.dumps({"error": "forbidden"}), "application/json")
        else:
            self.answer(200, f"<!doctype html><title>{config.get('name', 'Real')}</title><p>{path}</p>",
                        "text/html; charset=utf-8")

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(config["port"])), Instance)
server.socket = server_context(host, config["ca_file"]).wrap_socket(server.socket, server_side=True)
print(json.dumps({"origin": f"https://{host}:{server.server_address[1]}"}), flush=True)
server.serve_forever()
