//! Walks a parsed shell program: every list, pipeline, compound command, function body,
//! redirection, command substitution, process substitution and here-document, and hands
//! each simple command (as evaluated words) to the program rules in `programs`.

use std::path::PathBuf;

use brush_parser::ast::{
    AndOr, AndOrList, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, Program,
    SimpleCommand, Word,
};
use brush_parser::word::{self, Parameter, ParameterExpr, TildeExpr, WordPiece};
use brush_parser::{Parser, ParserOptions};

use super::text;
use super::{Assessment, Effect, EffectKind, Existence, Scope, Target, Unproven};
use crate::text::first_chars;

/// Nested scripts (`bash -c`, `eval`, `$(…)`) deeper than this are not followed.
const MAX_DEPTH: usize = 12;
/// Longer command lines are not analysed.
const MAX_LEN: usize = 64 * 1024;
/// Opening brackets and block keywords beyond this are not parsed: the parser recurses
/// per level and must never exhaust a worker thread's stack.
const MAX_OPENERS: usize = 40;
/// Brackets nested deeper than this are not parsed: on unbalanced input the parser
/// backtracks exponentially in the depth (found by fuzzing: 28 `(` took 2 min, and
/// `u[!(${c[${c[${c[${c[${c[x)` — depth 12 — 3 s, each `${c[` multiplying by ~15;
/// at depth 8 the worst shape found takes 15 ms).
const MAX_NESTING: usize = 8;
/// `${…}` expansions in one word, and in one command, beyond which nothing is parsed.
const MAX_EXPANSIONS_PER_WORD: usize = 8;
const MAX_EXPANSIONS_PER_COMMAND: usize = 64;
/// Characters of a command kept in an effect's `source`.
const SOURCE_CHARS: usize = 160;

pub(super) fn classify_shell(command: &str, scope: &Scope<'_>) -> Assessment {
    let mut w = Walker::new(scope);
    w.script(command, 0);
    w.finish()
}

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

pub(super) struct Walker<'a> {
    pub scope: &'a Scope<'a>,
    /// `None` once a `cd` made the working directory unknowable.
    pub cwd: Option<PathBuf>,
    pub effects: Vec<Effect>,
    /// Still true while every command seen is a plain deletion of named paths.
    pub trash_ok: bool,
    pub trash: Vec<PathBuf>,
    /// Inside `ssh HOST …`: paths live on another machine.
    pub remote: Option<String>,
    /// > 0 inside branches, loops and function bodies, where a `cd` may or may not run.
    conditional: u32,
    /// Why parts of the command could not be proven reversible.
    pub unproven: Vec<Unproven>,
    /// New paths the command provably creates.
    pub creates: Vec<PathBuf>,
    /// Existing folders the command puts new entries into (names not all known).
    pub fills: Vec<PathBuf>,
    /// A proven network read was seen (a download, a lookup).
    pub network: bool,
    /// PATH (or a hashed program name) was changed: names may run other programs.
    pub path_changed: bool,
    /// Credential files the command names.
    pub secrets: Vec<String>,
    /// Programs in the command that can send data off this computer.
    pub senders: Vec<String>,
    /// Variables set from `$(mktemp …)` earlier in the command: each stands for a new
    /// temporary file or folder of the command's own.
    temps: Vec<String>,
    /// Functions defined in the command (their bodies are walked where defined).
    pub functions: Vec<String>,
}

/// The stand-in path of a variable set from `$(mktemp …)`: it names no real file, and the
/// command creates it.
fn temp_path(var: &str) -> PathBuf {
    PathBuf::from(format!("/tmp/artoo-mktemp-{var}"))
}

impl<'a> Walker<'a> {
    pub(super) fn new(scope: &'a Scope<'a>) -> Self {
        Walker {
            scope,
            cwd: Some(scope.cwd.to_path_buf()),
            effects: Vec::new(),
            trash_ok: true,
            trash: Vec::new(),
            remote: None,
            conditional: 0,
            unproven: Vec::new(),
            creates: Vec::new(),
            fills: Vec::new(),
            network: false,
            path_changed: false,
            secrets: Vec::new(),
            senders: Vec::new(),
            temps: Vec::new(),
            functions: Vec::new(),
        }
    }

    pub(super) fn finish(mut self) -> Assessment {
        // A credential file and a program that can send it, in one command.
        if let (Some(secret), Some(sender)) = (self.secrets.first(), self.senders.first()) {
            let (secret, sender) = (secret.clone(), sender.clone());
            self.push(
                EffectKind::Send,
                Target::None,
                sender.clone(),
                Some(format!(
                    "{secret} holds credentials and `{sender}` can send it off this computer"
                )),
            );
        }
        let all_known_deletes = self.effects.iter().all(|e| {
            e.kind == EffectKind::Delete
                && matches!(
                    e.target,
                    Target::Path {
                        exists: Existence::Exists | Existence::Missing,
                        ..
                    }
                )
        });
        let mut paths = self.trash;
        paths.sort();
        paths.dedup();
        let trash = (self.trash_ok && all_known_deletes).then_some(paths);
        let mut a = Assessment::from_effects(self.effects, trash);
        let mut seen = std::collections::HashSet::new();
        a.unproven = self
            .unproven
            .into_iter()
            .filter(|u| seen.insert(u.clone()))
            .collect();
        let mut creates = self.creates;
        creates.extend(self.fills);
        creates.sort();
        creates.dedup();
        a.creates = creates;
        a.network_read = self.network;
        a
    }

