#!/usr/bin/env python3
"""A real OTA channel for `--stack` tests: a directory served over HTTPS as a public bucket
serves its objects (GET, 404 for what is absent). It shares no code with qualify.

Input (JSON on stdin): port, host ("localhost"), directory, ca_file (where to write the CA's
PEM). Prints one line `{"origin": ...}` once it serves, then serves until killed.
"""
import functools
import json
import signal
import sys
from http.server import HTTPServer, SimpleHTTPRequestHandler

from test_ca import server_context

signal.signal(signal.SIGTERM, signal.SIG_DFL)
config = json.load(sys.stdin)
host = config.get("host", "localhost")


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(config["port"])),
                    functools.partial(Quiet, directory=config["directory"]))
server.socket = server_context(host, config["ca_file"]).wrap_socket(server.socket, server_side=True)
print(json.dumps({"origin": f"https://{host}:{server.server_address[1]}"}), flush=True)
server.serve_forever()
