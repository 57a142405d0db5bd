"""notes_server: a JSON notes service on http.server (checkpoint 1)."""

import argparse
import json
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NOTES = {}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/healthz":
            return self.reply(200, {"status": "ok"})
        if self.path == "/notes":
            return self.reply(200, {"notes": [NOTES[k] for k in sorted(NOTES)]})
        parts = self.path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "notes" and parts[1].isdigit():
            note = NOTES.get(int(parts[1]))
            if note is None:
                return self.reply(404, {"error": f"note {parts[1]} not found"})
            return self.reply(200, note)
        return self.reply(404, {"error": "not found"})

    def do_POST(self):
        if self.path != "/notes":
            return self.reply(404, {"error": "not found"})
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            return self.reply(400, {"error": "invalid JSON"})
        title = data.get("title") if isinstance(data, dict) else None
        if not isinstance(title, str) or not title:
            return self.reply(400, {"error": "title is required"})
        note = {"id": len(NOTES) + 1, "title": title, "body": data.get("body", ""),
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        NOTES[note["id"]] = note
        return self.reply(201, note)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    ThreadingHTTPServer((args.address, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
