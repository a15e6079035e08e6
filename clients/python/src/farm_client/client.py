"""The farm's HTTP API as Python calls. Every call raises FarmError with the API's message and
the JSON path of a bad field; uploads and downloads resume where a cut connection left them."""
import hashlib
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

PIECE = 8 << 20


class FarmError(Exception):
    """An answer that is not a success: its HTTP status, message and the bad field's path."""

    def __init__(self, status, message, path=None, problems=None):
        super().__init__(f"{status}: {path + ': ' if path else ''}{message}")
        self.status = status
        self.message = message
        self.path = path
        self.problems = problems or []


class Client:
    """`Client("http://farm:8080", token)`: a token made by `farm tokens create NAME --role submit`."""

    def __init__(self, base_url, token, timeout=60):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- transport ---------------------------------------------------------------------------

    def _request(self, method, path, body=None, headers=None, raw=False):
        headers = dict(headers or {})
        headers["Authorization"] = f"Bearer {self.token}"
        data = body
        if body is not None and not isinstance(body, (bytes, bytearray)):
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                content = answer.read()
                if raw:
                    return answer.status, answer.headers, content
                return json.loads(content) if content else None
        except urllib.error.HTTPError as error:
            content = error.read()
            try:
                detail = json.loads(content)
            except ValueError:
                detail = {"error": content.decode(errors="replace")}
            raise FarmError(error.code, detail.get("error"), detail.get("path"), detail.get("problems")) from None

    # -- media -------------------------------------------------------------------------------

    def upload_status(self, sha256):
        """Where an upload stands (`received`, `size`, `complete`, `path`), or None."""
        try:
            return self._request("GET", f"/api/media/{sha256}")
        except FarmError as error:
            if error.status == 404:
                return None
            raise

    def upload(self, path, name=None, piece=PIECE):
        """Sends the file at `path` into the farm's media root, named by its SHA-256 (and `name`,
        default the file's name), in pieces; bytes the farm holds already are not sent again.
        Returns the finished upload: `path` and `namePath` are asset paths for a project."""
        digest = _sha256(path)
        size = os.path.getsize(path)
        name = name or os.path.basename(path)
        query = "?" + urllib.parse.urlencode({"name": name})
        status = self.upload_status(digest)
        offset = status["received"] if status else 0
        if status and status["complete"]:
            offset = size  # kept already: an empty request links the name, and no byte goes
        with open(path, "rb") as handle:
            while True:
                handle.seek(offset)
                data = handle.read(piece) if offset < size else b""
                status = self._request(
                    "PUT", f"/api/media/{digest}{query}", body=data,
                    headers={"Upload-Length": str(size), "Upload-Offset": str(offset),
                             "Content-Type": "application/octet-stream"})
                if status["complete"]:
                    return status
                if not data:
                    raise FarmError(0, f"the farm took no more bytes of {path} at {offset}")
                offset = status["received"]

    # -- templates and jobs ------------------------------------------------------------------

    def create_template(self, project, name=None):
        body = {"project": project}
        if name:
            body["name"] = name
        return self._request("POST", "/api/templates", body)

    def templates(self, limit=50):
        return self._pages("/api/templates", limit)

    def render_template(self, template_id, output, merge=None, idempotency_key=None, **options):
        """Queues a job of a kept template with `merge` values; `options` are POST /api/jobs's
        (`name`, `priority`, `overwrite`, `notify`, `noCache`, `requires`)."""
        body = dict(options, output=output, merge=merge or {})
        return self._post_job(f"/api/templates/{template_id}/renders", body, idempotency_key)

    def submit(self, project, output, merge=None, idempotency_key=None, **options):
        body = dict(options, project=project, output=output)
        if merge:
            body["merge"] = merge
        return self._post_job("/api/jobs", body, idempotency_key)

    def _post_job(self, path, body, key):
        # A key per call unless given: sending the same call again after a lost answer (the
        # retry below) gets the job it made, never a second one.
        headers = {"Idempotency-Key": key or str(uuid.uuid4())}
        for attempt in range(3):
            try:
                return self._request("POST", path, body, headers=headers)
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                if attempt == 2:
                    raise
                time.sleep(1 + attempt)

    def job(self, job_id):
        return self._request("GET", f"/api/jobs/{job_id}")

    def jobs(self, limit=50):
        """Every job, newest first, a page at a time (the API's cursor)."""
        return self._pages("/api/jobs", limit)

    def cancel(self, job_id):
        return self._request("POST", f"/api/jobs/{job_id}/cancel")

    def wait(self, job_id, on_progress=None, poll=0.5, timeout=3600):
        """Polls the job until it ends; `on_progress(status)` hears each change. Returns its status."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            status = self._request("GET", f"/api/jobs/{job_id}")["job"]
            seen = (status["state"], status["framesDone"])
            if on_progress and seen != last:
                on_progress(status)
            last = seen
            if status["state"] in ("done", "failed", "cancelled"):
                return status
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} did not end within {timeout} s")
            time.sleep(poll)

    # -- outputs -----------------------------------------------------------------------------

    def download(self, job_id, path, piece=PIECE):
        """Writes the done job's output to `path`, resuming a partial `path` by byte ranges."""
        have = os.path.getsize(path) if os.path.exists(path) else 0
        with open(path, "ab") as handle:
            while True:
                try:
                    status, headers, content = self._request(
                        "GET", f"/api/jobs/{job_id}/output",
                        headers={"Range": f"bytes={have}-{have + piece - 1}"}, raw=True)
                except FarmError as error:
                    if error.status == 416 and have > 0 and have == self._output_size(job_id):
                        return path  # all of it was here already
                    raise
                handle.write(content)
                have += len(content)
                total = int(headers["Content-Range"].split("/")[1]) if status == 206 else have
                if have >= total or not content:
                    return path

    def _output_size(self, job_id):
        _, headers, _ = self._request("GET", f"/api/jobs/{job_id}/output", headers={"Range": "bytes=0-0"}, raw=True)
        return int(headers["Content-Range"].split("/")[1])

    def output_link(self, job_id, expires_in_seconds=3600):
        """A URL to the output that needs no token until it expires."""
        answer = self._request("POST", f"/api/jobs/{job_id}/output/link",
                               {"expiresInSeconds": expires_in_seconds})
        return self.base_url + answer["url"]

    def _pages(self, path, limit):
        url = f"{path}?limit={limit}"
        while url:
            status, headers, content = self._request("GET", url, raw=True)
            yield from json.loads(content)
            link = headers.get("Link", "")
            url = link[1:link.index(">")] if 'rel="next"' in link else None


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
