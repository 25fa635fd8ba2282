#!/usr/bin/env python3
"""End-to-end runs of the real desktop binary under Xvfb, driven by tauri-driver over
WebKitWebDriver.

Usage: tests/desktop/e2e.py [--serve-ui] [--local-llm DIR] <artoo-desktop binary> <artoo-scripted-llm binary> [<out dir>]

--serve-ui starts the Vite dev server on :1420 for a binary built without the
custom-protocol feature (the debug build the command tests already made: CI builds the
app once and reuses it, and `cargo test --workspace` builds the scripted server too).

Every run starts a fresh app with its own temp HOME, XDG dirs, data dir and workspace
(never a real home), its own X screen and its own D-Bus session:

1. First run, no model: the popup shows the onboarding choice and takes no task (its
   input is disabled); its Settings button creates the panels window (made on first
   open), which shows the Settings tab saying there is no keychain.
2. Law 1, denied: against the scripted model (a whole task whose one step is
   `rm notes.txt` in the workspace), the Law 1 dialog shows the exact command; Deny
   ends the task with a FinalResult (❌) marked [LAW1], its Law 1 note counting the
   denial, with R2's graceful-failure next moves; notes.txt is untouched.
3. Law 1, approved: the same task in a fresh app; Approve lets the command run, the
   result shows ✅ marked [LAW1], its note counting the approval, and notes.txt is gone.
5. With --local-llm DIR (weights and llama-server as scripts/local-llm.sh leaves them,
   ARTOO_LOCAL_LLM_MODEL naming the model, default the script's 0.5B): first run, the
   onboarding's "Use the built-in model" saves the choice, the app starts llama-server
   as its child (the progress view while it loads), the task input comes alive, and a
   task typed then runs to a result on the real model. Run it under the build lock.
6. Grants and notifications: "always" is offered after one approval (settings), taken
   on the second deletion of .tmp files, and the third deletion runs without a dialog
   while the popup is hidden; its result names the grant, and the app asked the
   session's notification service to show "Task done".
7. Answered from the notification: a deletion asked while the popup is away comes as a
   notification offering Approve and Deny; Deny, clicked on it, ends the task with the
   denial and leaves the file.
4. Keychain: with a real Secret Service (gnome-keyring, unlocked, in the run's own
   session), Settings stores a tool-tier API key; no file the app or the keyring wrote
   holds it in plain text; a new app process over the same home reads it back from the
   keychain; clearing it removes it.

Each D-Bus session is the run's own and activates no service (`session_bus_config`):
what the machine happens to have installed (a keyring, a notification daemon) cannot
change a run. Where a run watches notifications, the session's notification server is
the stand-in `examples/notification-server` (built beside the app by `cargo test`),
which logs each notification and lets the run click one (`ActionInvoked`).

The popup starts hidden; the runs show it with the global hotkey (xdotool), as a user
would, because WebDriver's screenshot of a hidden webview never returns. The screenshots
(the dialog, each result) land in <out dir> (default target/desktop-e2e).
"""

import base64
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HOTKEY = "ctrl+shift+space"  # ui.hotkey's default, CommandOrControl+Shift+Space
TASK_COMMAND = "rm notes.txt && echo CALL_RAN"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wd(base, method, path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    # tauri-driver forwards each command over a pooled connection to WebKitWebDriver and
    # does not retry one the native driver closed while idle: it then drops our request
    # with no response, before the command reached the browser. Sending it again is safe.
    for attempt in range(3):
        req = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read() or b"null")["value"]
        except http.client.RemoteDisconnected:
            if attempt == 2:
                raise
            time.sleep(0.2)


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


SESSION_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def dbus_session(root):
    """`dbus-run-session` for a private session bus with no activatable services."""
    path = os.path.join(root, "session-bus.conf")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(SESSION_BUS_CONFIG)
    return ["dbus-run-session", f"--config-file={path}", "--"]


