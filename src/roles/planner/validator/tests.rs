//! The plan validator's cases: what each rule rejects, what it lets through, and what
//! the repair mends.

use super::*;
use crate::roles::planner::schema::CRITERION_EXAMPLE;
use std::path::PathBuf;

fn subtask(intent: &str, context: &str, tools: &[ToolName]) -> DraftSubTask {
    DraftSubTask {
        context: context.into(),
        intent: intent.into(),
        sequence: 1,
        success_criteria: vec![DraftCriterion::verifiable(
            "the output lists at least one path",
        )],
        tools: tools.to_vec(),
    }
}

fn plan(subtasks: Vec<DraftSubTask>) -> PlanDraft {
    PlanDraft {
        answer: Default::default(),
        subtasks,
        task_criteria: vec![DraftCriterion::verifiable(
            "the answer names the largest file",
        )],
    }
}

fn home() -> PathBuf {
    PathBuf::from("/home/u")
}

fn rules<'a>(tools: &'a [ToolRef], targets: &'a [String], home: &'a Path) -> PlanRules<'a> {
    PlanRules {
        blocked_tools: tools,
        blocked_targets: targets,
        distinct_from: None,
        replaces: None,
        home,
        task: "find the largest file in ~/Downloads",
        request: "find the largest file in ~/Downloads",
        shown: "",
    }
}

#[test]
fn a_clean_plan_passes() {
    let h = home();
    let p = plan(vec![subtask(
        "Find the three largest PDF files in ~/Downloads",
        "Use glob with pattern *.pdf under ~/Downloads, then sort by size.",
        &[ToolName::Glob, ToolName::Shell],
    )]);
    assert_eq!(validate(&p, &rules(&[], &[], &h)), vec![]);
}

#[test]
fn an_empty_plan_and_empty_fields_are_rejected() {
    let h = home();
    let empty = PlanDraft {
        subtasks: vec![],
        task_criteria: vec![DraftCriterion::verifiable(" ")],
        answer: Default::default(),
    };
    assert_eq!(
        validate(&empty, &rules(&[], &[], &h)),
        vec![Violation::NoSubtasks]
    );
    let mut s = subtask(" ", "", &[]);
    s.success_criteria.clear();
    assert_eq!(
        validate(&plan(vec![s]), &rules(&[], &[], &h)),
        vec![
            Violation::EmptyIntent { subtask: 1 },
            Violation::NoCriteria { subtask: 1 },
            Violation::NoTools { subtask: 1 },
        ]
    );
}

#[test]
fn a_declared_blocked_tool_is_rejected_once_per_subtask() {
    let h = home();
    let blocked = vec![ToolRef::from(ToolName::Shell)];
    let p = plan(vec![
        subtask(
            "Count the lines",
            "Run `wc -l` in the shell.",
            &[ToolName::Shell],
        ),
        subtask("List PDFs", "pattern *.pdf", &[ToolName::Glob]),
    ]);
    assert_eq!(
        validate(&p, &rules(&blocked, &[], &h)),
        vec![Violation::BlockedTool {
            subtask: 1,
            tool: ToolName::Shell.into()
        }]
    );
}

#[test]
fn a_blocked_tool_described_in_prose_is_rejected_even_when_not_declared() {
    let h = home();
    let blocked = vec![ToolName::Shell.into(), ToolName::Mdfind.into()];
    let p = plan(vec![
        subtask(
            "Count the lines",
            "Use the shell: wc -l notes.txt",
            &[ToolName::ReadFile],
        ),
        subtask(
            "Locate report.pdf",
            "Ask mdfind for report.pdf",
            &[ToolName::Glob],
        ),
    ]);
    let v = validate(&p, &rules(&blocked, &[], &h));
    assert_eq!(
        v,
        vec![
            Violation::BlockedTool {
                subtask: 1,
                tool: ToolName::Shell.into()
            },
            Violation::BlockedTool {
                subtask: 2,
                tool: ToolName::Mdfind.into()
            },
        ]
    );
}

