//! A change the answer says was made, held to the changes the calls made.
//!
//! Asked to "Replace every 'colour' with 'color' in ~/docs/style.md", a small model read
//! the file and answered "successfully replaced every 'colour' with 'color'"; asked to
//! change the extension of some files, it copied nothing and answered "has been changed".
//! Both were delivered as done with the files as they were. The rule here is about the
//! grammar of the request, not about a kind of task: a request that opens with a verb
//! that changes files (the verbs Law 1 reads as asking for a change) and an answer that
//! tells that same verb in the past ("replace" → "replaced", "copy" → "copied") claim
//! the request's own work as done. When no call changed any file and no action was
//! approved, that claim has nothing behind it, and the answer misfits until it is done
//! or the answer says it was not.
//!
//! [`untouched_paths`] holds the same account for paths: a file or folder the user
//! wrote out by its path, which no call of the task named, was neither read nor made.
//!
//! **Invariant:** pure. [`unbacked_change`] is silent unless all hold: the request's first verb asks for a
//! change of files, the answer tells that verb in the past outside a negation and outside
//! the words a tool printed, the task worked on files (a call other than `calculate` or
//! `search` ran), and no successful call recorded an effect or was approved.

use crate::contracts::{AnswerShape, Decision, ToolCallRecord, ToolCallStatus, ToolName};
use crate::laws::classify::EffectKind;

use super::said::{changed_anything, says_not};
use crate::text::leading_verb;

