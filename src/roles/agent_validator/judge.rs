//! Pure judgement: aligning the model's per-criterion answers with the sub-task's
//! criteria, turning them into verdicts, overruling passes no tool output backs (Law 0),
//! and summarising an attempt as a gap-trajectory point.
//!
//! **Invariant:** no function here does IO or reads the clock; a pass survives only when
//! a judgement names its criterion, quotes evidence, and the attempt's calls can ground it.

use crate::contracts::{
    AnswerShape, Criterion, CriterionVerdict, FailureClass, GapPoint, MixedFailureClass, SubTask,
    ToolCallRecord, ToolCallStatus, Verdict,
};
use crate::ggs::grounding;
use crate::text::{first_chars, fold};
use crate::tools::ToolRef;

use super::schema::CriterionJudgement;

/// Whether a judgement names this criterion: the same words, or (for longer texts) one
/// containing the other, since models copy criteria with small slips.
fn names_criterion(judged: &str, criterion: &str) -> bool {
    let (j, c) = (fold(judged), fold(criterion));
    j == c || (j.len() >= 12 && c.len() >= 12 && (j.contains(&c) || c.contains(&j)))
}

/// Which judgement answers each criterion, or why the reply cannot be used.
///
/// A criterion is answered by the judgement that names it; if several do, an unmet one
/// wins (a criterion judged both ways is not proven). When the reply has exactly one
/// entry per criterion, an entry that names no criterion answers the criterion at its
/// position. Extra entries that name no criterion are ignored. A criterion marked met
/// must come with evidence.
pub fn align_judgements<'a>(
    criteria: &[Criterion],
    judged: &'a [CriterionJudgement],
) -> Result<Vec<&'a CriterionJudgement>, String> {
    let mut used = vec![false; judged.len()];
    let mut chosen: Vec<Option<usize>> = criteria
        .iter()
        .map(|c| {
            let named: Vec<usize> = (0..judged.len())
                .filter(|&i| names_criterion(&judged[i].criterion, &c.criterion))
                .collect();
            let pick = named
                .iter()
                .copied()
                .find(|&i| !judged[i].met)
                .or_else(|| named.first().copied());
            for &i in &named {
                used[i] = true;
            }
            pick
        })
        .collect();
    let positional = judged.len() == criteria.len();
    for (pos, slot) in chosen.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        if !positional {
            return Err(format!(
                "`criteria` must hold one entry per criterion, in the order given ({} \
                 entries); criterion {} (\"{}\") has none",
                criteria.len(),
                pos + 1,
                first_chars(&criteria[pos].criterion, 120)
            ));
        }
        let pick = if used[pos] {
            used.iter().position(|u| !u)
        } else {
            Some(pos)
        };
        let Some(i) = pick else {
            return Err(format!(
                "criterion {} (\"{}\") has no entry of its own in `criteria`",
                pos + 1,
                first_chars(&criteria[pos].criterion, 120)
            ));
        };
        used[i] = true;
        *slot = Some(i);
    }
    let aligned: Vec<&CriterionJudgement> =
        chosen.into_iter().flatten().map(|i| &judged[i]).collect();
    if let Some(pos) = aligned
        .iter()
        .position(|j| j.met && j.evidence.trim().is_empty())
    {
        return Err(format!(
            "criterion {} is marked met without evidence: quote what shows it, or mark it unmet",
            pos + 1
        ));
    }
    Ok(aligned)
}

/// The semantic check of a structured reply: every criterion answered, and none marked
/// met without evidence ([`align_judgements`]).
pub fn check_judgements(
    criteria: &[Criterion],
    judged: &[CriterionJudgement],
) -> Result<(), String> {
    align_judgements(criteria, judged).map(|_| ())
}

/// Criterion verdicts from a checked reply. An unmet criterion without a cause gets
/// `default_class`.
pub fn verdicts_from(
    criteria: &[Criterion],
    judged: &[CriterionJudgement],
    default_class: FailureClass,
) -> Result<Vec<CriterionVerdict>, String> {
    Ok(criteria
        .iter()
        .zip(align_judgements(criteria, judged)?)
        .map(|(c, j)| {
            let mut v = CriterionVerdict::for_criterion(
                c,
                if j.met { Verdict::Pass } else { Verdict::Fail },
            );
            v.evidence = j.evidence.trim().to_string();
            if !j.met {
                v.failure_class = Some(j.unmet_cause.map_or(default_class, FailureClass::from));
            }
            v
        })
        .collect())
}

