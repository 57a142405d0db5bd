"""Run inside the agent's sandbox: a TCP port on its loopback, relayed to the model server's Unix
socket bind-mounted in; then the agent itself, whose exit status it returns.

    python3 bridge.py --port 8765 --socket /agent/model/model.sock -- claude -p ...

So an agent with no network at all (docker's `none`, bubblewrap's own network namespace) still
reaches its model at http://127.0.0.1:8765, and nothing else. Standard library only (it runs on
whatever python3 the sandbox has); not imported by the harness.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading

BUFFER = 65536


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(BUFFER)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (target, source):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError as exc:
        sys.stderr.write(f"runners-bridge: cannot reach the model server at {path}: {exc}\n")
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
    back.start()
    _pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        parser.error("give the agent's command after --")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, args.socket), daemon=True).start()
    try:
        child = subprocess.Popen(argv)
    except OSError as exc:
        sys.stderr.write(f"runners-bridge: cannot run {argv[0]}: {exc.strerror or exc}\n")
        return 127
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda received, _frame: child.send_signal(received))
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
