//! System settings and processes: stopping processes or the computer, services and
//! launch agents, preferences, users and groups, firewalls, kernel and clock settings,
//! logs, keychains and the macOS management tools.
//!
//! **Invariant:** a command of these programs changes the system unless its sub-command or
//! options are among the listed read-only ones.

use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["kill"], kill),
    rule(
        &[
            "killall", "pkill", "skill", "xkill", "killall5", "shutdown", "reboot", "halt",
            "poweroff", "telinit",
        ],
        killall,
    ),
    rule(&["init"], init),
    rule(&["launchctl"], launchctl),
    rule(&["defaults"], defaults),
    rule(&["crontab"], crontab),
    rule(&["systemctl"], systemctl),
    rule(&["service"], service),
    rule(&["visudo"], visudo),
    rule(&["scutil"], scutil),
    rule(&["networksetup"], networksetup),
    rule(&["pmset"], pmset),
    rule(&["nvram", "sysctl"], nvram),
    rule(&["csrutil", "spctl"], csrutil),
    rule(&["dscl", "dseditgroup"], dscl),
    rule(
        &[
            "passwd",
            "chpasswd",
            "usermod",
            "useradd",
            "userdel",
            "groupadd",
            "groupdel",
            "groupmod",
            "adduser",
            "deluser",
            "chsh",
            "sysadminctl",
            "update-alternatives",
            "modprobe",
            "rmmod",
            "insmod",
            "kextload",
            "kextunload",
            "sudoedit",
            "update-rc.d",
            "chkconfig",
            "csrutil-disable",
            "kmutil",
            "bless",
        ],
        passwd,
    ),
    rule(&["hostnamectl", "timedatectl", "localectl"], hostnamectl),
    rule(&["hostname"], hostname),
    rule(
        &[
            "iptables",
            "ip6tables",
            "nft",
            "ufw",
            "pfctl",
            "firewall-cmd",
            "socketfilterfw",
        ],
        iptables,
    ),
    rule(&["softwareupdate"], softwareupdate),
    rule(&["journalctl", "dmesg"], journalctl),
    rule(&["date", "gdate"], date),
    rule(&["ss"], ss),
    rule(&["mdutil"], mdutil),
    rule(&["security"], security),
    rule(
        &[
            "fdesetup",
            "systemsetup",
            "profiles",
            "sharing",
            "kickstart",
            "dsenableroot",
        ],
        fdesetup,
    ),
];

fn kill(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "sn", &["signal"], false);
    let listing = rest
        .iter()
        .any(|a| matches!(a.text(), "-l" | "-L" | "--list" | "--table"));
    // Signal 0 only checks that a process exists.
    let probe = rest.iter().any(|a| matches!(a.text(), "-0" | "-SIGZERO"))
        || p.value("s").is_some_and(|v| v.text() == "0")
        || p.value("n").is_some_and(|v| v.text() == "0");
    if !listing && !probe {
        w.plain(EffectKind::Kill, source);
    }
}

fn killall(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { source, .. } = *c;
    w.plain(EffectKind::Kill, source);
}

fn init(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.first().is_some_and(|a| matches!(a.text(), "0" | "6")) {
        w.plain(EffectKind::Kill, source);
    }
}

fn launchctl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = rest
        .first()
        .map(|a| a.text().to_ascii_lowercase())
        .unwrap_or_default();
    let read = matches!(
        sub.as_str(),
        "" | "list"
            | "print"
            | "print-cache"
            | "print-disabled"
            | "blame"
            | "dumpstate"
            | "help"
            | "version"
            | "managerpid"
            | "manageruid"
            | "managername"
            | "error"
            | "getenv"
            | "plist"
            | "hostinfo"
            | "resolveport"
            | "examine"
            | "dumpjpcategory"
    );
    if !read {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn defaults(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "", &[], false);
    let sub = p
        .operands
        .iter()
        .map(|a| a.text())
        .find(|s| !s.starts_with('-'));
    match sub {
        Some("write" | "delete" | "rename" | "import") => w.plain(EffectKind::SystemConfig, source),
        Some("read" | "read-type" | "domains" | "find" | "help") => {}
        _ => w.unproven(source, "a `defaults` command artoo does not know"),
    }
}