def shell_task_script(intent, command):
    """A whole one-sub-task plan for the scripted server (docs/llm.md): R1 perceives a
    task, R2 plans one shell step (and answers the graceful-failure prompt), R3 calls
    the shell then finishes once the call's result is in its prompt, R4a and R4b pass."""
    criterion = "the shell command ran and its output is reported"

    def reply(value, match=None):
        entry = {"reply": {"content": json.dumps(value)}}
        if match is not None:
            entry["match"] = match
        return entry

    return {"cycle": True, "roles": {
        "R1": [reply({"constraints": {"deadline": None, "scope": None}, "intent": intent,
                      "kind": "task", "question": None, "reply": None})],
        "R2": [
            reply({"next_moves": ["Approve the action when artoo asks.",
                                  "Do it by hand in a terminal."]},
                  match="Why it was abandoned"),
            reply({"subtasks": [{"context": "", "intent": intent, "sequence": 1,
                                 "success_criteria": [criterion], "tools": ["shell"]}],
                   "task_criteria": ["the user's request is done"]}),
        ],
        "R3": [
            # Only the second turn's prompt holds the call (and so "CALL_RAN").
            reply({"evidence": "the tool result above", "next": "finish",
                   "status": "completed", "output": "done", "summary": "Ran the command."},
                  match="CALL_RAN"),
            reply({"evidence": "", "next": "call_tool", "tool": "shell",
                   "tool_input": {"command": command}}),
        ],
        "R4a": [reply({"criteria": [{"criterion": criterion,
                                     "evidence": "the shell call's output", "met": True,
                                     "unmet_cause": None}],
                       "diagnosis": "", "remedy": ""})],
        "R4b": [reply({"combined_output": {"result": "done"},
                       "criteria": [{"criterion": "the user's request is done",
                                     "evidence": "done", "met": True, "unmet_cause": None}],
                       "diagnosis": "", "remedy": "", "summary": "Done."})],
    }}


