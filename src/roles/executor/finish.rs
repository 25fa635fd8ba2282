//! R3's finish checks as one table, [`CHECKS`], read top to bottom. A small model
//! finishes early, from the wrong result or in the wrong shape, and a validator of the
//! same size tends to accept what a tool printed; each row weighs a finish against the
//! attempt's own results and either sends it back once more (a push-back the next turn
//! hears first), restates the answer by code (the row a listing holds, the one line a
//! call selected), or settles the attempt (an absence the calls proved). The first row
//! that rules decides; a restatement changes the answer the later rows read. A finish
//! that goes out as the model gave it is read once more by the rows that doubt an
//! answer ([`doubts`]): what they still hold against it travels with the result.
//!
//! Each row says when it applies ([`When`]: the finish's status, whether a Law 1 denial
//! settles the attempt first, whether a turn is left after this one, whether the
//! attempt is down to finishing only) and what it may spend ([`Budget`]): a row pushes
//! back at most once per attempt, or — the rows about the answer's shape — at most
//! [`MAX_SHAPE_PUSHES`] times together, since a model that mends one misfit often makes
//! another. Rows that look once spend their look whether or not they rule.
//!
//! The rows' rules live where the evidence is read (`review`, `crate::checks`); this
//! module owns their order and their budgets. Each row is exercised by recorded cases
//! in `tests/fixtures/finish/` (a sub-task, its calls, the finish, the row that must
//! rule), beside the unit tests of the rules themselves.
//!
//! **Invariant:** pure. A ruling reads only the finish, the attempt's records and what
//! the model saw of them, the sub-task's facts in [`Subject`] and the table's own state
//! in [`Pushes`]; no row rules twice in an attempt where its budget says once, and no
//! more than [`MAX_SHAPE_PUSHES`] shape push-backs are given.

use std::path::Path;

use super::prompt::Observed;
use super::review::{
    NamedFile, UNBACKED_NUDGE, copies_the_example, misquote_nudge, only_numbers, shape_nudge,
    stale_quote, stale_quote_nudge, untouched, untouched_nudge, unwritten_nudge,
};
use super::step::FinishStatus;
use crate::checks::shape::{self, Verdict};
use crate::contracts::{AnswerShape, ToolCallRecord, ToolCallStatus};
use crate::ggs::grounding;

/// The most finishes of one attempt sent back for the shape of their answer.
pub const MAX_SHAPE_PUSHES: usize = 2;

/// One finish of the model, as weighed.
#[derive(Clone, Copy, Debug)]
pub struct Finish<'a> {
    pub status: FinishStatus,
    /// The answer; a row that restates it replaces it for the rows below.
    pub output: &'a str,
    pub summary: &'a str,
    /// The attempt's tool-call records, in order.
    pub records: &'a [ToolCallRecord],
    /// What the model saw of each call of the attempt.
    pub observed: &'a [Observed],
    /// This finish came on turn `step` of `max_steps`.
    pub step: u32,
    pub max_steps: u32,
}

impl Finish<'_> {
    /// A turn is left after this one.
    fn spare_turn(&self) -> bool {
        self.step + 1 < self.max_steps
    }

    fn refs(&self) -> Vec<&ToolCallRecord> {
        self.records.iter().collect()
    }

    fn denied(&self) -> bool {
        self.records
            .iter()
            .any(|r| r.status == ToolCallStatus::Denied)
    }

    fn any_ok(&self) -> bool {
        self.records.iter().any(ToolCallRecord::grounds)
    }
}

/// What the rows know of the sub-task: its words and facts its worker reads from the
/// whole sub-task (every attempt's records, the toolbox).
#[derive(Clone, Debug)]
pub struct Subject<'a> {
    pub answer: AnswerShape,
    pub intent: &'a str,
    pub context: &'a str,
    /// The user's own words, where the sub-task carries them.
    pub request: Option<&'a str>,
    /// The files the sub-task names ([`super::review::named_files`]).
    pub files: &'a [NamedFile],
    /// The text of each file the sub-task names that was there when it began, small
    /// enough to read whole: `(path as the user sees it, text)`. Kept only when the
    /// answer may be a line quoted from one ([`crate::checks::selection::may_quote_a_line`]),
    /// so the rows that read them need not ask.
    pub texts: &'a [(String, String)],
    /// Files the sub-task asks to make that no call of it has written yet.
    pub unwritten: Vec<String>,
    /// The change the sub-task asks for is still unmade, and a tool to make it offered.
    pub change_unmade: bool,
    /// The calculate tool is offered.
    pub can_calculate: bool,
    /// The user's home folder, for paths said as `~/…`.
    pub home: &'a Path,
}

