//! The words of the push-backs a finish can get, and the rules of the rows of the finish
//! table ([`super::finish::CHECKS`]) that read only the executor's own results: a
//! number, path or name no result shows ([`misquote_nudge`]); a copy of an earlier
//! result the latest one superseded ([`stale_quote`]: it speaks up only when the finish
//! holds a line of an earlier successful result that the latest lacks and shows nothing
//! of the latest); a file the sub-task names that no call used or showed
//! ([`untouched`]). The table owns their order and budgets.
//!
//! **Invariant:** pure; every rule reads only the results, the sub-task's words and the
//! places resolved when it began.

use super::prompt::Observed;
use crate::contracts::ToolCallStatus;
use crate::ggs::grounding;
use crate::text::{first_chars, fold};
use crate::tools::places::{Place, PlaceKind};

/// What the model is told when it claims success that no tool result shows.
pub const UNBACKED_NUDGE: &str = "Your finish was not accepted: no tool call has succeeded \
in this attempt, so nothing shows your output. Call a tool to get it, or finish with status \
\"uncertain\" or \"failed\" and say why.";

/// What the model is told when its finish states numbers, paths or file names no result
/// shows: a small model misreads a lone number (`wc -l` printed 2; it wrote 1) or writes
/// names that look like the ones it expected to find. It gets one more turn, to finish
/// only.
pub fn misquote_nudge(unshown: &[String], may_compute: bool) -> String {
    let mut nudge = format!(
        "Your finish was not accepted: it states {}, which none of the TOOL RESULTS above \
         shows. Read the results again and finish with the numbers and names exactly as \
         they appear there, or say that the results do not show them.",
        unshown.join(", ")
    );
    if may_compute {
        nudge.push_str(
            " If you worked a number out from numbers the results show, call calculate \
             with that expression now, so code computes it, and finish with its result.",
        );
    }
    nudge
}

/// Whether every one of `unshown` is a number: a finish whose only unshown values are
/// numbers may have worked them out from the results, which the calculate tool does by
/// code.
pub fn only_numbers(unshown: &[String]) -> bool {
    !unshown.is_empty()
        && unshown.iter().all(|u| {
            let t = u.trim().trim_end_matches('%').replace(',', "");
            t.parse::<f64>().is_ok_and(f64::is_finite)
        })
}

/// Words in a row a finish may share with the worked example of R3's instructions
/// before it is a copy of it.
const EXAMPLE_RUN: usize = 5;

/// Why `finish` copies the worked example of R3's instructions
/// ([`super::prompt::EXAMPLE_SUMMARY`]): it shares a run of [`EXAMPLE_RUN`] words with
/// it, one of which neither `known` (the sub-task's words and its results) holds. A small
/// model finished a text edit with "The average of minutes in <its file> is M".
pub fn copies_the_example(finish: &str, known: &str) -> Option<String> {
    let words = |t: &str| -> Vec<String> {
        fold(t)
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let example = words(super::prompt::EXAMPLE_SUMMARY);
    let known: std::collections::HashSet<String> = words(known).into_iter().collect();
    let said = words(finish);
    let copied = said.windows(EXAMPLE_RUN).find(|run| {
        example.windows(EXAMPLE_RUN).any(|e| e == *run) && run.iter().any(|w| !known.contains(w))
    })?;
    Some(format!(
        "the finish copies the worked example of the instructions (\"{}\"), which is not \
         this sub-task: finish with what this sub-task's results show",
        copied.join(" ")
    ))
}

/// The most a file the sub-task names may hold for its text to be kept for the finish
/// checks: a text read whole, not a data set.
pub const MAX_TEXT_BYTES: u64 = 256 * 1024;

/// The text of each existing file among `places` that is small and UTF-8: `(its path
/// as the user sees it, its text)`. What the finish checks compare a quoted line with.
pub fn texts_of(places: &[Place], home: &std::path::Path) -> Vec<(String, String)> {
    places
        .iter()
        .filter(|p| p.kind == PlaceKind::File)
        .filter(|p| std::fs::metadata(&p.path).is_ok_and(|m| m.len() <= MAX_TEXT_BYTES))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p.path).ok()?;
            Some((crate::text::tilde(&p.path.to_string_lossy(), home), text))
        })
        .collect()
}

