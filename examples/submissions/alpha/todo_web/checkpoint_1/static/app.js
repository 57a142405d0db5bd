const input = document.getElementById("new-todo");
const list = document.getElementById("todos");
const count = document.getElementById("count");

function refresh() {
  const n = list.children.length;
  count.textContent = `${n} ${n === 1 ? "item" : "items"} left`;
}

function add() {
  const text = input.value.trim();
  if (!text) return;
  const item = document.createElement("li");
  item.textContent = text;
  list.appendChild(item);
  input.value = "";
  refresh();
}

document.getElementById("add").addEventListener("click", add);
input.addEventListener("keydown", (event) => { if (event.key === "Enter") add(); });
refresh();
