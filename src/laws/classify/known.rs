//! The programs the classifier understands well enough to prove a command reversible:
//! which options each takes, and which of them change nothing.
//!
//! A program is proven only when it is in this table and every option it is given is
//! one the table lists for it (long options may be abbreviated to any unique prefix, as
//! GNU tools accept). An unknown program, or an option the table does not list, leaves
//! the command unproven — it then runs in the sandbox, or asks where there is none. The
//! effects of the options that do something irreversible (`sort -o` onto an existing
//! file, `date -s`) are found by the program rules in `programs`; this table only says
//! whether the rest is understood.
//!
//! **Invariant:** an entry never lists an option that runs another program, writes a
//! file the rules in `programs` do not see, or changes the system; when in doubt an
//! option is left out (unproven), never put in.

use super::shell::Arg;

/// How a program's options are understood.
#[derive(Clone, Copy, Debug)]
pub(super) enum Known {
    /// Reads and prints, whatever its options: no option of it writes a file, runs a
    /// program or changes anything.
    Reader,
    /// Every option must be listed. `short` are flags, `short_val` take a value (glued
    /// or the next word), `long`/`long_val` likewise for `--name[=value]`. `digits`: a
    /// number as an option (`head -5`).
    Options(Opts),
    /// The program's rule in `programs` decides, option by option (wrappers, shells,
    /// `find`, `xargs`, `git`, `curl`…).
    Rule,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Opts {
    pub short: &'static str,
    pub short_val: &'static str,
    pub long: &'static [&'static str],
    pub long_val: &'static [&'static str],
    pub digits: bool,
}

const fn opts(
    short: &'static str,
    short_val: &'static str,
    long: &'static [&'static str],
    long_val: &'static [&'static str],
) -> Known {
    Known::Options(Opts {
        short,
        short_val,
        long,
        long_val,
        digits: false,
    })
}

/// Programs that only read and print, whatever their options.
const READERS: &[&str] = &[
    "cat",
    "tac",
    "head",
    "tail",
    "nl",
    "wc",
    "cut",
    "paste",
    "join",
    "comm",
    "cmp",
    "diff",
    "fold",
    "fmt",
    "rev",
    "column",
    "expand",
    "unexpand",
    "tr",
    "od",
    "hexdump",
    "strings",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "shasum",
    "md5",
    "base32",
    "basenc",
    "numfmt",
    "factor",
    "seq",
    "yes",
    "true",
    "false",
    ":",
    "test",
    "[",
    "[[",
    "expr",
    "printf",
    "echo",
    "pwd",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "du",
    "df",
    "ls",
    "dir",
    "vdir",
    "which",
    "whereis",
    "type",
    "id",
    "whoami",
    "groups",
    "users",
    "who",
    "logname",
    "w",
    "last",
    "lastlog",
    "uptime",
    "uname",
    "nproc",
    "lscpu",
    "lsblk",
    "lsmem",
    "lspci",
    "lsusb",
    "free",
    "vmstat",
    "vm_stat",
    "iostat",
    "mpstat",
    "sw_vers",
    "system_profiler",
    "getconf",
    "locale",
    "printenv",
    "tty",
    "tput",
    "ps",
    "pgrep",
    "pidof",
    "top",
    "htop",
    "lsof",
    "netstat",
    "ss",
    "getent",
    "mdls",
    "mdfind",
    "locate",
    "plocate",
    "jq",
    "gron",
    "look",
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "bzgrep",
    "xzgrep",
    "ag",
    "info",
    "apropos",
    "whatis",
    "help",
    "cal",
    "ncal",
    "bc",
    "zcat",
    "bzcat",
    "xzcat",
    "zstdcat",
    "ffprobe",
    "identify",
    "pdfinfo",
    "pdffonts",
    "tokei",
    "scc",
    "pbpaste",
    "afinfo",
    "afplay",
    "ioreg",
    "otool",
    "nm",
    "objdump",
    "readelf",
    "size",
    "pr",
    "tsort",
    "findmnt",
    "lsattr",
    "getfacl",
    "nslookup",
    "whois",
    "dig",
    "host",
    "tree",
    "file",
    "exiv2",
    "mediainfo",
    "csvlook",
    "shellcheck",
    "sleep",
    "wait",
    "jobs",
    "dirs",
    "times",
    "umask",
    "ulimit",
    "let",
    "read",
    "local",
    "declare",
    "typeset",
    "readonly",
    "export",
    "unset",
    "shift",
    "set",
    "shopt",
    "return",
    "exit",
    "break",
    "continue",
    "getopts",
    "caller",
    "compgen",
    "complete",
    "logout",
    "history",
];