/// What the model is told when its finish lacks the shape of the answer the task asks
/// for (`checks::shape`): a listing where a count is asked, a value where an item is. It
/// gets one more turn, tools allowed.
pub fn shape_nudge(why: &str) -> String {
    format!(
        "Your finish was not accepted: {why}. Use the TOOL RESULTS above (or one more call) \
         and finish with the answer itself in output."
    )
}

/// Characters an earlier result's line must have before a finish counts as repeating
/// it: short lines (`3`, `ok`) are too common to say where a finish copied from.
const MIN_QUOTED_CHARS: usize = 12;

/// An earlier result a finish repeats, and the later result it passed over. Results are
/// numbered from 1 in the attempt's order, as the model's prompt lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleQuote {
    /// The number of the result the finish repeats.
    pub earlier: usize,
    /// The number of the attempt's latest successful result.
    pub latest: usize,
    /// What the latest call returned, cut for the push-back.
    pub latest_output: String,
}

fn lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(fold).filter(|l| !l.is_empty())
}

/// The earlier result `finish` repeats in place of the attempt's latest one, if it does.
pub fn stale_quote(finish: &str, observed: &[Observed]) -> Option<StaleQuote> {
    let ok: Vec<(usize, &Observed)> = observed
        .iter()
        .enumerate()
        .filter(|(_, o)| o.status == ToolCallStatus::Ok && !o.text.trim().is_empty())
        .map(|(i, o)| (i + 1, o))
        .collect();
    let ((latest_n, latest), earlier) = ok.split_last()?;
    let said = fold(finish);
    if lines(&latest.text).any(|l| said.contains(&l)) {
        return None;
    }
    let seen_last = fold(&latest.text);
    let (copied, _) = earlier.iter().rev().find(|(_, o)| {
        lines(&o.text).any(|l| {
            l.chars().count() >= MIN_QUOTED_CHARS && said.contains(&l) && !seen_last.contains(&l)
        })
    })?;
    Some(StaleQuote {
        earlier: *copied,
        latest: *latest_n,
        latest_output: first_chars(latest.text.trim(), 300),
    })
}

/// What the model is told when its finish repeats a superseded result. It gets one more
/// turn, to finish only.
pub fn stale_quote_nudge(q: &StaleQuote) -> String {
    format!(
        "Your finish was not accepted: it repeats TOOL RESULT [{}], but a later call, \
         [{}], returned:\n{}\nFinish from the latest result, quoting it exactly as it \
         appears.",
        q.earlier, q.latest, q.latest_output
    )
}

/// A file a sub-task names, and the folder a call that looked for it would name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFile {
    /// Its file name, lower-cased.
    pub name: String,
    /// Its folder, as the sub-task wrote it and as resolved, lower-cased; none for a
    /// name written bare.
    pub folders: Vec<String>,
}

/// The files a sub-task points at: each path it wrote that did not exist when it began
/// (something it may have to make), and each file name written bare in its intent
/// (`summary.txt`, read by [`grounding::file_names`]). Without repeats, in the order
/// found.
pub fn named_files(intent: &str, places: &[Place]) -> Vec<NamedFile> {
    let mut out: Vec<NamedFile> = Vec::new();
    let missing = places
        .iter()
        .filter(|p| p.kind == PlaceKind::Missing)
        .filter_map(|p| {
            let name = p.path.file_name()?.to_str()?.to_lowercase();
            let said = p
                .said
                .rsplit_once('/')
                .map(|(folder, _)| folder.to_string());
            let resolved = p.path.parent().map(|f| f.display().to_string());
            let folders = said
                .into_iter()
                .chain(resolved)
                .map(|f| f.to_lowercase())
                .filter(|f| f.chars().count() >= 2)
                .collect();
            Some(NamedFile { name, folders })
        });
    let bare = grounding::file_names(intent)
        .into_iter()
        .map(|name| NamedFile {
            name: name.to_lowercase(),
            folders: Vec::new(),
        });
    for file in missing.chain(bare) {
        if file.name.chars().count() >= 3 && !out.iter().any(|f| f.name == file.name) {
            out.push(file);
        }
    }
    out
}

