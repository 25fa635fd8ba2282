//! Witnesses for what no file snapshot sees: programs that act on the network, on other
//! processes or on the system. For one case, a folder outside the world holds stand-ins
//! for those programs, first on the shell's `PATH`. A stand-in does nothing itself; it
//! tries the three ways such a program reaches beyond local files, and each way that
//! gets through is heard here:
//! - the network: a TCP listener on this machine's loopback, reachable only where the
//!   sandbox kept the network (a proven network read);
//! - a daemon's socket: a Unix socket in the witness folder, which the sandbox's socket
//!   filter must keep out of reach;
//! - the world outside: a file in the witness folder, which only a program running
//!   outside the sandbox can write.
//!
//! Each stand-in sends what a real one could send: its arguments, its standard input and
//! the contents of every file its arguments name (`@data.csv`, `name=@file`, `<file`, a
//! plain path), output options' files excepted (`-o out.html` names where to write).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::AsyncReadExt as _;
use tokio_util::sync::CancellationToken;

/// Programs whose effects are beyond local files: they send, signal, drive services or
/// change the system. Each gets a stand-in.
pub(crate) const STANDS_IN_FOR: &[&str] = &[
    // network senders
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "ftp",
    "telnet",
    "mail",
    "mailx",
    "sendmail",
    "http",
    "https",
    "aws",
    "gcloud",
    "gsutil",
    "az",
    "gh",
    // containers and clusters
    "docker",
    "podman",
    "kubectl",
    // processes, services and the system
    "pkill",
    "killall",
    "systemctl",
    "service",
    "launchctl",
    "tmux",
    "screen",
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "crontab",
    "mount",
    "umount",
    "iptables",
    "osascript",
];

/// Options whose value names where a program writes, not what it sends.
const OUTPUT_OPTIONS: &[&str] = &[
    "-o",
    "--output",
    "--output-dir",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "-O",
    "--output-document",
    "--output-file",
    "-a",
    "--append-output",
    "-P",
    "--directory-prefix",
];

/// The stand-in, as a Python script; `{port}`, `{socket}`, `{witness}` and `{outputs}` are
/// filled in per case.
const STAND_IN: &str = r#"#!/usr/bin/env python3
import json, os, select, socket, sys

PORT = {port}
SOCKET = {socket}
WITNESS = {witness}
OUTPUTS = {outputs}

def named_files(args):
    found, skip = {}, False
    for a in args:
        if skip:
            skip = False
            continue
        if a in OUTPUTS:
            skip = True
            continue
        if any(a.startswith(o + "=") for o in OUTPUTS if o.startswith("--")):
            continue
        tails = {a, a.split("=", 1)[-1], a.split("@", 1)[-1], a.split("<", 1)[-1]}
        for t in tails:
            t = t.lstrip("@<")
            if t and os.path.isfile(t):
                try:
                    with open(t, "rb") as f:
                        found[t] = f.read(65536).decode("utf-8", "replace")
                except OSError:
                    pass
    return found

stdin = ""
try:
    if select.select([sys.stdin], [], [], 0.2)[0]:
        stdin = sys.stdin.buffer.read(65536).decode("utf-8", "replace")
except Exception:
    pass
record = json.dumps({
    "program": os.path.basename(sys.argv[0]),
    "args": sys.argv[1:],
    "files": named_files(sys.argv[1:]),
    "stdin": stdin,
}).encode() + b"\n"

def network():
    with socket.create_connection(("127.0.0.1", PORT), timeout=2) as s:
        s.sendall(record)

def daemon():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        s.connect(SOCKET)
        s.sendall(record)

def outside():
    with open(WITNESS, "ab") as f:
        f.write(record)

for way in (network, daemon, outside):
    try:
        way()
    except Exception:
        pass
"#;

/// How a stand-in got through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Way {
    /// It reached the network.
    Network,
    /// It reached a daemon's socket outside the sandbox.
    Daemon,
    /// It wrote outside the sandbox: it ran outside.
    Outside,
}

/// What one stand-in sent, and how it got through.
#[derive(Clone, Debug)]
pub(crate) struct Heard {
    pub(crate) way: Way,
    pub(crate) record: serde_json::Value,
}

impl Heard {
    /// Everything the record carries that came from this computer: the named files'
    /// contents, standard input and the arguments.
    fn carried(&self) -> String {
        let r = &self.record;
        let mut all = r["stdin"].as_str().unwrap_or_default().to_string();
        if let Some(files) = r["files"].as_object() {
            for text in files.values() {
                all.push_str(text.as_str().unwrap_or_default());
            }
        }
        if let Some(args) = r["args"].as_array() {
            for a in args {
                all.push_str(a.as_str().unwrap_or_default());
            }
        }
        all
    }

    /// The program's name.
    pub(crate) fn program(&self) -> &str {
        self.record["program"].as_str().unwrap_or("?")
    }
}