    /// Records a part of the command that cannot be proven reversible.
    pub fn unproven(&mut self, source: &str, reason: impl Into<String>) {
        let reason = match &self.remote {
            Some(host) => format!("on {host}: {}", reason.into()),
            None => reason.into(),
        };
        self.unproven.push(Unproven {
            source: first_chars(source, SOURCE_CHARS),
            reason,
        });
    }

    /// A path that does not exist yet, which the command creates: reversible, unless it
    /// configures the system (`/etc/sudoers.d/x`, `~/Library/LaunchAgents/x.plist`).
    pub fn new_path(&mut self, path: PathBuf, source: String) {
        if super::programs::is_sensitive_path(&path, self.scope.home) {
            self.push(
                EffectKind::SystemConfig,
                Target::Path {
                    path,
                    exists: Existence::Missing,
                },
                source,
                None,
            );
        } else {
            self.create(path);
        }
    }

    /// Records a path the command creates (it does not exist now).
    pub fn create(&mut self, path: PathBuf) {
        if self.remote.is_none() {
            self.creates.push(path);
        }
    }

    /// Records an existing folder the command puts new entries into. Unlike
    /// [`Walker::create`], its content is not the command's own.
    pub fn fills(&mut self, dir: PathBuf) {
        if self.remote.is_none() && !super::programs::is_sensitive_path(&dir, self.scope.home) {
            self.fills.push(dir);
        }
    }

    /// Whether `path` is a path this command creates earlier on (or lies inside one).
    pub fn created_here(&self, path: &std::path::Path) -> bool {
        self.creates.iter().any(|c| path.starts_with(c))
    }

    pub fn push(&mut self, kind: EffectKind, target: Target, source: String, note: Option<String>) {
        let note = match (&self.remote, note) {
            (Some(host), Some(n)) => Some(format!("on {host}; {n}")),
            (Some(host), None) => Some(format!("on {host}")),
            (None, n) => n,
        };
        if kind != EffectKind::Delete {
            self.trash_ok = false;
        }
        self.effects.push(Effect {
            kind,
            target,
            source: first_chars(&source, SOURCE_CHARS),
            note,
        });
    }

    pub fn opaque(&mut self, source: &str, reason: impl Into<String>) {
        self.push(
            EffectKind::Opaque,
            Target::None,
            source.to_string(),
            Some(reason.into()),
        );
    }

