//! Programs that talk to other computers: mail senders, `curl`, `wget`, HTTPie, the
//! GitHub CLI, `rclone` and the cloud storage tools.
//!
//! **Invariant:** sending data (a POST, a mail, an upload) is a Send effect; a download is a
//! proven network read only when every word is literal and every option is known and
//! not among the ones that make the result depend on more than the words.

use super::generic::generic;
use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Arg, Parsed, first_operand, parse};
use crate::laws::classify::assessment::{EffectKind, Existence, Target};
use crate::laws::classify::known;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(
        &[
            "mail",
            "mailx",
            "sendmail",
            "mutt",
            "neomutt",
            "msmtp",
            "ssmtp",
            "swaks",
            "sendemail",
            "s-nail",
        ],
        mail,
    ),
    rule(&["curl"], curl),
    rule(&["wget"], wget),
    rule(&["http", "https", "xh", "xhs"], http),
    rule(&["gh"], gh),
    rule(&["rclone"], rclone),
    rule(
        &["gsutil", "gcloud", "aws", "s3cmd", "azcopy", "az"],
        gsutil,
    ),
];

fn mail(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let p = parse(rest, "sabcfrSu", &[], false);
    let reading = (p.has('f', "") && p.operands.is_empty())
        || (rest.is_empty() && matches!(name, "mail" | "mailx" | "mutt" | "neomutt"));
    if !reading {
        w.plain(EffectKind::Send, source);
    }
}

fn http(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
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
        w.plain(EffectKind::Send, source);
    }
}

fn gh(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
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
                    "-X" | "--method" | "-f" | "-F" | "--field" | "--raw-field" | "--input"
                )
            })
    {
        w.plain(EffectKind::Send, source);
    }
}

fn rclone(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
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
        w.unknown(
            EffectKind::Delete,
            format!("files `rclone {sub}` removes or replaces"),
            source,
        );
    }
}

fn gsutil(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let words: Vec<&str> = rest.iter().map(Arg::text).collect();
    let deletes = words.iter().any(|w| {
        matches!(
            *w,
            "--delete" | "--delete-removed" | "--delete-destination=true"
        )
    }) || (words.contains(&"rsync")
        && words.iter().any(|w| {
            *w == "-d" || (w.starts_with('-') && !w.starts_with("--") && w.contains('d'))
        }));
    if deletes {
        w.unknown(
            EffectKind::Delete,
            "files the sync removes at the destination",
            source,
        );
    }
    generic(w, name, rest, source);
}

/// curl's short options without a value.
const CURL_SHORT: &str = "sSfLIiGvkq#NZgjnRl04610MJbu";

/// curl's short options that take a value.
const CURL_SHORT_VAL: &str = "dFTXoHuAeErbcKwmxYyzCQUPDa";

/// curl's long options without a value.
const CURL_LONG_FLAGS: &[&str] = &[
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

/// curl's long options that take a value.
const CURL_LONG_VALUES: &[&str] = &[
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

fn curl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, CURL_SHORT_VAL, CURL_LONG_VALUES, false);
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
        .any(|k| p.value(k).is_some());
    // Any method but a read's asks the server to change something (an FTP `DELE` too);
    // so do commands quoted to an FTP or SFTP server (`-Q 'DELE f'`).
    let changes_remote = method
        .as_deref()
        .is_some_and(|m| !matches!(m, "GET" | "HEAD" | "OPTIONS"))
        || p.value("Q").is_some()
        || p.value("quote").is_some();
    let sends = sends || changes_remote || curl_carries(&p);
    if sends {
        w.plain(EffectKind::Send, source);
    }
    curl_outputs(w, &p, source);
    let opts = known::Opts {
        short: CURL_SHORT,
        short_val: CURL_SHORT_VAL,
        long: CURL_LONG_FLAGS,
        long_val: CURL_LONG_VALUES,
        digits: false,
    };
    let reads_only = network_read_args(
        w,
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
        w.network_read(source, rest);
    }
}

/// Header names a plain read sends: content negotiation, caching, ranges. Any other
/// header (authorization, cookies, API keys, a custom one) may carry a secret.
const PLAIN_HEADERS: &[&str] = &[
    "accept",
    "accept-language",
    "accept-encoding",
    "accept-charset",
    "user-agent",
    "range",
    "if-none-match",
    "if-modified-since",
    "if-match",
    "if-unmodified-since",
    "cache-control",
    "pragma",
    "content-type",
    "referer",
    "dnt",
    "connection",
];

/// Whether a header sent with a request may carry something of this computer: read
/// from a file (`@file`), unknown until it runs, or of a kind that is not plain.
fn secret_header(h: &Arg) -> bool {
    let Some(text) = h.fixed() else {
        return true;
    };
    if text.starts_with('@') {
        return true;
    }
    let name = text.split(':').next().unwrap_or_default().trim();
    !PLAIN_HEADERS.contains(&name.to_ascii_lowercase().as_str())
}

