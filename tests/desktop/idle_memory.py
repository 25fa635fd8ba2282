#!/usr/bin/env python3
"""Idle memory of the real app under Xvfb: RSS and PSS of the app process and of the
WebKit processes it started, after it has sat idle.

Usage: tests/desktop/idle_memory.py <artoo-desktop binary, built with custom-protocol> [<seconds>]

The app runs as a user starts it — no WebDriver (automation adds its own memory), no
model configured — with fresh temp HOME/XDG/data dirs (e2e.App's), its own X screen and
its own D-Bus session (no activatable services, as in e2e.py). After <seconds> (default 15) it reads /proc/<pid>/smaps_rollup of
the app and each descendant (anonymous = the process's own heap and stacks). RSS counts shared pages (GTK, WebKit's libraries) in every
process that maps them; PSS splits them between the processes, so the PSS sum is what the
app as a whole costs the machine.
"""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import e2e  # noqa: E402


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The command name is in parentheses and may hold spaces.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            found.append(int(entry))
    return found


def descendants(pid):
    out = []
    for child in children(pid):
        out.append(child)
        out.extend(descendants(child))
    return out


def memory(pid):
    """(name, RSS kB, PSS kB, anonymous kB) of one process."""
    with open(f"/proc/{pid}/comm") as f:
        name = f.read().strip()
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":"):
                fields[parts[0][:-1]] = parts[1]
    return name, int(fields["Rss"]), int(fields["Pss"]), int(fields["Anonymous"])


def main():
    binary = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 15.0
    app = e2e.App(binary)  # only its temp dirs and environment
    env = dict(app.env, DISPLAY=app.display)
    env.pop("TAURI_WEBVIEW_AUTOMATION", None)
    xvfb = subprocess.Popen(["Xvfb", app.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session = None
    try:
        time.sleep(1)
        session = subprocess.Popen(e2e.dbus_session(app.root) + [binary], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        main_pid = e2e.wait_for("the app process", lambda: next(
            (p for p in descendants(session.pid)
             if os.path.realpath(f"/proc/{p}/exe") == os.path.realpath(binary)), None))
        time.sleep(seconds)
        rows = [memory(main_pid)] + [memory(p) for p in descendants(main_pid)]
        for name, rss, pss, anon in rows:
            print(f"{name:<18} RSS {rss / 1024:7.1f} MB  PSS {pss / 1024:7.1f} MB"
                  f"  (anonymous {anon / 1024:.1f} MB)")
        print(f"{'app process':<18} RSS {rows[0][1] / 1024:7.1f} MB  PSS {rows[0][2] / 1024:7.1f} MB")
        print(f"{'all ' + str(len(rows)) + ' processes':<18} RSS {sum(r[1] for r in rows) / 1024:7.1f} MB"
              f"  PSS {sum(r[2] for r in rows) / 1024:7.1f} MB")
    finally:
        if session is not None:
            e2e.stop_group(session)
        xvfb.terminate()
        xvfb.wait(timeout=10)
        shutil.rmtree(app.root, ignore_errors=True)


if __name__ == "__main__":
    main()