    /// Parses and walks `text`, a complete shell script.
    pub fn script(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.opaque(text, "commands nested too deeply to check");
            return;
        }
        if text.len() > MAX_LEN {
            self.opaque(&first_chars(text, 80), "the command is too long to check");
            return;
        }
        match parse_bounded(text) {
            Ok(program) => {
                for list in &program.complete_commands {
                    self.compound_list(list, depth);
                }
            }
            Err(reason) => self.opaque(text, reason),
        }
    }

    fn compound_list(&mut self, list: &CompoundList, depth: usize) {
        for item in &list.0 {
            self.and_or(&item.0, depth);
        }
    }

    fn and_or(&mut self, list: &AndOrList, depth: usize) {
        // After `||` a command runs only when the one before failed, so a `cd` before it
        // may not have happened: treat the whole list as conditional.
        let has_or = list.additional.iter().any(|a| matches!(a, AndOr::Or(_)));
        if has_or {
            self.conditional += 1;
        }
        self.pipeline(&list.first, depth);
        for next in &list.additional {
            match next {
                AndOr::And(p) | AndOr::Or(p) => self.pipeline(p, depth),
            }
        }
        if has_or {
            self.conditional -= 1;
        }
    }

    fn pipeline(&mut self, p: &Pipeline, depth: usize) {
        if p.seq.len() == 1 {
            self.command(&p.seq[0], Stdin::Closed, depth);
            return;
        }
        // Every part of a pipeline runs in its own subshell.
        for (i, cmd) in p.seq.iter().enumerate() {
            let saved = self.cwd.clone();
            let stdin = if i == 0 {
                Stdin::Closed
            } else {
                Stdin::Unknown
            };
            self.command(cmd, stdin, depth);
            self.cwd = saved;
        }
    }

    fn command(&mut self, cmd: &Command, stdin: Stdin, depth: usize) {
        match cmd {
            Command::Simple(sc) => self.simple(sc, stdin, depth),
            Command::Compound(cc, redirects) => {
                if let Some(list) = redirects {
                    let mut stdin = stdin;
                    for r in &list.0 {
                        self.redirect(r, &mut stdin, depth);
                    }
                }
                self.compound(cc, depth);
            }
            Command::Function(def) => {
                // A function body counts whether or not it is called: its name may be
                // used later in ways the classifier cannot follow.
                self.functions.push(text::fold_name(&def.fname.value));
                let saved = self.cwd.clone();
                self.conditional += 1;
                self.compound(&def.body.0, depth);
                if let Some(list) = &def.body.1 {
                    let mut stdin = Stdin::Closed;
                    for r in &list.0 {
                        self.redirect(r, &mut stdin, depth);
                    }
                }
                self.conditional -= 1;
                self.cwd = saved;
            }
            Command::ExtendedTest(test, redirects) => {
                self.extended_test(&test.expr, depth);
                if let Some(list) = redirects {
                    let mut stdin = stdin;
                    for r in &list.0 {
                        self.redirect(r, &mut stdin, depth);
                    }
                }
            }
        }
    }

    fn extended_test(&mut self, expr: &ExtendedTestExpr, depth: usize) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, depth);
                self.extended_test(b, depth);
            }
            ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => {
                self.extended_test(a, depth)
            }
            ExtendedTestExpr::UnaryTest(_, w) => {
                self.word(w, depth);
            }
            ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.word(a, depth);
                self.word(b, depth);
            }
        }
    }

    fn compound(&mut self, cc: &CompoundCommand, depth: usize) {
        match cc {
            CompoundCommand::Arithmetic(a) => {
                self.arithmetic(&a.expr.value);
                // The parser reads `( ( cmd ) )` (nested subshells in bash) as `((…))`
                // arithmetic; classify the text as commands too so that misreading
                // can only make the answer more careful.
                let saved = self.cwd.clone();
                self.script(&a.expr.value, depth + 1);
                self.cwd = saved;
            }
            CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                self.conditional += 1;
                self.compound_list(&f.body.list, depth);
                self.conditional -= 1;
            }
            CompoundCommand::BraceGroup(b) => self.compound_list(&b.list, depth),
            CompoundCommand::Subshell(s) => {
                let saved = self.cwd.clone();
                self.compound_list(&s.list, depth);
                self.cwd = saved;
            }
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w, depth);
                }
                self.conditional += 1;
                self.compound_list(&f.body.list, depth);
                self.conditional -= 1;
            }
            CompoundCommand::CaseClause(c) => {
                self.word(&c.value, depth);
                self.conditional += 1;
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(p, depth);
                    }
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, depth);
                    }
                }
                self.conditional -= 1;
            }
            CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition, depth);
                self.conditional += 1;
                self.compound_list(&i.then, depth);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.compound_list(c, depth);
                    }
                    self.compound_list(&e.body, depth);
                }
                self.conditional -= 1;
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.conditional += 1;
                self.compound_list(&w.0, depth);
                self.compound_list(&w.1.list, depth);
                self.conditional -= 1;
            }
            CompoundCommand::Coprocess(c) => {
                let saved = self.cwd.clone();
                self.command(&c.body, Stdin::Unknown, depth);
                self.cwd = saved;
            }
        }
    }

    fn arithmetic(&mut self, expr: &str) {
        if expr.contains("$(") || expr.contains('`') {
            self.opaque(expr, "a command runs inside an arithmetic expression");
        }
    }

    fn simple(&mut self, sc: &SimpleCommand, stdin: Stdin, depth: usize) {
        let mut args: Vec<Arg> = Vec::new();
        let mut code_vars: Vec<String> = Vec::new();
        let mut redirects: Vec<&IoRedirect> = Vec::new();
        let mut items: Vec<&CommandPrefixOrSuffixItem> = Vec::new();
        if let Some(prefix) = &sc.prefix {
            items.extend(prefix.0.iter());
        }
        let name_pos = items.len();
        if let Some(suffix) = &sc.suffix {
            items.extend(suffix.0.iter());
        }
        for (i, item) in items.iter().enumerate() {
            if i == name_pos
                && let Some(name) = &sc.word_or_name
            {
                args.push(self.word(name, depth));
            }
            match item {
                CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                CommandPrefixOrSuffixItem::Word(w) => args.push(self.word(w, depth)),
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, w) => {
                    let value = self.word(w, depth);
                    let var = match &assignment.name {
                        brush_parser::ast::AssignmentName::VariableName(n)
                        | brush_parser::ast::AssignmentName::ArrayElementName(n, _) => n,
                    };
                    let only_assignments = sc.word_or_name.is_none();
                    let made_by_mktemp = match &assignment.value {
                        brush_parser::ast::AssignmentValue::Scalar(v) => v
                            .value
                            .trim()
                            .trim_matches('"')
                            .strip_prefix("$(")
                            .is_some_and(|inner| inner.trim_start().starts_with("mktemp")),
                        brush_parser::ast::AssignmentValue::Array(_) => false,
                    };
                    if only_assignments && self.conditional == 0 && made_by_mktemp {
                        self.temps.push(var.clone());
                        self.create(temp_path(var));
                    } else {
                        self.temps.retain(|t| t != var);
                    }
                    if super::programs::is_code_variable(var) {
                        // Before a command it changes what that command runs; on its
                        // own (or exported) it changes every command after it.
                        let has_command = sc.word_or_name.is_some() && i < name_pos;
                        if has_command {
                            code_vars.push(var.clone());
                        } else {
                            self.path_changed = true;
                        }
                    }
                    // `declare x=…`/`export x=…` take assignments as arguments.
                    if i >= name_pos {
                        args.push(value);
                    }
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    let saved = self.cwd.clone();
                    self.compound_list(&sub.list, depth);
                    self.cwd = saved;
                    if i >= name_pos {
                        args.push(Arg {
                            lit: None,
                            raw: "<(…)".into(),
                            glob: false,
                        });
                    }
                }
            }
        }
        if items.len() == name_pos
            && let Some(name) = &sc.word_or_name
        {
            args.push(self.word(name, depth));
        }
        let mut stdin = stdin;
        for r in redirects {
            self.redirect(r, &mut stdin, depth);
        }
        if args.is_empty() {
            return;
        }
        if let Some(var) = code_vars.first() {
            let source = args.iter().map(Arg::text).collect::<Vec<_>>().join(" ");
            self.unproven(
                &source,
                format!("it sets {var}, which can make the program run something else"),
            );
        }
        self.argv(&args, &stdin, None, depth);
    }

    fn redirect(&mut self, r: &IoRedirect, stdin: &mut Stdin, depth: usize) {
        match r {
            IoRedirect::File(fd, kind, target) => match target {
                IoFileRedirectTarget::Filename(w) => {
                    let arg = self.word(w, depth);
                    match kind {
                        IoFileRedirectKind::Read => {
                            if fd.is_none_or(|f| f == 0) {
                                *stdin = Stdin::Unknown;
                            }
                            if let Some(path) = arg
                                .fixed()
                                .and_then(|f| text::resolve(f, self.cwd.as_deref()))
                                && super::programs::is_secret_path(&path, self.scope.home)
                            {
                                self.secrets.push(path.display().to_string());
                            }
                        }
                        IoFileRedirectKind::Write | IoFileRedirectKind::Clobber => {
                            self.write_target(&arg, ">")
                        }
                        IoFileRedirectKind::Append => self.append_target(&arg, ">>"),
                        // `<>` opens without truncating, and what is written lands over
                        // the start of the file.
                        IoFileRedirectKind::ReadAndWrite => self.write_target(&arg, "<>"),
                        IoFileRedirectKind::DuplicateOutput => self.write_target(&arg, ">&"),
                        IoFileRedirectKind::DuplicateInput => {}
                    }
                }
                IoFileRedirectTarget::Duplicate(w) => {
                    let arg = self.word(w, depth);
                    let is_fd = arg.lit.as_deref().is_some_and(|s| {
                        s == "-" || s.trim_end_matches('-').parse::<u32>().is_ok()
                    });
                    if !is_fd && matches!(kind, IoFileRedirectKind::DuplicateOutput) {
                        self.write_target(&arg, ">&");
                    }
                }
                IoFileRedirectTarget::Fd(_) => {}
                IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                    let saved = self.cwd.clone();
                    self.compound_list(&sub.list, depth);
                    self.cwd = saved;
                }
            },
            IoRedirect::HereDocument(fd, doc) => {
                if doc.requires_expansion {
                    self.heredoc_expansions(&doc.doc.value, depth);
                }
                if fd.is_none_or(|f| f == 0) {
                    *stdin = Stdin::Literal(doc.doc.value.clone());
                }
            }
            IoRedirect::HereString(fd, w) => {
                let arg = self.word(w, depth);
                if fd.is_none_or(|f| f == 0) {
                    *stdin = match arg.lit {
                        Some(s) => Stdin::Literal(s),
                        None => Stdin::Unknown,
                    };
                }
            }
            IoRedirect::OutputAndError(w, append) => {
                let arg = self.word(w, depth);
                if *append {
                    self.append_target(&arg, "&>>");
                } else {
                    self.write_target(&arg, "&>");
                }
            }
        }
    }

    fn heredoc_expansions(&mut self, body: &str, depth: usize) {
        match parse_word(body, true) {
            Some(pieces) => {
                let mut value = Some(String::new());
                let mut glob = false;
                for p in &pieces {
                    self.piece(&p.piece, true, &mut value, &mut glob, depth);
                }
            }
            None => self.opaque(
                &first_chars(body, 80),
                "a here-document could not be parsed",
            ),
        }
    }

    /// `> file`: overwriting an existing file is irreversible; creating one is not (it is
    /// recorded as a path the command creates). A target only known at run time cannot
    /// be proven either way.
    pub fn write_target(&mut self, arg: &Arg, op: &str) {
        self.trash_ok = false;
        let source = format!("{op} {}", arg.text());
        match self.path_target(arg) {
            Target::Path { path, exists } => {
                if is_harmless_device(&path) {
                    return;
                }
                if path.starts_with("/dev/tcp") || path.starts_with("/dev/udp") {
                    // bash opens a network connection for these names.
                    self.push(EffectKind::Send, Target::None, source, None);
                    return;
                }
                match exists {
                    Existence::Missing => self.new_path(path, source),
                    Existence::Exists if self.created_here(&path) => {}
                    Existence::Exists => {
                        let note = text::lookalike_note(&path.to_string_lossy());
                        self.push(
                            EffectKind::Overwrite,
                            Target::Path { path, exists },
                            source,
                            note,
                        );
                    }
                    Existence::Unknown if self.remote.is_some() => self.push(
                        EffectKind::Overwrite,
                        Target::Path { path, exists },
                        source,
                        None,
                    ),
                    Existence::Unknown => self.unproven(
                        &source,
                        "the file it writes is only known when the command runs",
                    ),
                }
            }
            _ => self.unproven(
                &source,
                "the file it writes is only known when the command runs",
            ),
        }
    }

    /// `>> file`: appending keeps what was there, except that appending to a shell
    /// start-up file or system configuration changes how the computer behaves.
    pub fn append_target(&mut self, arg: &Arg, op: &str) {
        self.trash_ok = false;
        let source = format!("{op} {}", arg.text());
        match self.path_target(arg) {
            Target::Path { path, exists } => {
                if is_harmless_device(&path) {
                    return;
                }
                if exists == Existence::Missing {
                    self.new_path(path, source);
                } else if super::programs::is_sensitive_path(&path, self.scope.home) {
                    self.push(
                        EffectKind::SystemConfig,
                        Target::Path { path, exists },
                        source,
                        None,
                    );
                } else if exists == Existence::Unknown && self.remote.is_none() {
                    self.unproven(
                        &source,
                        "the file it adds to is only known when the command runs",
                    );
                }
            }
            _ => self.unproven(
                &source,
                "the file it adds to is only known when the command runs",
            ),
        }
    }

    /// Resolves a word naming a path.
    pub fn path_target(&self, arg: &Arg) -> Target {
        let Some(lit) = arg.lit.as_deref() else {
            return Target::Unknown(format!("`{}` (named only when the command runs)", arg.raw));
        };
        if arg.glob {
            let place = match &self.cwd {
                Some(c) if !lit.starts_with('/') => format!(" in {}", c.display()),
                _ => String::new(),
            };
            return Target::Pattern(format!("{lit}{place}"));
        }
        if self.remote.is_some() {
            return Target::Path {
                path: PathBuf::from(lit),
                exists: Existence::Unknown,
            };
        }
        match text::resolve(lit, self.cwd.as_deref()) {
            Some(path) => {
                let exists = if self.scope.fs.exists(&path) {
                    Existence::Exists
                } else {
                    Existence::Missing
                };
                Target::Path { path, exists }
            }
            None => Target::Path {
                path: PathBuf::from(lit),
                exists: Existence::Unknown,
            },
        }
    }

    pub fn set_cwd(&mut self, dir: Option<&Arg>) {
        if self.conditional > 0 || self.remote.is_some() {
            self.cwd = None;
            return;
        }
        let next = match dir {
            None => Some(self.scope.home.to_path_buf()),
            Some(a) => match a.fixed() {
                Some("-") | None => None,
                Some(d) => text::resolve(d, self.cwd.as_deref()),
            },
        };
        self.cwd = next;
    }

    /// Evaluates a word: walks every command substitution in it and returns its literal
    /// value when that is fixed before the command runs.
    pub fn word(&mut self, w: &Word, depth: usize) -> Arg {
        let raw = w.value.clone();
        match parse_word(&w.value, false) {
            Some(pieces) => {
                let mut value = Some(String::new());
                let mut glob = false;
                for p in &pieces {
                    self.piece(&p.piece, false, &mut value, &mut glob, depth);
                }
                Arg {
                    lit: value,
                    raw,
                    glob,
                }
            }
            None => {
                self.opaque(&raw, "a word could not be parsed");
                Arg {
                    lit: None,
                    raw,
                    glob: false,
                }
            }
        }
    }

    fn piece(
        &mut self,
        piece: &WordPiece,
        quoted: bool,
        value: &mut Option<String>,
        glob: &mut bool,
        depth: usize,
    ) {
        let append = |value: &mut Option<String>, s: &str| {
            if let Some(v) = value {
                v.push_str(s);
            }
        };
        match piece {
            WordPiece::Text(s) => {
                if !quoted && text::is_glob(s) {
                    *glob = true;
                }
                append(value, s);
            }
            WordPiece::SingleQuotedText(s) => append(value, s),
            WordPiece::AnsiCQuotedText(s) => append(value, &decode_ansi_c(s)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for p in inner {
                    self.piece(&p.piece, true, value, glob, depth);
                }
            }
            WordPiece::TildeExpansion(TildeExpr::Home) => {
                let home = self.scope.home.to_string_lossy().into_owned();
                if self.remote.is_some() {
                    append(value, "~");
                } else {
                    append(value, &home);
                }
            }
            WordPiece::TildeExpansion(_) => *value = None,
            WordPiece::ParameterExpansion(expr) => {
                let debug = format!("{expr:?}");
                if debug.contains("$(") || debug.contains('`') || debug.contains("<(") {
                    self.opaque(&debug, "a command runs inside a ${…} expansion");
                    *value = None;
                    return;
                }
                match expr {
                    ParameterExpr::Parameter {
                        parameter: Parameter::Named(name),
                        indirect: false,
                    } if name == "HOME" && self.remote.is_none() => {
                        let home = self.scope.home.to_string_lossy().into_owned();
                        append(value, &home);
                    }
                    ParameterExpr::Parameter {
                        parameter: Parameter::Named(name),
                        indirect: false,
                    } if self.temps.contains(name) => {
                        append(value, &temp_path(name).to_string_lossy());
                    }
                    ParameterExpr::Parameter {
                        parameter: Parameter::Named(name),
                        indirect: false,
                    } if name == "PWD" && self.cwd.is_some() => {
                        let cwd = self
                            .cwd
                            .as_ref()
                            .map(|c| c.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        append(value, &cwd);
                    }
                    _ => *value = None,
                }
            }
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                let saved = self.cwd.clone();
                self.script(s, depth + 1);
                self.cwd = saved;
                *value = None;
            }
            WordPiece::EscapeSequence(s) => {
                let rest = s.strip_prefix('\\').unwrap_or(s);
                if rest == "\n" {
                    return;
                }
                if quoted && !rest.starts_with(['$', '`', '"', '\\']) {
                    append(value, s);
                } else {
                    append(value, rest);
                }
            }
            WordPiece::ArithmeticExpression(e) => {
                self.arithmetic(&e.value);
                *value = None;
            }
        }
    }
}