/// Overrules passes no tool result can back (Law 0; a small model rubber-stamps an
/// executor's claim):
/// - when the attempt called tools and none of the calls grounds anything (all refused,
///   denied, failed, or shell commands that exited with a failure), nothing shows the
///   work done, so no criterion is met, whatever the model judged;
/// - when some call shows something, a count of things on this computer that the report
///   states (`3 files`, a report that is only a number) must be one the outputs show or
///   derive ([`grounding::unshown_counts`]): a small model misreads the lone number `wc`
///   printed, and a validator of the same size passes it;
/// - when the attempt made no call at all, it is judged on its report only if the report
///   states nothing about this computer that the sub-task's own words do not already
///   say: a path, a file name or a count of files, lines or bytes ([`grounding::machine_claims`])
///   can only come from looking, so a report that names one without a call is not
///   matched. A sub-task answerable from its context (arithmetic, rewording) still passes.
pub fn ground_in_calls(
    mut verdicts: Vec<CriterionVerdict>,
    calls: &[ToolCallRecord],
    report: &str,
    given: &[&str],
) -> Vec<CriterionVerdict> {
    if calls.is_empty() {
        let claims = grounding::machine_claims(report, given);
        if claims.is_empty() {
            return verdicts;
        }
        for v in verdicts.iter_mut().filter(|v| !v.failed()) {
            v.verdict = Verdict::Fail;
            v.failure_class = Some(FailureClass::Logical);
            v.evidence = format!(
                "the attempt made no tool call, yet its report states what only a tool could \
                 show about this computer ({}); the model's pass is overruled",
                claims.join(", ")
            );
        }
        return verdicts;
    }
    if calls.iter().any(ToolCallRecord::grounds) {
        let shown: Vec<&ToolCallRecord> = calls.iter().filter(|c| c.grounds()).collect();
        let outputs: Vec<&str> = shown.iter().map(|c| c.output_head.as_str()).collect();
        let inputs: Vec<String> = shown.iter().map(|c| c.input.to_string()).collect();
        let mut words: Vec<&str> = shown.iter().map(|c| c.target.as_str()).collect();
        words.extend(inputs.iter().map(String::as_str));
        words.extend_from_slice(given);
        let counts = grounding::unshown_counts(report, &outputs, &words);
        if counts.is_empty() {
            return verdicts;
        }
        let printed = shown
            .iter()
            .rev()
            .find(|c| !c.output_head.trim().is_empty())
            .map(|c| {
                format!(
                    "; `{}` printed: {}",
                    first_chars(&c.target, 80),
                    first_chars(c.output_head.trim(), 120)
                )
            })
            .unwrap_or_default();
        for v in verdicts.iter_mut().filter(|v| !v.failed()) {
            v.verdict = Verdict::Fail;
            v.failure_class = Some(FailureClass::Logical);
            v.evidence = format!(
                "the report states {}, which no tool output shows{printed}; the model's pass is \
                 overruled",
                counts.join(", ")
            );
        }
        return verdicts;
    }
    let class = if calls
        .iter()
        .any(|c| matches!(c.status, ToolCallStatus::Error | ToolCallStatus::Denied))
    {
        FailureClass::Environmental
    } else {
        FailureClass::Logical
    };
    for v in verdicts.iter_mut().filter(|v| !v.failed()) {
        v.verdict = Verdict::Fail;
        v.failure_class = Some(class);
        v.evidence = format!(
            "no tool call of this attempt succeeded ({} refused, denied or failed), so no \
             tool result shows this; the model's pass is overruled",
            calls.len()
        );
    }
    verdicts
}