/// Programs that reach the network only to read (a lookup, a download whose file the
/// rules check): a proven call of one keeps the network in the sandbox.
pub(super) const NETWORK_READERS: &[&str] = &[
    "ping",
    "ping6",
    "traceroute",
    "traceroute6",
    "tracepath",
    "mtr",
    "dig",
    "host",
    "nslookup",
    "whois",
    "curl",
    "wget",
];

/// The table entry of a program, by its folded name.
pub(super) fn known(name: &str) -> Option<Known> {
    if READERS.contains(&name) {
        // A few readers have options that write or run something: they get rules.
        return Some(match name {
            "tree" => opts(
                "adlfFinpsughDqNQrtvUcCSAJXxe",
                "LPIHT",
                &[
                    "noreport",
                    "dirsfirst",
                    "du",
                    "si",
                    "prune",
                    "matchdirs",
                    "ignore-case",
                    "inodes",
                    "device",
                    "gitignore",
                    "info",
                    "help",
                    "version",
                    "fromfile",
                ],
                &["charset", "filelimit", "timefmt", "sort"],
            ),
            "file" => opts(
                "bcdhiklLNnprsSvzZ0",
                "efFmP",
                &[
                    "brief",
                    "checking-printout",
                    "dereference",
                    "no-dereference",
                    "keep-going",
                    "list",
                    "mime",
                    "mime-type",
                    "mime-encoding",
                    "no-buffer",
                    "no-pad",
                    "preserve-date",
                    "raw",
                    "special-files",
                    "uncompress",
                    "uncompress-noreport",
                    "print0",
                    "help",
                    "version",
                    "extension",
                    "apple",
                ],
                &[
                    "files-from",
                    "separator",
                    "exclude",
                    "exclude-quiet",
                    "magic-file",
                    "parameter",
                ],
            ),
            "exiv2" => opts(
                "bkqQuvVhpPg",
                "",
                &["help", "version", "verbose", "quiet", "keep"],
                &[],
            ),
            "mediainfo" => opts(
                "f",
                "",
                &["full", "help", "version"],
                &["language", "output", "inform"],
            ),
            "history" => opts("", "", &[], &[]),
            _ => Known::Reader,
        });
    }
    Some(match name {
        "sort" => opts(
            "bdfgiMhnRrVcCmsuzo",
            "kStTo",
            &[
                "ignore-leading-blanks",
                "dictionary-order",
                "ignore-case",
                "general-numeric-sort",
                "ignore-nonprinting",
                "month-sort",
                "human-numeric-sort",
                "numeric-sort",
                "random-sort",
                "reverse",
                "version-sort",
                "check",
                "merge",
                "stable",
                "unique",
                "zero-terminated",
                "debug",
                "help",
                "version",
            ],
            &[
                "key",
                "field-separator",
                "buffer-size",
                "temporary-directory",
                "parallel",
                "output",
                "sort",
                "random-source",
                "files0-from",
            ],
        ),
        "uniq" => Known::Options(Opts {
            short: "cdDiuz",
            short_val: "fsw",
            long: &[
                "count",
                "repeated",
                "all-repeated",
                "ignore-case",
                "unique",
                "zero-terminated",
                "group",
                "help",
                "version",
            ],
            long_val: &["skip-fields", "skip-chars", "check-chars"],
            digits: false,
        }),
        "shuf" => opts(
            "erz",
            "inos",
            &["echo", "repeat", "zero-terminated", "help", "version"],
            &["input-range", "head-count", "output", "random-source"],
        ),
        "head" | "tail" => Known::Reader,
        "mapfile" | "readarray" => opts("t", "dnOsuc", &["help"], &[]),
        // A new file (or folder) of a unique name, in the temp folder by default.
        "mktemp" => opts(
            "dqtu",
            "p",
            &["directory", "quiet", "dry-run", "help", "version"],
            &["tmpdir", "suffix"],
        ),
        // `+CMD` runs a command of the pager (`+!…` a shell command); `-P`/`--pager`
        // and `-H` name a program to run.
        "less" | "more" | "man" => Known::Rule,
        "mkdir" => opts(
            "pv",
            "m",
            &["parents", "verbose", "help", "version"],
            &["mode"],
        ),
        "touch" => opts(
            "acfhm",
            "drt",
            &["no-create", "no-dereference", "help", "version"],
            &["date", "reference", "time"],
        ),
        "cp" | "gcp" => opts(
            "aRrpPLHdflnivsxTubt",
            "St",
            &[
                "archive",
                "recursive",
                "dereference",
                "no-dereference",
                "force",
                "link",
                "no-clobber",
                "interactive",
                "verbose",
                "symbolic-link",
                "one-file-system",
                "no-target-directory",
                "update",
                "backup",
                "parents",
                "attributes-only",
                "remove-destination",
                "strip-trailing-slashes",
                "copy-contents",
                "debug",
                "help",
                "version",
            ],
            &[
                "target-directory",
                "suffix",
                "preserve",
                "no-preserve",
                "sparse",
                "reflink",
            ],
        ),
        "mv" | "gmv" => opts(
            "finvTub",
            "St",
            &[
                "force",
                "interactive",
                "no-clobber",
                "verbose",
                "no-target-directory",
                "update",
                "backup",
                "strip-trailing-slashes",
                "help",
                "version",
            ],
            &["target-directory", "suffix"],
        ),
        "ln" => opts(
            "sfnivrTLPb",
            "St",
            &[
                "symbolic",
                "force",
                "no-dereference",
                "interactive",
                "verbose",
                "relative",
                "no-target-directory",
                "logical",
                "physical",
                "backup",
                "help",
                "version",
            ],
            &["suffix", "target-directory"],
        ),
        "tee" => opts(
            "aip",
            "",
            &[
                "append",
                "ignore-interrupts",
                "output-error",
                "help",
                "version",
            ],
            &[],
        ),
        "rm" | "rmdir" | "unlink" | "shred" | "truncate" => opts(
            "fiIrRdvpuzxn",
            "s",
            &[
                "force",
                "interactive",
                "recursive",
                "dir",
                "verbose",
                "parents",
                "ignore-fail-on-non-empty",
                "one-file-system",
                "no-preserve-root",
                "preserve-root",
                "no-create",
                "io-blocks",
                "zero",
                "exact",
                "help",
                "version",
            ],
            &["size", "reference", "iterations", "remove"],
        ),
        "date" | "gdate" => opts(
            "uRIjn",
            "drfv",
            &["utc", "universal", "rfc-email", "help", "version", "debug"],
            &["date", "reference", "file", "rfc-3339", "iso-8601"],
        ),
        "hostname" => opts(
            "afisAdIys",
            "",
            &[
                "alias",
                "fqdn",
                "long",
                "ip-address",
                "all-fqdns",
                "all-ip-addresses",
                "domain",
                "short",
                "yp",
                "nis",
                "help",
                "version",
            ],
            &[],
        ),
        "chmod" | "chown" | "chgrp" => opts(
            "cfvRHLPh",
            "",
            &[
                "changes",
                "silent",
                "quiet",
                "verbose",
                "recursive",
                "no-preserve-root",
                "preserve-root",
                "dereference",
                "no-dereference",
                "help",
                "version",
            ],
            &["reference", "from"],
        ),
        "ping" | "ping6" => Known::Options(Opts {
            short: "46aAbBdDfLnOqrRUv",
            short_val: "cisSwWtQIlMmpT",
            long: &["help", "version"],
            long_val: &[],
            digits: false,
        }),
        "traceroute" | "traceroute6" | "tracepath" | "mtr" => Known::Reader,
        "kill" => Known::Rule,
        "iconv" => opts(
            "cls",
            "ft",
            &["list", "silent", "help", "version"],
            &["from-code", "to-code"],
        ),
        "base64" | "gbase64" => opts(
            "diwD",
            "bw",
            &["decode", "ignore-garbage", "help", "version"],
            &["wrap"],
        ),
        "xxd" => opts("abCeEipruh", "cglnosR", &["help", "version"], &[]),
        "say" => opts("i", "vrf", &["help"], &["voice", "rate"]),
        "mdutil" => opts("spv", "", &["help"], &[]),
        "crontab" => opts("l", "u", &[], &[]),
        "pmset" => opts("g", "", &[], &[]),
        // Programs whose rules in `programs` decide what is understood.
        "cd" | "pushd" | "popd" | "trap" | "alias" | "unalias" | "hash" | "command" | "builtin"
        | "eval" | "source" | "." | "exec" | "env" | "nohup" | "nice" | "time" | "timeout"
        | "gtimeout" | "stdbuf" | "gstdbuf" | "ionice" | "xargs" | "gxargs" | "find" | "gfind"
        | "fd" | "fdfind" | "sed" | "gsed" | "awk" | "gawk" | "mawk" | "nawk" | "git" | "curl"
        | "wget" | "tar" | "gtar" | "bsdtar" | "zip" | "unzip" | "gzip" | "gunzip" | "bzip2"
        | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "yq" | "rg" | "launchctl"
        | "systemctl" | "defaults" | "diskutil" | "tmutil" | "plutil" | "sips" | "exiftool"
        | "sysctl" | "dpkg" | "rpm" | "apt" | "apt-cache" | "brew" | "pip" | "pip3" | "npm"
        | "pnpm" | "yarn" | "gem" | "conda" | "mamba" | "apt-get" | "caffeinate" | "watch"
        | "sqlite3" | "dd" | "lzma" | "unlzma" | "lz4" | "compress" | "uncompress" | "7z"
        | "7za" | "7zz" | "rsync" | "gh" | "journalctl" | "dmesg" => Known::Rule,
        _ => return None,
    })
}