/// Writing to these never destroys data.
fn is_harmless_device(path: &std::path::Path) -> bool {
    let s = path.to_string_lossy();
    matches!(
        s.as_ref(),
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || s.starts_with("/dev/fd/")
}

/// Parses a shell script within the limits that keep parsing fast and shallow; the
/// error says, in plain words, why the script was not parsed.
pub fn parse_bounded(text: &str) -> Result<Program, String> {
    if text.len() > MAX_LEN {
        return Err("the command is too long to check".into());
    }
    // Control characters have no place in a command an agent writes, and one (a form
    // feed after a here-document operator: `<< \x0c<- `) sends the parser into an
    // endless loop (found by fuzzing).
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err("the command contains control characters".into());
    }
    // A here-document whose delimiter is missing, reads as empty or holds an expansion
    // can make the parser loop without end: `<<\r;#`, `<<""(#&^`, `$[$[]<<\t\tF` and
    // `<<${""<${` each allocated gigabytes (all found by fuzzing).
    // Bash would take `<<''` (a body ending at the first empty line); a model has no
    // reason to write one, and the answer for it is only "ask".
    if heredoc_with_empty_delimiter(text) {
        return Err("its here-document delimiter is empty or holds an expansion".into());
    }
    if openers(text) > MAX_OPENERS || nesting(text) > MAX_NESTING {
        return Err("the command is nested too deeply to check".into());
    }
    if has_oversized_number(text) {
        return Err("it contains a number too large to be a file descriptor or stack index".into());
    }
    if text.matches("${").count() > MAX_EXPANSIONS_PER_COMMAND
        || text
            .split_whitespace()
            .any(|w| w.matches("${").count() > MAX_EXPANSIONS_PER_WORD)
    {
        return Err("it has too many ${…} expansions to check".into());
    }
    let options = ParserOptions::default();
    contained(|| {
        Parser::new(std::io::BufReader::new(text.as_bytes()), &options)
            .parse_program()
            .map_err(|err| format!("it could not be parsed: {err}"))
    })
    .unwrap_or_else(|| Err("the parser failed on it".into()))
}

