"""A job made entirely over HTTP: upload a clip, music and captions; keep a template with merge
fields; render it with values; follow the job; download the file; check the webhook's signature.

    python3 render_over_http.py --url http://farm:8080 --token farm_… --notify-secret … \\
        --clip clip.mp4 --music music.wav --captions talk.srt --output /srv/out/oslo.mp4 \\
        --download oslo.mp4

`--output` is where the coordinator writes the file (inside its --output-root); `--download` is
where this machine keeps its copy. The last line printed is a JSON summary."""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from farm_client import Client, verify_signature  # noqa: E402


def receive_webhooks():
    """A receiver on loopback: the notices it gets, each (body bytes, signature header)."""
    notices = []
    arrived = threading.Event()

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            notices.append((body, self.headers.get("X-Farm-Signature")))
            arrived.set()
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/farm-notices", notices, arrived, server


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ["url", "token", "notify-secret", "clip", "music", "captions", "output", "download"]:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--city", default="Oslo")
    args = parser.parse_args()
    farm = Client(args.url, args.token)

    clip = farm.upload(args.clip)
    music = farm.upload(args.music)
    captions = farm.upload(args.captions)
    print(f"uploaded {clip['size']} + {music['size']} + {captions['size']} bytes")

    template = farm.create_template(name="city promo", project={
        "fields": {
            "CITY": {"type": "string", "description": "The title's city"},
            "LEVEL": {"type": "number", "default": 1},
            "MUSIC": {"type": "number", "default": 0.5},
        },
        "output": {"width": 320, "height": 180, "fps": "25"},
        "export": {"video": {"preset": "ultrafast"}},
        # By digest (content-addressed) or by the name it was uploaded under: a caption file's
        # name tells its format.
        "assets": {"clip": {"path": clip["path"]}, "music": {"path": music["path"]},
                   "subs": {"path": captions["namePath"]}},
        "tracks": [
            {"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "2", "opacity": "{{ LEVEL }}"}]},
            {"kind": "video", "items": [{"title": {"text": "Hello {{ CITY }}", "size": 28},
                                         "at": "0", "duration": "2", "frame": [0, 0, 1, 0.4]}]},
            {"kind": "video", "items": [{"asset": "subs", "at": "0", "duration": "2",
                                         "captions": {"burnIn": True, "soft": True, "language": "eng"}}]},
            {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "2", "volume": "{{ MUSIC }}"}]},
        ],
    })
    print(f"template {template['id']}: fields {[field['name'] for field in template['fields']]}")

    hook_url, notices, arrived, receiver = receive_webhooks()
    merge = {"CITY": args.city, "LEVEL": 0.8}
    job = farm.render_template(template["id"], args.output, merge=merge, notify=hook_url, overwrite=True)
    print(f"job {job['id']} queued")
    status = farm.wait(job["id"], on_progress=lambda s: print(f"  {s['state']} {s['percent']:.0f}%"))
    if status["state"] != "done":
        sys.exit(f"job {job['id']} ended {status['state']}: {status.get('error')}")
    farm.download(job["id"], args.download)
    print(f"downloaded {os.path.getsize(args.download)} bytes to {args.download}")

    if not arrived.wait(30):
        sys.exit("no webhook within 30 s")
    receiver.shutdown()
    body, signature = notices[0]
    valid = verify_signature(args.notify_secret, body, signature)
    forged = verify_signature(args.notify_secret, body + b" ", signature)
    print(f"webhook: job {json.loads(body)['id']} {json.loads(body)['state']}, signature valid: {valid}")
    print(json.dumps({"job": job["id"], "template": template["id"], "merge": merge, "download": args.download,
                      "webhookValid": valid, "forgedValid": forged, "webhookJob": json.loads(body)["id"]}))
    if not valid:
        sys.exit("the webhook's signature does not match the farm's secret")


if __name__ == "__main__":
    main()