impl Subject<'_> {
    /// The intent, with the user's own words where the sub-task carries them: what an
    /// answer is held to.
    pub fn asked(&self) -> String {
        match self.request {
            Some(r) => format!("{}\n{r}", self.intent),
            None => self.intent.to_string(),
        }
    }

    /// The words a finish may use without copying the worked example: the sub-task's
    /// and everything its calls were given and printed.
    fn known(&self, observed: &[Observed]) -> String {
        let mut known = format!("{}\n{}", self.asked(), self.context);
        for o in observed {
            known.push('\n');
            known.push_str(&o.input);
            known.push('\n');
            known.push_str(&o.text);
        }
        known
    }
}

/// What the model may do on the turn after a push-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Deserialize), serde(rename_all = "snake_case"))]
pub enum Next {
    /// Only finish.
    FinishOnly,
    /// Call a tool or finish, even if the attempt was down to finishing.
    AnyTool,
    /// Whatever the attempt allowed before.
    AsBefore,
}

/// What a row rules about a finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// Sent back: the next turn hears `nudge` first.
    Push { nudge: String, next: Next },
    /// The answer, restated by code; the rows below read it.
    Restate(String),
    /// The attempt ends `completed` with this answer, stated by code.
    Settle(String),
}

/// The finish's status a row applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Completed,
    /// Uncertain or failed: the model does not report the work as done.
    NotCompleted,
    Any,
}

/// When a row applies to a finish.
#[derive(Clone, Copy, Debug)]
pub struct When {
    pub status: Status,
    /// Not after a Law 1 denial, which settles the attempt as failed.
    pub without_denial: bool,
    /// Only when a call of the attempt succeeded.
    pub backed: bool,
    /// Only with a turn left after this one (`Some(true)`), only before the last turn
    /// (`Some(false)`), or on any turn (`None`).
    pub spare_turn: Option<bool>,
    /// Not once the attempt is down to finishing only.
    pub not_finish_only: bool,
}

/// A push-back that happens at most once per attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Deserialize), serde(rename_all = "snake_case"))]
pub enum Once {
    Unbacked,
    EffectsTold,
    /// The change the sub-task asks for was asked for (also by a repeated read).
    Change,
    FilesChecked,
    Misquote,
    /// A quoted line was held to the words that select the file's lines.
    Selection,
    /// A count was held to the items the request counts, not all of them.
    Whole,
}

/// What a row may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Nothing: a restatement or a settlement, which ends no turn.
    Free,
    /// Spent when the row applies, whether or not it rules.
    Look(Once),
    /// Spent when the row pushes back.
    Push(Once),
    /// One of the attempt's [`MAX_SHAPE_PUSHES`] push-backs about the answer's shape.
    Shape,
}

/// One row of the table.
pub struct Check {
    pub name: &'static str,
    pub when: When,
    pub budget: Budget,
    pub rule: fn(&Finish, &Subject) -> Option<Ruling>,
}

/// What the table has spent in one attempt, and whether the attempt is down to
/// finishing only.
#[derive(Debug, Default)]
pub struct Pushes {
    spent: Vec<Once>,
    shape: usize,
    /// Only a finish is asked for from now on.
    pub finish_only: bool,
}

impl Pushes {
    pub fn spent(&self, once: Once) -> bool {
        self.spent.contains(&once)
    }

    pub fn spend(&mut self, once: Once) {
        if !self.spent(once) {
            self.spent.push(once);
        }
    }

    /// Finishes sent back for their shape so far.
    pub fn shape_pushes(&self) -> usize {
        self.shape
    }
}

