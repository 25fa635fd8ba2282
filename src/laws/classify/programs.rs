//! What each program does with its arguments: the verb table of Law 1.
//!
//! Wrappers (`sudo`, `env`, `nohup`, `time`, `nice`, `command`, `timeout`, `xargs`,
//! `find -exec`, `ssh`, …) are seen through to the command they run; shells and `eval`
//! have their strings parsed again; interpreters have their inline code scanned.

use std::path::Path;

use super::script;
use super::shell::{Arg, Stdin, Walker};
use super::text;
use super::{EffectKind, Existence, Target};

/// Programs that only read, whatever their options: the generic heuristics for unknown
/// programs (dangerous sub-commands, `-o FILE` onto an existing file) skip them.
const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "wc",
    "du",
    "df",
    "ps",
    "top",
    "htop",
    "pgrep",
    "which",
    "whereis",
    "type",
    "echo",
    "printf",
    "date",
    "cal",
    "uname",
    "whoami",
    "id",
    "groups",
    "pwd",
    "printenv",
    "cut",
    "tr",
    "nl",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "base64",
    "md5",
    "md5sum",
    "shasum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "diff",
    "cmp",
    "comm",
    "tree",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "seq",
    "sleep",
    "true",
    "false",
    "test",
    "[",
    "expr",
    "bc",
    "stat",
    "file",
    "mdls",
    "mdfind",
    "locate",
    "plocate",
    "jq",
    "yq",
    "column",
    "fmt",
    "fold",
    "rev",
    "tac",
    "paste",
    "join",
    "look",
    "man",
    "info",
    "help",
    "lsof",
    "netstat",
    "ss",
    "ping",
    "dig",
    "nslookup",
    "host",
    "whois",
    "traceroute",
    "uptime",
    "w",
    "who",
    "last",
    "free",
    "vm_stat",
    "sw_vers",
    "system_profiler",
    "getconf",
    "locale",
    "tput",
    "tty",
    "ffprobe",
    "mediainfo",
    "identify",
    "pdfinfo",
    "exiv2",
    "uniq",
    "sort",
    "awk",
    "gawk",
    "sed",
    "tokei",
    "cloc",
    "pbpaste",
    "say",
    "afinfo",
    "mdutil",
    "lsblk",
    "blkid",
    "lscpu",
    "nproc",
    "arch",
    "getent",
    "history",
    "read",
    "let",
    "declare",
    "typeset",
    "local",
    "export",
    "set",
    "unset",
    "shift",
    "return",
    "exit",
    "break",
    "continue",
    "wait",
    "jobs",
    "hash",
    "ulimit",
    "umask",
    "shopt",
    "dirs",
    "true",
    ":",
    "ldd",
    "otool",
    "nm",
    "objdump",
    "readelf",
];

/// Compilers write outputs derived from sources; rebuilding restores them.
const COMPILERS: &[&str] = &[
    "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "go", "javac", "swiftc", "tsc",
    "esbuild", "make", "cmake", "ninja", "cargo", "zig", "ld",
];

/// Sub-command words that mean deletion, stopping or sending in most command-line tools
/// (`aws s3 rm`, `gh repo delete`, `brew uninstall`, `kubectl delete`).
fn subcommand_effect(word: &str) -> Option<EffectKind> {
    // `apps:destroy`, `delete-keychain`, `remove-trusted-cert`.
    let word = word.rsplit(':').next().unwrap_or(word);
    let head = word.split('-').next().unwrap_or(word);
    if head != word
        && matches!(
            head,
            "delete" | "remove" | "rm" | "drop" | "destroy" | "purge" | "wipe" | "erase"
        )
    {
        return Some(EffectKind::Delete);
    }
    match word {
        "rm" | "delete" | "del" | "remove" | "destroy" | "purge" | "drop" | "erase" | "wipe"
        | "uninstall" | "prune" | "unlink" | "rmi" | "rmdir" | "nuke" | "truncate" | "flush"
        | "flushall" | "flushdb" | "deinit" | "autoremove" | "autopurge" | "rb" => {
            Some(EffectKind::Delete)
        }
        "kill" | "terminate" | "stop-instances" | "terminate-instances" => Some(EffectKind::Kill),
        "send" | "publish" => Some(EffectKind::Send),
        "reset" => Some(EffectKind::Overwrite),
        _ => None,
    }
}

/// Files and folders whose change alters how the computer or the shell behaves.
pub(crate) fn is_sensitive_config(path: &Path, home: &Path) -> bool {
    const SYSTEM: &[&str] = &[
        "/etc",
        "/private/etc",
        "/Library",
        "/System",
        "/usr",
        "/bin",
        "/sbin",
        "/boot",
        "/var/spool/cron",
        "/var/at",
    ];
    if SYSTEM.iter().any(|p| path.starts_with(p)) {
        return true;
    }
    if let Ok(rest) = path.strip_prefix(home) {
        let mut comps = rest.components();
        if let Some(first) = comps.next() {
            let first = first.as_os_str().to_string_lossy();
            if first.starts_with('.') {
                return true;
            }
            if first == "Library" {
                let second = comps
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .unwrap_or_default();
                return matches!(second.as_str(), "LaunchAgents" | "Preferences");
            }
        }
    }
    false
}

/// Options of one command line.
#[derive(Default)]
struct Parsed<'a> {
    shorts: String,
    longs: Vec<String>,
    values: Vec<(String, Arg)>,
    operands: Vec<&'a Arg>,
    /// Index in the argument list just after the options (prefix parsing only).
    rest: usize,
}

impl Parsed<'_> {
    fn has(&self, short: char, long: &str) -> bool {
        (short != '\0' && self.shorts.contains(short)) || self.longs.iter().any(|l| l == long)
    }

    fn has_long_prefix(&self, prefix: &str) -> bool {
        self.longs.iter().any(|l| l.starts_with(prefix))
    }

    fn value(&self, key: &str) -> Option<&Arg> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn values_of<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s Arg> + 's {
        self.values
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

/// Parses options. `short_val` lists short options taking a value, `long_val` long
/// ones. With `stop_at_operand` (wrappers), options end at the first operand and
/// `rest` points at it; otherwise options may follow operands (GNU style).
fn parse<'a>(
    args: &'a [Arg],
    short_val: &str,
    long_val: &[&str],
    stop_at_operand: bool,
) -> Parsed<'a> {
    let mut p = Parsed {
        rest: args.len(),
        ..Parsed::default()
    };
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        let lit = arg.lit.as_deref();
        match lit {
            Some("--") if !options_done => {
                options_done = true;
                if stop_at_operand {
                    p.rest = i + 1;
                    return p;
                }
            }
            Some(s) if !options_done && s.starts_with("--") && s.len() > 2 => {
                let body = &s[2..];
                match body.split_once('=') {
                    Some((k, v)) => {
                        p.longs.push(k.to_string());
                        p.values.push((k.to_string(), Arg::literal(v)));
                    }
                    None => {
                        p.longs.push(body.to_string());
                        if long_val.contains(&body)
                            && let Some(v) = args.get(i + 1)
                        {
                            p.values.push((body.to_string(), v.clone()));
                            i += 1;
                        }
                    }
                }
            }
            Some(s) if !options_done && s.starts_with('-') && s.len() > 1 => {
                let chars: Vec<char> = s[1..].chars().collect();
                let mut j = 0;
                while j < chars.len() {
                    let c = chars[j];
                    p.shorts.push(c);
                    if short_val.contains(c) {
                        let attached: String = chars[j + 1..].iter().collect();
                        if !attached.is_empty() {
                            p.values.push((c.to_string(), Arg::literal(&attached)));
                        } else if let Some(v) = args.get(i + 1) {
                            p.values.push((c.to_string(), v.clone()));
                            i += 1;
                        }
                        break;
                    }
                    j += 1;
                }
            }
            _ => {
                if stop_at_operand {
                    p.rest = i;
                    return p;
                }
                p.operands.push(arg);
            }
        }
        i += 1;
    }
    p
}

fn joined(args: &[Arg]) -> String {
    args.iter().map(Arg::text).collect::<Vec<_>>().join(" ")
}

fn is_verb_always_gated(name: &str) -> bool {
    matches!(
        name,
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" | "truncate" | "rimraf"
    ) || is_disk_tool(name)
}

fn is_disk_tool(name: &str) -> bool {
    name.starts_with("mkfs")
        || name.starts_with("newfs")
        || matches!(
            name,
            "mke2fs"
                | "mkswap"
                | "wipefs"
                | "fdisk"
                | "sfdisk"
                | "gdisk"
                | "cfdisk"
                | "parted"
                | "sgdisk"
                | "mkdosfs"
                | "zpool"
        )
}

fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "csh" | "tcsh" | "ash" | "yash"
    )
}

fn is_interpreter(name: &str) -> bool {
    name.starts_with("python")
        || matches!(
            name,
            "perl"
                | "ruby"
                | "node"
                | "nodejs"
                | "php"
                | "lua"
                | "rscript"
                | "deno"
                | "bun"
                | "tclsh"
                | "pwsh"
                | "powershell"
                | "jshell"
                | "groovy"
                | "julia"
        )
}

