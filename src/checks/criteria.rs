//! The closed vocabulary of checks a criterion may carry ([`Check`]), evaluated by code
//! against the end state of the files and the answer delivered. A check comes from R2's
//! plan (grounded in the task's own words, [`grounded`]) or from code (a file the
//! request asks to make at a path, [`derived`]); R4a applies the checks of a sub-task's
//! criteria, R4b those of the task's.
//!
//! A check is **met**, **unmet** or **unknown** (it cannot be read: a file too large or
//! not text, or a line the file does not hold at all, which makes "no such line" a
//! possible right answer). Only an unmet check overrules a model: it fails its
//! criterion, whatever the model judged. A met one adds its evidence to a pass and does
//! not turn a model's fail into a pass — a criterion may ask more than its check shows.
//!
//! **Invariant:** every outcome names what code read (the path, its size, the line) in
//! plain words; nothing here calls a model, and the files are read only through
//! [`Files`], so a test states the world it checks.

use std::path::{Path, PathBuf};

use crate::contracts::{Check, Criterion, CriterionVerdict, FailureClass, Verdict};
use crate::text::{first_chars, fold};

/// The most of a file a check reads.
pub const MAX_READ_BYTES: u64 = 4 * 1024 * 1024;

/// What is at a path when a check looks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// Nothing is there.
    Missing,
    /// A folder is there.
    Folder,
    /// A file (or a link) is there.
    File {
        /// Its size.
        bytes: u64,
        /// Its text, when it is UTF-8 and at most [`MAX_READ_BYTES`].
        text: Option<String>,
    },
}

/// How a check reads the files.
pub trait Files: Send + Sync + std::fmt::Debug {
    /// What is at `path` now.
    fn state(&self, path: &Path) -> FileState;
}

/// The files on this computer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Disk;

impl Files for Disk {
    fn state(&self, path: &Path) -> FileState {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return FileState::Missing;
        };
        if meta.is_dir() {
            return FileState::Folder;
        }
        let bytes = meta.len();
        let text = (meta.is_file() && bytes <= MAX_READ_BYTES)
            .then(|| std::fs::read(path).ok())
            .flatten()
            .and_then(|b| String::from_utf8(b).ok());
        FileState::File { bytes, text }
    }
}

/// Where checks look: the files, and the home folder `~/…` paths are under.
#[derive(Clone, Debug)]
pub struct World {
    /// The user's home folder.
    pub home: PathBuf,
    /// How the files are read.
    pub files: std::sync::Arc<dyn Files>,
}

impl World {
    /// The files on this computer, under `home`.
    pub fn disk(home: impl Into<PathBuf>) -> Self {
        Self {
            home: home.into(),
            files: std::sync::Arc::new(Disk),
        }
    }

    /// What `check` comes to for `answer` in this world.
    pub fn evaluate(&self, check: &Check, answer: &str) -> Outcome {
        evaluate(check, answer, &*self.files, &self.home)
    }
}

/// What a check came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Met, with what code read.
    Met(String),
    /// Unmet, with what code read.
    Unmet(String),
    /// Code could not tell, and why.
    Unknown(String),
}

/// A check in plain words: the text of a criterion that is that check and nothing more.
pub fn stated(check: &Check) -> String {
    match check {
        Check::FileExists {
            path,
            contains: None,
        } => format!("A file is at {path} when the work ends"),
        Check::FileExists {
            path,
            contains: Some(text),
        } => format!("A file is at {path} when the work ends, holding «{text}»"),
        Check::FileGone { path } => format!("Nothing is at {path} when the work ends"),
        Check::AnswerStates { text } => format!("The answer states «{text}»"),
        Check::QuotesLine { path, text } => {
            format!("The answer quotes a line of {path} that holds «{text}»")
        }
    }
}

