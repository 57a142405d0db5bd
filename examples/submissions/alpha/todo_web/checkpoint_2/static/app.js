const KEY = "todo_web.items";
const input = document.getElementById("new-todo");
const list = document.getElementById("todos");
const count = document.getElementById("count");
let items = JSON.parse(localStorage.getItem(KEY) || "[]");
let filter = "all";

function save() {
  localStorage.setItem(KEY, JSON.stringify(items));
}

function render() {
  list.replaceChildren(...items.map((item, index) => {
    const li = document.createElement("li");
    if (item.done) li.className = "done";
    if ((filter === "active" && item.done) || (filter === "done" && !item.done)) li.style.display = "none";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.className = "toggle";
    box.checked = item.done;
    box.addEventListener("change", () => { items[index].done = box.checked; save(); render(); });
    const label = document.createElement("span");
    label.textContent = item.text;
    li.append(box, label);
    return li;
  }));
  const left = items.filter((item) => !item.done).length;
  count.textContent = `${left} ${left === 1 ? "item" : "items"} left`;
}

function add() {
  const text = input.value.trim();
  if (!text) return;
  items.push({ text, done: false });
  input.value = "";
  save();
  render();
}

document.getElementById("add").addEventListener("click", add);
input.addEventListener("keydown", (event) => { if (event.key === "Enter") add(); });
for (const name of ["all", "active", "done"]) {
  document.getElementById(`filter-${name}`).addEventListener("click", (event) => {
    event.preventDefault();
    filter = name;
    render();
  });
}
render();