#[test]
fn english_words_that_name_tools_only_count_as_tool_references() {
    use ToolName as T;
    for (text, tool, mentioned) in [
        ("Search the Downloads folder for invoices", T::Search, false),
        ("a shell-shaped icon", T::Shell, false),
        ("Do a web search for the release date", T::Search, true),
        ("run it with `glob`", T::Glob, true),
        ("Use glob to list *.md", T::Glob, true),
        ("the shell command wc -l", T::Shell, true),
        ("Tell Finder via osascript", T::Applescript, true),
        ("then read_file each match", T::ReadFile, true),
        // Obeying the block is not using the tool.
        ("Do not use the shell for this.", T::Shell, false),
        (
            "without mdfind: walk the folder with glob",
            T::Mdfind,
            false,
        ),
        ("don't call `search`", T::Search, false),
    ] {
        assert_eq!(mentions_tool(text, &tool.into()), mentioned, "{text}");
    }
}

#[test]
fn a_blocked_target_is_rejected_as_a_whole_token_or_a_parent_folder() {
    let h = home();
    let targets = vec!["~/Downloads/old".to_string()];
    let hit = plan(vec![subtask(
        "List the files",
        "Look inside /home/u/Downloads/old/2024 for invoices.",
        &[ToolName::Glob],
    )]);
    assert_eq!(
        validate(&hit, &rules(&[], &targets, &h)),
        vec![Violation::BlockedTarget {
            subtask: 1,
            target: "~/Downloads/old".into()
        }]
    );
    let sentence_end = plan(vec![subtask(
        "List the files",
        "The files are in ~/downloads/old.",
        &[ToolName::Glob],
    )]);
    assert_eq!(validate(&sentence_end, &rules(&[], &targets, &h)).len(), 1);
    let other = plan(vec![subtask(
        "List the files",
        "Look inside ~/Downloads/older and ~/Downloads/old.zip",
        &[ToolName::Glob],
    )]);
    assert_eq!(validate(&other, &rules(&[], &targets, &h)), vec![]);
}

#[test]
fn third_party_programs_are_rejected_but_words_containing_them_are_not() {
    let h = home();
    let p = plan(vec![subtask(
        "Count lines of code",
        "Run cloc on ~/src, or tokei if present",
        &[ToolName::Shell],
    )]);
    assert_eq!(
        validate(&p, &rules(&[], &[], &h)),
        vec![
            Violation::ThirdPartyCli {
                subtask: 1,
                program: "cloc".into()
            },
            Violation::ThirdPartyCli {
                subtask: 1,
                program: "tokei".into()
            },
        ]
    );
    let fine = plan(vec![subtask(
        "Count the JSON files in the batch folder",
        "Use find ~/batch -name '*.json' | wc -l; the order of fields does not matter",
        &[ToolName::Shell],
    )]);
    assert_eq!(validate(&fine, &rules(&[], &[], &h)), vec![]);
}

#[test]
fn a_replan_that_repeats_the_plan_it_replaces_is_rejected() {
    let h = home();
    let failed = vec![subtask(
        "Compute the average score in ~/class.csv",
        "File: ~/class.csv",
        &[ToolName::ReadTable],
    )];
    let replan = PlanRules {
        replaces: Some(Replaced {
            subtasks: &failed,
            why: "the output gives the average",
        }),
        ..rules(&[], &[], &h)
    };
    // The same sub-task again, up to case and spacing: rejected.
    let again = plan(vec![subtask(
        "compute the average  score in ~/class.csv",
        "file: ~/class.csv",
        &[ToolName::ReadTable],
    )]);
    assert!(validate(&again, &replan).contains(&Violation::RepeatedPlan));
    // Any visible change passes: another intent, another target, another tool.
    let looked = plan(vec![subtask(
        "Show the columns of ~/class.csv, then compute the mean of the score column",
        "File: ~/class.csv",
        &[ToolName::ReadTable],
    )]);
    let other_path = plan(vec![subtask(
        "Compute the average score in ~/class.csv",
        "File: ~/Documents/class.csv",
        &[ToolName::ReadTable],
    )]);
    let other_tool = plan(vec![subtask(
        "Compute the average score in ~/class.csv",
        "File: ~/class.csv",
        &[ToolName::ReadTable, ToolName::Shell],
    )]);
    for changed in [looked, other_path, other_tool] {
        assert!(!validate(&changed, &replan).contains(&Violation::RepeatedPlan));
    }
    // A first plan has nothing to repeat.
    assert!(!validate(&again, &rules(&[], &[], &h)).contains(&Violation::RepeatedPlan));
    // Once the re-asks are spent, the repeat is mended by telling each sub-task what
    // failed: a change the executor can act on, and the validator sees.
    let mended = repair(&again, "average score", &replan);
    assert!(validate(&mended, &replan).is_empty(), "{mended:?}");
    assert!(
        mended.subtasks[0]
            .context
            .contains("failed before (the output gives the average)"),
        "{}",
        mended.subtasks[0].context
    );
}