/// Options a command was given that its table entry does not list.
pub(super) fn unknown_options(o: &Opts, args: &[Arg]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let Some(t) = args[i].lit.as_deref() else {
            // A word only known at run time may be an option.
            if args[i].raw.starts_with('-') || args[i].raw.starts_with('$') {
                return Some(args[i].raw.clone());
            }
            i += 1;
            continue;
        };
        if t == "--" {
            return None;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (key, has_value) = match body.split_once('=') {
                Some((k, _)) => (k, true),
                None => (body, false),
            };
            // A long option that takes a value is known too, whether or not `long`
            // repeats it.
            let all: Vec<&'static str> = o.long.iter().chain(o.long_val).copied().collect();
            match long_option(key, &all) {
                Some(full) => {
                    if !has_value && o.long_val.contains(&full) {
                        i += 1;
                    }
                }
                None => return Some(t.to_string()),
            }
        } else if t.len() > 1 && t.starts_with('-') {
            let body = &t[1..];
            if o.digits && body.chars().all(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            for (j, c) in body.char_indices() {
                if o.short_val.contains(c) {
                    if j + c.len_utf8() == body.len() {
                        i += 1;
                    }
                    break;
                }
                if !o.short.contains(c) {
                    return Some(t.to_string());
                }
            }
        }
        i += 1;
    }
    None
}