/// The words the records' outputs printed, folded: a word an answer shares with them may
/// be the tool's own ("sorted by modified"), not the answer's claim.
fn printed_words(records: &[&ToolCallRecord]) -> std::collections::HashSet<String> {
    records
        .iter()
        .flat_map(|r| {
            crate::text::fold(&r.output_head)
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The kinds of effect an answer may claim, with the effect records that back each: a
/// deletion is backed by a deletion (or the emptying of a folder), a move by a move or a
/// deletion (`mv` across folders records the new path as created and the old as gone).
const CLAIMS: &[(EffectKind, &[&str])] = &[
    (EffectKind::Delete, &["delete", "delete the contents of"]),
    (
        EffectKind::Move,
        &["move", "delete", "delete the contents of"],
    ),
];

/// An answer that says something was deleted or moved when no call of its records did
/// any such thing, and no action was approved: an account of an effect that has none
/// behind it. An approved call counts as backing whatever it did (a command run outside
/// the sandbox has no measured effects); an answer that says what was not done is not a
/// claim.
pub fn unbacked_claim(answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let words: Vec<String> = crate::text::fold(answer)
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(str::to_string)
        .collect();
    if says_not(answer)
        || records
            .iter()
            .any(|r| matches!(r.confirmation, Some(Decision::Approve | Decision::Trash)))
    {
        return None;
    }
    // A claim is told in the past: "deleted", "moved" (in Chinese, with 已 or 了). An
    // answer that quotes an instruction ("delete notes.txt") claims nothing, and neither
    // do a tool's own words quoted ("sorted by modified" in a listing).
    let printed = printed_words(records);
    let done_words = words
        .iter()
        .filter(|w| w.ends_with("ed") && !printed.contains(*w))
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let chinese_done = answer.contains('已') || answer.contains('了');
    let effects: Vec<&str> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| &r.effects)
        .map(|e| e.effect.as_str())
        .collect();
    // The words that make a claim of a move may mean a write too ("sorted" is a move of
    // files into folders, or a file written in order): such a word, backed by a file
    // written, claims no move; a word of relocation ("moved", "renamed") does. A
    // deletion's words stay strict: "removed" with a new file written elsewhere is still
    // an unbacked deletion.
    let claim_words: Vec<&str> = done_words.split(' ').filter(|w| !w.is_empty()).collect();
    let written = effects
        .iter()
        .any(|e| matches!(*e, "create" | "overwrite" | "truncate"));
    let (kind, _) = CLAIMS.iter().find(|(kind, backing)| {
        let claimed: Vec<&&str> = claim_words
            .iter()
            .filter(|w| crate::laws::requested::asks_for(*kind, w))
            .collect();
        let relocated = claimed
            .iter()
            .any(|w| RELOCATION.iter().any(|stem| w.starts_with(stem)));
        let told_as_written = *kind == EffectKind::Move && written && !relocated;
        let unbacked_words = !claimed.is_empty() && !told_as_written;
        (unbacked_words || (chinese_done && crate::laws::requested::asks_for(*kind, answer)))
            && !effects.iter().any(|e| backing.contains(e))
    })?;
    let done = if *kind == EffectKind::Delete {
        "deleted"
    } else {
        "moved"
    };
    Some(format!(
        "the answer says something was {done} but no call {done} anything: do it with a tool \
         that does (move_files moves, delete_files deletes files, edit_file removes a text \
         from a file; copying is not moving; reading is not deleting), or say that it was not \
         done"
    ))
}

/// The request's first verb, lower case, when it asks for a change of files.
pub(crate) fn change_verb(request: &str) -> Option<String> {
    let (verb, _) = leading_verb(request)?;
    let changes = [EffectKind::Overwrite, EffectKind::Move, EffectKind::Delete]
        .into_iter()
        .any(|kind| crate::laws::requested::asks_for(kind, &verb));
    changes.then_some(verb)
}

/// The past forms of the irregular English verbs that change files.
const IRREGULAR: &[(&str, &[&str])] = &[
    ("write", &["wrote", "written"]),
    ("rewrite", &["rewrote", "rewritten"]),
    ("overwrite", &["overwrote", "overwritten"]),
    ("make", &["made"]),
    ("build", &["built"]),
    ("put", &["put"]),
    ("set", &["set"]),
    ("cut", &["cut"]),
    ("split", &["split"]),
    ("send", &["sent"]),
];

/// The past forms of an English verb: "replace" → "replaced", "copy" → "copied", "add"
/// → "added", "stop" → "stopped", "write" → "wrote", "written".
fn past_forms(verb: &str) -> Vec<String> {
    if let Some((_, forms)) = IRREGULAR.iter().find(|(v, _)| *v == verb) {
        return forms.iter().map(|f| f.to_string()).collect();
    }
    let mut forms = vec![format!("{verb}ed")];
    if let Some(stem) = verb.strip_suffix('e') {
        forms.push(format!("{stem}ed"));
    }
    if let Some(stem) = verb.strip_suffix('y') {
        forms.push(format!("{stem}ied"));
    }
    if let Some(last) = verb.chars().last()
        && !"aeiouwxy".contains(last)
    {
        forms.push(format!("{verb}{last}ed"));
    }
    forms
}

/// The answer claims the request's change as done when no call made one: the reason,
/// for the replan. See the module's invariant for when it speaks.
pub fn unbacked_change(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let verb = change_verb(request)?;
    let worked_on_files = records
        .iter()
        .any(|r| r.tool != ToolName::Calculate && r.tool != ToolName::Search);
    if !worked_on_files || changed_anything(records) {
        return None;
    }
    let claimed = change_told(&verb, answer, &printed_words(records))?;
    Some(format!(
        "the answer says the work was done (\"{claimed}\"), but no call changed any file: \
         {verb} with a tool that changes files and finish with what it did, or say that it \
         was not done and why"
    ))
}

/// The word of `answer` that tells `verb` as done ("replaced" for "replace"), outside a
/// negation and outside the words a tool printed.
fn change_told(
    verb: &str,
    answer: &str,
    printed: &std::collections::HashSet<String>,
) -> Option<String> {
    if says_not(answer) {
        return None;
    }
    let forms = past_forms(verb);
    crate::text::fold(answer)
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| forms.iter().any(|f| f == w) && !printed.contains(*w))
        .map(str::to_string)
}

/// Whether `answer` tells a change of files as done — a deletion or a move in the past,
/// or the request's own verb in the past — whatever the calls did. R4b keeps the answers
/// it sent back; once one of them told a change, the task is one whose result is a
/// change, and a later answer with no change behind it is not its result (a small model
/// told "replaced" twice, was sent back twice, then delivered the file as it was).
pub fn tells_a_change(request: &str, answer: &str) -> bool {
    unbacked_claim(answer, &[]).is_some()
        || change_verb(request)
            .and_then(|verb| change_told(&verb, answer, &std::collections::HashSet::new()))
            .is_some()
}

/// For an answer to a task whose shape is an action (delete, move, rename, change): the
/// reason, when no successful call changed anything and no action was approved, and the
/// answer does not say what was not done. An action with no effect is not done, whatever
/// the answer says (a small model copied nothing onto the same names, then answered with
/// the listing's totals line).
pub fn no_change_made(answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    (!changed_anything(records) && !says_not(answer)).then(|| {
        format!(
            "the task asks for a change, and no call changed anything: make it with a tool \
             that changes files ({}), or say what was not done and why",
            super::said::CHANGE_TOOLS
        )
    })
}

/// For an answer that does not report the work as done: the reason, when the calls of
/// `records` changed files and the answer names none of them. Work done is not thrown
/// away: a small model copied the two files asked for, then answered that no file had
/// changed, and the copies it made went unreported.
pub fn untold_effects(answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    let effects: Vec<&crate::contracts::PathEffect> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| &r.effects)
        .collect();
    let folded = crate::text::fold(answer);
    let named = effects.iter().any(|e| {
        e.path
            .file_name()
            .is_some_and(|n| folded.contains(&crate::text::fold(&n.to_string_lossy())))
    });
    if effects.is_empty() || named {
        return None;
    }
    let done: Vec<String> = effects
        .iter()
        .take(5)
        .map(|e| format!("{} {}", e.effect, e.path.display()))
        .collect();
    Some(format!(
        "the calls did change files ({}{}), and the answer names none of them: say what was \
         done, then what could not be done",
        done.join(", "),
        if effects.len() > 5 { ", …" } else { "" }
    ))
}