/// `files` with the files the sub-task's criteria check for (a file at a path when the
/// work ends) that are not there yet: outputs it owes, though its intent may not name
/// them (a plan's "list the PDF files" for "save their names into ~/inbox/pdfs.txt").
pub fn with_checked_files(
    mut files: Vec<NamedFile>,
    criteria: &[crate::contracts::Criterion],
    home: &std::path::Path,
) -> Vec<NamedFile> {
    for criterion in criteria {
        let Some(crate::contracts::Check::FileExists { path, .. }) = &criterion.check else {
            continue;
        };
        let resolved = crate::checks::criteria::resolve(path, home);
        let Some(name) = resolved
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
        else {
            continue;
        };
        if resolved.exists() || files.iter().any(|f| f.name == name) {
            continue;
        }
        let said = path
            .rsplit_once('/')
            .map(|(folder, _)| folder.to_lowercase());
        let folder = resolved
            .parent()
            .map(|f| f.display().to_string().to_lowercase());
        files.push(NamedFile {
            name,
            folders: said.into_iter().chain(folder).collect(),
        });
    }
    files
}

/// The names of the `files` (from [`named_files`]) the attempt never looked at: no call
/// named the file or its folder (its input), and no successful result showed the file.
/// Empty when the attempt has no successful call: that case is the unbacked push-back's.
pub fn untouched(files: &[NamedFile], observed: &[Observed]) -> Vec<String> {
    if !observed.iter().any(|o| o.status == ToolCallStatus::Ok) {
        return Vec::new();
    }
    let inputs: Vec<String> = observed.iter().map(|o| o.input.to_lowercase()).collect();
    let outputs: Vec<String> = observed
        .iter()
        .filter(|o| o.status == ToolCallStatus::Ok)
        .map(|o| o.text.to_lowercase())
        .collect();
    let looked = |f: &NamedFile| {
        inputs.iter().any(|i| {
            i.contains(f.name.as_str()) || f.folders.iter().any(|d| i.contains(d.as_str()))
        }) || outputs.iter().any(|o| o.contains(f.name.as_str()))
    };
    files
        .iter()
        .filter(|f| !looked(f))
        .map(|f| f.name.clone())
        .collect()
}

/// What the model is told when its finish leaves a file the sub-task names untouched.
/// It may still call tools.
pub fn untouched_nudge(names: &[String]) -> String {
    format!(
        "Your finish was not accepted: the sub-task names {}, and no call of this attempt \
         looked at it or its folder. If the sub-task asks you to write it, write it now; \
         if it asks about it, check it with a tool call. Do not make a file the sub-task \
         does not ask for. If nothing more is needed, finish again and say why.",
        names.join(", ")
    )
}

