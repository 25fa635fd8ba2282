//! What each program does with its arguments: the verb table of Law 1.
//!
//! Wrappers (`sudo`, `env`, `nohup`, `time`, `nice`, `command`, `timeout`, `xargs`,
//! `find -exec`, `ssh`, …) are seen through to the command they run; shells and `eval`
//! have their strings parsed again; interpreters have their inline code scanned.

use std::path::Path;

use super::known::{self, Known};
use super::script;
use super::shell::{Arg, Stdin, Walker};
use super::text;
use super::{EffectKind, Existence, Target};

/// Folders where installed programs live: a program named by a path in one of them is
/// that program; any other path is a local file whose content decides.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
    "/opt/homebrew/sbin/",
    "/usr/libexec/",
];

/// Environment variables that make programs run other code (pagers, editors, hooks,
/// preloaded libraries, start-up files) or look programs up elsewhere.
pub(super) fn is_code_variable(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "BASH_ENV"
            | "ENV"
            | "PROMPT_COMMAND"
            | "PAGER"
            | "MANPAGER"
            | "GIT_PAGER"
            | "EDITOR"
            | "VISUAL"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PYTHONSTARTUP"
            | "PYTHONPATH"
            | "PYTHONHOME"
            | "NODE_OPTIONS"
            | "NODE_PATH"
            | "PERL5OPT"
            | "PERL5LIB"
            | "RUBYOPT"
            | "RUBYLIB"
            | "CDPATH"
            | "TMUX"
            | "SSH_AUTH_SOCK"
    ) || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_")
        || name.starts_with("BASH_FUNC_")
}

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
        "send" | "publish" | "upload" | "unpublish" | "deprecate" => Some(EffectKind::Send),
        "reset" => Some(EffectKind::Overwrite),
        _ => None,
    }
}

/// Files and folders whose change alters how the computer or the shell behaves: system
/// folders, the home folder's dot-files and dot-folders (shell start-up files, `~/.ssh`,
/// `~/.config`), `~/bin`, launch agents and login items, and any repository's hooks and
/// configuration (both run commands). Writing there is never free, new files included.
pub fn is_sensitive_path(path: &Path, home: &Path) -> bool {
    const SYSTEM: &[&str] = &[
        "/etc",
        "/private/etc",
        "/Library",
        "/System",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/boot",
        "/opt",
        "/var/spool/cron",
        "/var/at",
        "/var/db",
        "/dev",
        "/proc",
        "/sys",
    ];
    if SYSTEM.iter().any(|p| path.starts_with(p)) {
        return true;
    }
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if comps
        .windows(2)
        .any(|w| w[0] == ".git" && matches!(w[1].as_str(), "hooks" | "config"))
    {
        return true;
    }
    if let Ok(rest) = path.strip_prefix(home) {
        let mut comps = rest.components();
        if let Some(first) = comps.next() {
            let first = first.as_os_str().to_string_lossy();
            if first.starts_with('.') || first == "bin" {
                return true;
            }
            if first == "Library" {
                let second = comps
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .unwrap_or_default();
                let third = comps
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .unwrap_or_default();
                return matches!(
                    second.as_str(),
                    "LaunchAgents" | "LaunchDaemons" | "Preferences" | "StartupItems"
                ) || (second == "Application Support"
                    && third.starts_with("com.apple.backgroundtaskmanagement"));
            }
        }
    }
    false
}

/// Programs that can send data off this computer.
fn is_sender(name: &str) -> bool {
    matches!(
        name,
        "curl"
            | "wget"
            | "nc"
            | "ncat"
            | "netcat"
            | "socat"
            | "telnet"
            | "ssh"
            | "scp"
            | "sftp"
            | "rsync"
            | "gh"
            | "http"
            | "https"
            | "xh"
            | "xhs"
            | "mail"
            | "mailx"
            | "sendmail"
            | "mutt"
            | "msmtp"
            | "swaks"
            | "ftp"
            | "lftp"
            | "git"
            | "aws"
            | "gsutil"
            | "rclone"
            | "s3cmd"
            | "openssl"
            | "python"
            | "python3"
            | "node"
            | "perl"
            | "ruby"
            | "php"
            | "pbcopy"
    )
}

/// Files that hold credentials: private keys, cloud and API tokens, password stores.
pub(crate) fn is_secret_path(path: &Path, home: &Path) -> bool {
    let s = path.to_string_lossy();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let in_home = |rel: &str| path.starts_with(home.join(rel));
    (in_home(".ssh")
        && (name.starts_with("id_") || name.contains("key"))
        && !name.ends_with(".pub"))
        || in_home(".aws")
        || in_home(".gnupg")
        || in_home(".netrc")
        || in_home(".config/gh")
        || in_home(".docker/config.json")
        || in_home(".kube")
        || in_home(".git-credentials")
        || in_home("Library/Keychains")
        || name.ends_with(".pem") && s.contains("private")
        || name.ends_with(".key")
        || name == ".env"
        || name == "credentials"
}

/// The first word that is not an option: the sub-command of tools that have them.
fn first_operand(args: &[Arg]) -> &str {
    args.iter()
        .map(Arg::text)
        .find(|t| !t.starts_with('-'))
        .unwrap_or_default()
}

/// `find` tests and options that take one value.
fn find_takes_value(t: &str) -> bool {
    matches!(
        t,
        "-name"
            | "-iname"
            | "-path"
            | "-ipath"
            | "-wholename"
            | "-iwholename"
            | "-regex"
            | "-iregex"
            | "-regextype"
            | "-type"
            | "-xtype"
            | "-size"
            | "-mtime"
            | "-mmin"
            | "-atime"
            | "-amin"
            | "-ctime"
            | "-cmin"
            | "-newer"
            | "-anewer"
            | "-cnewer"
            | "-perm"
            | "-user"
            | "-group"
            | "-uid"
            | "-gid"
            | "-links"
            | "-inum"
            | "-samefile"
            | "-maxdepth"
            | "-mindepth"
            | "-fstype"
            | "-lname"
            | "-ilname"
            | "-used"
            | "-printf"
            | "-context"
            | "-files0-from"
            | "-Bmin"
            | "-Btime"
            | "-Bnewer"
    ) || (t.starts_with("-newer") && t.len() == 8)
}

/// `find` tests, actions and operators without a value that change nothing.
fn find_flag(t: &str) -> bool {
    matches!(
        t,
        "-print"
            | "-print0"
            | "-ls"
            | "-prune"
            | "-quit"
            | "-depth"
            | "-follow"
            | "-xdev"
            | "-mount"
            | "-daystart"
            | "-empty"
            | "-readable"
            | "-writable"
            | "-executable"
            | "-nouser"
            | "-nogroup"
            | "-true"
            | "-false"
            | "-not"
            | "-and"
            | "-a"
            | "-or"
            | "-o"
            | "!"
            | "("
            | ")"
            | ","
            | "-noleaf"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-d"
            | "-s"
            | "-x"
            | "-E"
            | "-L"
            | "-H"
            | "-P"
            | "-help"
            | "--help"
            | "-version"
            | "--version"
    )
}

/// Sub-commands of package managers that only report on what is installed.
fn package_query(tool: &str, sub: &str) -> bool {
    match tool {
        "apt" | "apt-get" => matches!(
            sub,
            "list" | "show" | "search" | "policy" | "depends" | "rdepends" | "showpkg"
        ),
        "brew" => matches!(
            sub,
            "list"
                | "ls"
                | "info"
                | "deps"
                | "leaves"
                | "config"
                | "--prefix"
                | "--cellar"
                | "--repository"
                | "desc"
                | "uses"
                | "--version"
                | "commands"
        ),
        "pip" | "pip3" => matches!(sub, "list" | "show" | "freeze" | "check" | "help" | "debug"),
        "npm" | "pnpm" | "yarn" => matches!(
            sub,
            "ls" | "list" | "ll" | "la" | "root" | "prefix" | "bin" | "help"
        ),
        "gem" => matches!(
            sub,
            "list" | "specification" | "contents" | "which" | "env" | "help"
        ),
        "conda" | "mamba" => matches!(sub, "list" | "info" | "help"),
        _ => false,
    }
}