class App:
    """The real app binary in fresh temp dirs on its own X screen, under WebDriver."""

    def __init__(self, binary, model_url=None, root=None, keyring_password=None, extra_env=None,
                 settings=None, notifications=False):
        """`root` reuses an earlier run's dirs (left in place: the caller removes them);
        `keyring_password` starts an unlocked gnome-keyring in the run's session;
        `settings` is written as the data dir's settings.toml before the app starts;
        `notifications` serves the session's notifications with the stand-in server, which
        logs what the app asked to show."""
        self.keep = root is not None
        self.notifications_log = None
        self.keyring_password = keyring_password
        self.root = root if root is not None else tempfile.mkdtemp(prefix="artoo-e2e-")
        self.workspace = f"{self.root}/workspace"
        env = dict(os.environ)
        for var in ("BRAIN_BASE_URL", "TOOL_BASE_URL", "OPENAI_BASE_URL", "BRAIN_MODEL",
                    "TOOL_MODEL", "OPENAI_MODEL", "OPENAI_API_KEY", "BRAIN_API_KEY",
                    "TOOL_API_KEY"):
            env.pop(var, None)
        for sub in ("home", "data", "config", "cache", "runtime", "workspace", "artoo"):
            os.makedirs(os.path.join(self.root, sub), mode=0o700, exist_ok=True)
        if settings is not None:
            with open(os.path.join(self.root, "artoo", "settings.toml"), "w") as f:
                f.write(settings)
        if notifications:
            self.notifications_log = os.path.join(self.root, "notifications.jsonl")
            self.notification_server = os.path.join(os.path.dirname(binary), "examples",
                                                    "notification-server")
            if not os.access(self.notification_server, os.X_OK):
                raise SystemExit(f"e2e: no {self.notification_server}: build it with "
                                 "`cargo test -p artoo-desktop` (or `cargo build --example "
                                 "notification-server -p artoo-desktop`)")
        env.update(HOME=f"{self.root}/home", XDG_DATA_HOME=f"{self.root}/data",
                   XDG_CONFIG_HOME=f"{self.root}/config", XDG_CACHE_HOME=f"{self.root}/cache",
                   XDG_RUNTIME_DIR=f"{self.root}/runtime", ARTOO_DATA_DIR=f"{self.root}/artoo",
                   ARTOO_WORKSPACE=self.workspace, TAURI_WEBVIEW_AUTOMATION="true",
                   ARTOO_BENCH="1")
        if model_url is not None:
            env.update(OPENAI_BASE_URL=model_url, OPENAI_MODEL="scripted")
        env.update(extra_env or {})
        self.env = env
        self.binary = binary
        self.display = f":{free_port() % 500 + 100}"
        self.xvfb = None
        self.driver = None
        self.session = None

    def __enter__(self):
        self.xvfb = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1280x800x24",
                                      "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.env["DISPLAY"] = self.display
        port = free_port()
        # Its own process group: the driver outlives dbus-run-session, so the group is
        # what gets stopped.
        # tauri-driver starts WebKitWebDriver (Debian's webkit2gtk-driver) behind it and
        # turns the `tauri:options` capability into WebKitGTK's browser options.
        driver = ["tauri-driver", f"--port={port}", f"--native-port={free_port()}"]
        if self.keyring_password is not None:
            # The keyring reads its password on stdin, unlocks (creating the login
            # keyring under the run's HOME the first time) and serves Secret Service on
            # this session; the driver, and the app it starts, share the session.
            self.env["ARTOO_E2E_KEYRING_PASSWORD"] = self.keyring_password
            driver = ["sh", "-c", 'printf %s "$ARTOO_E2E_KEYRING_PASSWORD" | '
                      "gnome-keyring-daemon --unlock --components=secrets >/dev/null && "
                      'exec "$@"', "sh"] + driver
        if self.notifications_log is not None:
            # The stand-in server answers every Notify call the app makes, and the
            # session's address is left for the run to click a notification.
            self.env["ARTOO_E2E_NOTIFICATIONS"] = self.notifications_log
            self.env["ARTOO_E2E_NOTIFIER"] = self.notification_server
            self.env["ARTOO_E2E_BUS"] = os.path.join(self.root, "bus-address")
            driver = ["sh", "-c", 'printf %s "$DBUS_SESSION_BUS_ADDRESS" >"$ARTOO_E2E_BUS" && '
                      '"$ARTOO_E2E_NOTIFIER" "$ARTOO_E2E_NOTIFICATIONS" & '
                      'exec "$@"', "sh"] + driver
        # The driver's and the app's output, shown when the session cannot start.
        self.driver_log = open(os.path.join(self.root, "driver.log"), "ab")
        self.driver = subprocess.Popen(dbus_session(self.root) + driver,
                                       env=self.env, stdout=self.driver_log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{port}"
        wait_for("tauri-driver", lambda: wd(self.base, "GET", "/status")["ready"])
        try:
            self.session = wd(self.base, "POST", "/session", {"capabilities": {"alwaysMatch": {
                "tauri:options": {"application": self.binary, "args": []}}}})["sessionId"]
        except Exception as e:
            self.driver_log.flush()
            with open(os.path.join(self.root, "driver.log"), errors="replace") as f:
                log = f.read()[-4000:]
            raise SystemExit(f"e2e: the WebDriver session did not start ({e!r}); driver output:\n{log}")
        self.s = f"/session/{self.session}"
        self.switch_to("view=popup")
        return self

    def __exit__(self, kind, value, trace):
        if kind is not None and self.driver is not None:
            # What the app said before the run failed: its warnings name what it could
            # not do (a notification not sent, a model not reached).
            self.driver_log.flush()
            with open(os.path.join(self.root, "driver.log"), errors="replace") as f:
                log = f.read()[-6000:]
            print(f"e2e: the app's output before the failure:\n{log}", file=sys.stderr)
        if self.session:
            try:
                wd(self.base, "DELETE", self.s, timeout=20)
            except Exception:
                pass
        if self.driver is not None:
            stop_group(self.driver)
        if self.xvfb is not None:
            self.xvfb.terminate()
            self.xvfb.wait(timeout=10)
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def invoke(self, command, args=None):
        """A command of the app's IPC from the current webview; raises on an IpcError."""
        result = wd(self.base, "POST", self.s + "/execute/async", {"args": [command, args or {}],
            "script": "const [cmd, args, done] = arguments;"
                      "window.__TAURI_INTERNALS__.invoke(cmd, args)"
                      ".then(value => done({ok: value}), error => done({error}));"})
        if "error" in result:
            raise SystemExit(f"e2e: {command} failed: {result['error']}")
        return result["ok"]

    def notification_log(self):
        """Every notification the app asked to show so far: id, summary, body, actions."""
        if not os.path.exists(self.notifications_log):
            return []
        with open(self.notifications_log, errors="replace") as f:
            return [json.loads(line) for line in f if line.strip()]

    def notifications(self):
        """The (title, body) of every notification the app asked to show so far."""
        return [(n["summary"], n["body"]) for n in self.notification_log()]

    def click_notification(self, notification_id, action):
        """What the notification server sends when the user clicks `action` on it."""
        with open(self.env["ARTOO_E2E_BUS"]) as f:
            address = f.read().strip()
        subprocess.run(["dbus-send", "--session", "--type=signal",
                        "/org/freedesktop/Notifications",
                        "org.freedesktop.Notifications.ActionInvoked",
                        f"uint32:{notification_id}", f"string:{action}"],
                       env=dict(self.env, DBUS_SESSION_BUS_ADDRESS=address), check=True)

    def switch_to(self, view):
        handles = wait_for("the app's webviews", lambda: wd(self.base, "GET", self.s + "/window/handles"))
        for h in handles:
            wd(self.base, "POST", self.s + "/window", {"handle": h})
            url = wait_for("a page URL", lambda: wd(self.base, "GET", self.s + "/url"))
            if view in url:
                return h
        raise SystemExit(f"e2e: no {view} webview among {handles}")

    def find(self, css):
        el = wd(self.base, "POST", self.s + "/element", {"using": "css selector", "value": css})
        return list(el.values())[0]

    def xpath(self, path):
        el = wd(self.base, "POST", self.s + "/element", {"using": "xpath", "value": path})
        return list(el.values())[0]

    def js(self, script, *args):
        return wd(self.base, "POST", self.s + "/execute/sync", {"script": script, "args": list(args)})

    def page_text(self):
        return self.js("return document.body.textContent")

    def type_task(self, text, wait_taken=True):
        """Types `text` and Enter into the task input once it takes a task (a fresh app
        enables it only when the model is reported ready), and, unless `wait_taken` is
        false, waits until the popup took the task: the input is cleared on submission."""
        box = wait_for("the task input", lambda: self.find(".task-input textarea")
                       or self.find("textarea, input[type=text]"))
        wait_for("the task input enabled",
                 lambda: wd(self.base, "GET", f"{self.s}/element/{box}/enabled"), timeout=60)
        wd(self.base, "POST", f"{self.s}/element/{box}/value", {"text": text + "\ue007"})
        if wait_taken:
            wait_for("the task taken", lambda: self.js(
                "const b = document.querySelector('.task-input textarea');"
                "return !b || b.value === ''"), timeout=30)

    def scratch(self, name, text):
        """Writes `text` to `name` in the workspace; its path."""
        path = os.path.join(self.workspace, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def type_task_and_leave(self, text):
        """Types a task in the popup and hides the popup at once, as a user who walks away."""
        self.show_popup()
        # At once, as a user who walks away does: the popup hides while it sends the task.
        self.type_task(text, wait_taken=False)
        self.js("window.__TAURI_INTERNALS__.invoke('hide_popup', {})")

    def click(self, element):
        wd(self.base, "POST", f"{self.s}/element/{element}/click", {})

    def popup_visible(self):
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^artoo$"],
                               env=self.env, capture_output=True, text=True)
        return found.returncode == 0 and found.stdout.strip() != ""

    def show_popup(self):
        """The global hotkey, as a user presses it."""
        if not self.popup_visible():
            # With no window manager, X gives the keyboard to the window under the
            # pointer: a pointer left in the screen's centre, where the popup opens,
            # sends it a focus-out on the hotkey's grab and the popup hides on blur.
            # A user's pointer rests elsewhere (on the tray); so does this one.
            subprocess.run(["xdotool", "mousemove", "1270", "790"], env=self.env, check=True)
            subprocess.run(["xdotool", "key", HOTKEY], env=self.env, check=True)
        wait_for("the popup on screen", self.popup_visible, timeout=10)

    def screenshot(self, path):
        # Only a shown webview answers (a hidden one never returns).
        self.show_popup()
        # The screenshot is the last frame WebKit painted: wait for the next two, so it
        # shows the page as it is now, not as it was before the last change.
        wd(self.base, "POST", self.s + "/execute/async", {"args": [], "script":
           "const done = arguments[arguments.length - 1];"
           "requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"})
        png = wd(self.base, "GET", self.s + "/screenshot")
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

def stop_group(proc):
    """SIGTERM to the process group `proc` leads, SIGKILL if it lingers."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    # dbus-run-session may be gone while its children linger in the group.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class ScriptedModel:
    """artoo-scripted-llm serving `script` on a free loopback port."""

    def __init__(self, binary, script):
        self.dir = tempfile.mkdtemp(prefix="artoo-e2e-llm-")
        path = os.path.join(self.dir, "script.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([binary, "--script", path], stdout=subprocess.PIPE,
                                     text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            raise SystemExit(f"e2e: the scripted model did not start ({self.url!r})")

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def no_model(binary, out):
    with App(binary) as app:
        app.show_popup()
        wait_for("the onboarding choice", lambda: app.find("[data-testid=onboarding]"))
        disabled = app.js("return document.querySelector('.task-input textarea').disabled")
        assert disabled, "no task is taken before a model is chosen"
        app.screenshot(f"{out}/first-run.png")
        body = app.page_text()
        assert "built-in model" in body, body
        print("e2e: first run: the popup offers the built-in model or a provider and takes no task yet")

        # The panels window does not exist until first opened; the popup's Settings
        # button creates it and its page, once loaded, gets the waiting navigation.
        assert len(wd(app.base, "GET", app.s + "/window/handles")) == 1, "panels made lazily"
        app.click(app.find("button[aria-label='Settings']"))
        wait_for("the panels window", lambda: len(wd(app.base, "GET", app.s + "/window/handles")) == 2)
        app.switch_to("view=panels")
        settings = wait_for("the Settings tab", lambda: (lambda t: t if "No keychain" in t else None)(app.page_text()))
        assert "Secret Service" in settings, settings
        print("e2e: no model: Settings opens the panels window on first use, on its Settings tab, "
              "which says there is no keychain")


def local_model(binary, out, llm_dir, model):
    """First run through onboarding onto the built-in model, then a whole task on it."""
    with App(binary, extra_env={"ARTOO_LOCAL_LLM_DIR": llm_dir,
                                "ARTOO_LOCAL_LLM_MODEL": model}) as app:
        app.show_popup()
        wait_for("the onboarding choice", lambda: app.find("[data-testid=onboarding]"))
        app.click(app.find("[data-testid=use-builtin]"))
        # Ready means started and prepared: on a fresh install every role's instructions
        # are evaluated once first (minutes on a slow machine), so the wait is long.
        wait_for("the model ready", lambda: app.js(
            "const t = document.querySelector('.task-input textarea');"
            "return t && !t.disabled"), timeout=1500)
        settings = os.path.join(app.root, "artoo", "settings.toml")
        assert os.path.exists(settings), "the choice was saved"
        with open(settings) as f:
            saved = f.read()
        assert "base_url" not in saved, f"no provider was saved:\n{saved}"
        print(f"e2e: built-in model: onboarding saved the choice and {model} is serving")
        app.type_task("list the files in my home folder")
        status = wait_for("a status line", lambda: app.js(
            "const s = document.querySelector('[data-testid=status-line]');"
            "return s && s.textContent.trim()"), timeout=120)
        print(f"e2e: built-in model: status line {status!r}")
        result = wait_for("the result", lambda: app.js(
            "const r = document.querySelector('[data-testid=result]');"
            "return r && {ok: r.classList.contains('ok'),"
            " summary: r.querySelector('[data-testid=summary]').textContent.trim()}"), timeout=900)
        app.screenshot(f"{out}/local-model-result.png")
        assert result["summary"], result
        print(f"e2e: built-in model: the task ended {'✅' if result['ok'] else '❌'}: {result['summary'][:120]}")


def law1(binary, llm, out, decision):
    model = ScriptedModel(llm, shell_task_script("Delete notes.txt from the workspace",
                                                 TASK_COMMAND))
    try:
        with App(binary, model.url) as app:
            notes = os.path.join(app.workspace, "notes.txt")
            with open(notes, "w") as f:
                f.write("keep me")
            app.show_popup()
            app.type_task("delete notes.txt")
            wait_for("the Law 1 dialog", lambda: app.find("[data-testid=law1-dialog]"), timeout=60)
            command = app.js("return document.querySelector('[data-testid=law1-command]').textContent")
            assert command.strip() == TASK_COMMAND, command
            assert os.path.exists(notes), "nothing runs before the answer"
            if decision == "deny":
                app.screenshot(f"{out}/law1-dialog.png")
                button = app.xpath("//*[@data-testid='law1-dialog']//button[normalize-space()='Deny']")
            else:
                button = app.find("[data-testid=law1-approve]")
                # Approve is armed a moment after the dialog appears.
                wait_for("Approve armed", lambda: wd(app.base, "GET", f"{app.s}/element/{button}/enabled"))
            app.click(button)
            result = wait_for("the result", lambda: app.js(
                "const r = document.querySelector('[data-testid=result]');"
                "const q = (id) => r.querySelector(`[data-testid=${id}]`);"
                "return r && {text: r.textContent, ok: r.classList.contains('ok'),"
                " summary: q('summary').textContent.trim(),"
                " details: q('result-details').textContent, law1: !!q('law1-note'),"
                " note: q('law1-note') ? q('law1-note').textContent : '',"
                " moves: q('next-moves') ? q('next-moves').textContent : ''}"), timeout=60)
            app.screenshot(f"{out}/result-{decision}.png")
            if decision == "deny":
                # The answer first; the [LAW1] marker only in the details; the count of
                # the answers on the Law 1 note of its own, not in the answer.
                assert not result["summary"].startswith("[LAW1]"), result
                assert "(1 denied)" in result["note"], result
                assert "denied" not in result["summary"], result
                assert "[LAW1]" in result["details"] and result["law1"], result
                assert not result["ok"] and "❌" in result["text"], result
                # R2's graceful-failure answer, asked for with "Why it was abandoned".
                assert "Do it by hand in a terminal." in result["moves"], result
                assert os.path.exists(notes), "a denied rm leaves the file"
                with open(notes) as f:
                    assert f.read() == "keep me"
                print("e2e: Law 1 denied: the dialog showed the command, the result carries "
                      "[LAW1], notes.txt is untouched")
            else:
                assert result["ok"] and "✅" in result["text"], result
                assert not result["summary"].startswith("[LAW1]"), result
                assert "[LAW1]" in result["details"] and result["law1"], result
                assert "(1 approved)" in result["note"], result
                assert "approved" not in result["summary"], result
                assert not os.path.exists(notes), "the approved rm ran"
                print("e2e: Law 1 approved: the command ran, notes.txt is gone, the result shows ✅")
                # Undo the task from its result: the plan first, nothing before the confirm,
                # then notes.txt is back byte for byte from artoo's trash.
                app.click(app.find("[data-testid=result] [data-testid=undo]"))
                plan = wait_for("the undo plan", lambda: app.js(
                    "const p = document.querySelector('[data-testid=undo-plan]');"
                    "return p && p.textContent"), timeout=30)
                assert "notes.txt" in plan, plan
                assert not os.path.exists(notes), "showing the plan changes nothing"
                app.click(app.find("[data-testid=undo-confirm]"))
                wait_for("the undo done", lambda: app.find("[data-testid=undo-done]"), timeout=30)
                with open(notes) as f:
                    assert f.read() == "keep me"
                print("e2e: Undo: the plan named notes.txt, the confirm put it back byte for byte")
    finally:
        model.close()


TMP_COMMAND = "rm -- *.tmp && echo CALL_RAN"


def grants_and_notifications(binary, llm, out):
    """6. Grants by effect and notifications: with "always" offered after one approval,
    a deletion of .tmp files in the workspace asks (Approve), the next asks with an
    "Always allow" button naming the class (taken), and the third runs without a
    dialog, its result naming the grant. The third runs with the popup hidden: the app
    asks the session's notification service to show "Task done"."""
    script = shell_task_script("Delete the .tmp files in the workspace", TMP_COMMAND)
    # Each task is read three seconds after it is typed: the third, run unasked under its
    # grant, ends only after the popup is away, as it does for a user who walked away
    # (a scripted task can otherwise end before the popup has hidden).
    script["roles"]["R1"][0]["latency_ms"] = 3000
    model = ScriptedModel(llm, script)
    settings = "[laws]\noffer_always_after = 1\n"
    try:
        with App(binary, model.url, settings=settings, notifications=True) as app:
            def run(name, answer):
                path = os.path.join(app.workspace, name)
                with open(path, "w") as f:
                    f.write("scratch")
                app.show_popup()
                app.type_task("delete the .tmp files in the workspace")
                wait_for("the Law 1 dialog", lambda: app.find("[data-testid=law1-dialog]"), timeout=60)
                button = app.find(f"[data-testid={answer}]")
                wait_for("the answer armed", lambda: wd(app.base, "GET", f"{app.s}/element/{button}/enabled"))
                if answer == "law1-approve-always":
                    scope = app.js("return document.querySelector('[data-testid=law1-always-scope]').textContent")
                    assert "deleting .tmp files under" in scope, scope
                else:
                    assert not app.js("return !!document.querySelector('[data-testid=law1-approve-always]')"), \
                        "always is offered only after an approval"
                app.click(button)
                wait_for("the result", lambda: app.js(
                    "const r = document.querySelector('[data-testid=result]');"
                    "return r && r.classList.contains('ok')"), timeout=60)
                assert not os.path.exists(path), f"{name} was deleted"
                app.js("window.__TAURI_INTERNALS__.invoke('hide_popup', {})")

            run("first.tmp", "law1-approve")
            run("second.tmp", "law1-approve-always")
            with open(os.path.join(app.root, "artoo", "grants.json")) as f:
                grants = json.load(f)["effects"]
            assert len(grants) == 1 and grants[0]["class"]["words"].startswith("deleting .tmp files under"), grants
            third = app.scratch("third.tmp", "scratch")
            kept = app.scratch("kept.txt", "mine")
            # Away from the popup at once: the end comes as a notification.
            app.type_task_and_leave("delete the .tmp files in the workspace")
            done = wait_for("the Task done notification", lambda: [
                n for n in app.notifications() if n[0] == "Task done"], timeout=60)
            assert not os.path.exists(third) and os.path.exists(kept), "the grant covered only .tmp"
            app.show_popup()
            result = wait_for("the result", lambda: app.js(
                "const r = document.querySelector('[data-testid=result]');"
                "const g = r && r.querySelector('[data-testid=result-grants]');"
                "return g && g.textContent"), timeout=30)
            assert "deleting .tmp files under" in result, result
            assert not app.js("return !!document.querySelector('[data-testid=law1-dialog]')"), \
                "the granted deletion asked nothing"
            asked = [n for n in app.notifications() if n[0] == "artoo needs your approval"]
            assert not asked, f"no approval was asked while the popup was away: {asked}"
            app.screenshot(f"{out}/granted-result.png")
            print(f"e2e: grants: approve, always, then a deletion ran unasked and named its grant; "
                  f"notified: {done[0][0]} — {done[0][1][:80]}")
    finally:
        model.close()


def answer_from_the_notification(binary, llm, out):
    """7. A Law 1 request while the popup is away is answered on its notification: the
    notification shows the whole request and offers Approve and Deny; Deny, clicked
    there, answers the request — the task ends with the denial, the file stays."""
    script = shell_task_script("Delete the .tmp files in the workspace", TMP_COMMAND)
    # The task is read three seconds after it is typed: the popup is away by then.
    script["roles"]["R1"][0]["latency_ms"] = 3000
    model = ScriptedModel(llm, script)
    try:
        with App(binary, model.url, notifications=True) as app:
            path = app.scratch("draft.tmp", "scratch")
            app.type_task_and_leave("delete the .tmp files in the workspace")
            asked = wait_for("the approval notification", lambda: [
                n for n in app.notification_log() if n["summary"] == "artoo needs your approval"],
                timeout=60)[0]
            assert asked["body"].startswith("delete ") and "draft.tmp" in asked["body"] \
                and asked["body"].endswith(TMP_COMMAND), asked
            actions = dict(zip(asked["actions"][::2], asked["actions"][1::2]))
            assert actions.get("approve") == "Approve" and actions.get("deny") == "Deny", asked
            app.click_notification(asked["id"], "deny")
            # The popup came back with the request; the answer given on the notification
            # closes its dialog and ends the task.
            result = wait_for("the result", lambda: app.js(
                "const r = document.querySelector('[data-testid=result]');"
                "return r && !r.classList.contains('ok') && r.textContent"), timeout=60)
            assert "(1 denied)" in result, result
            assert os.path.exists(path), "the denied deletion did not run"
            assert not app.js("return !!document.querySelector('[data-testid=law1-dialog]')"), \
                "the dialog closed with the answer"
            app.screenshot(f"{out}/denied-from-notification.png")
            print(f"e2e: notification: offered {sorted(actions)}, Deny clicked there; "
                  f"result: {result[:80]}")
    finally:
        model.close()


def keychain(binary):
    secret = "sk-e2e-" + os.urandom(12).hex()
    password = os.urandom(8).hex()

    def open_settings(app):
        app.show_popup()
        app.invoke("open_panel", {"tab": "settings", "focus": None})
        wait_for("the panels window", lambda: len(wd(app.base, "GET", app.s + "/window/handles")) == 2)
        app.switch_to("view=panels")
        return wait_for("the settings", lambda: app.invoke("get_settings"))

    def keys(tool):
        return {"brain": {"kind": "keep"}, "tool": tool}

    with App(binary, keyring_password=password) as first:
        root = first.root
        first.keep = True
        view = open_settings(first)
        assert view["keychain"] == {"available": True, "backend": "Secret Service"}, view["keychain"]
        assert not view["keys"]["tool"]["stored"], view["keys"]
        saved = first.invoke("save_settings", {"update": {"settings": view["settings"],
                                                          "keys": keys({"kind": "set", "key": secret})}})
        assert saved["keys"] == {"brain": {"stored": False}, "tool": {"stored": True}}, saved["keys"]
    try:
        written = []
        for folder, _, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    written.append(path)
                    with open(path, "rb") as f:
                        assert secret.encode() not in f.read(), f"the API key is in plain text in {path}"
        assert any("/keyrings/" in p for p in written), "the keyring wrote its file under the run's home"
        print(f"e2e: keychain: the key went to Secret Service; none of the {len(written)} files "
              "the app and the keyring wrote holds it in plain text")

        with App(binary, root=root, keyring_password=password) as second:
            view = open_settings(second)
            assert view["keys"]["tool"]["stored"], "a new process reads the key from the keychain"
            cleared = second.invoke("save_settings", {"update": {"settings": view["settings"],
                                                                 "keys": keys({"kind": "clear"})}})
            assert not cleared["keys"]["tool"]["stored"], cleared["keys"]
            assert not second.invoke("get_settings")["keys"]["tool"]["stored"]
        print("e2e: keychain: a new app process finds the stored key; clearing it removes it")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def ui_server(serve):
    """The Vite dev server on :1420 while the block runs, when `serve` (for an app
    binary built without the custom-protocol feature); nothing otherwise."""
    if not serve:
        yield
        return
    vite = subprocess.Popen(["npx", "vite", "--config", "ui/vite.config.ts", "--strictPort"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_for("the Vite dev server", lambda: urllib.request.urlopen("http://localhost:1420/", timeout=2).status == 200)
        yield
    finally:
        os.killpg(vite.pid, signal.SIGTERM)
        vite.wait(timeout=10)


def main():
    args = sys.argv[1:]
    serve_ui = "--serve-ui" in args
    args = [a for a in args if a != "--serve-ui"]
    local_llm = None
    if "--local-llm" in args:
        at = args.index("--local-llm")
        local_llm = os.path.abspath(args[at + 1])
        del args[at:at + 2]
    binary = os.path.abspath(args[0])
    llm = os.path.abspath(args[1])
    out = os.path.abspath(args[2] if len(args) > 2 else "target/desktop-e2e")
    os.makedirs(out, exist_ok=True)
    with ui_server(serve_ui):
        no_model(binary, out)
        law1(binary, llm, out, "deny")
        law1(binary, llm, out, "approve")
        grants_and_notifications(binary, llm, out)
        answer_from_the_notification(binary, llm, out)
        keychain(binary)
        if local_llm is not None:
            local_model(binary, out, local_llm,
                        os.environ.get("ARTOO_LOCAL_LLM_MODEL", "qwen2.5-coder-0.5b"))
        print(f"e2e: ok; screenshots in {out}")

if __name__ == "__main__":
    main()