/// What code knows for certain about the effects an answer reports, whatever else a
/// check may misread: an action with no change, a change or a deletion told as done with
/// none behind it, a change in place asked and answered with how things are
/// ([`super::unmade`]), a path the user wrote that no call touched. The reason, for a replan
/// that is sent however often the answer comes back (the files say the same each time).
///
/// `raw_input` is the user's own words, when the check is the task's (R4b): only then are
/// the paths they wrote held to the calls (a sub-task works on some of them).
pub fn unbacked(
    shape: AnswerShape,
    request: &str,
    raw_input: Option<&str>,
    answer: &str,
    records: &[&ToolCallRecord],
) -> Option<String> {
    // A value asked for is computed, not done ("3 duplicates removed: 12" answers "how
    // many"), unless the request itself asks for a change ("Move the files over 1 MB …"
    // answered "2 files moved", with the shape a number).
    let reports_doing = !matches!(
        shape,
        AnswerShape::Number | AnswerShape::Date | AnswerShape::PerGroup | AnswerShape::Item
    ) || change_verb(request).is_some();
    let claimed = || {
        reports_doing
            .then(|| {
                unbacked_claim(answer, records)
                    .or_else(|| unbacked_change(request, answer, records))
            })
            .flatten()
    };
    (shape == AnswerShape::Action)
        .then(|| no_change_made(answer, records))
        .flatten()
        .or_else(claimed)
        .or_else(|| super::unmade::unmade(request, answer, records))
        .or_else(|| raw_input.and_then(|words| untouched_paths(words, answer, records)))
        .or_else(|| raw_input.and_then(|words| undone_removals(words, answer, records)))
}

/// The stems of the verbs that say a file left its place for another (not "sorted" or
/// "grouped", which may as well describe a file written in order).
const RELOCATION: &[&str] = &["mov", "renam", "relocat", "transfer", "mv"];

/// The verbs that ask for a file to leave its place, by the effect a call records:
/// deleted (`delete`), or moved or renamed (the old path `delete`d or `move`d away).
fn removal_verb(verb: &str) -> Option<(EffectKind, &'static str)> {
    if crate::laws::requested::asks_for(EffectKind::Delete, verb) {
        return Some((EffectKind::Delete, "delete_files"));
    }
    RELOCATION
        .iter()
        .any(|stem| verb.starts_with(stem))
        .then_some((EffectKind::Move, "move_files"))
}