/// Absence is an answer: a criterion about what a folder holds ("the output lists all
/// files in /root") that the model failed, although a listing of that folder in this
/// attempt found nothing and the report says so, is met — the listing is the evidence
/// that there is nothing to list, and a model cannot list what is not there. Checked by
/// code: the listing succeeded and its first line is its own "no …" (`no files in ~ …`),
/// the criterion names that folder or no place at all and speaks of files, folders or
/// entries, and the report states the absence (it copies the listing's line or says
/// "no", "none", "not any", "empty").
pub fn absence_shown(
    mut verdicts: Vec<CriterionVerdict>,
    calls: &[ToolCallRecord],
    report: &str,
) -> Vec<CriterionVerdict> {
    let Some(empty) = calls.iter().rev().find(|c| {
        c.status == ToolCallStatus::Ok
            && c.tool.builtin().is_some_and(|t| {
                matches!(
                    t,
                    crate::tools::ToolName::ListFiles
                        | crate::tools::ToolName::Glob
                        | crate::tools::ToolName::Mdfind
                )
            })
            && c.output_head.trim_start().starts_with("no ")
    }) else {
        return verdicts;
    };
    let said = fold(report);
    let says_none = said.contains(&fold(empty.output_head.lines().next().unwrap_or("")))
        || said
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "no" | "none" | "not" | "empty" | "nothing" | "0"));
    if !says_none {
        return verdicts;
    }
    let place = empty.target.trim_end_matches('/');
    for v in verdicts.iter_mut().filter(|v| v.failed()) {
        let criterion = fold(&v.criterion);
        let about_entries = criterion.split(|c: char| !c.is_alphanumeric()).any(|w| {
            matches!(
                w,
                "file" | "files" | "folder" | "folders" | "entries" | "items"
            )
        });
        let names_place =
            place.is_empty() || criterion.contains(&fold(place)) || !criterion.contains('/');
        if about_entries && names_place {
            v.verdict = Verdict::Pass;
            v.failure_class = None;
            v.evidence = format!(
                "checked by code: `{}` found none ({}), and the report says so",
                first_chars(place, 80),
                first_chars(empty.output_head.lines().next().unwrap_or(""), 160)
            );
        }
    }
    verdicts
}

/// Absence answers a question whether something is there. For a sub-task that asks yes
/// or no, with a report that answers "no", and a call that showed a path the sub-task
/// names is not there — it failed as not-found on that path, or a search by name for it
/// found no file of exactly that name — a failed criterion about that file (it names the
/// file, or speaks of its existence) or about the answer's form alone (it names both
/// "yes" and "no") is met, checked by code.
pub fn absent_named(
    mut verdicts: Vec<CriterionVerdict>,
    subtask: &SubTask,
    calls: &[ToolCallRecord],
    report: &str,
) -> Vec<CriterionVerdict> {
    if subtask.answer != AnswerShape::YesNo || !fold(report).trim_start().starts_with("no") {
        return verdicts;
    }
    let subject = format!("{}\n{}", subtask.intent, subtask.context);
    let Some((n, missing)) = calls.iter().enumerate().find_map(|(i, c)| {
        crate::ggs::evidence::missing_resource(c)
            .filter(|path| crate::ggs::evidence::names(&subject, path))
            .or_else(|| searched_in_vain(c).filter(|name| fold(&subject).contains(name)))
            .map(|what| (i + 1, what))
    }) else {
        return verdicts;
    };
    let name = fold(
        missing
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&missing),
    );
    for v in verdicts.iter_mut().filter(|v| v.failed()) {
        let criterion = fold(&v.criterion);
        let words: Vec<&str> = criterion
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let form_only = words.contains(&"yes") && words.contains(&"no");
        if criterion.contains(&name) || criterion.contains("exist") || form_only {
            v.verdict = Verdict::Pass;
            v.failure_class = None;
            v.evidence = format!(
                "checked by code: call [{n}] found no {} there, and the report says no",
                first_chars(&missing, 120)
            );
        }
    }
    verdicts
}

/// The file name a successful search by name looked for and found no file of exactly
/// that name: glob's "no files matched pattern", mdfind's "no files found with name
/// matching" or its "none of them is named exactly". A pattern with wildcards names no
/// one file.
fn searched_in_vain(call: &ToolCallRecord) -> Option<String> {
    use crate::tools::ToolName;
    let tool = call.tool.builtin()?;
    if call.status != ToolCallStatus::Ok || !matches!(tool, ToolName::Glob | ToolName::Mdfind) {
        return None;
    }
    let asked = ["pattern", "query"]
        .iter()
        .find_map(|k| call.input.get(*k).and_then(serde_json::Value::as_str))?;
    let name = fold(asked.trim().rsplit('/').next().unwrap_or(asked));
    if name.contains(['*', '?', '[']) || !crate::text::is_file_name(&name) {
        return None;
    }
    let out = fold(&call.output_head);
    let none = out.contains("no files matched pattern")
        || out.contains("no files found with name matching")
        || out.contains("none of them is named exactly");
    none.then_some(name)
}

/// The class of one attempt from its failing verdicts.
pub fn attempt_class(verdicts: &[CriterionVerdict]) -> Option<MixedFailureClass> {
    let mut classes = verdicts
        .iter()
        .filter(|v| v.failed())
        .filter_map(|v| v.failure_class);
    let first = classes.next()?;
    Some(if classes.all(|c| c == first) {
        first.into()
    } else {
        MixedFailureClass::Mixed
    })
}