/// Whether a here-document operator (`<<`, `<<-`) has a delimiter that is empty once
/// the parser has read it. The parser ends a here-document where its body ends with
/// the delimiter, so an empty one ends a body at every step without reading input,
/// and it loops until memory runs out.
///
/// The parser reads the delimiter word two ways: at top level it skips the blanks after
/// the operator; inside `$(…)`, `$[…]` and the like it keeps the first of them, so
/// `<<\t\tEOF` there has the delimiter `\t` — empty once leading whitespace is
/// trimmed. Either reading being empty counts. A run of `<` splits greedily into
/// `<<<` here-strings, so `<<<<<` ends in a here-document operator.
///
/// Words are cut at the first blank or operator character whether or not it is quoted,
/// so the piece looked at is a prefix of the parser's word: if quote removal leaves
/// something of the prefix, it leaves it of the whole word too. Quoting around the
/// operator itself is not tracked either. Both only make the check answer
/// "irreversible" for a few odd spellings (`echo "<<"`), never "safe".
fn heredoc_with_empty_delimiter(text: &str) -> bool {
    let bytes = text.as_bytes();
    let word_end = |from: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .position(|&b| ends_word(b))
            .map_or(bytes.len(), |n| from + n)
    };
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'<').count();
        i += run;
        if run % 3 != 2 {
            continue;
        }
        let mut j = i;
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        // Inside a nested construct: the first blank is kept, the word runs to the next.
        let nested_start = if matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j + 1
        } else {
            j
        };
        if delimiter_is_empty(&bytes[j..word_end(nested_start)]) {
            return true;
        }
        // At top level: all the blanks are skipped.
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if delimiter_is_empty(&bytes[j..word_end(j)]) || expands(&bytes[j..]) {
            return true;
        }
    }
    false
}