/// The full name of a long option given as `key`: itself, or the one known option it
/// abbreviates (`--har` for `--hard`). `None` when unknown or ambiguous.
pub(super) fn long_option(key: &str, known: &[&'static str]) -> Option<&'static str> {
    if let Some(exact) = known.iter().find(|k| **k == key) {
        return Some(exact);
    }
    let mut matches = known
        .iter()
        .filter(|k| k.starts_with(key) && !key.is_empty());
    match (matches.next(), matches.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// `--help`, `--version` and their kin alone: the program prints and exits. `-h` and
/// `-V` count only for programs where they cannot mean something else.
pub(super) fn is_help_probe(name: &str, args: &[Arg]) -> bool {
    const POWER: &[&str] = &[
        "shutdown", "halt", "reboot", "poweroff", "kill", "killall", "pkill", "sort", "ls", "du",
        "df", "grep",
    ];
    !args.is_empty()
        && args.len() <= 2
        && args.iter().all(|a| match a.fixed() {
            Some("--help" | "--version" | "-help" | "-version" | "--usage" | "-?") => true,
            Some("-h" | "-V") => !POWER.contains(&name),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn only_listed_options_are_understood() {
        let Some(Known::Options(sort)) = known("sort") else {
            panic!("sort has options")
        };
        assert_eq!(
            unknown_options(&sort, &args(&["-rn", "-k", "2", "a.txt"])),
            None
        );
        assert_eq!(unknown_options(&sort, &args(&["--numeric", "a.txt"])), None);
        assert_eq!(
            unknown_options(&sort, &args(&["--compress-program=sh", "a"])),
            Some("--compress-program=sh".into())
        );
        assert_eq!(
            unknown_options(&sort, &args(&["-Q", "a"])),
            Some("-Q".into())
        );
    }

    #[test]
    fn long_options_may_be_abbreviated_when_unambiguous() {
        assert_eq!(long_option("har", &["hard", "soft"]), Some("hard"));
        assert_eq!(long_option("s", &["soft", "stat"]), None);
        assert_eq!(long_option("x", &["hard"]), None);
    }

    #[test]
    fn help_and_version_probes_are_recognised_but_not_where_h_means_halt() {
        assert!(is_help_probe("rm", &args(&["--help"])));
        assert!(is_help_probe("python3", &args(&["-V"])));
        assert!(!is_help_probe("shutdown", &args(&["-h"])));
        assert!(!is_help_probe("rm", &args(&["--help", "x", "y"])));
        assert!(!is_help_probe("rm", &args(&["-rf"])));
    }
}