/// Whether code alone judges `criterion`: its text is its check's own words
/// ([`stated`]), so it asks nothing more, and the check always comes to met or unmet (a
/// file's presence or absence). No model is asked about it, and met is a pass.
pub fn by_code_alone(criterion: &Criterion) -> bool {
    criterion.check.as_ref().is_some_and(|check| {
        matches!(
            check,
            Check::FileExists { contains: None, .. } | Check::FileGone { .. }
        ) && criterion.criterion == stated(check)
    })
}

/// The verdicts of `criteria`, in their order: code's for those it judges alone, the
/// model's (`by_model`, the verdicts of the others in their order) for the rest.
pub fn with_code_verdicts(
    criteria: &[Criterion],
    by_model: Vec<CriterionVerdict>,
    answer: &str,
    world: &World,
) -> Vec<CriterionVerdict> {
    let mut by_model = by_model.into_iter();
    criteria
        .iter()
        .filter_map(|c| {
            let Some(check) = c.check.as_ref().filter(|_| by_code_alone(c)) else {
                return by_model.next();
            };
            let (verdict, class, read) = match world.evaluate(check, answer) {
                Outcome::Met(read) => (Verdict::Pass, None, read),
                Outcome::Unmet(read) | Outcome::Unknown(read) => {
                    (Verdict::Fail, Some(FailureClass::Logical), read)
                }
            };
            let mut v = CriterionVerdict::for_criterion(c, verdict);
            v.failure_class = class;
            v.evidence = format!("checked by code: {read}");
            Some(v)
        })
        .collect()
}

/// Holds each criterion that carries a check to it: an unmet check fails its criterion
/// (a logical failure, with what code read as the evidence), whatever a model judged; a
/// met one puts what code read before the evidence of a pass. `verdicts` are the
/// criteria's, in their order. The validators apply this after the model's judgement:
/// R4a to a sub-task's criteria and its report, R4b to the task's and the merged answer.
pub fn hold_to_checks(
    mut verdicts: Vec<CriterionVerdict>,
    criteria: &[Criterion],
    answer: &str,
    world: &World,
) -> Vec<CriterionVerdict> {
    for (verdict, criterion) in verdicts.iter_mut().zip(criteria) {
        let Some(check) = criterion
            .check
            .as_ref()
            .filter(|_| !by_code_alone(criterion))
        else {
            continue;
        };
        match world.evaluate(check, answer) {
            Outcome::Unmet(why) => {
                verdict.verdict = Verdict::Fail;
                verdict.failure_class = Some(FailureClass::Logical);
                verdict.evidence = format!("checked by code: {why}");
            }
            Outcome::Met(what) if !verdict.failed() => {
                verdict.evidence = if verdict.evidence.trim().is_empty() {
                    format!("checked by code: {what}")
                } else {
                    format!("checked by code: {what}; {}", verdict.evidence.trim())
                };
            }
            Outcome::Met(_) | Outcome::Unknown(_) => {}
        }
    }
    verdicts
}

/// The criteria whose check `answer` leaves unmet, each as a failed verdict with what
/// code read: what a round is sent back for before any model judges it.
pub fn unmet_checks(criteria: &[Criterion], answer: &str, world: &World) -> Vec<CriterionVerdict> {
    criteria
        .iter()
        .filter_map(|c| match world.evaluate(c.check.as_ref()?, answer) {
            Outcome::Unmet(why) => {
                let mut v = CriterionVerdict::for_criterion(c, Verdict::Fail);
                v.failure_class = Some(FailureClass::Logical);
                v.evidence = format!("checked by code: {why}");
                Some(v)
            }
            _ => None,
        })
        .collect()
}

/// Whether every one of `criteria` carries a check that `answer` meets: then code has
/// verified them all, and no model's judgement is needed for them.
pub fn all_met(criteria: &[Criterion], answer: &str, world: &World) -> bool {
    criteria.iter().all(|c| {
        c.check
            .as_ref()
            .is_some_and(|check| matches!(world.evaluate(check, answer), Outcome::Met(_)))
    })
}

/// `path` as a path on this computer: `~/…` under `home`.
pub fn resolve(path: &str, home: &Path) -> PathBuf {
    crate::config::expand_home(path.trim(), home)
}