impl Walker<'_> {
    /// Classifies one simple command given as evaluated words. `extra` describes
    /// arguments a wrapper appends at run time (`xargs`, `find -exec`).
    pub(super) fn argv(&mut self, args: &[Arg], stdin: &Stdin, extra: Option<&str>, depth: usize) {
        let Some(first) = args.first() else { return };
        let source = joined(args);
        let Some(name_lit) = first.fixed() else {
            self.trash_ok = false;
            self.opaque(
                &source,
                "the program to run is only known when the command runs",
            );
            return;
        };
        let base = name_lit.rsplit('/').next().unwrap_or(name_lit);
        let name = text::fold_name(base);
        if name.is_empty() {
            return;
        }
        if text::has_lookalikes(base) {
            self.opaque(
                &source,
                format!(
                    "the program name `{}` only looks like `{name}`",
                    text::display(base)
                ),
            );
        }
        let rest = &args[1..];
        if !matches!(
            name.as_str(),
            "rm" | "rmdir" | "unlink" | "cd" | "true" | ":"
        ) {
            self.trash_ok = false;
        }
        match name.as_str() {
            "rm" | "rmdir" | "unlink" | "rimraf" => {
                let p = parse(rest, "", &[], false);
                self.delete(&p.operands, &source, extra, name != "rimraf");
            }
            "shred" | "srm" | "wipe" => {
                let p = parse(rest, "nsx", &["iterations", "size", "random-source"], false);
                self.delete(&p.operands, &source, extra, false);
            }
            "truncate" => {
                let p = parse(rest, "sr", &["size", "reference"], false);
                self.each_path(EffectKind::Truncate, &p.operands, &source, extra);
            }
            "fallocate" => {
                let p = parse(rest, "lo", &["length", "offset"], false);
                if p.has('p', "punch-hole")
                    || p.has('c', "collapse-range")
                    || p.has('z', "zero-range")
                {
                    self.each_path(EffectKind::Overwrite, &p.operands, &source, extra);
                }
            }
            "dd" => {
                let of = rest
                    .iter()
                    .find_map(|a| a.text().strip_prefix("of=").map(|v| (a, v.to_string())));
                if let Some((arg, path)) = of {
                    let target_arg = Arg {
                        lit: arg.lit.as_ref().map(|_| path.clone()),
                        raw: path,
                        glob: arg.glob,
                    };
                    let target = self.path_target(&target_arg);
                    self.push(EffectKind::Overwrite, target, source, None);
                }
            }
            n if is_disk_tool(n) => self.plain(EffectKind::Format, source),
            "diskutil" => {
                let p = parse(rest, "", &[], false);
                let sub = p.operands.first().map(|a| a.text().to_ascii_lowercase());
                let safe = matches!(
                    sub.as_deref(),
                    None | Some(
                        "list"
                            | "info"
                            | "activity"
                            | "listfilesystems"
                            | "verifyvolume"
                            | "verifydisk"
                            | "mount"
                            | "mountdisk"
                            | "unmount"
                            | "unmountdisk"
                            | "eject"
                            | "apfs"
                    )
                );
                let apfs_destructive = sub.as_deref() == Some("apfs")
                    && p.operands.get(1).is_some_and(|a| {
                        let s = a.text().to_ascii_lowercase();
                        s.starts_with("delete") || s.starts_with("erase") || s.contains("resize")
                    });
                if !safe || apfs_destructive {
                    self.plain(EffectKind::Format, source);
                }
            }
            "cp" | "install" | "ditto" | "gcp" => self.copy_like(rest, &source, extra),
            "mv" | "gmv" => self.copy_like(rest, &source, extra),
            "ln" => {
                let p = parse(rest, "tS", &["target-directory", "suffix"], false);
                if p.has('f', "force") || p.has('\0', "remove-destination") {
                    self.copy_like(rest, &source, extra);
                }
            }
            "rsync" => self.rsync(rest, &source),
            "scp" => {
                let p = parse(rest, "cFiJlPoS", &[], false);
                if let Some(dest) = p.operands.last().filter(|_| p.operands.len() >= 2) {
                    if dest.text().contains(':') && !dest.text().starts_with('/') {
                        self.unknown(
                            EffectKind::Overwrite,
                            format!("files at {} if they already exist", dest.text()),
                            source,
                        );
                    } else {
                        self.overwrite_if_exists(dest, &source);
                    }
                }
            }
            "tee" => {
                let p = parse(rest, "", &["output-error"], false);
                let append = p.has('a', "append");
                for op in &p.operands {
                    if append {
                        self.append_target(op, "tee -a");
                    } else {
                        self.write_target(op, "tee");
                    }
                }
            }
            "sed" | "gsed" => self.sed(rest, &source, extra),
            "awk" | "gawk" | "mawk" | "nawk" => {
                let p = parse(
                    rest,
                    "fvFi",
                    &["file", "assign", "field-separator", "include"],
                    false,
                );
                if p.values_of("i").any(|v| v.text() == "inplace")
                    || p.values_of("include").any(|v| v.text() == "inplace")
                {
                    let files = p.operands.get(1..).unwrap_or(&[]);
                    self.each_path(EffectKind::Overwrite, files, &source, extra);
                }
                if let Some(program) = p.operands.first().and_then(|a| a.lit.as_deref())
                    && let Some(found) = script::scan_awk(program)
                {
                    self.opaque(&source, format!("the awk program uses `{found}`"));
                }
            }
            "patch" => {
                let p = parse(
                    rest,
                    "pdiorBDFVYz",
                    &["directory", "input", "output", "reject-file"],
                    false,
                );
                if !p.has('\0', "dry-run") && !p.has('C', "check") {
                    self.unknown(EffectKind::Overwrite, "the files the patch changes", source);
                }
            }
            "chmod" | "chown" | "chgrp" | "chflags" | "setfacl" | "chattr" => {
                let p = parse(rest, "", &["reference", "from"], false);
                let recursive =
                    p.has('R', "recursive") || (name == "setfacl" && p.has('R', "recursive"));
                if recursive || extra.is_some() {
                    let targets = p.operands.get(1..).unwrap_or(&[]);
                    if targets.is_empty() {
                        self.push(
                            EffectKind::Permissions,
                            Target::Unknown(extra.unwrap_or("the files it is given").to_string()),
                            source,
                            None,
                        );
                    } else {
                        self.each_path(EffectKind::Permissions, targets, &source, extra);
                    }
                } else if p.operands.iter().skip(1).any(|a| {
                    a.fixed().is_some_and(|s| s == "/" || s == "~")
                        || a.fixed()
                            .and_then(|s| text::resolve(s, self.cwd.as_deref()))
                            .is_some_and(|r| r == self.scope.home)
                }) {
                    self.unknown(
                        EffectKind::Permissions,
                        "the home folder or the whole disk",
                        source,
                    );
                }
            }
            "kill" => {
                let p = parse(rest, "sn", &["signal"], false);
                let listing = rest
                    .iter()
                    .any(|a| matches!(a.text(), "-l" | "-L" | "--list" | "--table"));
                // Signal 0 only checks that a process exists.
                let probe = rest.iter().any(|a| matches!(a.text(), "-0" | "-SIGZERO"))
                    || p.value("s").is_some_and(|v| v.text() == "0")
                    || p.value("n").is_some_and(|v| v.text() == "0");
                if !listing && !probe {
                    self.plain(EffectKind::Kill, source);
                }
            }
            "killall" | "pkill" | "skill" | "xkill" | "killall5" | "shutdown" | "reboot"
            | "halt" | "poweroff" | "telinit" => self.plain(EffectKind::Kill, source),
            "init" => {
                if rest.first().is_some_and(|a| matches!(a.text(), "0" | "6")) {
                    self.plain(EffectKind::Kill, source);
                }
            }
            "launchctl" => {
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
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "defaults" => {
                let p = parse(rest, "", &[], false);
                let sub = p
                    .operands
                    .iter()
                    .map(|a| a.text())
                    .find(|s| !s.starts_with('-'));
                if matches!(sub, Some("write" | "delete" | "rename" | "import")) {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "crontab" => {
                let p = parse(rest, "u", &[], false);
                if !p.has('l', "list") || p.has('r', "") || p.has('e', "") {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "systemctl" => {
                let p = parse(
                    rest,
                    "tpPsHMn",
                    &[
                        "type", "property", "state", "signal", "host", "machine", "lines",
                        "output", "root",
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
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "service" => {
                let read = rest
                    .iter()
                    .any(|a| matches!(a.text(), "status" | "--status-all" | "-e" | "--list"));
                if !read && !rest.is_empty() {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "visudo" => {
                let p = parse(rest, "f", &["file"], false);
                if !p.has('c', "check") {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "scutil" => {
                if rest.iter().any(|a| a.text() == "--set") {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "networksetup" => {
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
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "pmset" => {
                if !rest.iter().any(|a| a.text() == "-g") && !rest.is_empty() {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "nvram" | "sysctl" => {
                let writes = rest.iter().any(|a| {
                    let t = a.text();
                    t.contains('=') || matches!(t, "-w" | "-d" | "-c" | "--write")
                });
                if writes {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "csrutil" | "spctl" => {
                let read = rest.iter().any(|a| {
                    matches!(
                        a.text(),
                        "status" | "--status" | "--assess" | "-a" | "--list" | "authenticated-root"
                    )
                }) || rest.is_empty();
                if !read {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "dscl" | "dseditgroup" => {
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
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "passwd"
            | "chpasswd"
            | "usermod"
            | "useradd"
            | "userdel"
            | "groupadd"
            | "groupdel"
            | "groupmod"
            | "adduser"
            | "deluser"
            | "chsh"
            | "sysadminctl"
            | "update-alternatives"
            | "modprobe"
            | "rmmod"
            | "insmod"
            | "kextload"
            | "kextunload"
            | "sudoedit"
            | "update-rc.d"
            | "chkconfig"
            | "csrutil-disable"
            | "kmutil"
            | "bless" => self.plain(EffectKind::SystemConfig, source),
            "hostnamectl" | "timedatectl" | "localectl" => {
                if rest.iter().any(|a| a.text().starts_with("set-")) {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "hostname" => {
                let p = parse(rest, "F", &["file"], false);
                if !p.operands.is_empty() || p.value("F").is_some() {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "iptables" | "ip6tables" | "nft" | "ufw" | "pfctl" | "firewall-cmd"
            | "socketfilterfw" => {
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
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "tmutil" => {
                let sub = rest
                    .first()
                    .map(|a| a.text().to_ascii_lowercase())
                    .unwrap_or_default();
                if sub.starts_with("delete")
                    || matches!(
                        sub.as_str(),
                        "disable"
                            | "removedestination"
                            | "setdestination"
                            | "thinlocalsnapshots"
                            | "restore"
                    )
                {
                    self.unknown(
                        EffectKind::Delete,
                        "Time Machine backups or settings",
                        source,
                    );
                }
            }
            "softwareupdate" => {
                if rest.iter().any(|a| {
                    matches!(
                        a.text(),
                        "-i" | "--install" | "-a" | "--all" | "--install-rosetta" | "--schedule"
                    )
                }) {
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "apt" | "apt-get" | "aptitude" | "yum" | "dnf" | "zypper" | "apk" | "snap"
            | "flatpak" | "brew" | "port" | "gem" | "conda" | "mamba" => {
                let p = parse(rest, "", &[], false);
                let sub = p
                    .operands
                    .first()
                    .map(|a| a.text().to_ascii_lowercase())
                    .unwrap_or_default();
                if matches!(
                    sub.as_str(),
                    "remove"
                        | "purge"
                        | "autoremove"
                        | "autopurge"
                        | "erase"
                        | "uninstall"
                        | "rm"
                        | "untap"
                        | "del"
                        | "delete"
                        | "zap"
                ) {
                    self.unknown(EffectKind::SystemConfig, "installed software", source);
                }
            }
            "dpkg" | "rpm" | "pacman" => {
                let removes = rest.iter().any(|a| {
                    let t = a.text();
                    matches!(t, "-r" | "-P" | "--remove" | "--purge" | "-e" | "--erase")
                        || (name == "pacman" && t.starts_with("-R"))
                });
                if removes {
                    self.unknown(EffectKind::SystemConfig, "installed software", source);
                }
            }
            "pip" | "pip3" | "pipx" | "uv" | "npm" | "pnpm" | "yarn" => {
                self.package_tool(&name, rest, stdin, extra, depth, &source)
            }
            "cargo" => {
                if rest.first().is_some_and(|a| a.text() == "uninstall") {
                    self.unknown(EffectKind::SystemConfig, "installed software", source);
                }
            }
            "mail" | "mailx" | "sendmail" | "mutt" | "neomutt" | "msmtp" | "ssmtp" | "swaks"
            | "sendemail" | "s-nail" => {
                let p = parse(rest, "sabcfrSu", &[], false);
                let reading = (p.has('f', "") && p.operands.is_empty())
                    || (rest.is_empty()
                        && matches!(name.as_str(), "mail" | "mailx" | "mutt" | "neomutt"));
                if !reading {
                    self.plain(EffectKind::Send, source);
                }
            }
            "curl" => self.curl(rest, &source),
            "wget" => self.wget(rest, &source),
            "http" | "https" | "xh" | "xhs" => {
                if rest
                    .iter()
                    .any(|a| matches!(a.text(), "POST" | "PUT" | "PATCH" | "DELETE"))
                    || rest.iter().any(|a| {
                        let t = a.text();
                        !t.starts_with('-')
                            && (t.contains(":=")
                                || (t.contains('=') && !t.contains("==") && !t.contains("://")))
                    })
                {
                    self.plain(EffectKind::Send, source);
                }
            }
            "git" => self.git(rest, &source),
            "docker" | "podman" | "nerdctl" => {
                let p = parse(
                    rest,
                    "HcL",
                    &["host", "context", "log-level", "config"],
                    false,
                );
                let ops: Vec<&str> = p.operands.iter().map(|a| a.text()).collect();
                let destructive = match ops.as_slice() {
                    [first, ..] if matches!(*first, "rm" | "rmi" | "kill") => true,
                    [_, second, ..] if matches!(*second, "rm" | "prune" | "kill") => true,
                    _ => false,
                };
                if destructive {
                    self.unknown(EffectKind::Delete, "containers, images or volumes", source);
                }
            }
            "kubectl" | "oc" | "helm" => {
                if rest
                    .iter()
                    .any(|a| matches!(a.text(), "delete" | "drain" | "uninstall"))
                {
                    self.unknown(EffectKind::Delete, "cluster resources", source);
                }
            }
            "sqlite3" | "psql" | "mysql" | "mariadb" | "duckdb" => self.sql(rest, stdin, &source),
            "redis-cli" => {
                if rest.iter().any(|a| {
                    matches!(
                        a.text().to_ascii_lowercase().as_str(),
                        "flushall" | "flushdb" | "del" | "unlink" | "shutdown"
                    )
                }) {
                    self.unknown(EffectKind::Delete, "Redis data", source);
                }
            }
            "osascript" => self.osascript(rest, stdin, &source, depth),
            "shortcuts" => {
                if rest.first().is_some_and(|a| a.text() == "run") {
                    match rest.get(1).and_then(|a| a.lit.as_deref()) {
                        Some(sc) => {
                            let a = script::classify_shortcut(sc);
                            for e in a.effects {
                                self.push(e.kind, e.target, source.clone(), e.note);
                            }
                        }
                        None => self.opaque(
                            &source,
                            "the Shortcut's name is only known when the command runs",
                        ),
                    }
                }
            }
            "gio" => {
                let sub = rest.first().map(|a| a.text()).unwrap_or_default();
                if sub == "remove" || sub == "rm" {
                    let p = parse(&rest[1..], "", &[], false);
                    self.delete(&p.operands, &source, extra, false);
                } else if sub == "trash" && rest.iter().any(|a| a.text() == "--empty") {
                    self.unknown(EffectKind::Delete, "everything in the Trash", source);
                }
            }
            "trash-empty" | "empty-trash" => {
                self.unknown(EffectKind::Delete, "everything in the Trash", source)
            }
            "trash" | "trash-put" | "trash-cli" => {
                if rest
                    .iter()
                    .any(|a| matches!(a.text(), "-e" | "--empty" | "empty"))
                {
                    self.unknown(EffectKind::Delete, "everything in the Trash", source);
                }
            }
            "unzip" => {
                if rest.iter().any(|a| {
                    a.text() == "-o"
                        || (a.text().starts_with('-')
                            && !a.text().starts_with("--")
                            && a.text().contains('o')
                            && a.text().len() <= 4)
                }) {
                    self.unknown(
                        EffectKind::Overwrite,
                        "existing files the archive also contains",
                        source,
                    );
                }
            }
            "tar" | "gtar" | "bsdtar" => self.tar(rest, &source),
            "zip" => {
                if rest.iter().any(|a| {
                    a.text() == "-m"
                        || a.text() == "--move"
                        || (a.text().starts_with('-')
                            && !a.text().starts_with("--")
                            && a.text().contains('m'))
                }) {
                    self.unknown(
                        EffectKind::Delete,
                        "the original files (moved into the archive)",
                        source,
                    );
                }
            }
            "ffmpeg" => {
                if rest.iter().any(|a| a.text() == "-y")
                    && let Some(out) = rest.last()
                {
                    self.overwrite_if_exists(out, &source);
                }
            }
            "convert" | "magick" => {
                let p = parse(rest, "", &[], false);
                if p.operands.len() >= 2
                    && let Some(out) = p.operands.last()
                {
                    self.overwrite_if_exists(out, &source);
                }
            }
            "sort" => {
                let p = parse(
                    rest,
                    "otkSTz",
                    &[
                        "output",
                        "key",
                        "buffer-size",
                        "temporary-directory",
                        "field-separator",
                        "files0-from",
                        "parallel",
                        "compress-program",
                        "batch-size",
                    ],
                    false,
                );
                if let Some(out) = p.value("o").or_else(|| p.value("output")) {
                    let out = out.clone();
                    self.overwrite_if_exists(&out, &source);
                }
            }
            "7z" | "7za" | "7zz" => {
                let extracting = matches!(rest.first().map(Arg::text), Some("x" | "e"));
                if extracting && rest.iter().any(|a| matches!(a.text(), "-y" | "-aoa")) {
                    self.unknown(
                        EffectKind::Overwrite,
                        "existing files the archive also contains",
                        source,
                    );
                }
            }
            "open" => {
                // Opening a .command or .tool file runs it in Terminal.
                if rest.iter().any(|a| {
                    let t = a.text().to_ascii_lowercase();
                    t.ends_with(".command") || t.ends_with(".tool") || t.ends_with(".workflow")
                }) {
                    self.opaque(&source, "opening it runs a script that cannot be checked");
                }
            }
            "automator" => self.opaque(&source, "an Automator workflow's steps cannot be checked"),
            "cd" => self.set_cwd(
                rest.iter()
                    .find(|a| !a.text().starts_with('-') || a.text() == "-"),
            ),
            "pushd" | "popd" => self.cwd = None,
            "trap" => {
                if let Some(code) = rest.first() {
                    match code.lit.as_deref() {
                        Some(s) if !s.starts_with('-') => self.script(s, depth + 1),
                        Some(_) => {}
                        None => {
                            self.opaque(&source, "the trap's command is only known when it runs")
                        }
                    }
                }
            }
            "alias" => {
                for a in rest {
                    if let Some((_, body)) = a.text().split_once('=') {
                        let body = body.to_string();
                        self.script(&body, depth + 1);
                    }
                }
            }
            // ---- wrappers: the real command follows ----
            "sudo" | "doas" | "run0" | "pkexec" => {
                let p = parse(
                    rest,
                    "ughprtCDTUc",
                    &[
                        "user",
                        "group",
                        "host",
                        "prompt",
                        "role",
                        "type",
                        "close-from",
                        "chdir",
                        "command-timeout",
                        "other-user",
                    ],
                    true,
                );
                if p.has('e', "edit") {
                    self.unknown(
                        EffectKind::SystemConfig,
                        "files edited as the administrator",
                        source,
                    );
                }
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "env" => self.env(rest, stdin, extra, depth, &source),
            "nohup" | "setsid" | "unbuffer" | "nocorrect" | "noglob" | "builtin" | "catchsegv"
            | "torsocks" | "proxychains" | "proxychains4" | "tsocks" | "firejail" | "exec" => {
                let p = parse(rest, "a", &[], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "command" => {
                let p = parse(rest, "", &[], true);
                if !(p.has('v', "") || p.has('V', "")) {
                    self.wrapped(rest, p.rest, stdin, extra, depth);
                }
            }
            "time" => {
                let p = parse(rest, "fo", &["format", "output"], true);
                if let Some(out) = p.value("o").or_else(|| p.value("output")) {
                    let out = out.clone();
                    self.write_target(&out, "time -o");
                }
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "nice" | "renice-run" => {
                let p = parse(rest, "n", &["adjustment"], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "ionice" => {
                let p = parse(
                    rest,
                    "cnp",
                    &["class", "classdata", "pid", "pgid", "uid"],
                    true,
                );
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "timeout" | "gtimeout" => {
                let p = parse(rest, "sk", &["signal", "kill-after"], true);
                // The duration comes first.
                self.wrapped(rest, p.rest + 1, stdin, extra, depth);
            }
            "stdbuf" | "gstdbuf" => {
                let p = parse(rest, "ioe", &["input", "output", "error"], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "caffeinate" => {
                let p = parse(rest, "tw", &[], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "chrt" | "taskset" => {
                let p = parse(rest, "", &[], true);
                self.wrapped(rest, p.rest + 1, stdin, extra, depth);
            }
            "strace" | "ltrace" => {
                let p = parse(rest, "oepsuEaIXPb", &["output", "expr"], true);
                if let Some(out) = p.value("o").or_else(|| p.value("output")) {
                    let out = out.clone();
                    self.write_target(&out, "-o");
                }
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "flock" => {
                let p = parse(rest, "wE", &["timeout", "conflict-exit-code"], true);
                // `flock [opts] FILE -c CMD` or `flock [opts] FILE CMD…`.
                let c = rest
                    .iter()
                    .position(|a| matches!(a.text(), "-c" | "--command"));
                if let Some(cmd) = c.and_then(|i| rest.get(i + 1)) {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, &source);
                } else {
                    // `flock FILE CMD…`
                    self.wrapped(rest, p.rest + 1, stdin, extra, depth);
                }
            }
            "chroot" => {
                let p = parse(rest, "", &["userspec", "groups"], true);
                let saved = (self.cwd.clone(), self.remote.clone());
                self.cwd = None;
                self.remote = Some(format!(
                    "inside {}",
                    rest.get(p.rest).map(Arg::text).unwrap_or("another root")
                ));
                self.wrapped(rest, p.rest + 1, stdin, extra, depth);
                (self.cwd, self.remote) = saved;
            }
            "arch" => {
                let p = parse(rest, "de", &[], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "watch" => {
                let p = parse(rest, "nd", &["interval", "differences"], true);
                // watch joins its arguments and runs them with `sh -c`.
                let cmd = rest.get(p.rest..).map(joined).unwrap_or_default();
                if rest[p.rest.min(rest.len())..]
                    .iter()
                    .all(|a| a.lit.is_some())
                {
                    self.script(&cmd, depth + 1);
                } else {
                    self.opaque(&source, "the watched command is only known when it runs");
                }
            }
            "xargs" | "gxargs" => {
                let p = parse(
                    rest,
                    "aEdILnPsei",
                    &[
                        "arg-file",
                        "delimiter",
                        "eof",
                        "replace",
                        "max-lines",
                        "max-args",
                        "max-procs",
                        "max-chars",
                        "process-slot-var",
                    ],
                    true,
                );
                let replace = p
                    .value("I")
                    .or_else(|| p.value("i"))
                    .or_else(|| p.value("replace"))
                    .map(|r| r.text().to_string())
                    .or_else(|| p.has('i', "replace").then(|| "{}".to_string()));
                let inner: Vec<Arg> = rest[p.rest.min(rest.len())..]
                    .iter()
                    .filter(|a| replace.as_deref().is_none_or(|r| a.text() != r))
                    .cloned()
                    .collect();
                if inner.is_empty() {
                    return; // defaults to echo
                }
                self.argv(
                    &inner,
                    &Stdin::Closed,
                    Some("the names xargs reads from its input"),
                    depth,
                );
                self.fallback_verbs(rest, p.rest, stdin, depth);
            }
            "parallel" => {
                let p = parse(rest, "jSjJ", &["jobs", "sshlogin", "profile"], true);
                let inner: Vec<Arg> = rest[p.rest.min(rest.len())..]
                    .iter()
                    .take_while(|a| !matches!(a.text(), ":::" | "::::" | ":::+"))
                    .cloned()
                    .collect();
                if inner.len() == 1 && inner[0].lit.is_some() {
                    self.script(inner[0].text(), depth + 1);
                } else if !inner.is_empty() {
                    self.argv(
                        &inner,
                        &Stdin::Closed,
                        Some("the arguments parallel is given"),
                        depth,
                    );
                }
            }
            "find" | "gfind" => self.find(rest, &source, depth),
            "fd" | "fdfind" => {
                if let Some(i) = rest
                    .iter()
                    .position(|a| matches!(a.text(), "-x" | "--exec" | "-X" | "--exec-batch"))
                {
                    let inner: Vec<Arg> = rest[i + 1..]
                        .iter()
                        .take_while(|a| a.text() != ";")
                        .cloned()
                        .collect();
                    self.argv(&inner, &Stdin::Closed, Some("each path fd finds"), depth);
                }
            }
            "ssh" => self.ssh(rest, &source, depth),
            "su" | "runuser" | "sg" => {
                let p = parse(
                    rest,
                    "cgGsl",
                    &["command", "group", "supp-group", "shell", "login"],
                    false,
                );
                if let Some(cmd) = p.value("c").or_else(|| p.value("command")) {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, &source);
                } else if name == "sg"
                    && let Some(cmd) = p.operands.get(1)
                {
                    let cmd = (*cmd).clone();
                    self.shell_string(&cmd, depth, &source);
                }
            }
            "script" => {
                let p = parse(
                    rest,
                    "cEIOBTm",
                    &[
                        "command",
                        "log-out",
                        "log-in",
                        "log-io",
                        "log-timing",
                        "logging-format",
                        "echo",
                    ],
                    false,
                );
                if let Some(cmd) = p.value("c").or_else(|| p.value("command")) {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, &source);
                }
            }
            "eval" => {
                if rest.iter().all(|a| a.lit.is_some()) {
                    let code = joined(rest);
                    self.script(&code, depth + 1);
                } else {
                    self.opaque(
                        &source,
                        "eval runs text that is only known when the command runs",
                    );
                }
            }
            "source" | "." => {
                if let Some(file) = rest.first() {
                    self.run_script_file(file, &source, depth);
                }
            }
            "busybox" | "toybox" => {
                if !rest.is_empty() {
                    self.argv(rest, stdin, extra, depth);
                }
            }
            "npx" | "bunx" | "pnpx" | "uvx" => {
                let p = parse(rest, "p", &["package"], true);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            n if is_shell(n) => self.shell(rest, stdin, &source, depth),
            n if is_interpreter(n) => self.interpreter(&name, rest, stdin, &source, extra, depth),
            _ if name_lit.contains('/') => {
                self.local_program(name_lit, &name, rest, &source, depth)
            }
            _ => self.generic(&name, rest, &source),
        }
    }

    /// `./tool.sh`, `/opt/x/run`: a script file is read and checked like `bash FILE`;
    /// a binary falls back to the generic rules.
    fn local_program(&mut self, path: &str, name: &str, rest: &[Arg], source: &str, depth: usize) {
        let script =
            text::resolve(path, self.cwd.as_deref()).and_then(|p| self.scope.fs.read_script(&p));
        match script {
            Some(code) => {
                let first = code.lines().next().unwrap_or_default();
                let shell_script = !first.starts_with("#!")
                    || ["sh", "bash", "zsh", "dash", "ksh"].iter().any(|s| {
                        first.ends_with(&format!("/{s}")) || first.ends_with(&format!(" {s}"))
                    });
                if shell_script {
                    let saved = self.cwd.clone();
                    self.script(&code, depth + 1);
                    self.cwd = saved;
                } else if let Some(found) = script::scan_code(&code) {
                    self.opaque(source, format!("the script {path} uses `{found}`"));
                }
            }
            None => self.generic(name, rest, source),
        }
    }

    fn sed(&mut self, rest: &[Arg], source: &str, extra: Option<&str>) {
        // GNU: `-i`, `-i.bak`, `--in-place[=SUF]`, clusters like `-Ei`;
        // BSD/macOS: `-i ''` (no backup) or `-i .bak`.
        let mut in_place = false;
        let mut backup = false;
        let mut skip_next = false;
        let mut script_given = false;
        let mut operands: Vec<&Arg> = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i].text();
            if skip_next {
                skip_next = false;
            } else if t == "--in-place" {
                in_place = true;
            } else if let Some(suffix) = t.strip_prefix("--in-place=") {
                in_place = true;
                backup |= !suffix.is_empty();
            } else if matches!(t, "-e" | "--expression" | "-f" | "--file") {
                script_given = true;
                skip_next = true;
            } else if t.starts_with("--") {
                // other long options take no value here
            } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
                if let Some(pos) = flags.find('i') {
                    in_place = true;
                    let suffix = &flags[pos + 1..];
                    if !suffix.is_empty() {
                        backup = true;
                    } else if let Some(next) = rest.get(i + 1).map(Arg::text) {
                        if next.is_empty() {
                            skip_next = true; // BSD: explicit empty suffix
                        } else if next.starts_with('.') && !next.contains([' ', '/', ';']) {
                            backup = true;
                            skip_next = true;
                        }
                    }
                }
                if flags.contains('e') || flags.contains('f') {
                    script_given = true;
                    skip_next = true;
                }
            } else {
                operands.push(&rest[i]);
            }
            i += 1;
        }
        if !in_place || backup {
            return;
        }
        let files: Vec<&Arg> = if script_given {
            operands
        } else {
            operands.into_iter().skip(1).collect()
        };
        self.each_path(EffectKind::Overwrite, &files, source, extra);
    }

    fn package_tool(
        &mut self,
        name: &str,
        rest: &[Arg],
        stdin: &Stdin,
        extra: Option<&str>,
        depth: usize,
        source: &str,
    ) {
        let p = parse(rest, "", &[], false);
        let ops: Vec<&str> = p.operands.iter().map(|a| a.text()).collect();
        let removes = |w: &str| {
            matches!(
                w,
                "uninstall" | "remove" | "rm" | "un" | "r" | "uninstall-all"
            )
        };
        let global = p.has('g', "global");
        let uninstall = match (name, ops.as_slice()) {
            ("pip" | "pip3" | "pipx", [first, ..]) => removes(first),
            ("uv", ["pip" | "tool", second, ..]) => removes(second),
            ("yarn", ["global", second, ..]) => removes(second),
            ("npm" | "pnpm" | "yarn", [first, ..]) => removes(first) && global,
            _ => false,
        };
        if uninstall {
            self.unknown(EffectKind::SystemConfig, "installed software", source);
            return;
        }
        // `pipx run tool …`, `uv run cmd …`, `npm exec tool …`: the tool runs with the rest.
        let runner = match (name, ops.first().copied()) {
            ("pipx" | "uv", Some("run"))
            | ("npm" | "pnpm", Some("exec" | "x" | "dlx"))
            | ("yarn", Some("dlx")) => ops[0],
            _ => return,
        };
        if let Some(pos) = rest.iter().position(|a| a.text() == runner) {
            let mut start = pos + 1;
            while start < rest.len() && rest[start].text().starts_with('-') {
                start += 1;
            }
            if start < rest.len() {
                self.argv(&rest[start..], stdin, extra, depth);
            }
        }
    }

    /// An effect on targets described in words.
    fn unknown(&mut self, kind: EffectKind, what: impl Into<String>, source: impl AsRef<str>) {
        self.push(
            kind,
            Target::Unknown(what.into()),
            source.as_ref().to_string(),
            None,
        );
    }

    /// An effect without a path (processes, settings, messages).
    fn plain(&mut self, kind: EffectKind, source: impl AsRef<str>) {
        self.push(kind, Target::None, source.as_ref().to_string(), None);
    }

    /// The command a wrapper runs starts at `rest[start]`.
    fn wrapped(
        &mut self,
        rest: &[Arg],
        start: usize,
        stdin: &Stdin,
        extra: Option<&str>,
        depth: usize,
    ) {
        if start < rest.len() {
            self.argv(&rest[start..], stdin, extra, depth);
        }
        self.fallback_verbs(rest, start, stdin, depth);
    }

    /// Option parsing of a wrapper may be wrong for options it does not know; if a
    /// word among the wrapper's options is a destructive program, treat it as the
    /// command too (fail closed).
    fn fallback_verbs(&mut self, rest: &[Arg], start: usize, stdin: &Stdin, depth: usize) {
        for i in 0..start.min(rest.len()) {
            if let Some(w) = rest[i].fixed() {
                let base = w.rsplit('/').next().unwrap_or(w);
                if is_verb_always_gated(&text::fold_name(base)) {
                    self.argv(&rest[i..], stdin, None, depth);
                    return;
                }
            }
        }
    }

    fn delete(&mut self, operands: &[&Arg], source: &str, extra: Option<&str>, trashable: bool) {
        if operands.is_empty() && extra.is_none() {
            self.trash_ok = false;
            self.unknown(EffectKind::Delete, "whatever it is given", source);
            return;
        }
        for op in operands {
            let target = self.path_target(op);
            match &target {
                Target::Path {
                    path,
                    exists: Existence::Exists,
                } if trashable => self.trash.push(path.clone()),
                Target::Path {
                    exists: Existence::Missing,
                    ..
                } if trashable => {}
                _ => self.trash_ok = false,
            }
            let note = text::lookalike_note(op.text());
            self.push(EffectKind::Delete, target, source.to_string(), note);
        }
        if let Some(what) = extra {
            self.trash_ok = false;
            self.push(
                EffectKind::Delete,
                Target::Unknown(what.to_string()),
                source.to_string(),
                None,
            );
        }
    }

    fn each_path(
        &mut self,
        kind: EffectKind,
        operands: &[&Arg],
        source: &str,
        extra: Option<&str>,
    ) {
        for op in operands {
            let target = self.path_target(op);
            let note = text::lookalike_note(op.text());
            self.push(kind, target, source.to_string(), note);
        }
        if let Some(what) = extra {
            self.push(
                kind,
                Target::Unknown(what.to_string()),
                source.to_string(),
                None,
            );
        }
        if operands.is_empty() && extra.is_none() {
            self.push(
                kind,
                Target::Unknown("whatever it is given".into()),
                source.to_string(),
                None,
            );
        }
    }

    /// Gated only when the path exists (or cannot be checked).
    fn overwrite_if_exists(&mut self, arg: &Arg, source: &str) {
        match self.path_target(arg) {
            Target::Path {
                exists: Existence::Missing,
                ..
            } => {}
            target => {
                let note = text::lookalike_note(arg.text());
                self.push(EffectKind::Overwrite, target, source.to_string(), note);
            }
        }
    }

    /// `cp`/`mv`/`install`/`ln -f`: overwriting an existing destination is irreversible.
    fn copy_like(&mut self, rest: &[Arg], source: &str, extra: Option<&str>) {
        let p = parse(
            rest,
            "tSbm",
            &[
                "target-directory",
                "suffix",
                "backup",
                "mode",
                "owner",
                "group",
                "reply",
            ],
            false,
        );
        if p.has('n', "no-clobber")
            || p.value("update")
                .is_some_and(|v| v.text().starts_with("none"))
        {
            return;
        }
        // `--backup`/`-b` keeps the old file: reversible.
        if p.has('b', "backup") {
            return;
        }
        let target_dir = p
            .value("t")
            .or_else(|| p.value("target-directory"))
            .cloned();
        let (sources, dest): (Vec<&Arg>, Option<Arg>) = match target_dir {
            Some(dir) => (p.operands.clone(), Some(dir)),
            None if p.operands.len() >= 2 => (
                p.operands[..p.operands.len() - 1].to_vec(),
                p.operands.last().map(|a| (*a).clone()),
            ),
            None if p.operands.len() == 1 && extra.is_some() => {
                (Vec::new(), p.operands.first().map(|a| (*a).clone()))
            }
            None => (Vec::new(), None),
        };
        let Some(dest) = dest else {
            if extra.is_some() {
                self.unknown(
                    EffectKind::Overwrite,
                    "files it is given, if they already exist",
                    source,
                );
            }
            return;
        };
        match self.path_target(&dest) {
            Target::Path {
                path,
                exists: Existence::Exists,
            } if self.scope.fs.is_dir(&path) => {
                // Into an existing folder: each source lands at folder/basename.
                for src in &sources {
                    match src.fixed() {
                        Some(s) => {
                            let base = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                            let landing = path.join(base);
                            if self.scope.fs.exists(&landing) {
                                let note = text::lookalike_note(&landing.to_string_lossy());
                                self.push(
                                    EffectKind::Overwrite,
                                    Target::Path {
                                        path: landing,
                                        exists: Existence::Exists,
                                    },
                                    source.to_string(),
                                    note,
                                );
                            }
                        }
                        None => self.unknown(
                            EffectKind::Overwrite,
                            format!("files in {} with the same names, if any", path.display()),
                            source,
                        ),
                    }
                }
                if extra.is_some() {
                    self.unknown(
                        EffectKind::Overwrite,
                        format!("files in {} with the same names, if any", path.display()),
                        source,
                    );
                }
            }
            Target::Path {
                exists: Existence::Missing,
                ..
            } => {}
            target => {
                let note = text::lookalike_note(dest.text());
                self.push(EffectKind::Overwrite, target, source.to_string(), note);
            }
        }
    }

    fn rsync(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "eBfTM",
            &[
                "rsh",
                "filter",
                "exclude",
                "include",
                "temp-dir",
                "backup-dir",
                "suffix",
                "rsync-path",
                "files-from",
                "exclude-from",
                "include-from",
                "link-dest",
                "compare-dest",
                "copy-dest",
                "chmod",
                "chown",
                "log-file",
                "password-file",
                "partial-dir",
            ],
            false,
        );
        if p.has('n', "dry-run") {
            return;
        }
        if p.has_long_prefix("delete") || p.has('\0', "del") || p.has('\0', "remove-source-files") {
            self.unknown(
                EffectKind::Delete,
                "files rsync removes (--delete / --remove-source-files)",
                source,
            );
        }
        if p.operands.len() >= 2
            && let Some(dest) = p.operands.last()
        {
            let d = dest.text();
            if d.contains(':') && !d.starts_with('/') && !d.starts_with('.') {
                self.unknown(
                    EffectKind::Overwrite,
                    format!("files at {d} with the same names, if any"),
                    source,
                );
            } else if !p.has('\0', "ignore-existing") && !p.has('b', "backup") {
                let dest = (*dest).clone();
                self.overwrite_if_exists(&dest, source);
            }
        }
    }

    fn curl(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "dFTXoHuAeErbcKwmxYyzCQUP",
            &[
                "data",
                "data-binary",
                "data-raw",
                "data-urlencode",
                "data-ascii",
                "form",
                "form-string",
                "upload-file",
                "request",
                "output",
                "json",
                "header",
                "user",
                "user-agent",
                "referer",
                "cookie",
                "cookie-jar",
                "config",
                "max-time",
                "connect-timeout",
                "proxy",
                "url",
                "write-out",
                "retry",
                "cacert",
                "cert",
                "key",
                "resolve",
                "range",
            ],
            false,
        );
        let method = p
            .value("X")
            .or_else(|| p.value("request"))
            .map(|v| v.text().to_ascii_uppercase());
        let get = p.has('G', "get");
        let sends = !get
            && [
                "d",
                "data",
                "data-binary",
                "data-raw",
                "data-urlencode",
                "data-ascii",
                "F",
                "form",
                "form-string",
                "T",
                "upload-file",
                "json",
            ]
            .iter()
            .any(|k| p.value(k).is_some())
            || matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE"));
        let sends = sends
            || (get && matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE")));
        if sends {
            self.plain(EffectKind::Send, source);
        }
        for out in p
            .values_of("o")
            .chain(p.values_of("output"))
            .cloned()
            .collect::<Vec<_>>()
        {
            if out.text() != "-" && out.text() != "/dev/null" {
                self.overwrite_if_exists(&out, source);
            }
        }
        if p.has('O', "remote-name") {
            for url in &p.operands {
                let name = url
                    .text()
                    .split(['?', '#'])
                    .next()
                    .unwrap_or_default()
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if !name.is_empty() {
                    self.overwrite_if_exists(&Arg::literal(&name), source);
                }
            }
        }
    }

    fn wget(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "OoaPeUtTwi",
            &[
                "output-document",
                "post-data",
                "post-file",
                "method",
                "body-data",
                "body-file",
                "directory-prefix",
                "user-agent",
                "header",
                "tries",
                "timeout",
                "input-file",
            ],
            false,
        );
        let method = p.value("method").map(|v| v.text().to_ascii_uppercase());
        if p.value("post-data").is_some()
            || p.value("post-file").is_some()
            || p.value("body-data").is_some()
            || p.value("body-file").is_some()
            || matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE"))
        {
            self.plain(EffectKind::Send, source);
        }
        if let Some(out) = p.value("O").or_else(|| p.value("output-document")).cloned()
            && out.text() != "-"
            && out.text() != "/dev/null"
        {
            self.overwrite_if_exists(&out, source);
        }
    }

    fn tar(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "fCTXbN",
            &[
                "file",
                "directory",
                "files-from",
                "exclude-from",
                "blocking-factor",
                "newer",
            ],
            false,
        );
        // Old-style bundled first argument: `tar czf out.tgz …`.
        let bundle = rest
            .first()
            .filter(|a| !a.text().starts_with('-'))
            .map(|a| a.text().to_string())
            .unwrap_or_default();
        let flag = |c: char, long: &str| p.has(c, long) || bundle.contains(c);
        if p.has('\0', "remove-files") {
            self.unknown(EffectKind::Delete, "the files added to the archive", source);
        }
        let extracting = flag('x', "extract") || p.has('\0', "get");
        // GNU tar replaces existing files when extracting unless told to keep them; a
        // folder that does not exist yet (`mkdir d && tar -x … -C d`) holds nothing.
        let keeps = flag('k', "keep-old-files")
            || p.has('\0', "skip-old-files")
            || p.has('\0', "keep-newer-files");
        if extracting && !keeps {
            let into = p.value("C").or_else(|| p.value("directory")).cloned();
            let fresh = into.as_ref().is_some_and(|d| {
                matches!(
                    self.path_target(d),
                    Target::Path {
                        exists: Existence::Missing,
                        ..
                    }
                )
            });
            if !fresh {
                let place = into
                    .map(|d| d.text().to_string())
                    .or_else(|| self.cwd.as_ref().map(|c| c.display().to_string()))
                    .unwrap_or_else(|| "the current folder".into());
                self.unknown(
                    EffectKind::Overwrite,
                    format!("files in {place} that the archive also contains"),
                    source,
                );
            }
        }
        let creating = flag('c', "create");
        if creating {
            let archive = p
                .value("f")
                .or_else(|| p.value("file"))
                .cloned()
                .or_else(|| {
                    if bundle.contains('f') {
                        p.operands.get(1).map(|a| (*a).clone())
                    } else {
                        None
                    }
                });
            if let Some(a) = archive.filter(|a| a.text() != "-") {
                self.overwrite_if_exists(&a, source);
            }
        }
    }

    fn git(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "Cc",
            &[
                "git-dir",
                "work-tree",
                "namespace",
                "exec-path",
                "config-env",
                "super-prefix",
            ],
            true,
        );
        let args = &rest[p.rest.min(rest.len())..];
        let Some(sub) = args.first().map(|a| a.text().to_string()) else {
            return;
        };
        let sub_args = &args[1..];
        let sp = parse(sub_args, "", &[], false);
        let has = |s: &str| sub_args.iter().any(|a| a.text() == s);
        let shorts = |c: char| sp.shorts.contains(c);
        let first = sub_args.first().map(Arg::text);
        let forced = shorts('f') || has("--force");
        let new_branch = shorts('b') || shorts('B') || has("--orphan");
        // (kind, what) of the one effect this sub-command has, if any.
        let effect: Option<(EffectKind, &str)> = match sub.as_str() {
            "clean" if !(shorts('n') || has("--dry-run")) => {
                Some((EffectKind::Delete, "untracked files in the repository"))
            }
            "reset" if has("--hard") || has("--merge") || has("--keep") => {
                Some((EffectKind::History, "uncommitted changes"))
            }
            // `git checkout <commit> <path>…` restores paths over the working copy.
            "checkout"
                if has("--")
                    || has(".")
                    || forced
                    || shorts('p')
                    || has("--patch")
                    || has("--theirs")
                    || has("--ours")
                    || (!new_branch && sp.operands.len() >= 2) =>
            {
                Some((
                    EffectKind::History,
                    "uncommitted changes to the named files",
                ))
            }
            "restore" if !(has("--staged") || shorts('S')) || has("--worktree") || shorts('W') => {
                Some((
                    EffectKind::History,
                    "uncommitted changes to the named files",
                ))
            }
            "switch" if has("--discard-changes") || forced => {
                Some((EffectKind::History, "uncommitted changes"))
            }
            "push"
                if shorts('f')
                    || shorts('d')
                    || sub_args.iter().any(|a| {
                        let t = a.text();
                        matches!(
                            t,
                            "--force" | "--force-if-includes" | "--mirror" | "--delete" | "--prune"
                        ) || t.starts_with("--force-with-lease")
                            || (!t.starts_with('-') && (t.starts_with('+') || t.starts_with(':')))
                    }) =>
            {
                Some((EffectKind::History, "commits or branches on the remote"))
            }
            "branch"
                if shorts('D')
                    || shorts('M')
                    || shorts('C')
                    || ((has("--delete") || shorts('d')) && forced) =>
            {
                Some((EffectKind::History, "a branch"))
            }
            "stash" if matches!(first, Some("drop" | "clear")) => {
                Some((EffectKind::History, "stashed changes"))
            }
            "rm" if !has("--cached") && !shorts('n') && !has("--dry-run") => {
                let ops: Vec<&Arg> = sp.operands.clone();
                self.each_path(EffectKind::Delete, &ops, source, None);
                None
            }
            "gc" if sub_args.iter().any(|a| a.text().starts_with("--prune")) => {
                Some((EffectKind::History, "unreachable commits"))
            }
            "prune" | "filter-branch" | "filter-repo" => {
                Some((EffectKind::History, "repository history"))
            }
            "reflog" if matches!(first, Some("expire" | "delete")) => Some((
                EffectKind::History,
                "the reflog (the safety net for lost commits)",
            )),
            "update-ref" if shorts('d') => Some((EffectKind::History, "a reference")),
            "worktree" if first == Some("prune") || (first == Some("remove") && forced) => Some((
                EffectKind::History,
                "a worktree and its uncommitted changes",
            )),
            "tag" if shorts('d') || has("--delete") || forced => {
                Some((EffectKind::History, "a tag"))
            }
            "submodule" if has("deinit") && forced => {
                Some((EffectKind::History, "submodule working trees"))
            }
            "send-email" | "imap-send" => Some((EffectKind::Send, "")),
            "config"
                if (has("--global") || has("--system"))
                    && (sp.operands.len() >= 2
                        || has("--unset")
                        || has("--unset-all")
                        || has("--replace-all")
                        || has("--add")) =>
            {
                Some((EffectKind::SystemConfig, ""))
            }
            _ => None,
        };
        if let Some((kind, what)) = effect {
            let target = if what.is_empty() {
                Target::None
            } else {
                Target::Unknown(what.to_string())
            };
            self.push(kind, target, source.to_string(), None);
        }
    }

    fn sql(&mut self, rest: &[Arg], stdin: &Stdin, source: &str) {
        let p = parse(
            rest,
            "cefdhUpPsv",
            &[
                "command", "execute", "file", "dbname", "host", "username", "port", "set",
                "variable",
            ],
            false,
        );
        let mut texts: Vec<String> = Vec::new();
        for key in ["c", "command", "e", "execute"] {
            for v in p.values_of(key) {
                match &v.lit {
                    Some(s) => texts.push(s.clone()),
                    None => {
                        self.opaque(source, "the SQL is only known when the command runs");
                        return;
                    }
                }
            }
        }
        // sqlite3 DB "SQL…"
        if p.operands.len() >= 2 {
            for op in &p.operands[1..] {
                match &op.lit {
                    Some(s) => texts.push(s.clone()),
                    None => {
                        self.opaque(source, "the SQL is only known when the command runs");
                        return;
                    }
                }
            }
        }
        let reads_stdin = texts.is_empty() && p.value("f").is_none() && p.value("file").is_none();
        if reads_stdin {
            match stdin {
                Stdin::Literal(s) => texts.push(s.clone()),
                Stdin::Unknown => {
                    self.opaque(
                        source,
                        "it reads SQL from its input, which cannot be checked",
                    );
                    return;
                }
                Stdin::Closed => {}
            }
        }
        if let Some(kw) = texts.iter().find_map(|t| script::sql_write_keyword(t)) {
            self.unknown(
                EffectKind::Overwrite,
                format!("data in the database ({kw})"),
                source,
            );
        }
    }

    fn osascript(&mut self, rest: &[Arg], stdin: &Stdin, source: &str, depth: usize) {
        let p = parse(rest, "els", &[], false);
        if p.value("l")
            .is_some_and(|l| !l.text().eq_ignore_ascii_case("applescript"))
        {
            self.opaque(source, "JavaScript for Automation cannot be checked");
            return;
        }
        let mut scripts: Vec<String> = Vec::new();
        for e in p.values_of("e") {
            match &e.lit {
                Some(s) => scripts.push(s.clone()),
                None => {
                    self.opaque(
                        source,
                        "the AppleScript is only known when the command runs",
                    );
                    return;
                }
            }
        }
        if scripts.is_empty() {
            match p.operands.first() {
                Some(file) => match file
                    .fixed()
                    .and_then(|f| text::resolve(f, self.cwd.as_deref()))
                {
                    Some(path) => match self.scope.fs.read_script(&path) {
                        Some(s) => scripts.push(s),
                        None => {
                            self.opaque(source, "the AppleScript file cannot be read");
                            return;
                        }
                    },
                    None => {
                        self.opaque(
                            source,
                            "the AppleScript file is only known when the command runs",
                        );
                        return;
                    }
                },
                None => match stdin {
                    Stdin::Literal(s) => scripts.push(s.clone()),
                    Stdin::Unknown => {
                        self.opaque(
                            source,
                            "it runs AppleScript from its input, which cannot be checked",
                        );
                        return;
                    }
                    Stdin::Closed => {}
                },
            }
        }
        let code = scripts.join("\n");
        script::applescript_effects(self, &code, depth + 1);
    }

    fn shell_string(&mut self, cmd: &Arg, depth: usize, source: &str) {
        match &cmd.lit {
            Some(s) => self.script(s, depth + 1),
            None => self.opaque(source, "the shell command is only known when it runs"),
        }
    }

    fn shell(&mut self, rest: &[Arg], stdin: &Stdin, source: &str, depth: usize) {
        let p = parse(rest, "oO", &["rcfile", "init-file"], true);
        if p.shorts.contains('c') {
            match rest.get(p.rest) {
                Some(cmd) => {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, source);
                }
                None => self.opaque(source, "a shell with -c but no command"),
            }
            return;
        }
        if let Some(file) = rest.get(p.rest)
            && !p.shorts.contains('s')
        {
            let file = file.clone();
            self.run_script_file(&file, source, depth);
            return;
        }
        match stdin {
            Stdin::Literal(s) => {
                let s = s.clone();
                self.script(&s, depth + 1);
            }
            Stdin::Unknown => self.opaque(source, "a shell runs commands it reads from its input"),
            Stdin::Closed => {}
        }
    }

    fn run_script_file(&mut self, file: &Arg, source: &str, depth: usize) {
        let path = file
            .fixed()
            .and_then(|f| text::resolve(f, self.cwd.as_deref()));
        match path.and_then(|p| self.scope.fs.read_script(&p)) {
            Some(text) => {
                let saved = self.cwd.clone();
                self.script(&text, depth + 1);
                self.cwd = saved;
            }
            None => self.opaque(
                source,
                format!("it runs the script {}, which cannot be read", file.text()),
            ),
        }
    }

    fn interpreter(
        &mut self,
        name: &str,
        rest: &[Arg],
        stdin: &Stdin,
        source: &str,
        extra: Option<&str>,
        depth: usize,
    ) {
        // Inline code: python -c, perl -e/-E, ruby -e, node -e/-p, php -r.
        let code_flags: &[&str] = match name {
            n if n.starts_with("python") => &["-c"],
            "perl" => &["-e", "-E"],
            "ruby" => &["-e"],
            "node" | "nodejs" | "deno" | "bun" => &["-e", "-p", "--eval", "--print", "eval"],
            "php" => &["-r"],
            "lua" => &["-e"],
            "rscript" => &["-e"],
            _ => &[],
        };
        // `perl -i` edits files in place.
        if name == "perl" {
            // `-i` in a flag cluster (`-pi`, `-i -pe`), without a backup suffix (`-i.bak`).
            let in_place = rest.iter().any(|a| {
                let t = a.text();
                let Some(flags) = t.strip_prefix('-') else {
                    return false;
                };
                !flags.starts_with(['-', 'M', 'm', 'I'])
                    && flags.contains('i')
                    && flags.chars().all(|c| "lnpaisweEcdtTuUvW0".contains(c))
                    && !flags.ends_with("i.")
            });
            if in_place {
                let files: Vec<&Arg> = rest
                    .iter()
                    .filter(|a| !a.text().starts_with('-'))
                    .skip(1)
                    .collect();
                self.each_path(EffectKind::Overwrite, &files, source, extra);
            }
        }
        let mut i = 0;
        let mut saw_code = false;
        while i < rest.len() {
            let t = rest[i].text();
            // Bundled flags such as `perl -pe CODE` or `python -Bc CODE`.
            let takes_code = code_flags.contains(&t)
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && code_flags
                        .iter()
                        .any(|f| f.len() == 2 && t.ends_with(&f[1..]))
                    && t.len() <= 5);
            if takes_code {
                saw_code = true;
                if let Some(code) = rest.get(i + 1) {
                    match &code.lit {
                        Some(c) => {
                            if let Some(found) = script::scan_code(c) {
                                self.opaque(source, format!("the {name} code uses `{found}`"));
                            }
                        }
                        None => self.opaque(
                            source,
                            format!("the {name} code is only known when it runs"),
                        ),
                    }
                }
                i += 2;
                continue;
            }
            if name.starts_with("python") && matches!(t, "-W" | "-X" | "-Q") {
                i += 2;
                continue;
            }
            if name.starts_with("python") && t == "-m" {
                // `python -m pip uninstall x`: the module runs with the rest.
                if i + 1 < rest.len() {
                    self.argv(&rest[i + 1..], stdin, extra, depth);
                }
                return;
            }
            if !t.starts_with('-') {
                if saw_code {
                    return; // remaining words are the code's arguments
                }
                let file = rest[i].clone();
                let path = file
                    .fixed()
                    .and_then(|f| text::resolve(f, self.cwd.as_deref()));
                match path.and_then(|p| self.scope.fs.read_script(&p)) {
                    Some(code) => {
                        if let Some(found) = script::scan_code(&code) {
                            self.opaque(
                                source,
                                format!("the script {} uses `{found}`", file.text()),
                            );
                        }
                    }
                    None => self.opaque(
                        source,
                        format!("it runs the script {}, which cannot be read", file.text()),
                    ),
                }
                return;
            }
            i += 1;
        }
        if !saw_code {
            match stdin {
                Stdin::Literal(code) => {
                    if let Some(found) = script::scan_code(code) {
                        self.opaque(source, format!("the {name} code uses `{found}`"));
                    }
                }
                Stdin::Unknown => {
                    self.opaque(source, format!("{name} runs code it reads from its input"))
                }
                Stdin::Closed => {}
            }
        }
    }

    fn env(
        &mut self,
        rest: &[Arg],
        stdin: &Stdin,
        extra: Option<&str>,
        depth: usize,
        source: &str,
    ) {
        let p = parse(
            rest,
            "uCSP",
            &[
                "unset",
                "chdir",
                "split-string",
                "default-signal",
                "ignore-signal",
                "block-signal",
            ],
            true,
        );
        if let Some(split) = p.value("S").or_else(|| p.value("split-string")) {
            // `env -S 'rm -rf x'`: the string is split into words and run with the rest.
            match &split.lit {
                Some(s) => {
                    let tail = rest.get(p.rest..).map(joined).unwrap_or_default();
                    let cmd = format!("{s} {tail}");
                    self.script(&cmd, depth + 1);
                }
                None => self.opaque(source, "env -S runs a string only known when it runs"),
            }
            return;
        }
        let mut start = p.rest;
        while start < rest.len()
            && rest[start].text().contains('=')
            && !rest[start].text().starts_with('=')
        {
            start += 1;
        }
        if p.value("C").is_some() || p.value("chdir").is_some() {
            let saved = self.cwd.clone();
            self.cwd = None;
            self.wrapped(rest, start, stdin, extra, depth);
            self.cwd = saved;
        } else {
            self.wrapped(rest, start, stdin, extra, depth);
        }
    }

    fn find(&mut self, rest: &[Arg], source: &str, depth: usize) {
        // Leading -H/-L/-P/-O/-D options, then start paths, then the expression.
        let mut i = 0;
        while i < rest.len()
            && matches!(
                rest[i].text(),
                "-H" | "-L" | "-P" | "-E" | "-X" | "-d" | "-s" | "-x"
            )
        {
            i += 1;
        }
        let start = i;
        while i < rest.len()
            && !rest[i].text().starts_with('-')
            && !matches!(rest[i].text(), "(" | "!" | ")")
        {
            i += 1;
        }
        let roots: Vec<String> = rest[start..i]
            .iter()
            .map(|a| a.text().to_string())
            .collect();
        let place = if roots.is_empty() {
            ".".to_string()
        } else {
            roots.join(", ")
        };
        let matched = format!("every file find matches under {place}");
        while i < rest.len() {
            let t = rest[i].text();
            match t {
                "-delete" => {
                    self.push(
                        EffectKind::Delete,
                        Target::Unknown(matched.clone()),
                        source.to_string(),
                        None,
                    );
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let end = rest[i + 1..]
                        .iter()
                        .position(|a| matches!(a.text(), ";" | "+"))
                        .map(|p| i + 1 + p)
                        .unwrap_or(rest.len());
                    let inner: Vec<Arg> = rest[i + 1..end]
                        .iter()
                        .filter(|a| a.text() != "{}")
                        .cloned()
                        .collect();
                    let saved = self.cwd.clone();
                    if t.ends_with("dir") {
                        self.cwd = None;
                    }
                    if inner.is_empty() {
                        self.opaque(source, "find runs a command it does not name");
                    } else {
                        self.argv(&inner, &Stdin::Closed, Some(&matched), depth);
                    }
                    self.cwd = saved;
                    i = end;
                }
                "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                    if let Some(f) = rest.get(i + 1) {
                        let f = f.clone();
                        self.write_target(&f, t);
                    }
                    i += 1;
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn ssh(&mut self, rest: &[Arg], source: &str, depth: usize) {
        let p = parse(rest, "bcDEeFIiJLlmOopQRSWwB", &[], true);
        if p.value("E").is_some() {
            // A log file only; harmless enough to ignore here.
        }
        let Some(host) = rest.get(p.rest).map(|a| a.text().to_string()) else {
            return;
        };
        let cmd_args = rest.get(p.rest + 1..).unwrap_or(&[]);
        if cmd_args.is_empty() {
            return;
        }
        if cmd_args.iter().any(|a| a.lit.is_none()) {
            self.opaque(
                source,
                format!("the command for {host} is only known when it runs"),
            );
            return;
        }
        let cmd = joined(cmd_args);
        let saved = (self.cwd.clone(), self.remote.clone());
        self.cwd = None;
        self.remote = Some(host);
        self.script(&cmd, depth + 1);
        (self.cwd, self.remote) = saved;
    }

    /// Programs without a rule: dangerous sub-commands and `-o FILE` onto an existing
    /// file.
    fn generic(&mut self, name: &str, rest: &[Arg], source: &str) {
        if READ_ONLY.contains(&name) {
            return;
        }
        let p = parse(
            rest,
            "",
            &["output", "output-file", "outfile", "out"],
            false,
        );
        for (i, op) in p.operands.iter().take(3).enumerate() {
            let Some(word) = op.fixed() else { continue };
            if word.contains('/') || (word.contains('.') && i > 0) {
                continue;
            }
            if let Some(kind) = subcommand_effect(&word.to_ascii_lowercase()) {
                let what = match kind {
                    EffectKind::Delete => format!("what `{name} {word}` removes"),
                    EffectKind::Overwrite => format!("what `{name} {word}` resets"),
                    _ => String::new(),
                };
                let target = if what.is_empty() {
                    Target::None
                } else {
                    Target::Unknown(what)
                };
                self.push(kind, target, source.to_string(), None);
                break;
            }
        }
        if !COMPILERS.contains(&name) {
            let outputs: Vec<Arg> = ["output", "output-file", "outfile", "out"]
                .iter()
                .flat_map(|k| p.values_of(k))
                .cloned()
                .collect();
            let mut outputs = outputs;
            // `-o FILE` (short form, value in the next word).
            for w in rest.windows(2) {
                if w[0].text() == "-o" {
                    outputs.push(w[1].clone());
                }
            }
            for out in outputs {
                if out
                    .fixed()
                    .is_some_and(|s| !s.starts_with('-') && s != "/dev/null")
                {
                    self.overwrite_if_exists(&out, source);
                }
            }
        }
    }
}
