"""notes_server (beta): a route table over http.server; checkpoint 2 adds tags, PATCH, DELETE.

Its rewrite of the listing returns the bare list of notes (no {"notes": ...} wrapper), and
DELETE answers 200 with a body instead of 204.
"""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit


class Store:
    def __init__(self):
        self.notes = []
        self.next_id = 1

    def add(self, title, body, tags):
        note = {"id": self.next_id, "title": title, "body": body, "tags": tags,
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.next_id += 1
        self.notes.append(note)
        return note

    def find(self, ident):
        return next((n for n in self.notes if n["id"] == ident), None)


STORE = Store()


def valid_tags(tags):
    return isinstance(tags, list) and all(isinstance(t, str) for t in tags)


def health(_match, _data, _query):
    return 200, {"status": "ok"}


def list_notes(_match, _data, query):
    tag = query.get("tag", [None])[0]
    return 200, [n for n in STORE.notes if tag is None or tag in n["tags"]]


def get_note(match, _data, _query):
    note = STORE.find(int(match.group(1)))
    return (200, note) if note else (404, {"error": f"note {match.group(1)} not found"})


def create(_match, data, _query):
    if data is None:
        return 400, {"error": "invalid JSON"}
    if not data.get("title"):
        return 400, {"error": "title is required"}
    tags = data.get("tags", [])
    if not valid_tags(tags):
        return 400, {"error": "tags must be a list of strings"}
    return 201, STORE.add(data["title"], data.get("body", ""), tags)


def patch(match, data, _query):
    note = STORE.find(int(match.group(1)))
    if note is None:
        return 404, {"error": f"note {match.group(1)} not found"}
    if data is None or ("tags" in data and not valid_tags(data["tags"])):
        return 400, {"error": "invalid JSON" if data is None else "tags must be a list of strings"}
    note.update({k: v for k, v in data.items() if k in ("title", "body", "tags")})
    return 200, note


def delete(match, _data, _query):
    note = STORE.find(int(match.group(1)))
    if note is None:
        return 404, {"error": f"note {match.group(1)} not found"}
    STORE.notes.remove(note)
    return 200, {"deleted": note["id"]}


ROUTES = [("GET", r"/healthz", health), ("GET", r"/notes", list_notes), ("GET", r"/notes/(\d+)", get_note),
          ("POST", r"/notes", create), ("PATCH", r"/notes/(\d+)", patch), ("DELETE", r"/notes/(\d+)", delete)]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def dispatch(self, method):
        data = None
        if method in ("POST", "PATCH"):
            try:
                data = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or "{}")
            except ValueError:
                data = None
        url = urlsplit(self.path)
        for verb, pattern, action in ROUTES:
            match = re.fullmatch(pattern, url.path)
            if verb == method and match:
                status, payload = action(match, data, parse_qs(url.query))
                break
        else:
            status, payload = 404, {"error": "not found"}
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")


if __name__ == "__main__":
    options = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    HTTPServer((options.get("--address", "127.0.0.1"), int(options.get("--port", "8000"))), Handler).serve_forever()