/// Evaluates `check` against `answer` and the files.
pub fn evaluate(check: &Check, answer: &str, files: &dyn Files, home: &Path) -> Outcome {
    let shown = |p: &str| crate::text::tilde(&resolve(p, home).to_string_lossy(), home);
    match check {
        Check::FileExists { path, contains } => {
            match (files.state(&resolve(path, home)), contains) {
                (FileState::Missing, _) => Outcome::Unmet(format!("nothing is at {}", shown(path))),
                (FileState::Folder, _) => {
                    Outcome::Unmet(format!("{} is a folder, not a file", shown(path)))
                }
                (FileState::File { bytes, .. }, None) => {
                    Outcome::Met(format!("{} exists ({bytes} bytes)", shown(path)))
                }
                (FileState::File { text: None, .. }, Some(_)) => {
                    Outcome::Unknown(format!("{} is not text code can read whole", shown(path)))
                }
                (
                    FileState::File {
                        text: Some(text), ..
                    },
                    Some(wanted),
                ) => {
                    if fold(&text).contains(&fold(wanted)) {
                        Outcome::Met(format!("{} holds «{}»", shown(path), wanted.trim()))
                    } else {
                        Outcome::Unmet(format!(
                            "{} does not hold «{}»; it begins «{}»",
                            shown(path),
                            wanted.trim(),
                            first_chars(text.trim(), 120)
                        ))
                    }
                }
            }
        }
        Check::FileGone { path } => match files.state(&resolve(path, home)) {
            FileState::Missing => Outcome::Met(format!("nothing is at {} any more", shown(path))),
            _ => Outcome::Unmet(format!("{} is still there", shown(path))),
        },
        Check::AnswerStates { text } => {
            if states(answer, text) {
                Outcome::Met(format!("the answer states «{}»", text.trim()))
            } else {
                Outcome::Unmet(format!("the answer does not state «{}»", text.trim()))
            }
        }
        Check::QuotesLine { path, text } => {
            let state = files.state(&resolve(path, home));
            let FileState::File {
                text: Some(body), ..
            } = state
            else {
                return match state {
                    FileState::Missing => Outcome::Unmet(format!("nothing is at {}", shown(path))),
                    _ => {
                        Outcome::Unknown(format!("{} is not text code can read whole", shown(path)))
                    }
                };
            };
            let wanted = fold(text);
            let holding: Vec<&str> = body
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && fold(l).contains(&wanted))
                .collect();
            if holding.is_empty() {
                return Outcome::Unknown(format!(
                    "no line of {} holds «{}»",
                    shown(path),
                    text.trim()
                ));
            }
            let said = fold(answer);
            match holding.iter().find(|l| said.contains(&fold(l))) {
                Some(line) => Outcome::Met(format!(
                    "the answer quotes the line «{}» of {}",
                    first_chars(line, 120),
                    shown(path)
                )),
                None => Outcome::Unmet(format!(
                    "the answer quotes no line of {} that holds «{}»; {} do, e.g. «{}»",
                    shown(path),
                    text.trim(),
                    crate::text::plural(holding.len(), "line", "lines"),
                    first_chars(holding[holding.len() - 1], 120)
                )),
            }
        }
    }
}

/// Whether `answer` states `text`: folded, or — for a number — any number of the answer
/// equal to it (`1,200` states `1200`).
fn states(answer: &str, text: &str) -> bool {
    let (answer_f, text_f) = (fold(answer), fold(text));
    if text_f.is_empty() {
        return false;
    }
    if answer_f.contains(&text_f) {
        return true;
    }
    let number = |t: &str| {
        t.replace(',', "")
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
    };
    let Some(wanted) = number(text_f.trim()) else {
        return false;
    };
    answer_f
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '-')))
        .filter_map(|t| number(t.trim_matches(|c| matches!(c, '.' | ','))))
        .any(|n| (n - wanted).abs() <= f64::EPSILON * wanted.abs().max(1.0))
}

