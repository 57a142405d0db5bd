"""todo_app (beta): the page is one inline HTML document; checkpoint 2 adds done and filters.

The count still counts every item (done ones too), and nothing is stored: a reload empties
the list.
"""

import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Todos</title>
<style>.done { color: gray; } .off { display: none; }</style></head>
<body>
<form id="form"><input id="new-todo"> <button id="add" type="submit">Add</button></form>
<ul id="todos"></ul>
<div id="count"></div>
<p><button id="filter-all">all</button><button id="filter-active">active</button><button id="filter-done">done</button></p>
<script>
const todos = [];
let view = "all";
function show() {
  const ul = document.getElementById("todos");
  ul.innerHTML = "";
  todos.forEach((todo, i) => {
    const li = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.className = "toggle";
    box.checked = todo.done;
    box.onchange = () => { todos[i].done = box.checked; show(); };
    li.append(box, document.createTextNode(todo.text));
    if (todo.done) li.classList.add("done");
    if ((view === "active" && todo.done) || (view === "done" && !todo.done)) li.classList.add("off");
    ul.appendChild(li);
  });
  document.getElementById("count").textContent = todos.length + (todos.length === 1 ? " item left" : " items left");
}
document.getElementById("form").addEventListener("submit", (e) => {
  e.preventDefault();
  const box = document.getElementById("new-todo");
  if (box.value.trim()) todos.push({text: box.value.trim(), done: false});
  box.value = "";
  show();
});
for (const name of ["all", "active", "done"]) {
  document.getElementById("filter-" + name).onclick = () => { view = name; show(); };
}
show();
</script>
</body></html>
"""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body, status = (PAGE.encode(), 200) if self.path == "/" else ((b"ok", 200) if self.path == "/healthz" else (b"missing", 404))
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    HTTPServer((args.get("--address", "127.0.0.1"), int(args.get("--port", "8000"))), Handler).serve_forever()