/// Whether the word at the start of `rest` holds a `$` or a backquote. The parser reads
/// an expansion in a here-document delimiter as a nested construct, and a token inside
/// it can become the delimiter (`<<${""<${` is read as `""`: empty). The word runs to
/// the first blank or operator character outside quotes, or to the end when a quote is
/// left open, so it is never shorter than the parser's.
fn expands(rest: &[u8]) -> bool {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for &b in rest {
        match b {
            b'$' | b'`' => return true,
            _ if escaped => escaped = false,
            b'\\' if !single => escaped = true,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ if ends_word(b) && !single && !double => return false,
            _ => {}
        }
    }
    false
}

/// A blank, a line break or a character that starts an operator: what ends an
/// unquoted word for the parser.
fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')'
    )
}

/// What the parser keeps of a here-document delimiter word: leading ASCII
/// whitespace trimmed, then `'`, `"` and unescaped `\` removed.
fn delimiter_is_empty(word: &[u8]) -> bool {
    let mut escaped = false;
    for &b in word.trim_ascii_start() {
        match b {
            _ if escaped => return false,
            b'\\' => escaped = true,
            b'\'' | b'"' => {}
            _ => return false,
        }
    }
    true
}

/// Runs the third-party parser so that a bug in it (a panic) makes the answer
/// "irreversible" instead of taking the caller down.
fn contained<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