/// How `copy_like` treats its sources and an existing destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transfer {
    Copy,
    Move,
    /// `ln` without `-f`: an existing destination makes it fail, never replaced.
    LinkNoForce,
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
            self.unproven(
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
        if known::is_help_probe(&name, rest) {
            return;
        }
        if is_sender(&name) {
            self.senders.push(name.clone());
        }
        for (i, a) in rest.iter().enumerate() {
            let t = a.text();
            // A key ssh and its kin authenticate with is not sent.
            let identity = i > 0 && rest[i - 1].text() == "-i" || t.contains("IdentityFile");
            if identity {
                continue;
            }
            // `-d @FILE`, `--data=@FILE`, `-T FILE`: the file name after any prefix.
            let named = t.rsplit(['@', '=']).next().unwrap_or(t);
            if let Some(path) = text::resolve(named, self.cwd.as_deref())
                && is_secret_path(&path, self.scope.home)
            {
                self.secrets.push(path.display().to_string());
            }
        }
        // `./tool`, `~/bin/x`: a local file, whatever its name; its content decides.
        if name_lit.contains('/') && !SYSTEM_BIN_DIRS.iter().any(|d| name_lit.starts_with(d)) {
            self.local_program(name_lit, &name, rest, &source, depth);
            return;
        }
        if self.functions.contains(&name) {
            // A function defined earlier in this command: its body was walked there.
            return;
        }
        if self.path_changed {
            self.unproven(
                &source,
                "the command changed PATH, a program name or a variable programs obey, so this name may run something else",
            );
        }
        self.program(&name, rest, stdin, extra, depth, source.clone());
        match known::known(&name) {
            None if is_shell(&name) || is_interpreter(&name) => {}
            None => self.unproven(
                &source,
                format!("`{name}` is not a program artoo knows, so what it does cannot be checked"),
            ),
            Some(Known::Rule) => {}
            Some(Known::Reader) => self.network_lookup(&name, rest),
            Some(Known::Options(o)) => {
                if let Some(opt) = known::unknown_options(&o, rest) {
                    self.unproven(
                        &source,
                        format!("`{name}` was given an option artoo does not know ({opt})"),
                    );
                } else {
                    self.network_lookup(&name, rest);
                }
            }
        }
    }

    /// `ping`, `dig`, `whois`…: a lookup that needs the network, proven when its words
    /// are all known before it runs.
    fn network_lookup(&mut self, name: &str, rest: &[Arg]) {
        if known::NETWORK_READERS.contains(&name)
            && !matches!(name, "curl" | "wget")
            && rest.iter().all(|a| a.lit.is_some())
        {
            self.network = true;
        }
    }

    /// The effects of one program with its arguments, by the rules of this module.
    fn program(
        &mut self,
        name: &str,
        rest: &[Arg],
        stdin: &Stdin,
        extra: Option<&str>,
        depth: usize,
        source: String,
    ) {
        let name = name.to_string();
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
                    if target_arg.fixed().is_some_and(|t| {
                        t.starts_with("/dev/")
                            && !matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr")
                    }) {
                        self.plain(EffectKind::Format, &source);
                    } else {
                        self.write_target(&target_arg, "dd of=");
                    }
                }
                let understood = rest.iter().all(|a| {
                    a.fixed()
                        .and_then(|t| t.split_once('='))
                        .is_some_and(|(k, _)| {
                            matches!(
                                k,
                                "if" | "of"
                                    | "bs"
                                    | "ibs"
                                    | "obs"
                                    | "cbs"
                                    | "count"
                                    | "skip"
                                    | "seek"
                                    | "iseek"
                                    | "oseek"
                                    | "conv"
                                    | "status"
                                    | "iflag"
                                    | "oflag"
                            )
                        })
                });
                if !understood {
                    self.unproven(&source, "dd was given an operand artoo does not know");
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
                } else if rest.iter().any(|a| a.text().eq_ignore_ascii_case("force")) {
                    // A forced unmount or eject drops what programs had not saved.
                    self.plain(EffectKind::SystemConfig, source);
                }
            }
            "cp" | "install" | "ditto" | "gcp" => {
                self.copy_like(rest, &source, extra, Transfer::Copy)
            }
            "mv" | "gmv" => self.copy_like(rest, &source, extra, Transfer::Move),
            "ln" => {
                let p = parse(rest, "tS", &["target-directory", "suffix"], false);
                let how = if p.has('f', "force") || p.has('\0', "remove-destination") {
                    Transfer::Copy
                } else {
                    Transfer::LinkNoForce
                };
                self.copy_like(rest, &source, extra, how);
            }
            "rsync" => self.rsync(rest, &source),
            "scp" => {
                let p = parse(rest, "cFiJlPoS", &[], false);
                if let Some(dest) = p.operands.last().filter(|_| p.operands.len() >= 2) {
                    if dest.text().contains(':') && !dest.text().starts_with('/') {
                        self.unproven(
                            &source,
                            format!("it copies to {}, another computer", dest.text()),
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
                    "fvFiEl",
                    &[
                        "file",
                        "assign",
                        "field-separator",
                        "include",
                        "exec",
                        "load",
                    ],
                    false,
                );
                let in_place = p.values_of("i").any(|v| v.text() == "inplace")
                    || p.values_of("include").any(|v| v.text() == "inplace");
                let program_file = p.value("f").or_else(|| p.value("file")).is_some()
                    || p.value("E").or_else(|| p.value("exec")).is_some();
                let files: &[&Arg] = if program_file {
                    &p.operands
                } else {
                    p.operands.get(1..).unwrap_or(&[])
                };
                if in_place {
                    self.each_path(EffectKind::Overwrite, files, &source, extra);
                }
                let known_opts = rest.iter().all(|a| {
                    let t = a.text();
                    !t.starts_with('-')
                        || t == "--"
                        || t.starts_with("-v")
                        || t.starts_with("-F")
                        || t.starts_with("--assign")
                        || t.starts_with("--field-separator")
                        || matches!(t, "-f" | "-i" | "--file" | "--include" | "-E" | "--exec")
                });
                if program_file {
                    self.unproven(&source, "the awk program is in a file");
                } else if p
                    .values_of("i")
                    .chain(p.values_of("include"))
                    .any(|v| v.text() != "inplace")
                    || p.value("l").or_else(|| p.value("load")).is_some()
                {
                    self.unproven(&source, "awk loads code from a file");
                } else if !known_opts {
                    self.unproven(&source, "awk was given an option artoo does not know");
                }
                match p.operands.first().and_then(|a| a.lit.as_deref()) {
                    Some(program) if !program_file => {
                        let scan = script::scan_awk(program);
                        for file in scan.writes {
                            self.write_target(&Arg::literal(&file), "awk print >");
                        }
                        if let Some(why) = scan.unproven {
                            self.unproven(&source, why);
                        }
                    }
                    Some(_) => {}
                    None if program_file => {}
                    None => self.unproven(&source, "the awk program is only known when it runs"),
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
                } else {
                    // One file's permissions can be set back, but the sandbox keeps every
                    // existing file's as it is: not proven (a file made by this command
                    // is its own).
                    for op in p.operands.iter().skip(1) {
                        match self.path_target(op) {
                            Target::Path { path, .. } if self.created_here(&path) => {}
                            Target::Path {
                                exists: Existence::Missing,
                                ..
                            } => {}
                            _ => {
                                self.unproven(
                                    &source,
                                    format!("it changes who may use {}", op.text()),
                                );
                                break;
                            }
                        }
                    }
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
                match sub {
                    Some("write" | "delete" | "rename" | "import") => {
                        self.plain(EffectKind::SystemConfig, source)
                    }
                    Some("read" | "read-type" | "domains" | "find" | "help") => {}
                    _ => self.unproven(&source, "a `defaults` command artoo does not know"),
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
                        &source,
                    );
                } else if !matches!(
                    sub.as_str(),
                    "listbackups"
                        | "latestbackup"
                        | "destinationinfo"
                        | "status"
                        | "isexcluded"
                        | "compare"
                        | "listlocalsnapshots"
                        | "listlocalsnapshotdates"
                        | "machinedirectory"
                        | "version"
                        | "help"
                ) {
                    self.unproven(&source, format!("`tmutil {sub}` changes Time Machine"));
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
                ) || (matches!(sub.as_str(), "env" | "environment")
                    && p.operands
                        .get(1)
                        .is_some_and(|a| matches!(a.text(), "remove" | "delete" | "rm")))
                {
                    self.unknown(EffectKind::SystemConfig, "installed software", &source);
                } else if !package_query(&name, &sub) {
                    self.unproven(
                        &source,
                        format!(
                            "`{name} {sub}` changes or fetches software, which artoo does not check"
                        ),
                    );
                }
            }
            "apt-cache" => {
                let sub = rest.iter().map(Arg::text).find(|t| !t.starts_with('-'));
                if !matches!(
                    sub,
                    Some(
                        "search"
                            | "show"
                            | "showpkg"
                            | "policy"
                            | "depends"
                            | "rdepends"
                            | "stats"
                            | "pkgnames"
                            | "madison"
                            | "showsrc"
                    )
                ) {
                    self.unproven(&source, "an `apt-cache` command artoo does not know");
                }
            }
            "dpkg" | "rpm" | "pacman" => {
                let removes = rest.iter().any(|a| {
                    let t = a.text();
                    matches!(t, "-r" | "-P" | "--remove" | "--purge" | "-e" | "--erase")
                        || (name == "pacman" && t.starts_with("-R"))
                });
                let query = rest.first().is_some_and(|a| {
                    let t = a.text();
                    match name.as_str() {
                        "dpkg" => matches!(
                            t,
                            "-l" | "-L"
                                | "-s"
                                | "-S"
                                | "-c"
                                | "-I"
                                | "-p"
                                | "--list"
                                | "--listfiles"
                                | "--status"
                                | "--search"
                                | "--contents"
                                | "--info"
                                | "--print-avail"
                                | "--get-selections"
                                | "--print-architecture"
                                | "--audit"
                                | "-C"
                        ),
                        "rpm" => t.starts_with("-q") || t == "--query",
                        _ => t.starts_with("-Q"),
                    }
                });
                if removes {
                    self.unknown(EffectKind::SystemConfig, "installed software", source);
                } else if !query {
                    self.unproven(&source, format!("a `{name}` command artoo does not know"));
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
            "git" => self.git(rest, &source, stdin, depth),
            "docker" | "podman" | "nerdctl" | "docker-compose" => {
                let p = parse(
                    rest,
                    "HcL",
                    &["host", "context", "log-level", "config"],
                    false,
                );
                let ops: Vec<&str> = p.operands.iter().map(|a| a.text()).collect();
                let volumes = rest
                    .iter()
                    .any(|a| matches!(a.text(), "-v" | "--volumes" | "--rmi"));
                let destructive = match ops.as_slice() {
                    [first, ..] if matches!(*first, "rm" | "rmi" | "kill") => true,
                    [_, second, ..] if matches!(*second, "rm" | "prune" | "kill" | "reset") => true,
                    ["compose", "down", ..] | ["compose", _, "down", ..] if volumes => true,
                    ["down", ..] if volumes && name == "docker-compose" => true,
                    _ => false,
                };
                if destructive {
                    self.unknown(EffectKind::Delete, "containers, images or volumes", source);
                }
            }
            "kubectl" | "oc" | "helm" => {
                if let Some(i) = rest.iter().position(|a| a.text() == "--")
                    && rest.iter().any(|a| a.text() == "exec")
                {
                    let saved = (self.cwd.clone(), self.remote.clone());
                    self.cwd = None;
                    self.remote = Some("a container".into());
                    let inner = rest[i + 1..].to_vec();
                    self.argv(&inner, &Stdin::Closed, None, depth);
                    (self.cwd, self.remote) = saved;
                }
                if rest
                    .iter()
                    .any(|a| matches!(a.text(), "delete" | "drain" | "uninstall"))
                {
                    self.unknown(EffectKind::Delete, "cluster resources", source);
                }
            }
            "sqlite3" | "psql" | "mysql" | "mariadb" | "duckdb" => {
                self.sql(&name, rest, stdin, &source)
            }
            "dropdb" | "dropuser" | "mysqladmin"
                if name != "mysqladmin" || rest.iter().any(|a| a.text() == "drop") =>
            {
                self.unknown(EffectKind::Delete, "a database", &source)
            }
            "pg_restore" => {
                if rest.iter().any(|a| {
                    matches!(a.text(), "-c" | "--clean")
                        || (a.text().starts_with('-')
                            && !a.text().starts_with("--")
                            && a.text().contains('c'))
                }) {
                    self.unknown(
                        EffectKind::Delete,
                        "database objects it replaces (--clean)",
                        &source,
                    );
                }
            }
            "pg_dump" | "pg_dumpall" | "mysqldump" => {
                let p = parse(rest, "fdhpUn", &["file", "result-file"], false);
                if let Some(out) = p
                    .value("f")
                    .or_else(|| p.value("file"))
                    .or_else(|| p.value("result-file"))
                    .cloned()
                {
                    self.write_target(&out, "-f");
                }
            }
            "mongo" | "mongosh" => {
                let code = rest
                    .iter()
                    .filter_map(|a| a.lit.as_deref())
                    .collect::<Vec<_>>()
                    .join(" ");
                let lower = code.to_ascii_lowercase();
                if [
                    "drop",
                    "delete",
                    "remove(",
                    "deletemany",
                    "deleteone",
                    "update",
                    "insert",
                    "renamecollection",
                ]
                .iter()
                .any(|k| lower.contains(k))
                {
                    self.unknown(EffectKind::Overwrite, "data in the database", &source);
                }
            }
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
            "unzip" => self.unzip(rest, &source),
            "tar" | "gtar" | "bsdtar" => self.tar(rest, &source),
            "zip" => {
                let p = parse(
                    rest,
                    "bnitxiO",
                    &["temp-path", "suffixes", "unzip-command", "output-file"],
                    false,
                );
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
                        &source,
                    );
                }
                if rest
                    .iter()
                    .any(|a| matches!(a.text(), "-TT" | "--unzip-command"))
                {
                    self.unproven(&source, "zip runs a command to test the archive");
                }
                let out = p.value("O").or_else(|| p.value("output-file")).cloned();
                match out.or_else(|| p.operands.first().map(|a| (*a).clone())) {
                    // zip adds to an archive that exists: it is rewritten.
                    Some(archive) if archive.text() != "-" => self.write_target(&archive, "zip"),
                    _ => {}
                }
            }
            "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma"
            | "zstd" | "unzstd" | "lz4" | "compress" | "uncompress" => {
                self.compressor(&name, rest, &source)
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
                let sub = rest.first().map(Arg::text).unwrap_or_default();
                match sub {
                    "x" | "e" => {
                        let out = rest
                            .iter()
                            .find_map(|a| a.text().strip_prefix("-o").map(str::to_string));
                        let dir = out
                            .map(|d| Arg::literal(&d))
                            .unwrap_or_else(|| Arg::literal("."));
                        self.extraction_into(&dir, &source);
                    }
                    "a" | "u" | "d" | "rn" => {
                        if rest.iter().any(|a| a.text() == "-sdel") {
                            self.unknown(
                                EffectKind::Delete,
                                "the files added to the archive",
                                &source,
                            );
                        }
                        if let Some(archive) =
                            rest.iter().skip(1).find(|a| !a.text().starts_with('-'))
                        {
                            let archive = archive.clone();
                            self.write_target(&archive, "7z");
                        }
                    }
                    _ => {}
                }
            }
            "mkdir" | "touch" => {
                // New folders and files: free, and kept by the sandbox where they are.
                let p = parse(
                    rest,
                    if name == "mkdir" { "m" } else { "drt" },
                    &["mode", "date", "reference", "time"],
                    false,
                );
                for op in &p.operands {
                    match self.path_target(op) {
                        Target::Path {
                            path,
                            exists: Existence::Missing,
                        } => self.new_path(path, source.clone()),
                        Target::Path { .. } => {}
                        _ => self.unproven(
                            &source,
                            "what it creates is only known when the command runs",
                        ),
                    }
                }
            }
            "gh" => {
                // Creating, editing, merging, closing or commenting publishes on GitHub.
                let words: Vec<&str> = rest
                    .iter()
                    .map(Arg::text)
                    .filter(|t| !t.starts_with('-'))
                    .collect();
                let writes = words.iter().take(2).any(|w| {
                    matches!(
                        *w,
                        "create"
                            | "edit"
                            | "merge"
                            | "close"
                            | "reopen"
                            | "comment"
                            | "review"
                            | "delete"
                            | "upload"
                            | "fork"
                            | "rename"
                            | "archive"
                            | "transfer"
                            | "lock"
                            | "ready"
                            | "set"
                            | "sync"
                    )
                });
                if writes
                    || words.first() == Some(&"api")
                        && rest.iter().any(|a| {
                            matches!(
                                a.text(),
                                "-X" | "--method"
                                    | "-f"
                                    | "-F"
                                    | "--field"
                                    | "--raw-field"
                                    | "--input"
                            )
                        })
                {
                    self.plain(EffectKind::Send, &source);
                }
            }
            "journalctl" | "dmesg" => {
                let changes = rest.iter().any(|a| {
                    let t = a.text();
                    if name == "journalctl" {
                        t.starts_with("--vacuum")
                            || matches!(
                                t,
                                "--rotate"
                                    | "--flush"
                                    | "--sync"
                                    | "--relinquish-var"
                                    | "--setup-keys"
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
                    self.plain(EffectKind::SystemConfig, &source);
                }
            }
            "openssl" => {
                // `-out FILE` (and `-keyout`, `-signkey` writes for `req`) write files.
                for (i, a) in rest.iter().enumerate() {
                    if matches!(a.text(), "-out" | "-keyout")
                        && let Some(out) = rest.get(i + 1)
                    {
                        let out = out.clone();
                        self.write_target(&out, "openssl -out");
                    }
                }
            }
            "ssh-keygen" => {
                let reads = rest.iter().any(|a| {
                    matches!(
                        a.text(),
                        "-l" | "-y" | "-F" | "-H" | "-Q" | "-L" | "-lf" | "-B"
                    )
                });
                if rest.iter().any(|a| a.text() == "-R") {
                    self.unknown(EffectKind::SystemConfig, "known_hosts", &source);
                } else if !reads {
                    let p = parse(rest, "fbtCNnIVzsOPDZaMGKrwY", &[], false);
                    match p.value("f").cloned() {
                        Some(key) => {
                            self.write_target(&key, "ssh-keygen -f");
                            let public = Arg {
                                lit: key.lit.as_ref().map(|k| format!("{k}.pub")),
                                raw: format!("{}.pub", key.raw),
                                glob: key.glob,
                            };
                            self.write_target(&public, "ssh-keygen -f");
                        }
                        None => self.unproven(&source, "ssh-keygen writes a key where it asks"),
                    }
                }
            }
            "less" | "more" | "man" => {
                let runs = rest.iter().any(|a| {
                    let t = a.text();
                    (t.starts_with('+') && name != "man")
                        || (name == "man"
                            && (matches!(t, "-P" | "-H" | "--pager" | "--html")
                                || t.starts_with("--pager=")
                                || t.starts_with("--html=")))
                });
                if runs {
                    self.unproven(&source, format!("`{name}` was told to run a command"));
                }
            }
            "date" | "gdate" => {
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
                    self.plain(EffectKind::SystemConfig, &source);
                }
            }
            "uniq" | "xxd" => {
                // `uniq IN OUT` and `xxd IN OUT` write OUT.
                let p = parse(
                    rest,
                    if name == "uniq" { "fsw" } else { "cglnosR" },
                    &["skip-fields", "skip-chars", "check-chars"],
                    false,
                );
                if let Some(out) = p.operands.get(1) {
                    let out = (*out).clone();
                    self.write_target(&out, &name);
                }
            }
            "shuf" => {
                let p = parse(
                    rest,
                    "inos",
                    &["input-range", "head-count", "output", "random-source"],
                    false,
                );
                if let Some(out) = p.value("o").or_else(|| p.value("output")).cloned() {
                    self.write_target(&out, "shuf -o");
                }
            }
            "ss" => {
                if rest.iter().any(|a| {
                    matches!(a.text(), "-K" | "--kill")
                        || (a.text().starts_with('-')
                            && !a.text().starts_with("--")
                            && a.text().contains('K'))
                }) {
                    self.plain(EffectKind::Kill, &source);
                }
            }
            "exiv2" => {
                let p = parse(rest, "aceiklMmnPprSt", &[], false);
                let modifies = p.operands.first().is_some_and(|op| {
                    matches!(
                        op.text(),
                        "rm" | "delete"
                            | "mv"
                            | "rename"
                            | "in"
                            | "insert"
                            | "ad"
                            | "adjust"
                            | "mo"
                            | "modify"
                            | "fi"
                            | "fixiso"
                            | "fc"
                            | "fixcom"
                    )
                });
                if modifies {
                    let files = p.operands.get(1..).unwrap_or(&[]);
                    self.each_path(EffectKind::Overwrite, files, &source, extra);
                }
            }
            "yq" => {
                let in_place = rest.iter().any(|a| {
                    let t = a.text();
                    matches!(t, "-i" | "--inplace")
                        || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
                });
                let p = parse(
                    rest,
                    "oIpe",
                    &[
                        "output-format",
                        "indent",
                        "input-format",
                        "expression",
                        "split-exp",
                        "front-matter",
                    ],
                    false,
                );
                if in_place {
                    let files = p.operands.get(1..).unwrap_or(&[]);
                    self.each_path(EffectKind::Overwrite, files, &source, extra);
                }
                if rest
                    .iter()
                    .any(|a| a.text() == "-s" || a.text().starts_with("--split-exp"))
                {
                    self.unproven(&source, "yq writes files named by an expression");
                }
            }
            "rg" => {
                if rest.iter().any(|a| {
                    let t = a.text();
                    t.starts_with("--pre") || t.starts_with("--hostname-bin")
                }) {
                    self.unproven(&source, "rg was told to run a program on each file");
                }
            }
            "plutil" => {
                // Single-dash long options: `-convert FMT FILE…`, `-replace KEY -TYPE V
                // FILE`, `-o OUT`, `-e EXT` (outputs beside the input).
                let edits = rest.iter().any(|a| {
                    matches!(
                        a.text(),
                        "-convert" | "-insert" | "-replace" | "-remove" | "-create" | "-append"
                    )
                });
                let out = rest
                    .iter()
                    .position(|a| a.text() == "-o")
                    .and_then(|i| rest.get(i + 1))
                    .cloned();
                if edits {
                    if let Some(out) = out {
                        self.write_target(&out, "plutil -o");
                    } else if rest.iter().any(|a| a.text() == "-e") {
                        self.fills_or_creates(&Arg::literal("."), &source);
                    } else if let Some(file) = rest.last().filter(|a| !a.text().starts_with('-')) {
                        self.each_path(EffectKind::Overwrite, &[file], &source, extra);
                    }
                }
            }
            "plistbuddy" => {
                let edits = rest.iter().any(|a| {
                    let t = a.text().trim_start().to_ascii_lowercase();
                    [
                        "set", "add", "delete", "merge", "import", "clear", "save", "copy",
                    ]
                    .iter()
                    .any(|w| t.starts_with(w))
                });
                let file = rest
                    .iter()
                    .rev()
                    .find(|a| !a.text().starts_with('-'))
                    .cloned();
                if edits {
                    match file {
                        Some(f) => self.each_path(EffectKind::Overwrite, &[&f], &source, extra),
                        None => self.unknown(EffectKind::Overwrite, "a property list", &source),
                    }
                }
            }
            "sips" => {
                let p = parse(
                    rest,
                    "sgzZrfcpmoi",
                    &[
                        "out",
                        "setProperty",
                        "getProperty",
                        "deleteProperty",
                        "resampleHeight",
                        "resampleWidth",
                        "resampleHeightWidth",
                        "resampleHeightWidthMax",
                        "rotate",
                        "flip",
                        "cropToHeightWidth",
                        "padToHeightWidth",
                        "padColor",
                        "setProfile",
                        "embedProfile",
                        "matchTo",
                        "matchToWithIntent",
                    ],
                    false,
                );
                let only_reads = rest.iter().all(|a| {
                    let t = a.text();
                    !t.starts_with('-')
                        || matches!(
                            t,
                            "-g" | "--getProperty" | "-1" | "--oneLine" | "-h" | "--help" | "-v"
                        )
                });
                if !only_reads {
                    match p.value("o").or_else(|| p.value("out")).cloned() {
                        Some(out) => self.fills_or_creates(&out, &source),
                        None => {
                            let files: Vec<&Arg> = p
                                .operands
                                .iter()
                                .copied()
                                .filter(|a| a.text().contains('.'))
                                .collect();
                            self.each_path(EffectKind::Overwrite, &files, &source, extra);
                        }
                    }
                }
            }
            "mogrify" => {
                // mogrify rewrites every image it is given, in place.
                let files: Vec<&Arg> = rest
                    .iter()
                    .filter(|a| !a.text().starts_with(['-', '+']))
                    .filter(|a| a.text().contains('.'))
                    .collect();
                self.each_path(EffectKind::Overwrite, &files, &source, extra);
            }
            "exiftool" => {
                let writes = rest.iter().any(|a| {
                    let t = a.text();
                    t.starts_with('-')
                        && (t.contains('=')
                            || t.starts_with("-overwrite_original")
                            || t == "-delete_original"
                            || t == "-delete_original!"
                            || t == "-geotag"
                            || t.starts_with("-tagsFromFile")
                            || t.starts_with("-tagsfromfile"))
                });
                if writes {
                    let files: Vec<&Arg> =
                        rest.iter().filter(|a| !a.text().starts_with('-')).collect();
                    self.each_path(EffectKind::Overwrite, &files, &source, extra);
                }
                if let Some(i) = rest.iter().position(|a| matches!(a.text(), "-o" | "-out"))
                    && let Some(out) = rest.get(i + 1)
                {
                    let out = out.clone();
                    self.write_target(&out, "exiftool -o");
                }
                if rest.iter().any(|a| {
                    matches!(
                        a.text(),
                        "-@" | "-execute" | "-stay_open" | "-config" | "-if" | "-api"
                    )
                }) {
                    self.unproven(
                        &source,
                        "exiftool reads more arguments or code than its words show",
                    );
                }
            }
            "mdutil" => {
                if rest.iter().any(|a| {
                    let t = a.text();
                    t.starts_with('-')
                        && t[1..]
                            .chars()
                            .any(|c| matches!(c, 'E' | 'i' | 'd' | 'X' | 'L' | 'a'))
                }) {
                    self.plain(EffectKind::SystemConfig, &source);
                }
            }
            "security" => {
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
                    self.plain(EffectKind::SystemConfig, &source);
                }
            }
            "fdesetup" | "systemsetup" | "profiles" | "sharing" | "kickstart" | "dsenableroot" => {
                let reads = rest.iter().all(|a| {
                    let t = a.text().to_ascii_lowercase();
                    !t.starts_with('-')
                        || t.starts_with("-get")
                        || matches!(t.as_str(), "-help" | "-h")
                }) && rest.iter().any(|a| {
                    let t = a.text().to_ascii_lowercase();
                    t.starts_with("-get")
                        || matches!(
                            t.as_str(),
                            "status"
                                | "list"
                                | "isactive"
                                | "haspersonalrecoverykey"
                                | "show"
                                | "-help"
                        )
                });
                if !reads {
                    self.plain(EffectKind::SystemConfig, &source);
                }
            }
            "blkdiscard" | "nvme" | "hdparm" | "badblocks" => {
                if name != "hdparm"
                    || rest.iter().any(|a| {
                        a.text().starts_with("--security") || a.text() == "--trim-sector-ranges"
                    })
                {
                    self.plain(EffectKind::Format, &source);
                }
            }
            "cryptsetup" => {
                let sub = first_operand(rest);
                if !matches!(
                    sub,
                    "status" | "isLuks" | "luksDump" | "luksUUID" | "benchmark" | "tcryptDump" | ""
                ) {
                    self.plain(EffectKind::Format, &source);
                }
            }
            "rclone" => {
                let sub = first_operand(rest);
                if matches!(
                    sub,
                    "sync"
                        | "move"
                        | "moveto"
                        | "cleanup"
                        | "dedupe"
                        | "purge"
                        | "delete"
                        | "deletefile"
                        | "rmdir"
                        | "rmdirs"
                        | "bisync"
                ) {
                    self.unknown(
                        EffectKind::Delete,
                        format!("files `rclone {sub}` removes or replaces"),
                        &source,
                    );
                }
            }
            "gsutil" | "gcloud" | "aws" | "s3cmd" | "azcopy" | "az" => {
                let words: Vec<&str> = rest.iter().map(Arg::text).collect();
                let deletes = words.iter().any(|w| {
                    matches!(
                        *w,
                        "--delete" | "--delete-removed" | "--delete-destination=true"
                    )
                }) || (words.contains(&"rsync")
                    && words.iter().any(|w| {
                        *w == "-d"
                            || (w.starts_with('-') && !w.starts_with("--") && w.contains('d'))
                    }));
                if deletes {
                    self.unknown(
                        EffectKind::Delete,
                        "files the sync removes at the destination",
                        &source,
                    );
                }
                self.generic(&name, rest, &source);
            }
            "terraform" | "tofu" | "pulumi" | "cdk" => {
                let sub = first_operand(rest);
                let destroys = sub == "destroy"
                    || rest
                        .iter()
                        .any(|a| matches!(a.text(), "-destroy" | "--destroy"));
                if destroys {
                    self.unknown(EffectKind::Delete, "the infrastructure it manages", &source);
                } else if matches!(
                    sub,
                    "apply" | "up" | "deploy" | "import" | "taint" | "state"
                ) {
                    self.unknown(
                        EffectKind::SystemConfig,
                        "the infrastructure it manages",
                        &source,
                    );
                }
            }
            "at" | "batch" => {
                // The job runs later, outside any sandbox: what it would do is read now.
                if let Stdin::Literal(job) = stdin {
                    let job = job.clone();
                    self.conditional_script(&job, depth);
                }
                self.unproven(&source, "it schedules commands to run later");
            }
            "tmux" | "screen" | "systemd-run" | "nohup-later" => {
                // Commands they start run in a server or manager outside this call.
                let words: Vec<&Arg> = rest.iter().filter(|a| !a.text().starts_with('-')).collect();
                if let Some(last) = words.last()
                    && let Some(text) = last.lit.as_deref()
                    && words.len() >= 2
                {
                    let text = text.to_string();
                    self.conditional_script(&text, depth);
                }
                if name == "systemd-run" {
                    let p = parse(
                        rest,
                        "pMEuUH",
                        &[
                            "property",
                            "machine",
                            "setenv",
                            "unit",
                            "uid",
                            "gid",
                            "working-directory",
                            "description",
                            "slice",
                            "on-calendar",
                            "on-active",
                        ],
                        true,
                    );
                    self.wrapped(rest, p.rest, stdin, extra, depth);
                }
                self.unproven(&source, format!("`{name}` runs commands outside this call"));
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
            "hash" => {
                if rest
                    .iter()
                    .any(|a| a.text().starts_with("-p") || a.text() == "-t" && rest.len() > 2)
                {
                    self.path_changed = true;
                    self.unproven(
                        &source,
                        "`hash -p` makes a program name run another program",
                    );
                }
            }
            "trap" => {
                if let Some(code) = rest.first() {
                    match code.lit.as_deref() {
                        Some(s) if !s.starts_with('-') => self.script(s, depth + 1),
                        Some(_) => {}
                        None => {
                            self.unproven(&source, "the trap's command is only known when it runs")
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
                    "ughprtCDTUcR",
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
                        "chroot",
                    ],
                    true,
                );
                if p.has('e', "edit") {
                    self.unknown(
                        EffectKind::SystemConfig,
                        "files edited as the administrator",
                        &source,
                    );
                }
                self.unproven(
                    &source,
                    "it runs a command as the administrator, which the sandbox does not allow",
                );
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "env" => self.env(rest, stdin, extra, depth, &source),
            "nohup" | "setsid" | "unbuffer" | "nocorrect" | "noglob" | "builtin" | "catchsegv"
            | "torsocks" | "proxychains" | "proxychains4" | "tsocks" | "firejail" | "exec" => {
                let p = parse(rest, "a", &[], true);
                self.wrapper_options(&source, &rest[..p.rest.min(rest.len())], "cl", "a", &[]);
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "command" => {
                let p = parse(rest, "", &[], true);
                self.wrapper_options(&source, &rest[..p.rest.min(rest.len())], "pvV", "", &[]);
                if !(p.has('v', "") || p.has('V', "")) {
                    self.wrapped(rest, p.rest, stdin, extra, depth);
                }
            }
            "time" => {
                let p = parse(rest, "fo", &["format", "output"], true);
                self.wrapper_options(
                    &source,
                    &rest[..p.rest.min(rest.len())],
                    "pavq",
                    "fo",
                    &[
                        "portability",
                        "append",
                        "verbose",
                        "quiet",
                        "format",
                        "output",
                    ],
                );
                if let Some(out) = p.value("o").or_else(|| p.value("output")) {
                    let out = out.clone();
                    self.write_target(&out, "time -o");
                }
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "nice" | "renice-run" => {
                let p = parse(rest, "n", &["adjustment"], true);
                let opts = &rest[..p.rest.min(rest.len())];
                let digits = opts.iter().all(|a| {
                    let t = a.text();
                    t.starts_with('-') && t[1..].chars().all(|c| c.is_ascii_digit()) && t.len() > 1
                });
                if !digits {
                    self.wrapper_options(&source, opts, "", "n", &["adjustment"]);
                }
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
                self.wrapper_options(
                    &source,
                    &rest[..p.rest.min(rest.len())],
                    "v",
                    "sk",
                    &[
                        "signal",
                        "kill-after",
                        "preserve-status",
                        "foreground",
                        "verbose",
                    ],
                );
                // The duration comes first.
                self.wrapped(rest, p.rest + 1, stdin, extra, depth);
            }
            "stdbuf" | "gstdbuf" => {
                let p = parse(rest, "ioe", &["input", "output", "error"], true);
                self.wrapper_options(
                    &source,
                    &rest[..p.rest.min(rest.len())],
                    "",
                    "ioe",
                    &["input", "output", "error"],
                );
                self.wrapped(rest, p.rest, stdin, extra, depth);
            }
            "caffeinate" => {
                let p = parse(rest, "tw", &[], true);
                self.wrapper_options(&source, &rest[..p.rest.min(rest.len())], "dimsu", "tw", &[]);
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
                    self.unproven(&source, "the watched command is only known when it runs");
                }
            }
            "xargs" | "gxargs" => self.xargs(rest, stdin, depth, &source),
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
                } else if let Some(i) = rest.iter().position(|a| a.text() == "--") {
                    // `runuser -u USER -- COMMAND…`
                    self.wrapped(rest, i + 1, stdin, extra, depth);
                }
                self.unproven(&source, "it runs a command as another user");
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
                } else if p.operands.len() >= 2 {
                    // BSD and macOS: `script [-q] FILE COMMAND…` runs the command.
                    let start = rest
                        .iter()
                        .position(|a| std::ptr::eq(a, p.operands[1]))
                        .unwrap_or(rest.len());
                    self.wrapped(rest, start, stdin, extra, depth);
                }
            }
            "eval" => {
                if rest.iter().all(|a| a.lit.is_some()) {
                    let code = joined(rest);
                    self.script(&code, depth + 1);
                } else {
                    self.unproven(
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
            n if is_shell(n) => self.shell(rest, stdin, &source, extra, depth),
            n if is_interpreter(n) => self.interpreter(&name, rest, stdin, &source, extra, depth),
            _ => self.generic(&name, rest, &source),
        }
    }

    /// `./tool.sh`, `~/bin/x`: a local program. Its content can change before it runs
    /// (an earlier part of the command may even write it), so it is never proven; a
    /// shell script that can be read is walked so that what it certainly destroys is
    /// asked about, and other code is scanned for deletions.
    fn local_program(&mut self, path: &str, name: &str, rest: &[Arg], source: &str, depth: usize) {
        self.unproven(
            source,
            format!("it runs the local program {path}, whose content can change before it runs"),
        );
        let script =
            text::resolve(path, self.cwd.as_deref()).and_then(|p| self.scope.fs.read_script(&p));
        let Some(code) = script else {
            // A binary or an unreadable file: its arguments may still say what it does.
            self.generic(name, rest, source);
            return;
        };
        let first = code.lines().next().unwrap_or_default();
        let shell_script = !first.starts_with("#!")
            || ["sh", "bash", "zsh", "dash", "ksh"]
                .iter()
                .any(|s| first.ends_with(&format!("/{s}")) || first.ends_with(&format!(" {s}")));
        if shell_script {
            let saved = self.cwd.clone();
            self.script(&code, depth + 1);
            self.cwd = saved;
        } else {
            self.scanned_code(&code, source, &format!("the script {path}"));
        }
    }

    /// Interpreter code (a script file or `-c CODE`): never proven; a deletion it
    /// plainly makes is asked about.
    fn scanned_code(&mut self, code: &str, source: &str, what: &str) {
        match script::scan_code(code) {
            Some(script::CodeMarker::Deletes(found)) => self.push(
                EffectKind::Delete,
                Target::Unknown(format!("files {what} deletes (it uses `{found}`)")),
                source.to_string(),
                None,
            ),
            Some(script::CodeMarker::Other(found)) => {
                self.unproven(source, format!("{what} uses `{found}`"))
            }
            None => self.unproven(
                source,
                format!("{what} is program code whose effects cannot be checked"),
            ),
        }
    }

    fn sed(&mut self, rest: &[Arg], source: &str, extra: Option<&str>) {
        // GNU: `-i`, `-i.bak`, `--in-place[=SUF]`, clusters like `-Ei`;
        // BSD/macOS: `-i ''` (no backup) or `-i .bak`.
        let mut in_place = false;
        let mut backup = false;
        let mut scripts: Vec<Option<String>> = Vec::new();
        let mut script_file = false;
        let mut unknown_option: Option<String> = None;
        let mut operands: Vec<&Arg> = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i].text();
            if t == "--in-place" {
                in_place = true;
            } else if let Some(suffix) = t.strip_prefix("--in-place=") {
                in_place = true;
                backup |= !suffix.is_empty();
            } else if matches!(t, "-e" | "--expression") {
                scripts.push(rest.get(i + 1).and_then(|a| a.lit.clone()));
                i += 1;
            } else if let Some(e) = t.strip_prefix("--expression=") {
                scripts.push(Some(e.to_string()));
            } else if matches!(t, "-f" | "--file") || t.starts_with("--file=") {
                script_file = true;
                i += usize::from(!t.contains('='));
            } else if let Some(long) = t.strip_prefix("--") {
                let key = long.split('=').next().unwrap_or(long);
                if known::long_option(
                    key,
                    &[
                        "quiet",
                        "silent",
                        "debug",
                        "posix",
                        "sandbox",
                        "separate",
                        "null-data",
                        "zero-terminated",
                        "regexp-extended",
                        "unbuffered",
                        "line-length",
                        "follow-symlinks",
                        "help",
                        "version",
                    ],
                )
                .is_none()
                {
                    unknown_option = Some(t.to_string());
                }
            } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
                for (pos, c) in flags.char_indices() {
                    match c {
                        'n' | 'E' | 'r' | 's' | 'u' | 'z' => {}
                        'i' => {
                            in_place = true;
                            let suffix = &flags[pos + 1..];
                            if !suffix.is_empty() {
                                backup = true;
                            } else if let Some(next) = rest.get(i + 1).map(Arg::text) {
                                if next.is_empty() {
                                    i += 1; // BSD: explicit empty suffix
                                } else if next.starts_with('.') && !next.contains([' ', '/', ';']) {
                                    backup = true;
                                    i += 1;
                                }
                            }
                            break;
                        }
                        'e' => {
                            let glued = &flags[pos + 1..];
                            if glued.is_empty() {
                                scripts.push(rest.get(i + 1).and_then(|a| a.lit.clone()));
                                i += 1;
                            } else {
                                scripts.push(Some(glued.to_string()));
                            }
                            break;
                        }
                        'f' => {
                            script_file = true;
                            i += usize::from(flags[pos + 1..].is_empty());
                            break;
                        }
                        'l' => {
                            i += usize::from(flags[pos + 1..].is_empty());
                            break;
                        }
                        _ => {
                            unknown_option = Some(t.to_string());
                            break;
                        }
                    }
                }
            } else {
                operands.push(&rest[i]);
            }
            i += 1;
        }
        let script_given = !scripts.is_empty() || script_file;
        if !script_given && let Some(first) = operands.first() {
            scripts.push(first.lit.clone());
        }
        let files: Vec<&Arg> = if script_given {
            operands
        } else {
            operands.into_iter().skip(1).collect()
        };
        if let Some(opt) = unknown_option {
            self.unproven(
                source,
                format!("sed was given an option artoo does not know ({opt})"),
            );
        }
        if script_file {
            self.unproven(source, "the sed script is in a file");
        }
        for script in scripts {
            match script {
                Some(text) => {
                    let scan = script::scan_sed(&text);
                    for file in scan.writes {
                        self.write_target(&Arg::literal(&file), "sed w");
                    }
                    if let Some(why) = scan.unproven {
                        self.unproven(source, why);
                    }
                }
                None => self.unproven(source, "the sed script is only known when it runs"),
            }
        }
        if in_place && !backup {
            self.each_path(EffectKind::Overwrite, &files, source, extra);
        }
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
        let sub = ops.first().copied().unwrap_or_default();
        if matches!(sub, "publish" | "unpublish" | "deprecate" | "upload") {
            self.plain(EffectKind::Send, source);
            return;
        }
        if !package_query(name, sub) {
            self.unproven(
                source,
                format!("`{name} {sub}` changes or fetches software, which artoo does not check"),
            );
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

    /// `xargs [options] COMMAND…`: the command runs with names read from the input. `-I R`
    /// (`-i`, `-J R`) puts them where `R` stands; an argument holding `R` is then only
    /// known at run time.
    fn xargs(&mut self, rest: &[Arg], stdin: &Stdin, depth: usize, source: &str) {
        let mut replace: Option<String> = None;
        let mut unknown: Option<String> = None;
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i].text();
            if t == "--" {
                i += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            if let Some(long) = t.strip_prefix("--") {
                let (key, value) = match long.split_once('=') {
                    Some((k, v)) => (k, Some(v.to_string())),
                    None => (long, None),
                };
                const FLAGS: &[&str] = &[
                    "null",
                    "interactive",
                    "no-run-if-empty",
                    "verbose",
                    "exit",
                    "open-tty",
                    "show-limits",
                    "replace",
                    "help",
                    "version",
                ];
                const VALUES: &[&str] = &[
                    "arg-file",
                    "delimiter",
                    "eof",
                    "max-lines",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ];
                let mut all: Vec<&'static str> = FLAGS.to_vec();
                all.extend_from_slice(VALUES);
                match known::long_option(key, &all) {
                    Some("replace") => replace = Some(value.unwrap_or_else(|| "{}".into())),
                    Some(full) if VALUES.contains(&full) && value.is_none() => i += 1,
                    Some(_) => {}
                    None => unknown = Some(t.to_string()),
                }
                i += 1;
                continue;
            }
            let body: Vec<char> = t[1..].chars().collect();
            let mut j = 0;
            while j < body.len() {
                let c = body[j];
                let glued: String = body[j + 1..].iter().collect();
                match c {
                    '0' | 'p' | 'r' | 't' | 'x' | 'o' => j += 1,
                    'a' | 'd' | 'E' | 'I' | 'L' | 'n' | 'P' | 's' | 'J' | 'R' => {
                        let value = if glued.is_empty() {
                            i += 1;
                            rest.get(i)
                                .map(|a| a.text().to_string())
                                .unwrap_or_default()
                        } else {
                            glued
                        };
                        if matches!(c, 'I' | 'J') {
                            replace = Some(value);
                        }
                        break;
                    }
                    'i' => {
                        replace = Some(if glued.is_empty() { "{}".into() } else { glued });
                        break;
                    }
                    'e' | 'l' => break,
                    _ => {
                        unknown = Some(t.to_string());
                        break;
                    }
                }
            }
            i += 1;
        }
        if let Some(opt) = unknown {
            self.unproven(
                source,
                format!("xargs was given an option artoo does not know ({opt})"),
            );
        }
        let inner: Vec<Arg> = rest[i.min(rest.len())..]
            .iter()
            .filter(|a| replace.as_deref().is_none_or(|r| a.text() != r))
            .map(|a| match &replace {
                Some(r) if a.text().contains(r.as_str()) => Arg {
                    lit: None,
                    raw: a.raw.clone(),
                    glob: false,
                },
                _ => a.clone(),
            })
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
        self.fallback_verbs(rest, i, stdin, depth);
    }

    /// Walks `text` as commands that may or may not run (a scheduled job, a command a
    /// server runs later): what they certainly destroy is asked about.
    fn conditional_script(&mut self, text: &str, depth: usize) {
        let saved = self.cwd.clone();
        self.cwd = None;
        self.script(text, depth + 1);
        self.cwd = saved;
    }

    /// A wrapper's own options (those before the command it runs) must all be known.
    fn wrapper_options(
        &mut self,
        source: &str,
        opts: &[Arg],
        short: &'static str,
        short_val: &'static str,
        long: &'static [&'static str],
    ) {
        let spec = known::Opts {
            short,
            short_val,
            long,
            long_val: long,
            digits: false,
        };
        if let Some(opt) = known::unknown_options(&spec, opts) {
            self.unproven(
                source,
                format!("the wrapper was given an option artoo does not know ({opt})"),
            );
        }
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
                // Made earlier in this command: removing it again loses nothing.
                Target::Path { path, .. } if self.created_here(path) => continue,
                Target::Pattern(_)
                    if op.lit.as_deref().is_some_and(|l| {
                        let dir = l.split(['*', '?', '[', '{']).next().unwrap_or(l);
                        !dir.is_empty()
                            && text::resolve(dir, self.cwd.as_deref())
                                .is_some_and(|d| self.created_here(&d))
                    }) =>
                {
                    continue;
                }
                // Nothing there now. Should something appear before it runs, the
                // sandbox keeps it.
                Target::Path {
                    path,
                    exists: Existence::Missing,
                } => {
                    let shown = path.display().to_string();
                    self.unproven(source, format!("{shown} does not exist now"));
                    continue;
                }
                Target::Path {
                    path,
                    exists: Existence::Exists,
                } if trashable => self.trash.push(path.clone()),
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

    /// An output file: overwriting an existing one asks, a new one is a path the
    /// command creates, one only known at run time is unproven.
    fn overwrite_if_exists(&mut self, arg: &Arg, source: &str) {
        let op = source.split_whitespace().next().unwrap_or("writes");
        self.write_target(arg, op);
    }

    /// `cp`/`mv`/`install`/`ln`: overwriting an existing destination is irreversible, and
    /// so (as the user sees it) is moving an existing file away; a destination that does
    /// not exist yet is a path the command creates.
    fn copy_like(&mut self, rest: &[Arg], source: &str, extra: Option<&str>, how: Transfer) {
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
        let keeps_old = p.has('n', "no-clobber")
            || p.value("update")
                .is_some_and(|v| v.text().starts_with("none"))
            // `--backup`/`-b` keeps the old file: reversible.
            || p.has('b', "backup")
            || how == Transfer::LinkNoForce;
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
        if how == Transfer::Move {
            self.moved_away(&sources, source, extra);
        }
        let Some(dest) = dest else {
            if extra.is_some() {
                self.unproven(source, "it writes where the names it is given say");
            }
            return;
        };
        match self.path_target(&dest) {
            Target::Path {
                path,
                exists: Existence::Exists,
            } if self.scope.fs.is_dir(&path) => {
                // Into an existing folder: each source lands at folder/basename.
                self.fills(path.clone());
                for src in &sources {
                    match src.fixed() {
                        Some(s) => {
                            let base = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                            let landing = path.join(base);
                            if !self.scope.fs.exists(&landing) {
                                self.new_path(landing, source.to_string());
                            } else if !keeps_old && !self.created_here(&landing) {
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
                        None if keeps_old => {}
                        None => self.unproven(
                            source,
                            format!(
                                "files in {} with the same names may exist; the sandbox keeps them",
                                path.display()
                            ),
                        ),
                    }
                }
                if extra.is_some() && !keeps_old {
                    self.unproven(
                        source,
                        format!(
                            "files in {} with the same names may exist; the sandbox keeps them",
                            path.display()
                        ),
                    );
                }
            }
            Target::Path {
                path,
                exists: Existence::Missing,
            } => self.new_path(path, source.to_string()),
            Target::Path { path, .. } if keeps_old || self.created_here(&path) => {}
            target @ Target::Path {
                exists: Existence::Exists,
                ..
            } => {
                let note = text::lookalike_note(dest.text());
                self.push(EffectKind::Overwrite, target, source.to_string(), note);
            }
            _ => self.unproven(
                source,
                "where it writes is only known when the command runs",
            ),
        }
    }

    /// `mv` takes its sources away from where they are.
    fn moved_away(&mut self, sources: &[&Arg], source: &str, extra: Option<&str>) {
        for src in sources {
            match self.path_target(src) {
                Target::Path { path, .. } if self.created_here(&path) => {}
                Target::Path {
                    path,
                    exists: Existence::Missing,
                } => {
                    let shown = path.display().to_string();
                    self.unproven(source, format!("{shown} does not exist now"));
                }
                target => self.push(EffectKind::Move, target, source.to_string(), None),
            }
        }
        if let Some(what) = extra {
            self.push(
                EffectKind::Move,
                Target::Unknown(what.to_string()),
                source.to_string(),
                None,
            );
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
        if p.value("e")
            .or_else(|| p.value("rsh"))
            .or_else(|| p.value("rsync-path"))
            .is_some()
        {
            self.unproven(source, "rsync was told which program to run");
        }
        let remote = |t: &str| t.contains(':') && !t.starts_with('/') && !t.starts_with('.');
        if p.operands.iter().any(|a| remote(a.text())) {
            self.unproven(source, "rsync reaches another computer");
        }
        if p.operands.len() >= 2
            && let Some(dest) = p.operands.last()
            && !remote(dest.text())
        {
            let dest = (*dest).clone();
            let keeps_old = p.has('\0', "ignore-existing") || p.has('b', "backup");
            match self.path_target(&dest) {
                Target::Path {
                    path,
                    exists: Existence::Exists,
                } if self.scope.fs.is_dir(&path) => {
                    self.fills(path.clone());
                    if !keeps_old {
                        self.unproven(
                            source,
                            format!(
                                "files in {} with the same names may exist; the sandbox keeps them",
                                path.display()
                            ),
                        );
                    }
                }
                _ if keeps_old => {}
                _ => self.write_target(&dest, "rsync"),
            }
        }
    }

    fn curl(&mut self, rest: &[Arg], source: &str) {
        const SHORT: &str = "sSfLIiGvkq#NZgjnRl04610MJbu";
        const SHORT_VAL: &str = "dFTXoHuAeErbcKwmxYyzCQUPDa";
        const LONG_FLAGS: &[&str] = &[
            "silent",
            "show-error",
            "fail",
            "fail-with-body",
            "location",
            "head",
            "include",
            "get",
            "verbose",
            "insecure",
            "compressed",
            "progress-bar",
            "no-progress-meter",
            "http1.1",
            "http2",
            "http3",
            "ipv4",
            "ipv6",
            "remote-name",
            "remote-name-all",
            "remote-header-name",
            "create-dirs",
            "no-buffer",
            "globoff",
            "ssl",
            "tlsv1.2",
            "tlsv1.3",
            "location-trusted",
            "retry-connrefused",
            "retry-all-errors",
            "no-keepalive",
            "raw",
            "list-only",
            "disable",
            "help",
            "version",
            "manual",
            "basic",
            "digest",
            "ntlm",
            "anyauth",
            "netrc",
            "netrc-optional",
            "post301",
            "post302",
            "post303",
            "crlf",
            "append",
            "ftp-create-dirs",
            "expand-url",
            "parallel",
        ];
        const LONG_VALUES: &[&str] = &[
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
            "dump-header",
            "trace",
            "trace-ascii",
            "stderr",
            "output-dir",
            "max-filesize",
            "limit-rate",
            "speed-limit",
            "speed-time",
            "max-redirs",
            "unix-socket",
            "abstract-unix-socket",
            "libcurl",
            "etag-save",
            "etag-compare",
            "hsts",
            "alt-svc",
            "oauth2-bearer",
            "time-cond",
            "continue-at",
            "interface",
            "dns-servers",
            "doh-url",
            "connect-to",
            "netrc-file",
            "mail-from",
            "mail-rcpt",
            "url-query",
            "variable",
            "retry-delay",
            "retry-max-time",
            "parallel-max",
        ];
        let p = parse(rest, SHORT_VAL, LONG_VALUES, false);
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
                "mail-rcpt",
            ]
            .iter()
            .any(|k| p.value(k).is_some())
            || matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE"));
        let sends = sends
            || (get && matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE")));
        if sends {
            self.plain(EffectKind::Send, source);
        }
        let mut outputs: Vec<(Arg, &str)> = Vec::new();
        for (key, op) in [
            ("o", "curl -o"),
            ("output", "curl -o"),
            ("D", "curl -D"),
            ("dump-header", "curl -D"),
            ("c", "curl -c"),
            ("cookie-jar", "curl -c"),
            ("trace", "curl --trace"),
            ("trace-ascii", "curl --trace"),
            ("stderr", "curl --stderr"),
            ("libcurl", "curl --libcurl"),
            ("etag-save", "curl --etag-save"),
            ("hsts", "curl --hsts"),
            ("alt-svc", "curl --alt-svc"),
        ] {
            for v in p.values_of(key) {
                outputs.push((v.clone(), op));
            }
        }
        for (out, op) in outputs {
            if !matches!(
                out.text(),
                "-" | "/dev/null" | "/dev/stdout" | "/dev/stderr"
            ) {
                self.write_target(&out, op);
            }
        }
        if p.has('O', "remote-name") || p.has('\0', "remote-name-all") {
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
                if name.is_empty() {
                    self.unproven(source, "the file it saves is named by the server");
                } else {
                    self.write_target(&Arg::literal(&name), "curl -O");
                }
            }
        }
        let opts = known::Opts {
            short: SHORT,
            short_val: SHORT_VAL,
            long: LONG_FLAGS,
            long_val: LONG_VALUES,
            digits: false,
        };
        let reads_only = self.network_read_args(
            source,
            rest,
            &opts,
            &[
                "config",
                "K",
                "unix-socket",
                "abstract-unix-socket",
                "J",
                "remote-header-name",
                "expand-url",
                "variable",
                "continue-at",
                "C",
                "append",
                "a",
            ],
        );
        if reads_only && !sends {
            self.network = true;
        }
    }

    /// Whether a download or lookup tool was given only literal words and known options,
    /// none of `risky` (options that read options from elsewhere, reach local servers or
    /// let the server pick file names): then it is a network read. Otherwise records
    /// why not.
    fn network_read_args(
        &mut self,
        source: &str,
        rest: &[Arg],
        opts: &known::Opts,
        risky: &[&str],
    ) -> bool {
        if rest.iter().any(|a| a.lit.is_none()) {
            self.unproven(source, "its address or options are only known when it runs");
            return false;
        }
        let all_long: Vec<&'static str> = opts.long.iter().chain(opts.long_val).copied().collect();
        if let Some(opt) = known::unknown_options(opts, rest) {
            self.unproven(
                source,
                format!("it was given an option artoo does not know ({opt})"),
            );
            return false;
        }
        let used_risky = rest.iter().map(Arg::text).find(|t| {
            let key = t
                .trim_start_matches('-')
                .split('=')
                .next()
                .unwrap_or_default();
            let long = t.starts_with("--")
                && known::long_option(key, &all_long).is_some_and(|full| risky.contains(&full));
            let short = t.starts_with('-')
                && !t.starts_with("--")
                && key.chars().any(|c| risky.contains(&c.to_string().as_str()));
            long || short
        });
        if let Some(opt) = used_risky {
            self.unproven(
                source,
                format!("`{opt}` makes what it does depend on more than its words"),
            );
            return false;
        }
        true
    }

    fn wget(&mut self, rest: &[Arg], source: &str) {
        const SHORT: &str = "qvdnNcSrkpmEKFxb46";
        const SHORT_VAL: &str = "OoaPeUtTwilADRQ";
        const LONG_FLAGS: &[&str] = &[
            "quiet",
            "verbose",
            "no-verbose",
            "debug",
            "server-response",
            "spider",
            "no-check-certificate",
            "show-progress",
            "continue",
            "timestamping",
            "no-clobber",
            "recursive",
            "mirror",
            "page-requisites",
            "convert-links",
            "adjust-extension",
            "inet4-only",
            "inet6-only",
            "help",
            "version",
            "no-hsts",
            "no-cookies",
            "content-disposition",
            "trust-server-names",
            "no-parent",
        ];
        const LONG_VALUES: &[&str] = &[
            "output-document",
            "output-file",
            "append-output",
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
            "wait",
            "level",
            "accept",
            "reject",
            "domains",
            "execute",
            "max-redirect",
            "limit-rate",
            "quota",
            "progress",
            "backups",
        ];
        let p = parse(rest, SHORT_VAL, LONG_VALUES, false);
        let method = p.value("method").map(|v| v.text().to_ascii_uppercase());
        let sends = p.value("post-data").is_some()
            || p.value("post-file").is_some()
            || p.value("body-data").is_some()
            || p.value("body-file").is_some()
            || matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE"));
        if sends {
            self.plain(EffectKind::Send, source);
        }
        if let Some(out) = p.value("O").or_else(|| p.value("output-document")).cloned()
            && out.text() != "-"
            && out.text() != "/dev/null"
        {
            self.write_target(&out, "wget -O");
        }
        if let Some(log) = p.value("o").or_else(|| p.value("output-file")).cloned() {
            self.write_target(&log, "wget -o");
        }
        if let Some(log) = p.value("a").or_else(|| p.value("append-output")).cloned() {
            self.append_target(&log, "wget -a");
        }
        if let Some(dir) = p
            .value("P")
            .or_else(|| p.value("directory-prefix"))
            .cloned()
        {
            match self.path_target(&dir) {
                Target::Path {
                    path,
                    exists: Existence::Missing,
                } => self.create(path),
                Target::Path { path, .. } => self.fills(path),
                _ => self.unproven(
                    source,
                    "the folder it saves into is only known when it runs",
                ),
            }
        } else if p
            .value("O")
            .or_else(|| p.value("output-document"))
            .is_none()
            && let Some(cwd) = self.cwd.clone()
        {
            // Without -O the file goes into the current folder under a new name (wget
            // never replaces an existing file there unless told to).
            self.fills(cwd);
        }
        let opts = known::Opts {
            short: SHORT,
            short_val: SHORT_VAL,
            long: LONG_FLAGS,
            long_val: LONG_VALUES,
            digits: false,
        };
        let reads_only = self.network_read_args(
            source,
            rest,
            &opts,
            &[
                "execute",
                "e",
                "N",
                "timestamping",
                "c",
                "continue",
                "r",
                "recursive",
                "m",
                "mirror",
                "k",
                "convert-links",
                "content-disposition",
                "trust-server-names",
                "input-file",
                "i",
                "p",
                "page-requisites",
            ],
        );
        if reads_only && !sends {
            self.network = true;
        }
    }

    fn tar(&mut self, rest: &[Arg], source: &str) {
        let p = parse(
            rest,
            "fCTXbNIFL",
            &[
                "file",
                "directory",
                "files-from",
                "exclude-from",
                "blocking-factor",
                "newer",
                "use-compress-program",
                "to-command",
                "info-script",
                "new-volume-script",
                "rsh-command",
                "rmt-command",
                "checkpoint-action",
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
        let runs = [
            "use-compress-program",
            "to-command",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
            "checkpoint-action",
        ]
        .iter()
        .any(|k| p.value(k).is_some() || p.has('\0', k))
            || p.value("I").is_some()
            || p.value("F").is_some();
        if runs {
            self.unproven(source, "tar was told to run another program");
        }
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
        if archive
            .as_ref()
            .is_some_and(|a| a.text().contains(':') && !a.text().starts_with('/'))
        {
            self.unproven(source, "the archive is on another machine");
        }
        let extracting = flag('x', "extract") || p.has('\0', "get");
        // GNU tar replaces existing files when extracting unless told to keep them; a
        // folder that does not exist yet (`mkdir d && tar -x … -C d`) holds nothing.
        let keeps = flag('k', "keep-old-files")
            || p.has('\0', "skip-old-files")
            || p.has('\0', "keep-newer-files");
        if extracting && !flag('t', "list") {
            let into = p
                .value("C")
                .or_else(|| p.value("directory"))
                .cloned()
                .unwrap_or_else(|| Arg::literal("."));
            if keeps {
                self.fills_or_creates(&into, source);
            } else {
                self.extraction_into(&into, source);
            }
        }
        if (flag('c', "create") || flag('r', "append") || flag('u', "update"))
            && let Some(a) = archive.filter(|a| a.text() != "-")
        {
            self.write_target(&a, "tar -f");
        }
    }

    /// An archive unpacked into `dir`: into a folder that does not exist yet it only
    /// creates; into an existing one it may replace files the archive also holds,
    /// which only the run can tell — unproven, and the sandbox keeps them.
    fn extraction_into(&mut self, dir: &Arg, source: &str) {
        match self.path_target(dir) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => self.create(path),
            Target::Path { path, .. } if self.created_here(&path) => {}
            Target::Path { path, .. } => {
                let shown = path.display().to_string();
                self.fills(path);
                self.unproven(
                    source,
                    format!("files in {shown} that the archive also holds would be replaced"),
                );
            }
            _ => self.unproven(source, "where it unpacks is only known when it runs"),
        }
    }

    /// New entries go into `dir`, which may exist.
    fn fills_or_creates(&mut self, dir: &Arg, source: &str) {
        match self.path_target(dir) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => self.create(path),
            Target::Path { path, .. } => self.fills(path),
            _ => self.unproven(source, "where it writes is only known when it runs"),
        }
    }

    fn unzip(&mut self, rest: &[Arg], source: &str) {
        let p = parse(rest, "dxP", &[], false);
        let listing = rest.iter().any(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains(['l', 't', 'v', 'p', 'Z', 'z'])
        });
        if listing {
            return;
        }
        let overwrite = rest.iter().any(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains(['o', 'f', 'u'])
        });
        let into = p.value("d").cloned().unwrap_or_else(|| Arg::literal("."));
        if overwrite {
            self.extraction_into(&into, source);
        } else {
            // Without -o, unzip leaves existing files alone (it cannot ask: no input).
            self.fills_or_creates(&into, source);
        }
    }

    /// gzip and kin: `gzip FILE` replaces FILE by FILE.gz (the original is removed)
    /// unless kept (`-k`) or written to standard output (`-c`).
    fn compressor(&mut self, name: &str, rest: &[Arg], source: &str) {
        let mut keep = matches!(name, "zstd" | "unzstd" | "lz4");
        let mut stdout = false;
        let mut force = false;
        let mut files: Vec<&Arg> = Vec::new();
        for a in rest {
            let t = a.text();
            match t {
                "--keep" | "-k" => keep = true,
                "--stdout" | "--to-stdout" | "-c" | "--test" | "-t" | "--list" | "-l" => {
                    stdout = true
                }
                "--force" | "-f" => force = true,
                "--rm" => keep = false,
                _ if t.starts_with("--") => {}
                _ if t.starts_with('-') && t.len() > 1 => {
                    keep |= t.contains('k');
                    stdout |= t.contains(['c', 't', 'l']);
                    force |= t.contains('f');
                }
                _ => files.push(a),
            }
        }
        if stdout || files.is_empty() {
            return;
        }
        if !keep {
            let what = files
                .iter()
                .map(|a| a.text())
                .collect::<Vec<_>>()
                .join(", ");
            self.push(
                EffectKind::Delete,
                Target::Unknown(format!(
                    "{what} (replaced by its compressed or expanded copy)"
                )),
                source.to_string(),
                None,
            );
        }
        if force {
            self.unproven(
                source,
                "with -f it replaces output files that already exist",
            );
        }
        if let Some(cwd) = self.cwd.clone() {
            self.fills(cwd);
        }
    }

    fn git(&mut self, rest: &[Arg], source: &str, stdin: &Stdin, depth: usize) {
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
        // `-c key=value` can make git run any command (aliases, editors, hooks, pagers,
        // ssh): only a few harmless namespaces are understood.
        for v in p.values_of("c") {
            let key = v
                .text()
                .split('=')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let harmless = [
                "color.",
                "user.",
                "log.",
                "format.",
                "advice.",
                "i18n.",
                "column.",
                "init.",
                "safe.",
                "pull.rebase",
                "core.quotepath",
                "diff.renames",
                "status.",
            ]
            .iter()
            .any(|ns| key.starts_with(ns));
            if !harmless || v.lit.is_none() {
                self.unproven(
                    source,
                    format!("`-c {}` can make git run other programs", v.text()),
                );
            }
        }
        for k in [
            "git-dir",
            "work-tree",
            "exec-path",
            "config-env",
            "namespace",
            "super-prefix",
        ] {
            if p.value(k).is_some() {
                self.unproven(source, format!("git was pointed elsewhere (--{k})"));
            }
        }
        if let Some(dir) = p.value("C").cloned() {
            self.set_cwd(Some(&dir));
        }
        let args = &rest[p.rest.min(rest.len())..];
        let Some(sub) = args.first().map(|a| a.text().to_string()) else {
            return;
        };
        let sub_args = &args[1..];
        let sp = parse(sub_args, "", &[], false);
        let longs = |known: &[&'static str]| -> Vec<&'static str> {
            sub_args
                .iter()
                .filter_map(|a| a.text().strip_prefix("--"))
                .filter_map(|l| known::long_option(l.split('=').next().unwrap_or(l), known))
                .collect()
        };
        let has = |s: &str| sub_args.iter().any(|a| a.text() == s);
        let shorts = |c: char| sp.shorts.contains(c);
        let first = sub_args.first().map(Arg::text);
        let forced = shorts('f') || has("--force");
        let new_branch = shorts('b') || shorts('B') || has("--orphan");
        let no_operands = sp.operands.is_empty();
        // (kind, what) of the one effect this sub-command has, if any.
        let effect: Option<(EffectKind, &str)> = match sub.as_str() {
            "clean" => {
                let l = longs(&["dry-run", "force", "interactive", "quiet", "exclude"]);
                (!(shorts('n') || l.contains(&"dry-run")))
                    .then_some((EffectKind::Delete, "untracked files in the repository"))
            }
            "reset" => {
                let l = longs(&[
                    "hard",
                    "soft",
                    "mixed",
                    "merge",
                    "keep",
                    "patch",
                    "quiet",
                    "pathspec-from-file",
                    "recurse-submodules",
                    "no-refresh",
                    "refresh",
                ]);
                (l.iter().any(|o| matches!(*o, "hard" | "merge" | "keep")))
                    .then_some((EffectKind::History, "uncommitted changes"))
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
            "push" => {
                let l = longs(&[
                    "force",
                    "force-with-lease",
                    "force-if-includes",
                    "mirror",
                    "delete",
                    "prune",
                    "all",
                    "tags",
                    "dry-run",
                    "set-upstream",
                    "verbose",
                    "quiet",
                    "follow-tags",
                    "atomic",
                    "no-verify",
                    "porcelain",
                    "progress",
                    "recurse-submodules",
                    "signed",
                    "push-option",
                    "repo",
                    "receive-pack",
                    "exec",
                    "thin",
                    "no-thin",
                    "ipv4",
                    "ipv6",
                ]);
                (shorts('f')
                    || shorts('d')
                    || l.iter().any(|o| {
                        matches!(
                            *o,
                            "force"
                                | "force-with-lease"
                                | "force-if-includes"
                                | "mirror"
                                | "delete"
                                | "prune"
                        )
                    })
                    || sub_args.iter().any(|a| {
                        let t = a.text();
                        !t.starts_with('-') && (t.starts_with('+') || t.starts_with(':'))
                    }))
                .then_some((EffectKind::History, "commits or branches on the remote"))
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
            "config"
                if sp.operands.len() >= 2
                    && sp.operands.first().is_some_and(|k| {
                        let k = k.text().to_ascii_lowercase();
                        k.starts_with("alias.")
                            || k.starts_with("core.")
                            || k.contains("command")
                            || k.contains("hook")
                            || k.starts_with("filter.")
                            || k.ends_with(".textconv")
                            || k.starts_with("credential.")
                            || k.starts_with("include")
                            || k.ends_with("editor")
                    }) =>
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
            return;
        }
        // Commands git runs for some sub-commands.
        match sub.as_str() {
            "bisect" if first == Some("run") => {
                self.unproven(source, "git bisect runs a command at each step");
                if sub_args.len() > 1 {
                    self.argv(&sub_args[1..], stdin, None, depth);
                }
                return;
            }
            "rebase" => {
                for (i, a) in sub_args.iter().enumerate() {
                    if matches!(a.text(), "-x" | "--exec")
                        && let Some(cmd) = sub_args.get(i + 1)
                    {
                        let cmd = cmd.clone();
                        self.shell_string(&cmd, depth, source);
                    }
                }
            }
            "submodule" if first == Some("foreach") => {
                if let Some(cmd) = sub_args.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, source);
                }
            }
            _ => {}
        }
        for out in sub_args
            .iter()
            .filter_map(|a| a.text().strip_prefix("--output="))
        {
            self.write_target(&Arg::literal(out), "git --output");
        }
        if matches!(sub.as_str(), "archive" | "bundle")
            && let Some(i) = sub_args
                .iter()
                .position(|a| matches!(a.text(), "-o" | "--output"))
            && let Some(out) = sub_args.get(i + 1)
        {
            let out = out.clone();
            self.write_target(&out, "git archive -o");
        }
        let read_only = match sub.as_str() {
            "status" | "log" | "diff" | "show" | "blame" | "annotate" | "grep" | "describe"
            | "shortlog" | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file"
            | "show-ref" | "for-each-ref" | "count-objects" | "merge-base" | "name-rev" | "var"
            | "check-ignore" | "check-attr" | "diff-tree" | "diff-files" | "diff-index"
            | "whatchanged" | "version" | "help" | "cherry" | "range-diff" | "show-branch"
            | "verify-commit" | "verify-tag" | "archive" => true,
            "branch" => {
                no_operands
                    || sub_args.iter().any(|a| {
                        matches!(
                            a.text(),
                            "--list"
                                | "-l"
                                | "--contains"
                                | "--merged"
                                | "--no-merged"
                                | "--points-at"
                        )
                    })
            }
            "tag" => no_operands || shorts('l') || has("--list"),
            "remote" => no_operands || matches!(first, Some("-v" | "--verbose" | "get-url")),
            "stash" => matches!(first, Some("list" | "show")),
            "reflog" => matches!(first, None | Some("show")),
            "worktree" => first == Some("list"),
            "submodule" => matches!(first, None | Some("status" | "summary")),
            "config" => {
                sub_args.iter().any(|a| {
                    matches!(
                        a.text(),
                        "--get"
                            | "--get-all"
                            | "--get-regexp"
                            | "--list"
                            | "-l"
                            | "get"
                            | "list"
                            | "--show-origin"
                    )
                }) || sp.operands.len() == 1
            }
            "ls-remote" | "clone" => {
                self.git_network_read(&sub, sub_args, source);
                return;
            }
            _ => false,
        };
        if !read_only {
            self.unproven(
                source,
                format!("`git {sub}` changes the repository or reaches a remote, which artoo does not check"),
            );
        }
    }

    /// `git clone URL [DIR]` and `git ls-remote URL`: network reads; a clone creates its
    /// folder.
    fn git_network_read(&mut self, sub: &str, args: &[Arg], source: &str) {
        const SAFE: &[&str] = &[
            "depth",
            "branch",
            "single-branch",
            "no-single-branch",
            "quiet",
            "verbose",
            "progress",
            "no-tags",
            "tags",
            "heads",
            "refs",
            "shallow-since",
            "shallow-exclude",
            "filter",
            "bare",
            "mirror",
            "origin",
            "no-checkout",
            "sparse",
            "jobs",
            "recurse-submodules",
            "shallow-submodules",
            "get-url",
            "exit-code",
            "symref",
            "sort",
        ];
        let mut operands: Vec<&Arg> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            let Some(t) = a.lit.as_deref() else {
                self.unproven(source, "its address is only known when it runs");
                return;
            };
            if let Some(l) = t.strip_prefix("--") {
                let key = l.split('=').next().unwrap_or(l);
                match known::long_option(key, SAFE) {
                    Some(full) => {
                        if !l.contains('=')
                            && matches!(
                                full,
                                "depth"
                                    | "branch"
                                    | "shallow-since"
                                    | "shallow-exclude"
                                    | "filter"
                                    | "origin"
                                    | "jobs"
                                    | "sort"
                            )
                        {
                            i += 1;
                        }
                    }
                    None => {
                        self.unproven(
                            source,
                            format!("`git {sub}` was given {t}, which artoo does not check"),
                        );
                        return;
                    }
                }
            } else if t.starts_with('-') && t.len() > 1 {
                match t {
                    "-q" | "-v" | "-n" | "-t" | "-h" => {}
                    "-b" | "-o" | "-j" => i += 1,
                    _ => {
                        self.unproven(
                            source,
                            format!("`git {sub}` was given {t}, which artoo does not check"),
                        );
                        return;
                    }
                }
            } else {
                operands.push(a);
            }
            i += 1;
        }
        if sub == "clone" {
            let dir = match (operands.get(1), operands.first()) {
                (Some(dir), _) => (*dir).clone(),
                (None, Some(url)) => {
                    let name = url
                        .text()
                        .trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .unwrap_or_default()
                        .trim_end_matches(".git")
                        .to_string();
                    Arg::literal(&name)
                }
                (None, None) => return,
            };
            if let Target::Path {
                path,
                exists: Existence::Missing,
            } = self.path_target(&dir)
            {
                self.create(path);
            } else {
                self.unproven(source, "it clones into a folder that exists");
                return;
            }
        }
        self.network = true;
    }

    fn sql(&mut self, name: &str, rest: &[Arg], stdin: &Stdin, source: &str) {
        let p = parse(
            rest,
            "cefdhUpPsvo",
            &[
                "command", "execute", "file", "dbname", "host", "username", "port", "set",
                "variable", "output", "log-file",
            ],
            false,
        );
        if p.value("f").or_else(|| p.value("file")).is_some() && name != "sqlite3" {
            self.unproven(source, "the SQL is in a file");
        }
        for key in ["o", "output", "log-file"] {
            if let Some(out) = p.value(key).cloned() {
                self.write_target(&out, "-o");
            }
        }
        let mut texts: Vec<String> = Vec::new();
        for key in ["c", "command", "e", "execute"] {
            for v in p.values_of(key) {
                match &v.lit {
                    Some(s) => texts.push(s.clone()),
                    None => {
                        self.unproven(source, "the SQL is only known when the command runs");
                        return;
                    }
                }
            }
        }
        // sqlite3 DB "SQL…"
        if name == "sqlite3" && p.operands.len() >= 2 {
            for op in &p.operands[1..] {
                match &op.lit {
                    Some(s) => texts.push(s.clone()),
                    None => {
                        self.unproven(source, "the SQL is only known when the command runs");
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
                    self.unproven(
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
        // Client commands that run programs, read scripts or write files.
        if let Some(meta) = texts.iter().find_map(|t| script::sql_client_command(t)) {
            self.unproven(source, format!("it uses the client command `{meta}`"));
        }
        if name != "sqlite3" {
            // A server: what it holds and who else uses it cannot be seen from here.
            self.unproven(source, format!("{name} talks to a database server"));
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
            None => self.unproven(source, "the shell command is only known when it runs"),
        }
    }

    fn shell(
        &mut self,
        rest: &[Arg],
        stdin: &Stdin,
        source: &str,
        extra: Option<&str>,
        depth: usize,
    ) {
        if let Some(what) = extra {
            // `xargs bash`, `find -exec sh {}`: it runs scripts named only at run time.
            self.unproven(source, format!("it runs scripts from {what}"));
        }
        let p = parse(rest, "oO", &["rcfile", "init-file"], true);
        if p.value("rcfile").or_else(|| p.value("init-file")).is_some() {
            self.unproven(source, "the shell reads a start-up file first");
        }
        if p.shorts.contains('c') {
            match rest.get(p.rest) {
                Some(cmd) => {
                    let cmd = cmd.clone();
                    self.shell_string(&cmd, depth, source);
                }
                None => self.unproven(source, "a shell with -c but no command"),
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
            Stdin::Unknown => {
                self.unproven(source, "a shell runs commands it reads from its input")
            }
            Stdin::Closed => {}
        }
    }

    /// `bash FILE`, `source FILE`: a script's content can change before it runs, so it is
    /// never proven; when it can be read it is walked, so what it certainly destroys is
    /// asked about.
    fn run_script_file(&mut self, file: &Arg, source: &str, depth: usize) {
        let path = file
            .fixed()
            .and_then(|f| text::resolve(f, self.cwd.as_deref()));
        match path.and_then(|p| self.scope.fs.read_script(&p)) {
            Some(text) => {
                self.unproven(
                    source,
                    format!(
                        "it runs the script {}, whose content can change before it runs",
                        file.text()
                    ),
                );
                let saved = self.cwd.clone();
                self.script(&text, depth + 1);
                self.cwd = saved;
            }
            None => self.unproven(
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
        // `perl -i` and `ruby -i` edit files in place.
        if name == "perl" || name == "ruby" {
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
                match rest.get(i + 1).map(|c| c.lit.clone()) {
                    Some(Some(c)) => self.scanned_code(&c, source, &format!("the {name} code")),
                    _ => self.unproven(
                        source,
                        format!("the {name} code is only known when it runs"),
                    ),
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
                self.unproven(
                    source,
                    format!("{name} runs a module whose code cannot be checked"),
                );
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
                        self.scanned_code(&code, source, &format!("the script {}", file.text()))
                    }
                    None => self.unproven(
                        source,
                        format!("it runs the script {}, which cannot be read", file.text()),
                    ),
                }
                return;
            }
            i += 1;
        }
        if let Some(what) = extra {
            self.unproven(source, format!("{name} runs code from {what}"));
        }
        if !saw_code {
            match stdin {
                Stdin::Literal(code) => {
                    let code = code.clone();
                    self.scanned_code(&code, source, &format!("the {name} code"))
                }
                Stdin::Unknown => {
                    self.unproven(source, format!("{name} runs code it reads from its input"))
                }
                Stdin::Closed if rest.is_empty() => {}
                Stdin::Closed => self.unproven(
                    source,
                    format!("{name} was given options artoo does not check"),
                ),
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
                None => self.unproven(source, "env -S runs a string only known when it runs"),
            }
            return;
        }
        let mut start = p.rest;
        // `env -` is `env -i`.
        if rest.get(start).is_some_and(|a| a.text() == "-") {
            start += 1;
        }
        while start < rest.len()
            && rest[start].text().contains('=')
            && !rest[start].text().starts_with('=')
        {
            let var = rest[start].text().split('=').next().unwrap_or_default();
            if is_code_variable(var) {
                self.unproven(
                    source,
                    format!("it sets {var}, which can make the program run something else"),
                );
            }
            start += 1;
        }
        let env_opts = &rest[..p.rest.min(rest.len())];
        let spec = known::Opts {
            short: "i0v",
            short_val: "uCSP",
            long: &[
                "ignore-environment",
                "null",
                "debug",
                "list-signal-handling",
            ],
            long_val: &[
                "unset",
                "chdir",
                "split-string",
                "default-signal",
                "ignore-signal",
                "block-signal",
            ],
            digits: false,
        };
        if let Some(opt) = known::unknown_options(&spec, env_opts) {
            self.unproven(
                source,
                format!("env was given an option artoo does not know ({opt})"),
            );
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
                        .map(|a| {
                            if a.text().contains("{}") {
                                Arg {
                                    lit: None,
                                    raw: a.raw.clone(),
                                    glob: false,
                                }
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    let saved = self.cwd.clone();
                    if t.ends_with("dir") {
                        self.cwd = None;
                    }
                    if inner.is_empty() {
                        self.unproven(source, "find runs a command it does not name");
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
                    i += 1 + usize::from(t == "-fprintf");
                }
                _ if find_takes_value(t) => i += 1,
                _ if find_flag(t) || !t.starts_with('-') => {}
                _ => self.unproven(
                    source,
                    format!("find was given {t}, which artoo does not know"),
                ),
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
        self.unproven(
            source,
            format!("it runs commands on {host}, another computer"),
        );
        let cmd_args = rest.get(p.rest + 1..).unwrap_or(&[]);
        if cmd_args.is_empty() {
            return;
        }
        if cmd_args.iter().any(|a| a.lit.is_none()) {
            self.unproven(
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
        if known::known(name).is_some() {
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
        // `-o FILE` and `--output FILE`: compilers and converters replace an existing
        // output (a rebuild overwrites the last build).
        let mut outputs: Vec<Arg> = ["output", "output-file", "outfile", "out"]
            .iter()
            .flat_map(|k| p.values_of(k))
            .cloned()
            .collect();
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
