"""The scripted model server: a model that answers from a script, over the APIs coding-agent CLIs
speak, so a real CLI runs unmodified, offline and for free (docs/agents.md, "Dry runs").

```
script.py      the script file (pydantic): per checkpoint, write / run / tools / say turns
translate.py   a turn in the client's terms: its tools (Write, exec_command, ...) or text formats
anthropic.py, openai_chat.py, openai_responses.py, gemini.py
               each API's request read, answer written
usage.py       tokens counted the same way for every API; the totals served
server.py      the HTTP server (loopback TCP or a Unix socket), a thread of the harness
bridge.py      run inside a sandbox: its loopback port relayed to the server's socket
replay.py      a recorded session (Claude Code, Codex CLI logs) made into a script
cli.py         `runners model-server`, `runners replay-script`, `runners preset list|install`
```
"""