/// Whether a curl request carries local contents or secrets, even as a read: data,
/// query parts or headers read from a file (`@file`, `name@file`, `=@file`, `=<file`),
/// an upload, cookies, credentials (`-u`, a proxy's `-U`, `--oauth2-bearer`, `--netrc`,
/// a client certificate or key), a header that is not plain, or a value known only when
/// it runs. (`user:password@` in an address: [`Walker::network_read`].)
fn curl_carries(p: &Parsed<'_>) -> bool {
    let unknown_or = |keys: &[&str], carries: &dyn Fn(&str) -> bool| {
        keys.iter()
            .flat_map(|k| p.values_of(k))
            .any(|v| v.fixed().is_none_or(carries))
    };
    let from_file = |t: &str| t.starts_with('@');
    let named_file =
        |t: &str| t.starts_with('@') || t.split('=').next().is_some_and(|n| n.contains('@'));
    let form_file = |t: &str| t.contains("=@") || t.contains("=<");
    unknown_or(
        &["d", "data", "data-binary", "data-ascii", "json"],
        &from_file,
    ) || unknown_or(&["data-urlencode", "url-query"], &named_file)
        || unknown_or(&["F", "form"], &form_file)
        || p.values_of("H")
            .chain(p.values_of("header"))
            .any(secret_header)
        || [
            "T",
            "upload-file",
            "b",
            "cookie",
            "u",
            "user",
            "U",
            "proxy-user",
            "oauth2-bearer",
            "E",
            "cert",
            "key",
            "netrc-file",
        ]
        .iter()
        .any(|k| p.value(k).is_some())
        || p.has('n', "netrc")
        || p.has('\0', "netrc-optional")
}

/// The files curl writes: `-o` and the other options naming an output file, and with
/// `-O` the last part of each address.
fn curl_outputs(w: &mut Walker<'_>, p: &Parsed<'_>, source: &str) {
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
            w.write_target(&out, op);
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
                w.unproven(source, "the file it saves is named by the server");
            } else {
                w.write_target(&Arg::literal(&name), "curl -O");
            }
        }
    }
}

/// Whether a download or lookup tool was given only literal words and known options,
/// none of `risky` (options that read options from elsewhere, reach local servers or
/// let the server pick file names): then it is a network read. Otherwise records
/// why not.
fn network_read_args(
    w: &mut Walker<'_>,
    source: &str,
    rest: &[Arg],
    opts: &known::Opts,
    risky: &[&str],
) -> bool {
    if rest.iter().any(|a| a.lit.is_none()) {
        w.unproven(source, "its address or options are only known when it runs");
        return false;
    }
    let all_long: Vec<&'static str> = opts.long.iter().chain(opts.long_val).copied().collect();
    if let Some(opt) = known::unknown_options(opts, rest) {
        w.unproven(
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
        w.unproven(
            source,
            format!("`{opt}` makes what it does depend on more than its words"),
        );
        return false;
    }
    true
}

/// wget's short options without a value.
const WGET_SHORT: &str = "qvdnNcSrkpmEKFxb46";

/// wget's short options that take a value.
const WGET_SHORT_VAL: &str = "OoaPeUtTwilADRQ";

/// wget's long options without a value.
const WGET_LONG_FLAGS: &[&str] = &[
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

/// wget's long options that take a value.
const WGET_LONG_VALUES: &[&str] = &[
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

fn wget(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let p = parse(rest, WGET_SHORT_VAL, WGET_LONG_VALUES, false);
    let method = p.value("method").map(|v| v.text().to_ascii_uppercase());
    let sends = p.value("post-data").is_some()
        || p.value("post-file").is_some()
        || p.value("body-data").is_some()
        || p.value("body-file").is_some()
        || matches!(method.as_deref(), Some("POST" | "PUT" | "PATCH" | "DELETE"))
        // Credentials, cookies and headers that are not plain carry secrets out.
        || p.values_of("header").any(secret_header)
        || [
            "user",
            "password",
            "http-user",
            "http-password",
            "load-cookies",
            "certificate",
            "private-key",
        ]
        .iter()
        .any(|k| p.value(k).is_some());
    if sends {
        w.plain(EffectKind::Send, source);
    }
    if let Some(out) = p.value("O").or_else(|| p.value("output-document")).cloned()
        && out.text() != "-"
        && out.text() != "/dev/null"
    {
        w.write_target(&out, "wget -O");
    }
    if let Some(log) = p.value("o").or_else(|| p.value("output-file")).cloned() {
        w.write_target(&log, "wget -o");
    }
    if let Some(log) = p.value("a").or_else(|| p.value("append-output")).cloned() {
        w.append_target(&log, "wget -a");
    }
    if let Some(dir) = p
        .value("P")
        .or_else(|| p.value("directory-prefix"))
        .cloned()
    {
        match w.path_target(&dir) {
            Target::Path {
                path,
                exists: Existence::Missing,
            } => w.create(path),
            Target::Path { path, .. } => w.fills(path),
            _ => w.unproven(
                source,
                "the folder it saves into is only known when it runs",
            ),
        }
    } else if p
        .value("O")
        .or_else(|| p.value("output-document"))
        .is_none()
        && let Some(cwd) = w.cwd.clone()
    {
        // Without -O the file goes into the current folder under a new name (wget
        // never replaces an existing file there unless told to).
        w.fills(cwd);
    }
    let opts = known::Opts {
        short: WGET_SHORT,
        short_val: WGET_SHORT_VAL,
        long: WGET_LONG_FLAGS,
        long_val: WGET_LONG_VALUES,
        digits: false,
    };
    let reads_only = network_read_args(
        w,
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
        w.network_read(source, rest);
    }
}