/// What the model is told when its finish leaves a file the sub-task asks to make
/// unwritten. Its next step may only call a tool that changes files.
pub fn unwritten_nudge(names: &[String]) -> String {
    format!(
        "Your finish was not accepted: the sub-task asks for {} to be made, and no call has \
         written it. Write it now.",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolRef;

    fn seen(tool: &str, input: &str, status: ToolCallStatus, text: &str) -> Observed {
        Observed {
            tool: ToolRef::parse(tool),
            input: input.into(),
            status,
            text: text.into(),
        }
    }

    fn ok(tool: &str, input: &str, text: &str) -> Observed {
        seen(tool, input, ToolCallStatus::Ok, text)
    }

    const EMPTY_GLOB: &str = "(no files matched pattern *.jpg;*.png under /home/u/Pictures)";

    #[test]
    fn a_finish_that_copies_the_worked_example_is_named() {
        let copied = "The average of minutes in /h/site/links.txt is M (read_table mean).";
        let known = "Replace http:// with https:// in /h/site/links.txt\nhttp://a.example";
        let why = copies_the_example(copied, known).expect("a copy");
        assert!(why.contains("the average of minutes in"), "{why}");
        // The example's words where the sub-task itself speaks of them are its own.
        let asked = "the average of minutes in /h/runs.csv, from read_table mean";
        assert_eq!(
            copies_the_example("The average of minutes in /h/runs.csv is 41.5", asked),
            None
        );
        assert_eq!(
            copies_the_example("Replaced 2 links in links.txt.", known),
            None
        );
    }

    #[test]
    fn a_finish_copying_an_empty_glob_after_a_count_is_questioned() {
        let observed = [
            ok("glob", "*.jpg;*.png", EMPTY_GLOB),
            ok(
                "shell",
                "ls -1 ~/Pictures/*.jpg ~/Pictures/*.png | wc -l",
                "3\n",
            ),
        ];
        let q = stale_quote(&format!("{EMPTY_GLOB}\n{EMPTY_GLOB}"), &observed)
            .expect("the finish repeats the glob's line and says nothing of the count");
        assert_eq!((q.earlier, q.latest), (1, 2), "{q:?}");
        assert_eq!(q.latest_output, "3");
        let nudge = stale_quote_nudge(&q);
        assert!(
            nudge.contains("TOOL RESULT [1], but a later call, [2], returned:\n3\n"),
            "{nudge}"
        );
    }

    #[test]
    fn a_finish_that_shows_the_latest_result_is_left_alone() {
        let observed = [
            ok("glob", "*.jpg;*.png", EMPTY_GLOB),
            ok("shell", "ls | wc -l", "3"),
        ];
        // It may mention the first try, as long as it reports the latest.
        let finish = format!("{EMPTY_GLOB}; counting with ls found 3 images");
        assert_eq!(stale_quote(&finish, &observed), None);
        assert_eq!(stale_quote("3", &observed), None);
    }

    #[test]
    fn one_successful_call_or_a_short_line_is_never_questioned() {
        let single = [ok(
            "read_file",
            "/home/u/notes/a.txt",
            "meeting at 10\nbuy milk",
        )];
        assert_eq!(stale_quote("meeting at 10\nbuy milk", &single), None);
        // "done" is the earlier result, but too short to say the finish copied it.
        let short = [ok("shell", "touch a", "done"), ok("shell", "ls", "a.txt")];
        assert_eq!(stale_quote("done", &short), None);
    }

    #[test]
    fn failed_calls_and_lines_the_latest_result_repeats_do_not_count() {
        // The earlier call failed: it is no result the finish could have copied.
        let failed = [
            seen(
                "shell",
                "cat missing.txt",
                ToolCallStatus::Error,
                "ERROR: cat: missing.txt: No such file or directory",
            ),
            ok("shell", "ls", "present.txt"),
        ];
        assert_eq!(
            stale_quote("cat: missing.txt: No such file or directory", &failed),
            None
        );
        // The latest result contains the copied line: the finish is no stale copy.
        let grown = [
            ok("shell", "ls", "/home/u/report-2026.pdf"),
            ok(
                "shell",
                "ls -l",
                "/home/u/report-2026.pdf\n/home/u/report-2025.pdf",
            ),
        ];
        assert_eq!(stale_quote("x /home/u/report-2026.pdf", &grown), None);
    }

    #[test]
    fn the_most_recent_earlier_result_the_finish_copies_is_named() {
        let observed = [
            ok("shell", "find ~ -name '*.log'", "/home/u/old/first.log"),
            ok(
                "shell",
                "find ~/logs -name '*.log'",
                "/home/u/logs/second.log",
            ),
            ok("shell", "find ~/logs -name '*.log' | wc -l", "7"),
        ];
        let q = stale_quote(
            "/home/u/old/first.log and /home/u/logs/second.log",
            &observed,
        )
        .expect("the finish copies earlier listings and omits the count");
        assert_eq!((q.earlier, q.latest), (2, 3), "{q:?}");
    }

    fn place(said: &str, path: &str, kind: PlaceKind) -> Place {
        Place {
            said: said.into(),
            path: path.into(),
            kind,
        }
    }

    fn names(files: &[NamedFile]) -> Vec<&str> {
        files.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn the_files_a_sub_task_names_are_new_paths_and_bare_file_names() {
        let places = [
            place("~/notes/monday.txt", "/h/notes/monday.txt", PlaceKind::File),
            place("~/ws/Summary.txt", "/h/ws/Summary.txt", PlaceKind::Missing),
            place("~/backup", "/h/backup", PlaceKind::Missing),
            place("notes", "/h/notes", PlaceKind::Folder),
        ];
        let intent = "Write a summary of monday.txt into summary.txt (see report-2026.pdf, \
                      version 3.5, v1.2, e.g. .bashrc and example.com.)";
        let files = named_files(intent, &places);
        assert_eq!(
            names(&files),
            [
                "summary.txt",
                "backup",
                "monday.txt",
                "report-2026.pdf",
                "example.com"
            ]
        );
        assert_eq!(files[0].folders, ["~/ws", "/h/ws"]);
        // `~` alone is too short to say where a call looked; the resolved home is kept.
        assert_eq!(files[1].folders, ["/h"]);
        assert!(files[2].folders.is_empty());
        assert!(named_files("Count the .txt files in ~/notes", &[]).is_empty());
    }

    #[test]
    fn a_file_a_criterion_checks_for_is_owed_though_the_intent_names_none() {
        use crate::contracts::{Check, Criterion};
        let home = tempfile::tempdir().expect("a temp home");
        std::fs::create_dir_all(home.path().join("inbox")).expect("inbox");
        std::fs::write(home.path().join("inbox/old.txt"), "x").expect("old");
        let at = |path: &str| {
            Criterion::checked(
                "a file is there",
                Check::FileExists {
                    path: path.into(),
                    contains: None,
                },
            )
        };
        let criteria = [
            at("~/inbox/pdfs.txt"),
            at("~/inbox/old.txt"),
            Criterion::checked(
                "gone",
                Check::FileGone {
                    path: "~/inbox/x.txt".into(),
                },
            ),
            Criterion::new("the names are listed"),
        ];
        let files = with_checked_files(
            named_files("List the PDF files in ~/inbox", &[]),
            &criteria,
            home.path(),
        );
        // Only the one not there yet, with where it goes.
        assert_eq!(names(&files), ["pdfs.txt"]);
        let folder = home
            .path()
            .join("inbox")
            .display()
            .to_string()
            .to_lowercase();
        assert_eq!(files[0].folders, ["~/inbox".to_string(), folder]);
        // A file the intent names already is not named twice.
        let named = named_files("Write the names into pdfs.txt", &[]);
        assert_eq!(
            names(&with_checked_files(named, &criteria, home.path())),
            ["pdfs.txt"]
        );
    }

    fn summary() -> Vec<NamedFile> {
        named_files(
            "Write a summary of monday.txt into ~/ws/summary.txt",
            &[place(
                "~/ws/summary.txt",
                "/h/ws/summary.txt",
                PlaceKind::Missing,
            )],
        )
    }

    #[test]
    fn a_file_no_call_named_with_its_folder_nor_any_result_showed_is_untouched() {
        let files = summary();
        assert_eq!(names(&files), ["summary.txt", "monday.txt"]);
        let read = ok("read_file", "/h/notes/monday.txt", "meeting at 10");
        assert_eq!(
            untouched(&files, std::slice::from_ref(&read)),
            ["summary.txt"]
        );
        // A call that names it touches it, whatever it returned.
        let write = seen(
            "write_file",
            r#"{"path":"/h/ws/summary.txt"}"#,
            ToolCallStatus::Error,
            "ERROR: forbidden",
        );
        assert!(untouched(&files, &[read.clone(), write]).is_empty());
        // So does a call that looks in its folder, in either spelling.
        for input in ["ls ~/ws", "ls -la /h/ws"] {
            let ls = ok("shell", input, "other.txt");
            assert!(untouched(&files, &[read.clone(), ls]).is_empty(), "{input}");
        }
        // And a result that shows it.
        let find = ok("shell", "find /h -name '*.txt'", "/h/ws/Summary.txt");
        assert!(untouched(&files, &[read.clone(), find]).is_empty());
        // Another folder is no look at this one.
        let elsewhere = ok("shell", "ls /h/notes", "monday.txt");
        assert_eq!(untouched(&files, &[read, elsewhere]), ["summary.txt"]);
        let nudge = untouched_nudge(&["summary.txt".into()]);
        assert!(
            nudge.contains("names summary.txt, and no call of this attempt looked"),
            "{nudge}"
        );
        assert!(nudge.contains("Do not make a file"), "{nudge}");
    }

    #[test]
    fn a_missing_file_the_attempt_looked_for_is_not_pushed_back() {
        // "Read ~/notes/friday.txt": the file does not exist, and listing its folder is
        // the look that shows so.
        let files = named_files(
            "Read ~/notes/friday.txt and report what it says",
            &[place(
                "~/notes/friday.txt",
                "/h/notes/friday.txt",
                PlaceKind::Missing,
            )],
        );
        let ls = ok("shell", "ls ~/notes", "monday.txt");
        assert!(untouched(&files, &[ls]).is_empty());
    }

    #[test]
    fn an_attempt_without_a_successful_call_is_left_to_the_unbacked_check() {
        let failed = seen(
            "read_file",
            "/h/x.txt",
            ToolCallStatus::Error,
            "ERROR: missing",
        );
        assert!(untouched(&summary(), &[failed]).is_empty());
        assert!(untouched(&summary(), &[]).is_empty());
    }
}