/// A gap-trajectory point for one attempt.
pub fn gap_point(attempt: u32, verdicts: &[CriterionVerdict]) -> GapPoint {
    let total = verdicts.len().max(1);
    let passed = verdicts.iter().filter(|v| !v.failed()).count();
    GapPoint {
        attempt,
        score: passed as f64 / total as f64,
        unmet_criteria: verdicts
            .iter()
            .filter(|v| v.failed())
            .map(|v| v.criterion.clone())
            .collect(),
        failure_class: attempt_class(verdicts),
    }
}

/// Calls of a failed attempt named in a correction.
pub const MAX_CALLS_TO_AVOID: usize = 20;

/// The class of an unmet criterion the model gave no cause for: environmental when a call
/// of the attempt failed or was denied, else logical.
pub(super) fn default_class(calls: &[ToolCallRecord]) -> FailureClass {
    if calls
        .iter()
        .any(|c| matches!(c.status, ToolCallStatus::Error | ToolCallStatus::Denied))
    {
        FailureClass::Environmental
    } else {
        FailureClass::Logical
    }
}

/// Every criterion failed for one reason (no model verdict was possible or needed).
pub(super) fn failing_verdicts(
    criteria: &[Criterion],
    reason: &str,
    class: Option<FailureClass>,
) -> Vec<CriterionVerdict> {
    criteria
        .iter()
        .map(|c| {
            let mut v = CriterionVerdict::for_criterion(c, Verdict::Fail);
            v.failure_class = class;
            v.evidence = first_chars(reason, 300);
            v
        })
        .collect()
}