/// How a finish was weighed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Weighed {
    /// Sent back by the row named.
    Pushed { check: &'static str, nudge: String },
    /// Settled by code by the row named.
    Settled { check: &'static str, answer: String },
    /// Delivered: the answer, restated by the rows named, if any, with the doubts left
    /// on it ([`doubts`]).
    Delivered {
        output: String,
        restated_by: Vec<&'static str>,
        doubts: Vec<String>,
    },
}

const COMPLETED: When = When {
    status: Status::Completed,
    without_denial: true,
    backed: false,
    spare_turn: Some(true),
    not_finish_only: true,
};

/// A completed finish on any turn, whatever settled it before: when code states an
/// answer it computed (a row, a line), which no push-back budget limits.
const STATED: When = When {
    status: Status::Completed,
    without_denial: false,
    backed: false,
    spare_turn: None,
    not_finish_only: false,
};

/// The table, in the order it is read.
pub const CHECKS: &[Check] = &[
    // "Is there …?", and a call found what the sub-task names missing: the absence is
    // the answer, with its evidence, whatever the model made of it.
    Check {
        name: "absence",
        when: When {
            status: Status::Any,
            without_denial: true,
            backed: false,
            spare_turn: None,
            not_finish_only: false,
        },
        budget: Budget::Free,
        rule: absence,
    },
    // `completed` with no successful call: nothing shows the output.
    Check {
        name: "unbacked",
        when: COMPLETED,
        budget: Budget::Push(Once::Unbacked),
        rule: |f, _| (!f.any_ok()).then(|| push(UNBACKED_NUDGE.to_string())),
    },
    // Work done is not thrown away: a finish that does not report the work as done,
    // while the calls changed files it names none of, hears what they did.
    Check {
        name: "untold effects",
        when: When {
            status: Status::NotCompleted,
            ..COMPLETED
        },
        budget: Budget::Look(Once::EffectsTold),
        rule: |f, _| {
            crate::checks::claims::untold_effects(f.output, &f.refs())
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // A file the sub-task asks to make, still unwritten, is owed.
    Check {
        name: "unwritten",
        when: COMPLETED,
        budget: Budget::Push(Once::Change),
        rule: |_, s| {
            (!s.unwritten.is_empty() && s.change_unmade)
                .then(|| push(unwritten_nudge(&s.unwritten)))
        },
    },
    // So is a file the sub-task asks to delete or move that is still where it was: one
    // part of a two-part request done is not the request done.
    Check {
        name: "undone removal",
        when: COMPLETED,
        budget: Budget::Push(Once::Change),
        rule: |f, s| {
            crate::checks::claims::undone_removals(&s.asked(), f.output, &f.refs())
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // A file the sub-task names that no call of the attempt used or showed.
    Check {
        name: "untouched file",
        when: COMPLETED,
        budget: Budget::Look(Once::FilesChecked),
        rule: |f, s| {
            let left = untouched(s.files, f.observed);
            (!left.is_empty()).then(|| push(untouched_nudge(&left)))
        },
    },
    // Numbers or names no result shows, or a copy of a result a later call superseded.
    // Checked before the last turn even when the attempt is down to finishing.
    Check {
        name: "misquote",
        when: When {
            backed: true,
            spare_turn: Some(false),
            not_finish_only: false,
            ..COMPLETED
        },
        budget: Budget::Look(Once::Misquote),
        rule: misquote,
    },
    // What the records contradict: another row than the n-th asked, a file said not to
    // be there that a listing showed, a number given a unit no tool printed it with, a
    // number the tools printed for another thing than the request asks about or in
    // another unit than it asks for, "which <column>" answered with no value of that column, a choice given to the
    // item the printed numbers do not favour. Checked on a finish-only turn too: code
    // holds the evidence, and the next turn is a finish again, so nothing loops.
    Check {
        name: "contradicted",
        when: When {
            without_denial: false,
            not_finish_only: false,
            ..COMPLETED
        },
        budget: Budget::Shape,
        rule: |f, s| contradicted(f, s).map(|w| push(shape_nudge(&w))),
    },
    // Where no push-back is left for the n-th of an order, code states that row:
    // picking the n-th row of a listing in the order asked is a computation.
    Check {
        name: "n-th row stated",
        when: STATED,
        budget: Budget::Free,
        rule: |f, s| {
            contradicted(f, s)?;
            shape::nth_stated(&s.asked(), f.output, &f.refs()).map(Ruling::Restate)
        },
    },
    // A line quoted from a file the sub-task names lacks a word the sub-task names
    // that marks some of that file's lines: the call that picked it left the word out.
    // Once: the model may keep its line when the word selects nothing.
    Check {
        name: "unselected line",
        when: COMPLETED,
        budget: Budget::Look(Once::Selection),
        rule: |f, s| {
            crate::checks::selection::unselected_line(&s.asked(), f.output, s.texts)
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // "How many" answered with a share: the count is asked, and the tool that printed
    // the share printed the count too.
    Check {
        name: "share for a count",
        when: COMPLETED,
        budget: Budget::Shape,
        rule: |f, s| {
            crate::checks::whole::share_for_count(&s.asked(), f.output)
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // A count of every line, row or file a call read whole, where the question counts
    // only some of them ("how many guests … have confirmed"). Once, spent when it
    // pushes: a question that does count them all finishes again; a finish it found
    // nothing in (a repeated read's output, weighed as the answer) spends nothing.
    Check {
        name: "whole counted",
        when: COMPLETED,
        budget: Budget::Push(Once::Whole),
        rule: |f, s| {
            crate::checks::whole::whole_counted(&s.asked(), f.output, &f.refs())
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // Still quoting a line a first or last read picked without the one word that
    // selects the file's lines, once the push-back is spent: the line that read selects
    // by the word, stated by code.
    Check {
        name: "selected line stated",
        when: When {
            status: Status::Completed,
            without_denial: true,
            backed: false,
            spare_turn: None,
            not_finish_only: false,
        },
        budget: Budget::Free,
        rule: |f, s| {
            crate::checks::selection::selected_stated(&s.asked(), f.output, s.texts, &f.refs())
                .map(Ruling::Restate)
        },
    },
    // A number the request states that no call computed with and the answer lacks: the
    // part of the request it belongs to was skipped ("20% of the largest amount" given
    // as the largest amount). Only where the attempt holds all the work: a step after
    // others may rest on a number an earlier step used.
    Check {
        name: "unused operand",
        when: COMPLETED,
        budget: Budget::Shape,
        rule: |f, s| {
            if s.context.contains(crate::contracts::PRIOR_OUTPUTS_HEADING) {
                return None;
            }
            crate::checks::operands::unused(&s.asked(), f.output, &f.refs())
                .map(|w| push(shape_nudge(&w)))
        },
    },
    // The answer lacks the shape the task asks for, copies the worked example or a
    // tool's output, picks by eye, answers another kind of line, or counts a value
    // nobody asked about.
    Check {
        name: "shape",
        when: When {
            without_denial: false,
            ..COMPLETED
        },
        budget: Budget::Shape,
        rule: misshapen,
    },
    // "Which one", still answered with no item once no push-back is left, while a call
    // selected exactly one line: that line is the answer, stated by code.
    Check {
        name: "sole line stated",
        when: STATED,
        budget: Budget::Free,
        rule: |f, s| {
            shape::sole_stated(s.answer, &s.asked(), f.output, &f.refs()).map(Ruling::Restate)
        },
    },
    // "How many" still answered with a share once the push-backs are spent: the count
    // the tool printed beside that share, stated by code.
    Check {
        name: "share stated as its count",
        when: STATED,
        budget: Budget::Free,
        rule: |f, s| {
            crate::checks::whole::share_counted(&s.asked(), f.output, &f.refs())
                .map(Ruling::Restate)
        },
    },
    // A line of those a word selects, but not the n-th the request asks for ("the
    // second warning"): code counts to the n-th and states it. Last, so that no row
    // above weighs code's own statement as the model's pick.
    Check {
        name: "n-th selected line stated",
        when: STATED,
        budget: Budget::Free,
        rule: |f, s| {
            crate::checks::selection::nth_selected(&s.asked(), f.output, s.texts)
                .map(Ruling::Restate)
        },
    },
];

fn push(nudge: String) -> Ruling {
    Ruling::Push {
        nudge,
        next: Next::AsBefore,
    }
}

/// Weighs a finish by [`CHECKS`], spending from `pushes`.
pub fn weigh(finish: &Finish, subject: &Subject, pushes: &mut Pushes) -> Weighed {
    weigh_by(CHECKS, finish, subject, pushes)
}

fn weigh_by(checks: &[Check], finish: &Finish, subject: &Subject, pushes: &mut Pushes) -> Weighed {
    let mut output = finish.output.to_string();
    let mut restated_by = Vec::new();
    for check in checks {
        let current = Finish {
            output: &output,
            ..*finish
        };
        if !applies(&check.when, check.budget, &current, pushes) {
            continue;
        }
        if let Budget::Look(once) = check.budget {
            pushes.spend(once);
        }
        match (check.rule)(&current, subject) {
            None => {}
            Some(Ruling::Push { nudge, next }) => {
                match check.budget {
                    Budget::Push(once) => pushes.spend(once),
                    Budget::Shape => pushes.shape += 1,
                    Budget::Free | Budget::Look(_) => {}
                }
                match next {
                    Next::FinishOnly => pushes.finish_only = true,
                    Next::AnyTool => pushes.finish_only = false,
                    Next::AsBefore => {}
                }
                return Weighed::Pushed {
                    check: check.name,
                    nudge,
                };
            }
            Some(Ruling::Restate(stated)) => {
                output = stated;
                restated_by.push(check.name);
            }
            Some(Ruling::Settle(answer)) => {
                return Weighed::Settled {
                    check: check.name,
                    answer,
                };
            }
        }
    }
    // An answer code restated is code's own: no row doubts it.
    let doubts = if restated_by.is_empty() {
        doubts(checks, finish, subject)
    } else {
        Vec::new()
    };
    Weighed::Delivered {
        output,
        restated_by,
        doubts,
    }
}

/// What the records still hold against a completed finish that goes out as the model
/// gave it: each row about the answer's shape, a number no result shows, a count of
/// every item where some are asked, or a change left unmade that rules on it, whether its
/// push-back was spent or the turns ran out before it could push. The model was told (or
/// had no turn left to mend it); the doubt is not dropped but travels with the result,
/// which goes out as uncertain with it, so a validator passes it only by code. The rows
/// about a quoted line (which a model may keep when the word selects nothing) and about
/// files not looked at raise no doubt.
fn doubts(checks: &[Check], finish: &Finish, subject: &Subject) -> Vec<String> {
    if finish.status != FinishStatus::Completed || finish.denied() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for check in checks.iter().filter(|c| {
        matches!(
            c.budget,
            Budget::Shape | Budget::Push(Once::Change | Once::Whole) | Budget::Look(Once::Misquote)
        )
    }) {
        if let Some(Ruling::Push { nudge, .. }) = (check.rule)(finish, subject)
            && !out.contains(&nudge)
        {
            out.push(nudge);
        }
    }
    out
}

/// Whether `check` applies to `finish` with what is left in `pushes`.
fn applies(when: &When, budget: Budget, finish: &Finish, pushes: &Pushes) -> bool {
    let status = match finish.status {
        FinishStatus::Completed => Status::Completed,
        FinishStatus::Uncertain | FinishStatus::Failed => Status::NotCompleted,
    };
    let turn = match when.spare_turn {
        Some(true) => finish.spare_turn(),
        Some(false) => finish.step < finish.max_steps,
        None => true,
    };
    let budget_left = match budget {
        Budget::Free => true,
        Budget::Look(once) | Budget::Push(once) => !pushes.spent(once),
        Budget::Shape => pushes.shape < MAX_SHAPE_PUSHES,
    };
    (when.status == Status::Any || status == when.status)
        && !(when.without_denial && finish.denied())
        && (!when.backed || finish.any_ok())
        && turn
        && !(when.not_finish_only && pushes.finish_only)
        && budget_left
}

/// "No", with where it was looked for, when the sub-task asks whether something is
/// there, a call of the attempt found a path it names missing (a not-found failure
/// naming it), and no call of the attempt listed a file of that name elsewhere.
fn absence(f: &Finish, s: &Subject) -> Option<Ruling> {
    if s.answer != AnswerShape::YesNo {
        return None;
    }
    let subject = format!("{}\n{}", s.asked(), s.context);
    let missing = f.records.iter().find_map(|r| {
        crate::ggs::evidence::missing_resource(r)
            .filter(|path| crate::ggs::evidence::names(&subject, path))
    })?;
    let name = missing
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(&missing)
        .to_lowercase();
    if shape::listed(&[name], &f.refs()).is_some() {
        return None;
    }
    Some(Ruling::Settle(format!(
        "No: {} does not exist (looked for by the tools: no such file or folder).",
        crate::text::tilde(&missing, s.home)
    )))
}

/// The numbers, paths and file names of a finish that none of the attempt's results
/// (nor the calls' inputs, nor the sub-task's own words) shows — the rule R7 applies to
/// the delivered answer, applied where the model can still mend it — or a copy of a
/// result a later call superseded. A finish whose only unshown values are numbers may
/// have worked them out, which the calculate tool does by code: it gets a turn for that
/// where a turn is left after it and the tool is offered; otherwise only a finish.
fn misquote(f: &Finish, s: &Subject) -> Option<Ruling> {
    let unshown = unshown(f, s);
    if unshown.is_empty() {
        let quote = stale_quote(f.output, f.observed)?;
        return Some(Ruling::Push {
            nudge: stale_quote_nudge(&quote),
            next: Next::FinishOnly,
        });
    }
    let may_compute = only_numbers(&unshown) && f.spare_turn() && s.can_calculate;
    Some(Ruling::Push {
        nudge: misquote_nudge(&unshown, may_compute),
        next: if may_compute {
            Next::AnyTool
        } else {
            Next::FinishOnly
        },
    })
}

/// The values of `f.output` no successful result, call input, effect or sub-task word
/// shows. The paths the calls created, changed, moved or deleted count as shown: a move
/// by a pattern names no file, and the files it moved are what the finish reports.
pub fn unshown(f: &Finish, s: &Subject) -> Vec<String> {
    let ok: Vec<&Observed> = f
        .observed
        .iter()
        .filter(|o| o.status == ToolCallStatus::Ok)
        .collect();
    let outputs: Vec<&str> = ok.iter().map(|o| o.text.as_str()).collect();
    let effects: Vec<String> = f
        .records
        .iter()
        .flat_map(|r| &r.effects)
        .map(|e| e.path.display().to_string())
        .collect();
    let inputs: Vec<String> = ok.iter().map(|o| without_counts(&o.input)).collect();
    let mut words: Vec<&str> = inputs.iter().map(String::as_str).collect();
    words.extend(effects.iter().map(String::as_str));
    words.push(s.intent);
    words.push(s.context);
    grounding::unverified(f.output, &outputs, &words)
}

/// A call's input without the counts that only bound its output (`take`, `limit`): a
/// limit of 5 shows no value of the data.
fn without_counts(input: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("take");
            map.remove("limit");
            serde_json::Value::Object(map).to_string()
        }
        _ => input.to_string(),
    }
}

/// What the records contradict in the answer, in words for the push-back.
fn contradicted(f: &Finish, s: &Subject) -> Option<String> {
    let refs = f.refs();
    let words = s.asked();
    shape::nth_of_a_listing(&words, f.output, &refs)
        .or_else(|| shape::denies_what_was_shown(&words, f.output, &refs))
        .or_else(|| crate::checks::units::misread_unit(f.output, &refs))
        .or_else(|| crate::checks::labels::misread_number(&words, f.output, &refs))
        .or_else(|| crate::checks::units::unconverted(&words, f.output, &refs))
        .or_else(|| crate::checks::column::unnamed_column_value(&words, f.output, &refs))
        .or_else(|| crate::checks::compare::wrong_choice(&words, f.output, &refs))
}

/// Why the answer lacks the shape the task asks for, if it does.
fn misshapen(f: &Finish, s: &Subject) -> Option<Ruling> {
    let refs = f.refs();
    let why = match shape::check(s.answer, &s.asked(), f.output, &refs) {
        Verdict::Misfit(why) => Some(why),
        _ => copies_the_example(
            &format!("{}\n{}", f.output, f.summary),
            &s.known(f.observed),
        )
        .or_else(|| shape::copied_output(s.answer, f.output, &refs))
        .or_else(|| shape::picked_by_eye(f.output, &refs))
        .or_else(|| shape::off_kind(s.intent, f.output, &refs))
        .or_else(|| shape::count_of_an_unasked_value(s.intent, f.output, &refs)),
    };
    why.map(|w| push(shape_nudge(&w)))
}

#[cfg(test)]
mod tests;