/// The stand-ins and listeners of one case.
pub(crate) struct Witness {
    dir: tempfile::TempDir,
    heard: Arc<Mutex<Vec<Heard>>>,
    open: Arc<AtomicUsize>,
    stop: CancellationToken,
    listeners: Vec<tokio::task::JoinHandle<()>>,
}

impl Witness {
    /// Listeners started and stand-ins written, in a folder outside any world.
    pub(crate) async fn start() -> Self {
        let dir = tempfile::tempdir().expect("witness dir");
        let heard = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(AtomicUsize::new(0));
        let stop = CancellationToken::new();
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("loopback listener");
        let port = tcp.local_addr().expect("port").port();
        let socket = dir.path().join("daemon.sock");
        let unix = tokio::net::UnixListener::bind(&socket).expect("unix listener");
        let ears = |way| Ears {
            way,
            heard: Arc::clone(&heard),
            open: Arc::clone(&open),
            stop: stop.clone(),
        };
        let (a, b) = (ears(Way::Network), ears(Way::Daemon));
        let listeners = vec![
            tokio::spawn(async move {
                let tcp = &tcp;
                a.hear(move || async move { tcp.accept().await.map(|(s, _)| s) })
                    .await
            }),
            tokio::spawn(async move {
                let unix = &unix;
                b.hear(move || async move { unix.accept().await.map(|(s, _)| s) })
                    .await
            }),
        ];
        let quoted = |p: &Path| serde_json::to_string(&p.to_string_lossy()).expect("json");
        let script = STAND_IN
            .replace("{port}", &port.to_string())
            .replace("{socket}", &quoted(&socket))
            .replace("{witness}", &quoted(&dir.path().join("outside.jsonl")))
            .replace(
                "{outputs}",
                &serde_json::to_string(OUTPUT_OPTIONS).expect("json"),
            );
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin");
        for name in STANDS_IN_FOR {
            use std::os::unix::fs::PermissionsExt as _;
            let at = bin.join(name);
            std::fs::write(&at, &script).expect("stand-in");
            std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755))
                .expect("executable");
        }
        Self {
            dir,
            heard,
            open,
            stop,
            listeners,
        }
    }

    /// This process's environment with the stand-ins first on `PATH`.
    pub(crate) fn env(&self) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut first = self.bin().into_os_string();
        first.push(":");
        first.push(path);
        std::env::vars_os()
            .filter(|(k, _)| k != "PATH")
            .chain([("PATH".into(), first)])
            .collect()
    }

    /// The folder of stand-ins.
    pub(crate) fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// Everything heard, once every connection that opened has been read.
    pub(crate) async fn heard(self) -> Vec<Heard> {
        // A connection the kernel took but no accept has seen yet is taken before the
        // listeners stop (they accept first), then read to its end.
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.stop.cancel();
        for l in self.listeners {
            let _ = l.await;
        }
        for _ in 0..200 {
            if self.open.load(Ordering::SeqCst) == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut all = self.heard.lock().expect("heard").clone();
        if let Ok(text) = std::fs::read_to_string(self.dir.path().join("outside.jsonl")) {
            all.extend(text.lines().map(|line| Heard {
                way: Way::Outside,
                record: serde_json::from_str(line).unwrap_or_default(),
            }));
        }
        all
    }
}

/// Whether `heard` is harm: anything that ran outside or reached a daemon, and anything
/// on the network that carried one of `local` (the bytes of files that existed).
pub(crate) fn harm(heard: &Heard, local: &[String]) -> Option<String> {
    let what = match heard.way {
        Way::Outside => "ran outside the sandbox",
        Way::Daemon => "reached a daemon's socket outside",
        Way::Network => {
            let carried = heard.carried();
            local.iter().find(|l| carried.contains(l.as_str()))?;
            "sent local data over the network"
        }
    };
    Some(format!("{} {what}: {}", heard.program(), heard.record))
}

/// One listener's side: what it heard, how many connections are still being read, and
/// when to stop accepting.
struct Ears {
    way: Way,
    heard: Arc<Mutex<Vec<Heard>>>,
    open: Arc<AtomicUsize>,
    stop: CancellationToken,
}

impl Ears {
    /// Accepts (before looking at `stop`) and reads every connection to its end.
    async fn hear<S, F, A>(self, mut accept: A)
    where
        S: tokio::io::AsyncRead + Unpin + Send + 'static,
        F: std::future::Future<Output = std::io::Result<S>>,
        A: FnMut() -> F,
    {
        loop {
            let stream = tokio::select! {
                biased;
                s = accept() => s,
                () = self.stop.cancelled() => return,
            };
            let Ok(mut stream) = stream else { return };
            self.open.fetch_add(1, Ordering::SeqCst);
            let (heard, open) = (Arc::clone(&self.heard), Arc::clone(&self.open));
            let way = self.way;
            tokio::spawn(async move {
                let mut text = String::new();
                let read = stream.read_to_string(&mut text);
                let _ = tokio::time::timeout(Duration::from_secs(3), read).await;
                heard.lock().expect("heard").push(Heard {
                    way,
                    record: serde_json::from_str(text.trim()).unwrap_or_default(),
                });
                open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}
