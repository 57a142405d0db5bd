"""Browser steps: what a browser case does on the page, in order.

Each step is a mapping with one action; its value is a CSS selector or a mapping of options:

    - navigate: /about                      # a path on the submission's server (or a full URL)
    - click: "#add"
    - fill: {selector: "#new", value: milk}
    - press: {selector: "#new", key: Enter} # or `press: Enter` on the focused element
    - wait: {selector: ".item", state: visible, count: 2, text: milk, timeout_ms: 3000}
    - wait: {ms: 200}
    - text: {selector: ".item:first-child", as: first}   # reads go into `output`
    - attribute: {selector: "#count", name: data-n, as: n}
    - value / count / visible: {selector: ..., as: ...}
    - evaluate: {script: "document.title", as: title}

Steps that act on an element wait for it (visible, for click/fill/press) up to `timeout_ms`
(default: the adapter's `default_timeout_ms`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

READS = ("text", "attribute", "value", "count", "visible", "evaluate")
ACTIONS = ("navigate", "click", "fill", "press", "wait", *READS, "screenshot")


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    timeout_ms: int | None = Field(None, gt=0)


class Navigate(_Step):
    url: str


class Click(_Step):
    selector: str


class Fill(_Step):
    selector: str
    value: str


class Press(_Step):
    key: str
    selector: str | None = None


class Wait(_Step):
    selector: str | None = None
    state: Literal["attached", "visible", "hidden", "detached"] = "visible"
    count: int | None = Field(None, ge=0)
    text: str | None = None
    ms: int | None = Field(None, ge=0, le=60_000)


class Read(_Step):
    selector: str | None = None
    name: str | None = None  # attribute name
    script: str | None = None
    as_: str | None = Field(None, alias="as")


class Screenshot(_Step):
    as_: str | None = Field(None, alias="as")


MODELS: dict[str, type[_Step]] = {
    "navigate": Navigate,
    "click": Click,
    "fill": Fill,
    "press": Press,
    "wait": Wait,
    "screenshot": Screenshot,
    **{name: Read for name in READS},
}
SHORTHAND = {
    "navigate": "url",
    "click": "selector",
    "press": "key",
    "wait": "selector",
    "text": "selector",
    "value": "selector",
    "count": "selector",
    "visible": "selector",
    "evaluate": "script",
}


def parse_step(step: Any, index: int) -> tuple[str, Any]:
    """(action, options) of one step; ValueError saying what is wrong with it."""
    where = f"steps[{index}]"
    if not isinstance(step, dict) or len(step) != 1:
        raise ValueError(
            f"{where}: a step is a mapping with one action ({', '.join(ACTIONS)}), got {step!r}"
        )
    action, value = next(iter(step.items()))
    if action not in MODELS:
        raise ValueError(
            f"{where}: unknown action {action!r} (expected one of {', '.join(ACTIONS)})"
        )
    if not isinstance(value, dict):
        if action not in SHORTHAND or not isinstance(value, (str, int)):
            raise ValueError(f"{where}.{action}: expected a mapping of options")
        value = {SHORTHAND[action]: str(value)}
    try:
        options: Any = TypeAdapter(MODELS[action]).validate_python(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'options'}: "
            f"{'unknown key' if e['type'] == 'extra_forbidden' else e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ValueError(f"{where}.{action}: {problems}") from None
    if action == "attribute" and not (options.selector and options.name):
        raise ValueError(f"{where}.attribute: needs `selector` and `name`")
    if action in ("text", "value", "count", "visible") and not options.selector:
        raise ValueError(f"{where}.{action}: needs `selector`")
    if action == "evaluate" and not options.script:
        raise ValueError(f"{where}.evaluate: needs `script`")
    if action == "wait" and options.ms is None and options.selector is None:
        raise ValueError(f"{where}.wait: needs `selector` or `ms`")
    return action, options


def output_key(action: str, options: Any) -> str:
    key = getattr(options, "as_", None)
    if key:
        return str(key)
    if action == "attribute":
        return f"{options.selector}@{options.name}"
    return str(options.selector or options.script or action)


# ---- page-side helpers (evaluated in the page) --------------------------------------------------

_STATE_JS = """(() => {
  const all = Array.from(document.querySelectorAll(%(sel)s));
  const shown = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const first = all[0] || null;
  return {count: all.length, visible: !!first && shown(first),
          texts: all.map(e => (e.innerText || e.textContent || '').trim())};
})()"""

_READ_JS = {
    "text": "(e) => (e.innerText || e.textContent || '').trim()",
    "value": "(e) => e.value",
    "attribute": "(e) => e.getAttribute(%(name)s)",
}


def state_js(selector: str) -> str:
    return _STATE_JS % {"sel": json.dumps(selector)}


def read_js(action: str, selector: str, name: str | None = None) -> str:
    fn = _READ_JS[action] % {"name": json.dumps(name)}
    return (
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); return e ? "
        f"({fn})(e) : null; }})()"
    )


def center_js(selector: str) -> str:
    return (
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return "
        "null; e.scrollIntoView({block: 'center', inline: 'center'}); const r = "
        "e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; "
        "})()"
    )


def focus_js(selector: str, clear: bool) -> str:
    reset = (
        "if ('value' in e) { e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})); }"
        if clear
        else ""
    )
    return (
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return "
        f"false; e.focus(); {reset} return true; }})()"
    )


KEYS: dict[str, tuple[str, int, str]] = {  # key -> (code, windows key code, text it types)
    "Enter": ("Enter", 13, "\r"),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""),
    "Delete": ("Delete", 46, ""),
    "Space": ("Space", 32, " "),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
}


def key_events(key: str) -> list[dict[str, Any]]:
    if key in KEYS:
        code, vk, text = KEYS[key]
    elif len(key) == 1:
        code, vk, text = (f"Key{key.upper()}" if key.isalpha() else ""), ord(key.upper()), key
    else:
        raise ValueError(
            f"unknown key {key!r} (expected one character or one of {', '.join(KEYS)})"
        )
    name = " " if key == "Space" else key
    down: dict[str, Any] = {
        "type": "keyDown" if text else "rawKeyDown",
        "key": name,
        "code": code,
        "windowsVirtualKeyCode": vk,
        "nativeVirtualKeyCode": vk,
    }
    if text:
        down["text"] = text
        down["unmodifiedText"] = text
    return [
        down,
        {
            "type": "keyUp",
            "key": name,
            "code": code,
            "windowsVirtualKeyCode": vk,
            "nativeVirtualKeyCode": vk,
        },
    ]


def check_steps(steps: list[Any]) -> None:
    """ValueError naming the first malformed step (checked before any sandbox starts)."""
    for index, step in enumerate(steps):
        action, options = parse_step(step, index)
        if action == "press":
            try:
                key_events(options.key)
            except ValueError as exc:
                raise ValueError(f"steps[{index}].press: {exc}") from None