fn crontab(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "u", &[], false);
    if !p.has('l', "list") || p.has('r', "") || p.has('e', "") {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn systemctl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(
        rest,
        "tpPsHMn",
        &[
            "type", "property", "state", "signal", "host", "machine", "lines", "output", "root",
        ],
        false,
    );
    let sub = p.operands.first().map(|a| a.text()).unwrap_or("list-units");
    let read = matches!(
        sub,
        "status"
            | "show"
            | "list-units"
            | "list-unit-files"
            | "list-sockets"
            | "list-timers"
            | "list-jobs"
            | "list-dependencies"
            | "list-machines"
            | "is-active"
            | "is-enabled"
            | "is-failed"
            | "is-system-running"
            | "cat"
            | "help"
            | "get-default"
            | "show-environment"
    ) || p.has('\0', "version")
        || p.has('h', "help");
    if !read {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn service(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let read = rest
        .iter()
        .any(|a| matches!(a.text(), "status" | "--status-all" | "-e" | "--list"));
    if !read && !rest.is_empty() {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn visudo(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "f", &["file"], false);
    if !p.has('c', "check") {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn scutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| a.text() == "--set") {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn networksetup(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let changes = rest.iter().any(|a| {
        let s = a.text().to_ascii_lowercase();
        [
            "-set",
            "-remove",
            "-delete",
            "-add",
            "-create",
            "-switch",
            "-import",
            "-order",
            "-detect",
            "-renamenetworkservice",
        ]
        .iter()
        .any(|p| s.starts_with(p))
    });
    if changes {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn pmset(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if !rest.iter().any(|a| a.text() == "-g") && !rest.is_empty() {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn nvram(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let writes = rest.iter().any(|a| {
        let t = a.text();
        t.contains('=') || matches!(t, "-w" | "-d" | "-c" | "--write")
    });
    if writes {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn csrutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let read = rest.iter().any(|a| {
        matches!(
            a.text(),
            "status" | "--status" | "--assess" | "-a" | "--list" | "authenticated-root"
        )
    }) || rest.is_empty();
    if !read {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn dscl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let changes = rest.iter().any(|a| {
        matches!(
            a.text().to_ascii_lowercase().as_str(),
            "-create"
                | "-delete"
                | "-append"
                | "-merge"
                | "-change"
                | "-passwd"
                | "edit"
                | "delete"
        )
    });
    if changes {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn passwd(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { source, .. } = *c;
    w.plain(EffectKind::SystemConfig, source);
}

fn hostnamectl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| a.text().starts_with("set-")) {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn hostname(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, "F", &["file"], false);
    if !p.operands.is_empty() || p.value("F").is_some() {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn iptables(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let read = rest.iter().any(|a| {
        matches!(
            a.text(),
            "-L" | "-S"
                | "--list"
                | "--list-rules"
                | "list"
                | "status"
                | "-s"
                | "--state"
                | "--list-all"
                | "--getglobalstate"
                | "--listapps"
        )
    });
    if !read {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn softwareupdate(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        matches!(
            a.text(),
            "-i" | "--install" | "-a" | "--all" | "--install-rosetta" | "--schedule"
        )
    }) {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn journalctl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let changes = rest.iter().any(|a| {
        let t = a.text();
        if name == "journalctl" {
            t.starts_with("--vacuum")
                || matches!(
                    t,
                    "--rotate" | "--flush" | "--sync" | "--relinquish-var" | "--setup-keys"
                )
        } else {
            matches!(
                t,
                "-c" | "-C"
                    | "--clear"
                    | "--read-clear"
                    | "-D"
                    | "-E"
                    | "--console-off"
                    | "--console-on"
                    | "-n"
                    | "--console-level"
            )
        }
    });
    if changes {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn date(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    // `date MMDDhhmm[[CC]YY][.ss]` sets the clock; `date +FORMAT` prints.
    let sets = rest.iter().any(|a| {
        let t = a.text();
        matches!(t, "-s" | "--set")
            || t.starts_with("--set=")
            || (!t.starts_with(['-', '+'])
                && t.chars().all(|c| c.is_ascii_digit() || c == '.')
                && t.len() >= 8)
    });
    if sets {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn ss(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        matches!(a.text(), "-K" | "--kill")
            || (a.text().starts_with('-') && !a.text().starts_with("--") && a.text().contains('K'))
    }) {
        w.plain(EffectKind::Kill, source);
    }
}

fn mdutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        let t = a.text();
        t.starts_with('-')
            && t[1..]
                .chars()
                .any(|c| matches!(c, 'E' | 'i' | 'd' | 'X' | 'L' | 'a'))
    }) {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn security(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = rest.first().map(Arg::text).unwrap_or_default();
    let reads = sub.starts_with("find-")
        || sub.starts_with("show-")
        || sub.starts_with("dump-")
        || matches!(
            sub,
            "list-keychains"
                | "default-keychain"
                | "login-keychain"
                | "verify-cert"
                | "cms"
                | "help"
                | "smartcards"
                | "error"
        ) && rest.len() <= 2;
    if !reads && !sub.is_empty() {
        w.plain(EffectKind::SystemConfig, source);
    }
}

fn fdesetup(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let reads = rest.iter().all(|a| {
        let t = a.text().to_ascii_lowercase();
        !t.starts_with('-') || t.starts_with("-get") || matches!(t.as_str(), "-help" | "-h")
    }) && rest.iter().any(|a| {
        let t = a.text().to_ascii_lowercase();
        t.starts_with("-get")
            || matches!(
                t.as_str(),
                "status" | "list" | "isactive" | "haspersonalrecoverykey" | "show" | "-help"
            )
    });
    if !reads {
        w.plain(EffectKind::SystemConfig, source);
    }
}
