//! The words of one simple command once the shell has evaluated them ([`Arg`]), where
//! its input comes from ([`Stdin`]), and the option parser the program rules share.
//!
//! **Invariant:** an [`Arg`] has a literal value only when that value is fixed before
//! the command runs; anything computed at run time has none, so no rule can mistake it
//! for a known word.

/// One evaluated word: its literal value when it is fixed before the command runs.
#[derive(Clone, Debug)]
pub(super) struct Arg {
    pub lit: Option<String>,
    pub raw: String,
    /// Unquoted glob or brace syntax: the shell expands it to unknown names.
    pub glob: bool,
}

impl Arg {
    pub fn literal(s: &str) -> Self {
        Arg {
            lit: Some(s.to_string()),
            raw: s.to_string(),
            glob: false,
        }
    }

    pub fn text(&self) -> &str {
        self.lit.as_deref().unwrap_or(&self.raw)
    }

    /// The literal value when it is fixed and not a glob.
    pub fn fixed(&self) -> Option<&str> {
        if self.glob { None } else { self.lit.as_deref() }
    }
}

/// Where a simple command's standard input comes from.
#[derive(Clone, Debug)]
pub(super) enum Stdin {
    /// Nothing (the tool runs commands with stdin closed).
    Closed,
    /// A pipe or a file: content unknown to the classifier.
    Unknown,
    /// A here-document or here-string with this text.
    Literal(String),
}

/// The first word that is not an option: the sub-command of tools that have them.
pub(super) fn first_operand(args: &[Arg]) -> &str {
    args.iter()
        .map(Arg::text)
        .find(|t| !t.starts_with('-'))
        .unwrap_or_default()
}

/// Options of one command line.
#[derive(Default)]
pub(super) struct Parsed<'a> {
    pub shorts: String,
    longs: Vec<String>,
    values: Vec<(String, Arg)>,
    pub operands: Vec<&'a Arg>,
    /// Index in the argument list just after the options (prefix parsing only).
    pub rest: usize,
}

impl Parsed<'_> {
    pub fn has(&self, short: char, long: &str) -> bool {
        (short != '\0' && self.shorts.contains(short)) || self.longs.iter().any(|l| l == long)
    }

    pub fn has_long_prefix(&self, prefix: &str) -> bool {
        self.longs.iter().any(|l| l.starts_with(prefix))
    }

    pub fn value(&self, key: &str) -> Option<&Arg> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn values_of<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s Arg> + 's {
        self.values
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

/// Parses options. `short_val` lists short options taking a value, `long_val` long
/// ones. With `stop_at_operand` (wrappers), options end at the first operand and
/// `rest` points at it; otherwise options may follow operands (GNU style).
pub(super) fn parse<'a>(
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

pub(super) fn joined(args: &[Arg]) -> String {
    args.iter().map(Arg::text).collect::<Vec<_>>().join(" ")
}
