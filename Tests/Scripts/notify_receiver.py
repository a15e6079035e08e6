"""A job-notification receiver on loopback for NotifyTests: it records every POST (path, job
header, whether the signature is valid under the secret given, body) as a JSON line, and answers
503 to the first POST to a path containing "flaky", a 302 to /followed for a path containing
"redirect", 200 to everything else. Its port goes to
--port-file once it listens. The check uses Python's own hmac, not the farm's code."""
import argparse
import hashlib
import hmac
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--secret", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--port-file", required=True)
args = parser.parse_args()
refused = set()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        expected = "sha256=" + hmac.new(args.secret.encode(), body, hashlib.sha256).hexdigest()
        signature = self.headers.get("X-Farm-Signature", "")
        status = 200
        if "flaky" in self.path and self.path not in refused:
            refused.add(self.path)
            status = 503
        if "redirect" in self.path:
            status = 302
        with open(args.log, "a") as log:
            log.write(json.dumps({
                "path": self.path, "job": self.headers.get("X-Farm-Job"),
                "delivery": self.headers.get("X-Farm-Delivery"), "status": status,
                "agent": self.headers.get("User-Agent"),
                "valid": hmac.compare_digest(signature, expected), "body": json.loads(body),
            }) + "\n")
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "/followed")
        self.end_headers()

    def do_GET(self):
        # Only a followed redirect would come here: recorded, so a test sees it.
        with open(args.log, "a") as log:
            log.write(json.dumps({"path": self.path, "method": "GET"}) + "\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
with open(args.port_file + ".part", "w") as port:
    port.write(str(server.server_address[1]))
import os
os.rename(args.port_file + ".part", args.port_file)
server.serve_forever()