#[test]
fn break_symmetry_rejects_the_previous_tool_set_but_not_a_new_one() {
    let h = home();
    let previous: BTreeSet<ToolName> = [ToolName::Shell, ToolName::Glob].into();
    let mut r = rules(&[], &[], &h);
    r.distinct_from = Some(&previous);
    let same = plan(vec![
        subtask("a", "b", &[ToolName::Glob]),
        subtask("c", "d", &[ToolName::Shell]),
    ]);
    assert_eq!(
        validate(&same, &r),
        vec![Violation::RepeatedToolSet {
            tools: vec![ToolName::Glob, ToolName::Shell]
        }]
    );
    let novel = plan(vec![subtask(
        "a",
        "b",
        &[ToolName::Mdfind, ToolName::Shell],
    )]);
    assert_eq!(validate(&novel, &r), vec![]);
}

#[test]
fn tools_this_platform_lacks_are_rejected_off_macos() {
    let h = home();
    let p = plan(vec![subtask(
        "Make a reminder",
        "Reminders app",
        &[ToolName::Applescript],
    )]);
    let v = validate(&p, &rules(&[], &[], &h));
    if cfg!(target_os = "macos") {
        assert_eq!(v, vec![]);
    } else {
        assert_eq!(
            v,
            vec![Violation::UnavailableTool {
                subtask: 1,
                tool: ToolName::Applescript
            }]
        );
    }
}

#[test]
fn a_criterion_copied_from_the_prompts_example_is_rejected() {
    let h = home();
    let mut s = subtask(
        "Count the notes",
        "glob *.md under ~/notes",
        &[ToolName::Glob],
    );
    s.success_criteria = vec![DraftCriterion::verifiable(format!(
        "{}.",
        CRITERION_EXAMPLE.to_uppercase()
    ))];
    let mut p = plan(vec![s.clone()]);
    p.task_criteria = vec![DraftCriterion::verifiable(CRITERION_EXAMPLE)];
    assert_eq!(
        validate(&p, &rules(&[], &[], &h)),
        vec![
            Violation::CopiedExample { subtask: 0 },
            Violation::CopiedExample { subtask: 1 },
        ]
    );
    // Any criterion naming the example's made-up home is pasted, unless the task
    // itself is about that place.
    s.success_criteria = vec![DraftCriterion::verifiable(
        "the output lists the .md files in /home/ana/notes",
    )];
    let pasted = plan(vec![s]);
    assert_eq!(
        validate(&pasted, &rules(&[], &[], &h)),
        vec![Violation::CopiedExample { subtask: 1 }]
    );
    let mut r = rules(&[], &[], &h);
    r.task = "how big is /home/ana/notes?";
    assert_eq!(validate(&pasted, &r), vec![]);
}