/// A file the user's request names by its path and asks to delete or to move — each
/// clause read on its own ("move the logs into ~/archive, and delete ~/inbox/old.tmp")
/// — that no successful call deleted or moved away, when the answer does not say it was
/// not done and nothing was put to the user: the reason, naming it. A task did the
/// move of a two-part request, never touched the file to delete, and was delivered as
/// done: one change on record is no account of the other.
pub fn undone_removals(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    if says_not(answer) || records.is_empty() || records.iter().any(|r| r.confirmation.is_some()) {
        return None;
    }
    let gone: Vec<String> = records
        .iter()
        .filter(|r| r.status == ToolCallStatus::Ok)
        .flat_map(|r| &r.effects)
        .filter(|e| {
            matches!(
                e.effect.as_str(),
                "delete" | "move" | "delete the contents of"
            )
        })
        .map(|e| e.path.to_string_lossy().into_owned())
        .collect();
    let clauses = request
        .split([',', ';', '\n'])
        .flat_map(|c| c.split(" and "))
        .flat_map(|c| c.split(" then "));
    for clause in clauses {
        let Some((verb, _)) = leading_verb(clause) else {
            continue;
        };
        let Some((kind, tool)) = removal_verb(&verb) else {
            continue;
        };
        let words: Vec<&str> = clause
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| {
                    matches!(
                        c,
                        '"' | '\'' | '`' | ',' | '.' | ';' | ':' | '(' | ')' | '?' | '!'
                    )
                })
            })
            .collect();
        // A move's objects come before where they go; a path after "from" or "in" is
        // the place the objects are in, not one of them.
        let objects = words
            .iter()
            .enumerate()
            .take_while(|(_, w)| kind == EffectKind::Delete || !matches!(**w, "to" | "into"))
            .filter(|(i, _)| {
                !i.checked_sub(1).is_some_and(|j| {
                    matches!(words[j], "from" | "in" | "under" | "inside" | "within")
                })
            })
            .map(|(_, w)| w);
        for object in objects {
            let named_whole = (object.starts_with("~/") || object.starts_with('/'))
                && !object.ends_with('/')
                && !object.contains(['*', '?', '[', '{']);
            if !named_whole {
                continue;
            }
            let tail = object.trim_start_matches('~');
            // A call that removes files and names this one counts too: a command run
            // outside the sandbox has no measured effects.
            let base = tail.rsplit('/').next().unwrap_or(tail);
            let named_by_a_remover = records.iter().any(|r| {
                r.status == ToolCallStatus::Ok
                    && matches!(
                        r.tool.builtin(),
                        Some(ToolName::MoveFiles | ToolName::DeleteFiles | ToolName::Shell)
                    )
                    && r.input.to_string().contains(base)
            });
            if !named_by_a_remover && !gone.iter().any(|p| p.ends_with(tail)) {
                return Some(format!(
                    "the request asks to {verb} {object}, and no call did: do it with {tool}, or \
                     say that it was not done and why"
                ));
            }
        }
    }
    None
}

/// The paths the user's request writes out (`~/data/members.json`, `/srv/x`) that no
/// call of the task named — in its input, its target or its effects — and no successful
/// output showed, when the answer does not say that something was not there or not
/// done: the reason, naming them. Asked to turn a table into `~/data/members.json`, a
/// small model read the table three times, wrote nothing, and delivered the table as
/// done; a file the user named by its path is the task's subject or its product, and an
/// answer that never touched it answers something else.
pub fn untouched_paths(request: &str, answer: &str, records: &[&ToolCallRecord]) -> Option<String> {
    if says_not(answer) || records.is_empty() {
        return None;
    }
    let seen: Vec<String> = records
        .iter()
        .flat_map(|r| {
            let mut texts = vec![r.input.to_string(), r.target.clone()];
            texts.extend(r.effects.iter().map(|e| e.path.display().to_string()));
            if r.status == ToolCallStatus::Ok {
                texts.push(r.output_head.clone());
            }
            texts
        })
        .map(|t| t.to_lowercase())
        .collect();
    let untouched: Vec<&str> = written_paths(request)
        .into_iter()
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
            name.chars().count() >= 3 && !seen.iter().any(|t| t.contains(&name))
        })
        .collect();
    (!untouched.is_empty()).then(|| {
        format!(
            "the request names {}, and no call of the task read, listed or wrote it: work \
             on it with a tool, or say why it could not be",
            untouched.join(" and ")
        )
    })
}

