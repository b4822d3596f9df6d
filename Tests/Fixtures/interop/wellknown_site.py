#!/usr/bin/env python3
"""A site serving its `.well-known` association files over HTTPS, for `qualify links verify`
tests: an outside server that shares no code with qualify, in a few real-world shapes.

Input (JSON on stdin): port, host, ca_file, folder (holding apple-app-site-association and
assetlinks.json), mode:
  "files"     the files as they are (application/json)
  "redirect"  /.well-known/* answers 301 to https://www.<host>/… (a canonical-host rule)
  "html"      assetlinks.json served as text/html (a CMS page)
  "huge"      apple-app-site-association padded beyond Apple's 128 KB
Prints one line `{"port": N}` once it serves.
"""
import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from test_ca import server_context

signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
host = config["host"]
mode = config.get("mode", "files")
files = {
    "/.well-known/apple-app-site-association": "apple-app-site-association",
    "/.well-known/assetlinks.json": "assetlinks.json",
}


class Site(BaseHTTPRequestHandler):
    def answer(self, status, data, kind, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path not in files:
            self.answer(404, b"<!doctype html><h1>Not found</h1>", "text/html")
            return
        if mode == "redirect":
            self.answer(301, b"", "text/html", {"Location": f"https://www.{host}{path}"})
            return
        with open(os.path.join(config["folder"], files[path]), "rb") as handle:
            data = handle.read()
        kind = "application/json"
        if mode == "html" and path.endswith("assetlinks.json"):
            kind = "text/html; charset=utf-8"
        if mode == "huge" and path.endswith("association"):
            document = json.loads(data)
            document["padding"] = "x" * (200 * 1024)
            data = json.dumps(document).encode()
        self.answer(200, data, kind)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(config["port"])), Site)
server.socket = server_context(host, config["ca_file"]).wrap_socket(server.socket, server_side=True)
print(json.dumps({"port": server.server_address[1]}), flush=True)
server.serve_forever()
