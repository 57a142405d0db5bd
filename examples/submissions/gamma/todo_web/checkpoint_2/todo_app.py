# todo_app (gamma): serves page.html for every path; only the button adds, nothing is trimmed
# or checked, the count reads "N items"; checkpoint 2 adds the filter links, no checkboxes.
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(open("static/page.html", "rb").read())


HTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), H).serve_forever()