/// The paths written out in `text`: words that start with `~/` or `/`, without the
/// punctuation that ends a sentence or a quote.
fn written_paths(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        let word = word
            .trim_start_matches(['"', '\'', '(', '`'])
            .trim_end_matches(['.', ',', ';', ':', '?', '!', ')', '"', '\'', '`']);
        let path = word.starts_with("~/") || (word.starts_with('/') && word.len() > 1);
        if path && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::shape::tests::ok;
    use crate::contracts::PathEffect;

    fn read_style() -> ToolCallRecord {
        ok(
            ToolName::ReadFile,
            "/h/docs/style.md",
            "# Charts\nUse one colour per series.\n[the whole file: 2 lines]",
        )
    }

    fn wrote(path: &str, effect: &str) -> ToolCallRecord {
        let mut r = ok(ToolName::WriteFile, path, "wrote 90 bytes");
        r.effects.push(PathEffect {
            path: path.into(),
            exists: true,
            effect: effect.into(),
        });
        r
    }

    const REPLACE: &str = "Replace every 'colour' with 'color' in ~/docs/style.md";

    #[test]
    fn a_change_told_as_done_with_no_change_made_misfits() {
        let read = read_style();
        let why = unbacked_change(
            REPLACE,
            "The answer successfully replaced every 'colour' with 'color' in ~/docs/style.md.",
            &[&read],
        )
        .expect("nothing was replaced");
        assert!(why.contains("\"replaced\""), "{why}");
        // Any verb that changes files, told in the past; lead-ins are skipped.
        let copy = ok(ToolName::CopyFiles, "/h/Pictures/raw", "copied 0 of 2");
        assert!(
            unbacked_change(
                "Please change the extension of every .jpeg file in ~/Pictures/raw to .jpg",
                "The extension of every .jpeg file has been changed to .jpg.",
                &[&copy],
            )
            .is_some()
        );
        assert!(
            unbacked_change("Can you copy ~/a.txt to ~/b.txt?", "Copied it.", &[&read]).is_some()
        );
    }

    #[test]
    fn a_word_that_may_mean_a_write_is_backed_by_a_file_written_but_a_deletion_is_not() {
        let made = wrote("/h/data/ranked.csv", "create");
        let sorted = "The rows were sorted by score into ~/data/ranked.csv.";
        assert_eq!(unbacked_claim(sorted, &[&made]), None);
        // Nothing written: the same words claim a move nobody made.
        assert!(unbacked_claim(sorted, &[&read_style()]).is_some());
        // "Moved" means a move, whatever else was written; so does "deleted".
        assert!(unbacked_claim("Moved the logs into ~/archive.", &[&made]).is_some());
        assert!(unbacked_claim("Deleted old.tmp.", &[&made]).is_some());
    }

    #[test]
    fn each_file_the_request_asks_to_delete_or_move_is_on_record_as_gone() {
        let mut moved = ok(
            ToolName::MoveFiles,
            "/h/inbox",
            "moved 2 files into ~/archive",
        );
        for (path, effect) in [
            ("/h/inbox/build.log", "delete"),
            ("/h/archive/build.log", "create"),
        ] {
            moved.effects.push(PathEffect {
                path: path.into(),
                exists: effect == "create",
                effect: effect.into(),
            });
        }
        let request = "move the .log files from ~/inbox into ~/archive, and delete ~/inbox/old.tmp";
        let why = undone_removals(request, "Moved the logs and deleted old.tmp.", &[&moved])
            .expect("old.tmp is still there");
        assert!(
            why.contains("asks to delete ~/inbox/old.tmp, and no call did"),
            "{why}"
        );
        // Deleted too: nothing left undone.
        let mut deleted = ok(ToolName::DeleteFiles, "/h/inbox", "deleted 1 file");
        deleted.effects.push(PathEffect {
            path: "/h/inbox/old.tmp".into(),
            exists: false,
            effect: "delete".into(),
        });
        assert_eq!(undone_removals(request, "Done.", &[&moved, &deleted]), None);
        // Said not done, or put to the user: accounted for elsewhere.
        assert_eq!(
            undone_removals(request, "old.tmp could not be deleted.", &[&moved]),
            None
        );
        let mut asked = deleted.clone();
        asked.effects.clear();
        asked.confirmation = Some(Decision::Deny);
        assert_eq!(undone_removals(request, "Done.", &[&moved, &asked]), None);
        // A move's destination is no object; a pattern names no one file.
        assert_eq!(
            undone_removals("move ~/inbox/build.log into ~/archive/", "Done.", &[&moved]),
            None
        );
        assert_eq!(
            undone_removals("delete ~/inbox/*.tmp", "Done.", &[&moved]),
            None
        );
    }

    #[test]
    fn a_change_made_approved_or_denied_is_no_unbacked_claim() {
        let read = read_style();
        let write = wrote("/h/docs/style.md", "overwrite");
        let answer = "Replaced 'colour' with 'color' twice.";
        assert_eq!(unbacked_change(REPLACE, answer, &[&read, &write]), None);
        // A request that opens with its place has its verb after the comma.
        let placed = "In ~/docs/style.md, change every colour to color";
        assert!(unbacked_change(placed, "I changed every colour to color.", &[&read]).is_some());
        assert_eq!(
            unbacked_change(placed, "I changed every colour to color.", &[&read, &write]),
            None
        );
        assert_eq!(
            unbacked_change(
                "In ~/docs, which file changed last?",
                "style.md changed last.",
                &[&read]
            ),
            None
        );
        let mut approved = ok(ToolName::Shell, "sed -i …", "");
        approved.confirmation = Some(Decision::Approve);
        assert_eq!(unbacked_change(REPLACE, answer, &[&read, &approved]), None);
        // Said not to be done.
        assert_eq!(
            unbacked_change(REPLACE, "Nothing was replaced: the write failed.", &[&read]),
            None
        );
        // A failed write with effects on record changed nothing.
        let mut failed = wrote("/h/docs/style.md", "overwrite");
        failed.status = ToolCallStatus::Error;
        assert!(unbacked_change(REPLACE, answer, &[&read, &failed]).is_some());
    }

    #[test]
    fn an_answer_that_names_none_of_the_changes_made_is_told_them() {
        let mut copied = ok(
            ToolName::CopyFiles,
            "/h/today",
            "copied 2 of 2 into ~/today",
        );
        copied.effects = vec![
            crate::contracts::PathEffect {
                path: "/h/today/a.txt".into(),
                exists: false,
                effect: "create".into(),
            },
            crate::contracts::PathEffect {
                path: "/h/today/b.txt".into(),
                exists: false,
                effect: "create".into(),
            },
        ];
        let why = untold_effects("No files changed in the last 3 days.", &[&copied])
            .expect("the copies are untold");
        assert!(why.contains("create /h/today/a.txt"), "{why}");
        assert_eq!(
            untold_effects("Copied a.txt; b.txt could not be read.", &[&copied]),
            None
        );
        let read = read_style();
        assert_eq!(untold_effects("Nothing changed.", &[&read]), None);
        let mut failed = copied.clone();
        failed.status = ToolCallStatus::Error;
        assert_eq!(untold_effects("Nothing changed.", &[&failed]), None);
    }

    #[test]
    fn requests_that_ask_for_no_change_or_work_on_no_file_are_left_alone() {
        let read = read_style();
        // A question, or a verb that reads.
        for request in [
            "What does ~/docs/style.md say about colour?",
            "Summarise the notes in ~/notes",
            "Find the largest file in ~/Downloads",
        ] {
            assert_eq!(
                unbacked_change(request, "It was replaced in 2024.", &[&read]),
                None,
                "{request}"
            );
        }
        // A conversion of numbers touches no file.
        let calc = ok(ToolName::Calculate, "26.2 * 1.609344", "42.1648128");
        assert_eq!(
            unbacked_change("Convert 26.2 miles to km", "Converted: 42.16 km", &[&calc]),
            None
        );
        // The verb is a tool's own word: "sorted by size" quoted from a listing.
        let list = ok(
            ToolName::ListFiles,
            "/h/lists",
            "~/lists, sorted by size: 2 found",
        );
        assert_eq!(
            unbacked_change("Sort ~/lists by size", "Sorted by size: a, b", &[&list]),
            None
        );
    }

    #[test]
    fn a_path_the_request_names_and_no_call_touched_is_said() {
        let read = ok(
            ToolName::ReadTable,
            "/h/data/members.csv",
            "members.csv: 3 data rows, 3 columns: name, city, joined",
        );
        let request = "Turn ~/data/members.csv into a JSON file ~/data/members.json.";
        let why = untouched_paths(request, "name,city,joined\nAna,Porto,2024", &[&read])
            .expect("members.json was never written");
        assert!(
            why.contains("~/data/members.json") && !why.contains("members.csv,"),
            "{why}"
        );
        // Written: its path is in the call's input.
        let mut write = ok(
            ToolName::WriteFile,
            "/h/data/members.json",
            "wrote 120 bytes",
        );
        write.input = serde_json::json!({"path": "/h/data/members.json"});
        assert_eq!(
            untouched_paths(request, "Wrote it.", &[&read, &write]),
            None
        );
        // Said not to be done, or no call at all (another check's case).
        assert_eq!(
            untouched_paths(request, "members.json was not written.", &[&read]),
            None
        );
        assert_eq!(untouched_paths(request, "Done", &[]), None);
        // A failed call that named it touched it: the answer then reports the failure.
        let mut failed = ok(ToolName::ReadFile, "/h/x/missing.txt", "");
        failed.status = ToolCallStatus::Error;
        assert_eq!(
            untouched_paths("What is in ~/x/missing.txt?", "It is empty", &[&failed]),
            None
        );
        // Of two files compared, the one never counted.
        let north = ok(ToolName::ReadLines, "/h/texts/north.txt", "7 lines");
        let why = untouched_paths(
            "Which has more lines, ~/texts/north.txt or ~/texts/south.txt?",
            "north.txt",
            &[&north],
        )
        .expect("south.txt untouched");
        assert!(why.contains("~/texts/south.txt"), "{why}");
    }

    #[test]
    fn a_merged_claim_about_a_file_never_written_names_it() {
        let mut read = ok(
            ToolName::ReadTable,
            "/tmp/.tmpUYN7Ng/home/data/members.csv",
            "/tmp/.tmpUYN7Ng/home/data/members.csv: CSV (delimiter ',', header row), 3 data \
             rows, 3 columns: name, city, joined",
        );
        read.input = serde_json::json!({"column": "name", "op": "distinct",
            "path": "/tmp/.tmpUYN7Ng/home/data/members.csv"});
        let request = "Turn ~/data/members.csv into a JSON file ~/data/members.json with one \
                       object per row.";
        assert!(
            untouched_paths(
                request,
                "The output is a JSON file with one object per row.",
                &[&read]
            )
            .is_some()
        );
    }

    #[test]
    fn a_change_the_request_asks_for_is_a_claim_whatever_the_shape() {
        let copy = ok(
            ToolName::CopyFiles,
            "/h/Downloads/big",
            "copied 2 of 2 into ~/Downloads/big",
        );
        let request =
            "Move the files in ~/Downloads/mixed that are larger than 1 MB into ~/Downloads/big";
        assert!(
            unbacked(
                AnswerShape::Number,
                request,
                None,
                "2 files moved",
                &[&copy]
            )
            .is_some()
        );
        // A question answered with a number that mentions a change is no claim.
        assert_eq!(
            unbacked(
                AnswerShape::Number,
                "How many duplicates?",
                None,
                "3 duplicates removed: 12",
                &[&copy]
            ),
            None
        );
        // "written", the irregular past of the request's verb.
        let read = read_style();
        assert!(
            unbacked_change(
                "Write a short summary of ~/notes/monday.txt into a new file summary.txt",
                "The content of ~/notes/monday.txt is written into summary.txt",
                &[&read]
            )
            .is_some()
        );
    }

    #[test]
    fn a_change_told_is_read_from_the_words_alone() {
        let request = "Replace every 'colour' with 'color' in ~/docs/style.md";
        assert!(tells_a_change(
            request,
            "Successfully replaced every 'colour'."
        ));
        assert!(tells_a_change(
            "Change the extensions",
            "They have been renamed to .jpg"
        ));
        assert!(!tells_a_change(
            request,
            "# Charts\nUse one colour per series."
        ));
        assert!(!tells_a_change(request, "Nothing was replaced."));
        assert!(!tells_a_change("How many lines?", "12 lines were counted."));
    }

    #[test]
    fn past_forms_follow_the_regular_spellings() {
        for (verb, past) in [
            ("replace", "replaced"),
            ("copy", "copied"),
            ("add", "added"),
            ("stop", "stopped"),
            ("convert", "converted"),
            ("append", "appended"),
            ("write", "written"),
            ("write", "wrote"),
        ] {
            assert!(past_forms(verb).contains(&past.to_string()), "{verb}");
        }
    }
}
