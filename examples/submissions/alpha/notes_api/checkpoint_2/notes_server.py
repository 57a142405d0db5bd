"""notes_server: a JSON notes service on http.server (checkpoint 2: tags, PATCH, DELETE)."""

import argparse
import json
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NOTES = {}
NEXT_ID = [1]


class BadRequest(Exception):
    pass


def tags_of(data, default):
    tags = data.get("tags", default)
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise BadRequest("tags must be a list of strings")
    return tags


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload=None):
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise BadRequest("invalid JSON") from None
        if not isinstance(data, dict):
            raise BadRequest("invalid JSON")
        return data

    def note_id(self, path):
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "notes" and parts[1].isdigit():
            return int(parts[1])
        return None

    def handle_any(self, method):
        url = urlsplit(self.path)
        try:
            if method == "GET" and url.path == "/healthz":
                return self.reply(200, {"status": "ok"})
            if url.path == "/notes" and method == "GET":
                tag = parse_qs(url.query).get("tag", [None])[0]
                notes = [n for _, n in sorted(NOTES.items()) if tag is None or tag in n["tags"]]
                return self.reply(200, {"notes": notes})
            if url.path == "/notes" and method == "POST":
                data = self.body()
                title = data.get("title")
                if not isinstance(title, str) or not title:
                    raise BadRequest("title is required")
                note = {"id": NEXT_ID[0], "title": title, "body": data.get("body", ""),
                        "tags": tags_of(data, []),
                        "created_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
                NOTES[note["id"]] = note
                NEXT_ID[0] += 1
                return self.reply(201, note)
            ident = self.note_id(url.path)
            if ident is None:
                return self.reply(404, {"error": "not found"})
            if ident not in NOTES:
                return self.reply(404, {"error": f"note {ident} not found"})
            if method == "GET":
                return self.reply(200, NOTES[ident])
            if method == "DELETE":
                del NOTES[ident]
                return self.reply(204)
            if method == "PATCH":
                data = self.body()
                note = dict(NOTES[ident])
                for key in ("title", "body"):
                    if key in data:
                        note[key] = data[key]
                note["tags"] = tags_of(data, note["tags"])
                NOTES[ident] = note
                return self.reply(200, note)
            return self.reply(404, {"error": "not found"})
        except BadRequest as exc:
            return self.reply(400, {"error": str(exc)})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    ThreadingHTTPServer((args.address, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
