"""notes_server (beta): a route table over http.server."""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


class Store:
    def __init__(self):
        self.notes = []

    def add(self, title, body):
        note = {"id": len(self.notes) + 1, "title": title, "body": body,
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.notes.append(note)
        return note

    def find(self, ident):
        return next((n for n in self.notes if n["id"] == ident), None)


STORE = Store()


def health(_match, _data):
    return 200, {"status": "ok"}


def list_notes(_match, _data):
    return 200, {"notes": STORE.notes}


def get_note(match, _data):
    note = STORE.find(int(match.group(1)))
    return (200, note) if note else (404, {"error": f"note {match.group(1)} not found"})


def create(_match, data):
    if data is None:
        return 400, {"error": "invalid JSON"}
    if not data.get("title"):
        return 400, {"error": "title is required"}
    return 201, STORE.add(data["title"], data.get("body", ""))


ROUTES = [("GET", r"/healthz", health), ("GET", r"/notes", list_notes), ("GET", r"/notes/(\d+)", get_note),
          ("POST", r"/notes", create)]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def dispatch(self, method):
        data = None
        if method == "POST":
            try:
                data = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or "{}")
            except ValueError:
                data = None
        for verb, pattern, action in ROUTES:
            match = re.fullmatch(pattern, self.path)
            if verb == method and match:
                status, payload = action(match, data)
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


if __name__ == "__main__":
    options = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    HTTPServer((options.get("--address", "127.0.0.1"), int(options.get("--port", "8000"))), Handler).serve_forever()