/// Whether `check` is about what the files hold (rather than about the answer).
pub fn on_files(check: &Check) -> bool {
    matches!(check, Check::FileExists { .. } | Check::FileGone { .. })
}

/// The paths a check names.
fn paths(check: &Check) -> Vec<&str> {
    match check {
        Check::FileExists { path, .. } | Check::FileGone { path } => vec![path],
        Check::QuotesLine { path, .. } => vec![path],
        Check::AnswerStates { .. } => vec![],
    }
}

/// Whether a check a model wrote stands on the task's own words: every path it names is
/// one the task names (`task` holds the request, the plan's context and the places, with
/// `~` and absolute forms alike), and the text it looks for is one the request says (a
/// line's word) or code computed from it (`computed`). A check on anything else would
/// test the model's guess of the answer, not the answer.
pub fn grounded(check: &Check, task: &str, computed: &[String], home: &Path) -> bool {
    let said = fold(&crate::text::tilde(task, home));
    let path_said = |p: &str| {
        let p = fold(&crate::text::tilde(
            &resolve(p, home).to_string_lossy(),
            home,
        ));
        !p.is_empty() && p != "~" && p != "/" && said.contains(&p)
    };
    if !paths(check).iter().all(|p| path_said(p)) {
        return false;
    }
    let text_said = |t: &str| {
        let t = fold(t);
        !t.is_empty() && (said.contains(&t) || computed.iter().any(|c| fold(c).contains(&t)))
    };
    match check {
        Check::FileExists { contains, .. } => contains.as_deref().is_none_or(text_said),
        Check::FileGone { .. } => true,
        Check::AnswerStates { text } => computed.iter().any(|c| states(c, text)),
        Check::QuotesLine { text, .. } => text_said(text),
    }
}

/// Words that may stand between a destination's preposition or verb and its path
/// ("save it as a new file called ~/x.txt").
const FILLERS: &[&str] = &[
    "a", "an", "the", "new", "file", "called", "named", "it", "them", "this",
];

/// Words after which a path is where something is put: a preposition of destination, or
/// a verb whose object is the file it makes.
const DESTINATION: &[&str] = &["to", "into", "as", "create", "make", "write", "save"];

/// Checks code writes itself from the request: a file the request asks to make — its
/// words ask to write or save, and a path with a file name is where something goes
/// (after "to", "into", "as", or a verb that makes it) — that does not exist now: the
/// file must be at that path when the work ends, not at a name the model picked.
pub fn derived(request: &str, home: &Path, files: &dyn Files) -> Vec<(String, Check)> {
    if !crate::laws::requested::asks_for(crate::laws::EffectKind::Overwrite, request) {
        return Vec::new();
    }
    let words: Vec<&str> = request
        .split_whitespace()
        .map(|w| {
            let w = w.trim_matches(|c: char| {
                matches!(
                    c,
                    '"' | '\'' | '`' | ',' | ';' | ':' | '(' | ')' | '?' | '!' | '«' | '»'
                )
            });
            w.strip_suffix('.').unwrap_or(w)
        })
        .collect();
    let mut out: Vec<(String, Check)> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if !(word.starts_with("~/") || word.starts_with('/')) || word.contains(['*', '?', '[', '{'])
        {
            continue;
        }
        let put_there = words[..i]
            .iter()
            .rev()
            .map(|w| w.to_lowercase())
            .find(|w| !FILLERS.contains(&w.as_str()))
            .is_some_and(|w| DESTINATION.contains(&w.as_str()));
        let path = resolve(word, home);
        let has_extension = path
            .file_name()
            .and_then(|n| Path::new(n).extension())
            .is_some();
        if !put_there || !has_extension || files.state(&path) != FileState::Missing {
            continue;
        }
        let said = crate::text::tilde(&path.to_string_lossy(), home);
        if out.iter().any(|(_, c)| paths(c) == [said.as_str()]) {
            continue;
        }
        let check = Check::FileExists {
            path: said,
            contains: None,
        };
        out.push((stated(&check), check));
    }
    out
}

#[cfg(test)]
mod tests;
