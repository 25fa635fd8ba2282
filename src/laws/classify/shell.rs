//! Walks a parsed shell program: every list, pipeline, compound command, function body,
//! redirection, command substitution, process substitution and here-document, and hands
//! each simple command (as evaluated words) to the program table in `programs`.
//!
//! This is the top layer of the shell classifier: it builds the [`Walker`] with itself
//! and the program table as its hooks, so that rules below can walk nested code without
//! importing this module.
//!
//! **Invariant:** every part of the script is walked, whether or not it would run (both
//! branches of an `if`, every function body); a `cd` whose running is uncertain makes
//! the working folder unknown rather than guessed.

use std::path::PathBuf;

use brush_parser::ast::{
    AndOr, AndOrList, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline,
    SimpleCommand, Word,
};
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece};

use super::args::{Arg, Stdin};
use super::assessment::{Assessment, Scope};
use super::parse::{MAX_LEN, decode_ansi_c, parse_bounded, parse_word};
use super::programs;
use super::text;
use super::walker::{Hooks, Walker};
use super::words::{is_code_variable, is_secret_path};
use crate::text::first_chars;

/// Nested scripts (`bash -c`, `eval`, `$(…)`) deeper than this are not followed.
const MAX_DEPTH: usize = 12;

pub(super) fn classify_shell(command: &str, scope: &Scope<'_>) -> Assessment {
    let mut w = walker(scope);
    w.script(command, 0);
    w.finish()
}

/// A walker that walks nested shell code with this module and classifies each simple
/// command with the program table.
pub(super) fn walker<'a>(scope: &'a Scope<'a>) -> Walker<'a> {
    Walker::new(
        scope,
        Hooks {
            script: walk_script,
            argv: programs::run,
        },
    )
}

fn walk_script(w: &mut Walker<'_>, text: &str, depth: usize) {
    w.walk(text, depth);
}

/// The stand-in path of a variable set from `$(mktemp …)`: it names no real file, and the
/// command creates it.
fn temp_path(var: &str) -> PathBuf {
    PathBuf::from(format!("/tmp/artoo-mktemp-{var}"))
}

impl Walker<'_> {
    /// Parses and walks `text`, a complete shell script.
    fn walk(&mut self, text: &str, depth: usize) {
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
                    if is_code_variable(var) {
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
        programs::run(self, &args, &stdin, None, depth);
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
                                && is_secret_path(&path, self.scope.home)
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
