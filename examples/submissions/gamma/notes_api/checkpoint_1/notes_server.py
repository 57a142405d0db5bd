# notes_server (gamma): answers everything with 200 and never validates; no created_at.
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

notes = []


class H(BaseHTTPRequestHandler):
    def send(self, payload):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(json.dumps(payload).encode())

    def do_GET(self):
        if self.path == "/notes":
            return self.send({"notes": notes})
        if self.path.startswith("/notes/"):
            i = int(self.path.split("/")[2])
            return self.send(notes[i - 1] if 0 < i <= len(notes) else {})
        self.send({"status": "ok"})

    def do_POST(self):
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or "{}")
        note = {"id": len(notes) + 1, "title": data.get("title"), "body": data.get("body", "")}
        notes.append(note)
        self.send(note)


HTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), H).serve_forever()