/// The pieces of a word (or here-document body), parsed within [`contained`].
pub fn parse_word(text: &str, heredoc: bool) -> Option<Vec<word::WordPieceWithSource>> {
    // Many nested `${…}` make the word parser backtrack for seconds (found by fuzzing).
    // So do brackets nested deep around them (an array index left open swallows the
    // rest of the word); a word without expansions has nothing to backtrack over.
    if has_oversized_number(text)
        || text.matches("${").count() > MAX_EXPANSIONS_PER_WORD
        || (text.contains(['$', '`']) && nesting(text) > MAX_NESTING)
    {
        return None;
    }
    let options = ParserOptions::default();
    contained(|| {
        if heredoc {
            word::parse_heredoc(text, &options).ok()
        } else {
            word::parse(text, &options).ok()
        }
    })
    .flatten()
}

/// `11111111111>file` or `~+11111111111`: numbers that overflow make the parser panic
/// (found by fuzzing); no real command has one.
fn has_oversized_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0usize;
    let mut start = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            if run == 0 {
                start = i;
            }
            run += 1;
            continue;
        }
        if run > 9 {
            let before = &bytes[..start];
            let after_tilde =
                before.ends_with(b"~") || before.ends_with(b"~+") || before.ends_with(b"~-");
            if after_tilde || b == b'<' || b == b'>' {
                return true;
            }
        }
        run = 0;
    }
    run > 9 && {
        let before = &bytes[..start];
        before.ends_with(b"~") || before.ends_with(b"~+") || before.ends_with(b"~-")
    }
}

/// The deepest nesting of `(`, `{` and `[`, quoted or not. Quotes do not stop the
/// parser's backtracking — it parses expansions inside double quotes as deeply as
/// outside — so they do not stop the count either. A closer closes only its own kind:
/// in `${a[x}` the `}` is part of the unclosed index, which the parser keeps reading,
/// so a closer of another kind is not counted (and one with nothing open neither).
fn nesting(text: &str) -> usize {
    let mut open: Vec<u8> = Vec::new();
    let mut max = 0;
    for b in text.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                open.push(b);
                max = max.max(open.len());
            }
            b')' | b'}' | b']' => {
                let opener = match b {
                    b')' => b'(',
                    b'}' => b'{',
                    _ => b'[',
                };
                if open.last() == Some(&opener) {
                    open.pop();
                }
            }
            _ => {}
        }
    }
    max
}

/// Counts opening brackets and block keywords (an upper bound on nesting).
fn openers(text: &str) -> usize {
    let brackets = text
        .chars()
        .filter(|c| matches!(c, '(' | '{' | '`'))
        .count();
    let keywords = text
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| matches!(*w, "if" | "while" | "until" | "for" | "case" | "select"))
        .count();
    brackets + keywords
}