#[test]
fn a_plan_needs_no_task_criteria() {
    let h = home();
    let one = PlanDraft {
        subtasks: vec![subtask("Count the notes", "~/notes", &[ToolName::Shell])],
        task_criteria: vec![],
        answer: Default::default(),
    };
    assert_eq!(validate(&one, &rules(&[], &[], &h)), vec![]);
    let two = PlanDraft {
        subtasks: vec![
            subtask("Count the notes", "~/notes", &[ToolName::Shell]),
            subtask("Count the logs", "~/logs", &[ToolName::Shell]),
        ],
        task_criteria: vec![],
        answer: Default::default(),
    };
    assert_eq!(
        validate(&two, &rules(&[], &[], &h)),
        vec![],
        "R4b judges several sub-tasks on the intent"
    );
}

#[test]
fn criteria_that_only_say_the_work_is_done_are_vague() {
    for vague in [
        "The task is completed successfully.",
        "the output is correct",
        "The sub-task has been executed without errors",
        "The user is satisfied",
    ] {
        assert!(is_vague(vague), "{vague}");
    }
    for concrete in [
        "the output gives the number of .txt files in /home/u/notes",
        "summary.txt exists in the workspace",
        "the answer is 20",
        "the output names the largest file",
    ] {
        assert!(!is_vague(concrete), "{concrete}");
    }
    let h = home();
    let mut s = subtask("Count the notes", "~/notes", &[ToolName::Shell]);
    s.success_criteria = vec![DraftCriterion::verifiable("The task is done.")];
    assert_eq!(
        validate(&plan(vec![s]), &rules(&[], &[], &h)),
        vec![Violation::VagueCriterion {
            subtask: 1,
            criterion: "The task is done.".into()
        }]
    );
}

#[test]
fn code_mends_what_does_not_change_the_plan_and_never_a_must_not_rule() {
    let h = home();
    let mut s = subtask("", "~/notes", &[]);
    s.success_criteria = vec![
        DraftCriterion::verifiable(CRITERION_EXAMPLE),
        DraftCriterion::verifiable("the task is completed"),
    ];
    let draft = PlanDraft {
        subtasks: vec![
            s.clone(),
            subtask("Count the logs", "~/logs", &[ToolName::Shell]),
        ],
        task_criteria: vec![],
        answer: Default::default(),
    };
    let r = rules(&[], &[], &h);
    assert!(!validate(&draft, &r).is_empty());
    let mended = repair(&draft, "count my notes and logs", &r);
    assert_eq!(validate(&mended, &r), vec![], "{mended:?}");
    let first = &mended.subtasks[0];
    assert_eq!(first.intent, "count my notes and logs");
    assert_eq!(first.tools, vec![ToolName::Shell]);
    assert_eq!(first.success_criteria.len(), 1);
    assert_eq!(first.success_criteria[0].mode, DraftMode::Plausible);
    assert!(
        first.success_criteria[0]
            .criterion
            .contains("count my notes and logs")
    );

    let blocked = vec![ToolRef::from(ToolName::Shell)];
    let rb = rules(&blocked, &[], &h);
    let uses_blocked = plan(vec![subtask("Count", "run wc", &[ToolName::Shell])]);
    assert!(
        !validate(&repair(&uses_blocked, "count", &rb), &rb).is_empty(),
        "a blocked tool stays a violation"
    );
}

#[test]
fn violations_read_as_instructions_for_the_model() {
    let text = Violation::BlockedTool {
        subtask: 2,
        tool: ToolName::Shell.into(),
    }
    .to_string();
    assert!(
        text.contains("sub-task 2") && text.contains("`shell`"),
        "{text}"
    );
}