pub(super) fn unmet_summary(verdicts: &[CriterionVerdict]) -> String {
    verdicts
        .iter()
        .filter(|v| v.failed())
        .map(|v| {
            if v.evidence.is_empty() {
                format!("unmet: {}", v.criterion)
            } else {
                format!("unmet: {} ({})", v.criterion, first_chars(&v.evidence, 200))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The calls of a failed attempt the executor must not repeat, once each.
pub(super) fn calls_to_avoid(calls: &[ToolCallRecord]) -> Vec<ToolCallRecord> {
    let mut seen: Vec<(&ToolRef, &str)> = Vec::new();
    let mut out = Vec::new();
    for c in calls {
        if out.len() >= MAX_CALLS_TO_AVOID {
            break;
        }
        let key = (&c.tool, c.target.as_str());
        if !seen.contains(&key) {
            seen.push(key);
            out.push(c.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::CriterionMode;
    use crate::roles::agent_validator::fixtures::call;

    fn judged(criterion: &str, met: bool, evidence: &str) -> CriterionJudgement {
        CriterionJudgement {
            criterion: criterion.into(),
            evidence: evidence.into(),
            met,
            unmet_cause: None,
        }
    }

    #[test]
    fn a_pass_is_overruled_when_every_tool_call_of_the_attempt_failed_or_was_refused() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the file is gone"),
                Verdict::Pass,
            )]
        };
        let refused = vec![call("shell", ToolCallStatus::Refused, Some("MUST NOT"))];
        let v = ground_in_calls(pass(), &refused, "", &[]);
        assert!(v[0].failed());
        assert_eq!(v[0].failure_class, Some(FailureClass::Logical));
        let denied = vec![call("shell", ToolCallStatus::Denied, None)];
        assert_eq!(
            ground_in_calls(pass(), &denied, "", &[])[0].failure_class,
            Some(FailureClass::Environmental)
        );
        let one_ok = vec![
            call("shell", ToolCallStatus::Error, Some("exit 1")),
            call("shell", ToolCallStatus::Ok, None),
        ];
        assert!(!ground_in_calls(pass(), &one_ok, "", &[])[0].failed());
        // A command that exited with a failure ran, but shows nothing.
        let mut failed_exit = call("shell", ToolCallStatus::Ok, None);
        failed_exit.failed_exit = Some(2);
        let v = ground_in_calls(pass(), &[failed_exit], "", &[]);
        assert!(v[0].failed(), "{v:?}");
    }

    #[test]
    fn a_listing_that_found_nothing_meets_a_criterion_about_what_the_folder_holds() {
        let fail = |criterion: &str| {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new(criterion),
                Verdict::Fail,
            )]
        };
        let mut empty = call("list_files", ToolCallStatus::Ok, None);
        empty.target = "/root".into();
        empty.output_head = "no files in ~ (not recursive); the folder holds 1 folder (artoo/) \
                             (recursive=true looks inside); 5 hidden entries left out"
            .into();
        let calls = [empty];
        for report in [
            "no files in ~ (not recursive); the folder holds 1 folder (artoo/)",
            "There are no files in your home folder; it holds one folder, artoo.",
        ] {
            let v = absence_shown(fail("the output lists all files in /root"), &calls, report);
            assert!(!v[0].failed(), "{report}: {v:?}");
            assert!(v[0].evidence.starts_with("checked by code"), "{v:?}");
        }
        // A report that does not say so, a criterion about another place or about
        // something else, or a listing that found files: the model's verdict stands.
        assert!(
            absence_shown(fail("the output lists all files in /root"), &calls, "artoo")[0].failed()
        );
        assert!(
            absence_shown(fail("the output lists all files in /srv"), &calls, "none")[0].failed()
        );
        assert!(absence_shown(fail("the answer is polite"), &calls, "none")[0].failed());
        let mut found = calls[0].clone();
        found.output_head = "~ (not recursive), files: 1 found\nnotes.txt\t3 B".into();
        assert!(
            absence_shown(
                fail("the output lists all files in /root"),
                &[found],
                "none"
            )[0]
            .failed()
        );
    }

    #[test]
    fn a_file_not_found_answers_a_question_whether_it_is_there() {
        let mut subtask = crate::roles::agent_validator::fixtures::subtask(
            "Is there a file called budget.xlsx in ~/Documents?",
        );
        subtask.answer = AnswerShape::YesNo;
        let mut missing = call("read_file", ToolCallStatus::Error, None);
        missing.failure = Some(crate::contracts::ToolFailure::NotFound);
        missing.error = Some("no such file: /home/u/Documents/budget.xlsx".into());
        let calls = [missing];
        let fail = |criterion: &str| {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new(criterion),
                Verdict::Fail,
            )]
        };
        let judged = |criterion: &str, report: &str, subtask: &SubTask| {
            absent_named(fail(criterion), subtask, &calls, report)
        };
        let v = judged(
            "the output says whether budget.xlsx exists",
            "No: ~/Documents/budget.xlsx does not exist.",
            &subtask,
        );
        assert!(!v[0].failed(), "{v:?}");
        assert!(v[0].evidence.starts_with("checked by code"), "{v:?}");
        // A report that says yes, a criterion about something else, or a question of
        // another shape: the model's verdict stands.
        let no = "No: ~/Documents/budget.xlsx does not exist.";
        assert!(judged("budget.xlsx exists", "Yes, it is there.", &subtask)[0].failed());
        assert!(judged("the answer is polite", no, &subtask)[0].failed());
        let mut count = subtask.clone();
        count.answer = AnswerShape::Number;
        assert!(judged("the output says whether budget.xlsx exists", no, &count)[0].failed());
        // A search by name that found only a longer name is the same evidence, and a
        // criterion about the answer's form alone is met by a "no" too.
        let mut search = call("mdfind", ToolCallStatus::Ok, None);
        search.input = serde_json::json!({"query": "budget.xlsx"});
        search.output_head = "/home/u/Documents/budget.xlsx.bak (1 found)\n(none of them is \
                              named exactly \"budget.xlsx\": these names only contain it)"
            .into();
        let form = absent_named(
            fail("the output should be 'yes' or 'no'"),
            &subtask,
            std::slice::from_ref(&search),
            "no",
        );
        assert!(!form[0].failed(), "{form:?}");
        let mut found = search.clone();
        found.output_head = "/home/u/Documents/budget.xlsx (1 found)".into();
        assert!(absent_named(fail("budget.xlsx exists"), &subtask, &[found], "no")[0].failed());
    }

    #[test]
    fn a_count_the_outputs_do_not_show_is_overruled_and_one_they_show_is_not() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the output gives the count"),
                Verdict::Pass,
            )]
        };
        let mut wc = call("shell", ToolCallStatus::Ok, None);
        wc.output_head = "2".into();
        let calls = [wc];
        let v = ground_in_calls(pass(), &calls, "3", &["Count the .txt files"]);
        assert!(v[0].failed(), "{v:?}");
        assert!(v[0].evidence.contains("printed: 2"), "{}", v[0].evidence);
        let v = ground_in_calls(pass(), &calls, "There are 2 .txt files", &[]);
        assert!(!v[0].failed(), "{v:?}");
    }

    #[test]
    fn an_attempt_without_calls_passes_only_when_it_claims_nothing_about_the_computer() {
        let pass = || {
            vec![CriterionVerdict::for_criterion(
                &Criterion::new("the output gives the count"),
                Verdict::Pass,
            )]
        };
        let given = ["Count the text files in ~/notes", ""];
        let v = ground_in_calls(pass(), &[], "There are 7 files in ~/notes", &given);
        assert!(v[0].failed(), "{v:?}");
        assert_eq!(v[0].failure_class, Some(FailureClass::Logical));
        assert!(v[0].evidence.contains("7 files"), "{}", v[0].evidence);
        let v = ground_in_calls(pass(), &[], "The largest is movie.mkv", &given);
        assert!(v[0].failed(), "{v:?}");
        let sum = ["Add the figures 12 and 30 given in the context", ""];
        assert!(
            !ground_in_calls(pass(), &[], "12 + 30 = 42", &sum)[0].failed(),
            "arithmetic on the given words needs no tool"
        );
    }

    #[test]
    fn judgements_must_cover_every_criterion_and_ground_every_pass() {
        let one = [Criterion::new("a")];
        let two = [Criterion::new("a"), Criterion::new("b")];
        assert!(check_judgements(&two, &[judged("a", true, "[1] ok")]).is_err());
        assert!(check_judgements(&one, &[judged("a", true, "  ")]).is_err());
        assert!(check_judgements(&one, &[judged("a", false, "")]).is_ok());
    }

    #[test]
    fn judgements_are_aligned_by_text_then_by_position() {
        let criteria = vec![
            Criterion::new("First thing"),
            Criterion::new("Second thing"),
        ];
        let j = vec![
            judged("second   THING", false, "x"),
            judged("garbled", true, "y"),
        ];
        let aligned = align_judgements(&criteria, &j).unwrap();
        assert_eq!(aligned[0].criterion, "garbled");
        assert_eq!(aligned[1].criterion, "second   THING");
    }

    #[test]
    fn extra_entries_are_ignored_and_a_criterion_judged_both_ways_is_unmet() {
        let criteria = vec![Criterion::new("report.pdf was moved into archive/")];
        let j = vec![
            judged("report.pdf was moved into archive/", true, "[2] lists it"),
            judged(
                "report.pdf was moved into archive/.",
                false,
                "[1] mv failed",
            ),
            judged("something the model made up", true, "x"),
        ];
        let aligned = align_judgements(&criteria, &j).unwrap();
        assert!(!aligned[0].met);
        assert_eq!(aligned[0].evidence, "[1] mv failed");
        let missing = vec![judged("unrelated", true, "x"), judged("other", true, "y")];
        assert!(align_judgements(&criteria, &missing).is_err());
    }

    #[test]
    fn verdicts_keep_the_criterion_mode_and_default_the_class() {
        let criteria = vec![Criterion::with_mode("c", CriterionMode::Plausible)];
        let v = verdicts_from(
            &criteria,
            &[judged("c", false, "nothing")],
            FailureClass::Environmental,
        )
        .unwrap();
        assert_eq!(v[0].mode, Some(CriterionMode::Plausible));
        assert_eq!(v[0].verdict, Verdict::Fail);
        assert_eq!(v[0].failure_class, Some(FailureClass::Environmental));
        let point = gap_point(2, &v);
        assert_eq!(point.score, 0.0);
        assert_eq!(point.unmet_criteria, vec!["c".to_string()]);
        assert_eq!(point.failure_class, Some(MixedFailureClass::Environmental));
    }

    #[test]
    fn mixed_failure_classes_make_a_mixed_attempt() {
        let mut a = CriterionVerdict::for_criterion(&Criterion::new("a"), Verdict::Fail);
        a.failure_class = Some(FailureClass::Logical);
        let mut b = CriterionVerdict::for_criterion(&Criterion::new("b"), Verdict::Fail);
        b.failure_class = Some(FailureClass::Environmental);
        let c = CriterionVerdict::for_criterion(&Criterion::new("c"), Verdict::Pass);
        assert_eq!(
            attempt_class(&[a.clone(), b]),
            Some(MixedFailureClass::Mixed)
        );
        assert_eq!(
            attempt_class(&[a, c.clone()]),
            Some(MixedFailureClass::Logical)
        );
        assert_eq!(attempt_class(&[c]), None);
    }
}