/// Decodes the body of `$'…'` (ANSI-C quoting).
pub(super) fn decode_ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut hex = String::new();
                while hex.len() < max {
                    match chars.peek() {
                        Some(h) if h.is_ascii_hexdigit() => {
                            hex.push(*h);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if !hex.is_empty() => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            '0'..='7' => {
                let mut oct = String::from(e);
                while oct.len() < 3 {
                    match chars.peek() {
                        Some(o) if ('0'..='7').contains(o) => {
                            oct.push(*o);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&oct),
                }
            }
            'c' => {
                // Control character: \cX.
                if let Some(x) = chars.next() {
                    out.push(char::from_u32((x as u32) & 0x1f).unwrap_or(x));
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_quoting_decodes_hex_octal_and_unicode_escapes() {
        assert_eq!(decode_ansi_c(r"\x72m"), "rm");
        assert_eq!(decode_ansi_c(r"\162\155"), "rm");
        assert_eq!(decode_ansi_c(r"\u0072m"), "rm");
        assert_eq!(decode_ansi_c(r"a\nb\q"), "a\nb\\q");
    }

    #[test]
    fn unbalanced_deep_nesting_is_refused_without_parsing() {
        let deep = format!("{}%{{", "(".repeat(28));
        let started = std::time::Instant::now();
        assert!(parse_bounded(&deep).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(nesting("echo '((' \"[\" ]) (a) { b; } ${c[$i]}"), 3);
        assert_eq!(nesting("${F[.}}${F[.}}"), 4);
        // A word the parser took 17 s over (found by fuzzing).
        let slow_word = "g13${Fg13${F[.}}$$$d$d$נ_%$d$d$d$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$נ_%$d$d$d$\"__$$d%\"_$d$\"__%${Fg13${F[.}}$$$d$d$\"__%$d$d$d$\"__$$d%\"_$";
        assert!(nesting(slow_word) > MAX_NESTING);
        assert!(parse_word(slow_word, false).is_none());
        let script = "cat > stats.py <<'EOF'\nimport sys, re\nrows = [l.split(',') for l in open(sys.argv[1])]\nprint({k: len([r for r in rows if r[0] == k]) for k in set(r[0] for r in rows)})\nprint(re.findall(r'[(\\[]', '([x'))\nEOF";
        assert!(nesting(script) <= MAX_NESTING, "{}", nesting(script));
        assert!(parse_bounded(script).is_ok());
        for slow in [
            "u[!(${c[${c[${c[${c[${c[x)",
            "u[!(\"${c[${c[${c[${c[${c[x\")",
            "u[!($[($[${c[${c[())${c[${c[&fase>$:)kw{^z _)|I\"\\\"\"I",
        ] {
            assert!(nesting(slow) > MAX_NESTING, "{slow}");
            assert!(parse_bounded(slow).is_err(), "{slow}");
        }
        assert!(parse_bounded("echo $(( ${a[$((i + 1))]} * 2 ))").is_ok());
        assert!(parse_bounded("( ( ( ls ) ) )").is_ok());
        assert!(parse_bounded("<< \u{c}<- ").is_err());
        assert!(parse_bounded("1 11111111111>> x").is_err());
        assert!(parse_word("~+99999999999", false).is_none());
        assert!(parse_word("~/a1234567890", false).is_some());
        assert!(parse_bounded("ls 2>/dev/null").is_ok());
    }

    #[test]
    fn a_here_document_with_an_empty_delimiter_is_refused_without_parsing() {
        for text in [
            "<<\r;#",
            "cat <<",
            "cat << \n",
            "cat <<- ;",
            "cat <<|x",
            "<<\t\r",
            "<<\"\"(#&^",
            "cat <<''",
            "cat <<- \"\" ; echo",
            "cat <<\\",
            "cat <<\\\nx",
            "cat <<\r\"'\n",
            "echo ok; cat <<'' >f",
            "=-<<<<<\r<< I/O ",
            "<<\r ",
            "cat <<<<<\"\"",
            "$[$[]<<\t\tF\t",
            "echo $(cat << \tEOF)",
            "x=$(cat <<- '' )",
            "<<${\"\"|${{<<${",
            "<<\"a ${\"\"<${",
            "<<\\ ${\"\"<${",
            "cat <<{${\"\"<${",
            "cat <<E`x`",
        ] {
            assert!(heredoc_with_empty_delimiter(text), "{text:?}");
            assert!(parse_bounded(text).is_err(), "{text:?}");
        }
        for text in [
            "cat <<EOF\nhi\nEOF",
            "cat <<- 'END'\n\thi\nEND",
            "grep x <<< \"$v\"",
            "echo a<<b",
            "echo '<<<'",
            "cat <<\\EOF\nx\nEOF",
            "cat <<\\\\",
            "cat <<\"\\\"\"",
            "cat <<\"a b\"\nx\na b",
            "cat <<<<EOF",
            "cat <<<<<<x",
            "echo $(cat << EOF\nx\nEOF\n)",
            "cat <<EOF >\"$out\"\n$HOME\nEOF",
            "cat <<'EOF' | grep \"$x\"\nEOF",
        ] {
            assert!(!heredoc_with_empty_delimiter(text), "{text:?}");
        }
        assert!(parse_bounded("cat <<EOF\nhi\nEOF\n").is_ok());
    }

    #[test]
    fn openers_counts_brackets_and_block_keywords() {
        assert_eq!(openers("ls"), 0);
        assert_eq!(openers("if true; then (ls); fi"), 2);
        assert_eq!(openers("$(a `b`)"), 3);
    }
}