#[test]
fn what_the_request_states_exactly_must_be_carried_by_the_plan_or_is_mended_into_it() {
    let h = home();
    let request = "What date is 45 days after the start date written in ~/docs/contract.txt?";
    let with = |request| PlanRules {
        request,
        ..rules(&[], &[], &h)
    };
    let read_only = plan(vec![subtask(
        "Read the start date from the file",
        "File: ~/docs/contract.txt",
        &[ToolName::ReadFile],
    )]);
    let found = validate(&read_only, &with(request));
    assert!(
        found.contains(&Violation::DroppedTerms {
            terms: vec!["45".into()]
        }),
        "{found:?}"
    );
    // A plan whose step uses the number passes; so does one that writes 1,000 as 1000.
    let both = plan(vec![subtask(
        "Add 45 days to the start date read from the file",
        "File: ~/docs/contract.txt",
        &[ToolName::ReadFile, ToolName::Calculate],
    )]);
    assert!(validate(&both, &with(request)).is_empty());
    let bare = plan(vec![subtask(
        "Count the rows whose amount is above 1000",
        "File: ~/a.csv",
        &[ToolName::ReadTable],
    )]);
    assert!(validate(&bare, &with("How many rows of ~/a.csv are above 1,000?")).is_empty());
    // Names with digits are not stated numbers; a number inside a longer one is not held.
    let names = plan(vec![subtask(
        "Convert the newest .mp3 file to a 320 kbps copy",
        "Folder: ~/music/2024",
        &[ToolName::Shell],
    )]);
    assert!(
        validate(
            &names,
            &with("convert the newest mp3 in ~/music/2024 at 320 kbps, 2nd pass")
        )
        .is_empty()
    );
    assert_eq!(
        dropped_terms(&names, "keep 32 of them"),
        ["32"],
        "320 does not hold 32"
    );
    // An extension and a quoted text are stated exactly too; "log" holds ".log".
    let sized = plan(vec![subtask(
        "Count the files larger than 1 KB",
        "Folder: ~/var",
        &[ToolName::ListFiles],
    )]);
    assert_eq!(
        dropped_terms(&sized, "How many .log files in ~/var are larger than 1 KB?"),
        [".log"]
    );
    assert_eq!(
        dropped_terms(
            &sized,
            "How many files in ~/var mention \"disk full\" and are over 1 KB?"
        ),
        ["\"disk full\""]
    );
    let logs = plan(vec![subtask(
        "Count the log files larger than 1 KB",
        "Folder: ~/var",
        &[ToolName::ListFiles],
    )]);
    assert!(dropped_terms(&logs, "How many .log files in ~/var are larger than 1 KB?").is_empty());
    assert!(dropped_terms(&logs, "the user's log, isn't it 1 KB").is_empty());
    // Mended once the re-asks are spent: the last step carries the request in full.
    let mended = repair(&read_only, "date after", &with(request));
    assert!(mended.subtasks[0].intent.contains(request));
    assert!(validate(&mended, &with(request)).is_empty());
}

#[test]
fn a_value_of_the_data_written_in_a_context_before_anything_was_read_is_re_asked_then_cut() {
    let h = home();
    let request = "The bread recipe in ~/notes/oven.txt gives the oven temperature in \
                   Fahrenheit. What is it in Celsius?";
    let with = PlanRules {
        task: request,
        request,
        shown: "Today: 2026-12-02",
        ..rules(&[], &[], &h)
    };
    let guessed = plan(vec![subtask(
        "Convert the temperature to Celsius",
        "File: ~/notes/oven.txt\nTemperature in Fahrenheit: 350",
        &[ToolName::Calculate],
    )]);
    assert_eq!(
        validate(&guessed, &with),
        [Violation::UnstatedValue {
            subtask: 1,
            value: "350".into()
        }]
    );
    let mended = repair(&guessed, request, &with);
    assert_eq!(mended.subtasks[0].context, "File: ~/notes/oven.txt");
    assert!(validate(&mended, &with).is_empty());
    // A value the request or what was shown with it states, a date, a path: as written.
    let stated = PlanRules {
        task: "What is 15% of the total in ~/money/budget2.csv?",
        request: "What is 15% of the total in ~/money/budget2.csv?",
        shown: "Computed by code: 15% = 0.15",
        ..rules(&[], &[], &h)
    };
    let fine = plan(vec![subtask(
        "Take 15% of the total",
        "File: ~/money/budget2.csv\nMultiply by 0.15 (15%), as of 2026-12-02",
        &[ToolName::ReadTable],
    )]);
    assert!(
        validate(&fine, &stated).is_empty(),
        "{:?}",
        validate(&fine, &stated)
    );
}
