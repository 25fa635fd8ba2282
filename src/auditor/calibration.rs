//! The calibration view, for tuning the GGS hyper-parameters from audit data:
//! per replan directive, how often the next round improved D; per task class, how many
//! rounds tasks took to succeed. Counted incrementally over the whole history and
//! persisted with the auditor's state, so reading it never rescans the log.
//!
//! A **task class** is the kind of task of the TaskSpec intent, the same slug memory
//! groups a task's Megrams under ([`crate::tags::task_class`]: `"Please find the 5
//! largest videos in Downloads"` → `find_largest_video`), so the report's classes and
//! memory's groups count the same tasks together. Classes an older build persisted (its
//! own two-word names) are read as the kind their words name when the state loads
//! ([`Calibration::regroup`]). Tasks whose TaskSpec the auditor did not see are
//! `unclassified`.
//!
//! **Invariant:** every count here comes from an observed GGS decision; nothing is
//! estimated or back-filled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::contracts::{MacroState, ReplanDirective, TerminalDirective};

/// Class of tasks whose intent the auditor never saw.
pub const UNCLASSIFIED: &str = "unclassified";

pub use crate::tags::task_class;

/// The class an older build's class name counts as now: its words read as a kind of task.
fn current_class(class: &str) -> String {
    if class == UNCLASSIFIED {
        class.to_string()
    } else {
        task_class(class)
    }
}

/// Outcomes of one replan directive.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectiveStats {
    /// Times GGS issued it.
    pub issued: u64,
    /// Times a later decision of the same task reported the next round's D.
    pub followed: u64,
    /// Of those, times D went down.
    pub improved: u64,
    /// Sum of (next D − D) over the followed ones.
    pub sum_delta_d: f64,
}

/// Outcomes of one task class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassStats {
    pub finished: u64,
    /// Finished with accept or success.
    pub succeeded: u64,
    pub abandoned: u64,
    /// Rounds (replans + 1) of the successful tasks → how many tasks took that many.
    pub rounds_to_success: BTreeMap<u32, u64>,
}

/// The cumulative counters behind the view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Calibration {
    /// Keyed by directive name (`refine`, `change_path`, …).
    pub directives: BTreeMap<String, DirectiveStats>,
    pub classes: BTreeMap<String, ClassStats>,
}

impl Calibration {
    pub fn issued(&mut self, directive: ReplanDirective) {
        self.directive(directive).issued += 1;
    }

    /// The round after `directive` ended with `next_d` (it started from `d`).
    pub fn followed(&mut self, directive: ReplanDirective, d: f64, next_d: f64) {
        let stats = self.directive(directive);
        stats.followed += 1;
        if next_d < d - f64::EPSILON {
            stats.improved += 1;
        }
        stats.sum_delta_d += next_d - d;
    }

    pub fn finished(&mut self, class: &str, directive: TerminalDirective, replans: u32) {
        let stats = self.classes.entry(current_class(class)).or_default();
        stats.finished += 1;
        match directive {
            TerminalDirective::Accept | TerminalDirective::Success => {
                stats.succeeded += 1;
                *stats
                    .rounds_to_success
                    .entry(replans.saturating_add(1))
                    .or_default() += 1;
            }
            TerminalDirective::Abandon => stats.abandoned += 1,
        }
    }

    /// Merges the classes of an older build into the kinds their names read as now.
    pub fn regroup(&mut self) {
        let old = std::mem::take(&mut self.classes);
        for (class, stats) in old {
            let merged = self.classes.entry(current_class(&class)).or_default();
            merged.finished += stats.finished;
            merged.succeeded += stats.succeeded;
            merged.abandoned += stats.abandoned;
            for (rounds, n) in stats.rounds_to_success {
                *merged.rounds_to_success.entry(rounds).or_default() += n;
            }
        }
    }

    fn directive(&mut self, directive: ReplanDirective) -> &mut DirectiveStats {
        self.directives
            .entry(MacroState::from(directive).as_str().to_string())
            .or_default()
    }

    /// The rows `artoo audit calibrate` and the UI show.
    pub fn view(&self) -> CalibrationView {
        let directives = self
            .directives
            .iter()
            .map(|(name, s)| DirectiveRow {
                directive: name.clone(),
                issued: s.issued,
                followed: s.followed,
                improved: s.improved,
                improved_rate: ratio(s.improved, s.followed),
                mean_delta_d: (s.followed > 0).then(|| s.sum_delta_d / s.followed as f64),
            })
            .collect();
        let classes = self
            .classes
            .iter()
            .map(|(class, s)| {
                let total_rounds: u64 = s
                    .rounds_to_success
                    .iter()
                    .map(|(rounds, n)| u64::from(*rounds) * n)
                    .sum();
                ClassRow {
                    class: class.clone(),
                    finished: s.finished,
                    succeeded: s.succeeded,
                    abandoned: s.abandoned,
                    success_rate: ratio(s.succeeded, s.finished),
                    mean_rounds_to_success: ratio(total_rounds, s.succeeded),
                    rounds_to_success: s.rounds_to_success.clone(),
                }
            })
            .collect();
        CalibrationView {
            directives,
            classes,
        }
    }
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Per directive: how often the next round improved D.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirectiveRow {
    pub directive: String,
    pub issued: u64,
    pub followed: u64,
    pub improved: u64,
    pub improved_rate: Option<f64>,
    pub mean_delta_d: Option<f64>,
}

/// Per task class: success rate and rounds to success.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    pub class: String,
    pub finished: u64,
    pub succeeded: u64,
    pub abandoned: u64,
    pub success_rate: Option<f64>,
    pub mean_rounds_to_success: Option<f64>,
    pub rounds_to_success: BTreeMap<u32, u64>,
}

/// The calibration counters as rows for `artoo audit calibration`, directives first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CalibrationView {
    /// One row per replan directive GGS has issued, in name order.
    pub directives: Vec<DirectiveRow>,
    /// One row per task class that has finished at least once, in name order.
    pub classes: Vec<ClassRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_is_the_kind_of_task_memory_groups_by() {
        assert_eq!(
            task_class("Please find the 5 largest videos in ~/Downloads"),
            "find_largest_video"
        );
        assert_eq!(
            task_class("Which videos in Downloads are the biggest?"),
            task_class("List the biggest video files")
        );
        assert_eq!(task_class("整理桌面上的文件"), "整理");
        assert_eq!(
            task_class("Summarise README.md"),
            crate::tags::intent_slug("Summarise README.md")
        );
    }

    #[test]
    fn classes_of_an_older_build_merge_into_the_kinds_they_name() {
        let mut c = Calibration::default();
        // What an older build persisted: two-word classes joined by `-`.
        for (class, directive, replans) in [
            ("find-largest", TerminalDirective::Success, 1),
            ("list-largest", TerminalDirective::Abandon, 3),
            (UNCLASSIFIED, TerminalDirective::Accept, 0),
        ] {
            let stats = c.classes.entry(class.to_string()).or_default();
            stats.finished += 1;
            if directive == TerminalDirective::Abandon {
                stats.abandoned += 1;
            } else {
                stats.succeeded += 1;
                *stats.rounds_to_success.entry(replans + 1).or_default() += 1;
            }
        }
        c.regroup();
        let names: Vec<&str> = c.classes.keys().map(String::as_str).collect();
        assert_eq!(names, ["find_largest", UNCLASSIFIED]);
        let merged = &c.classes["find_largest"];
        assert_eq!(
            (merged.finished, merged.succeeded, merged.abandoned),
            (2, 1, 1)
        );
        // A task finishing now under an old class counts under its kind.
        c.finished("find-largest", TerminalDirective::Accept, 0);
        assert_eq!(c.classes["find_largest"].finished, 3);
    }

    #[test]
    fn the_view_reports_improvement_rates_and_rounds_to_success() {
        let mut c = Calibration::default();
        c.issued(ReplanDirective::Refine);
        c.issued(ReplanDirective::Refine);
        c.followed(ReplanDirective::Refine, 0.6, 0.3);
        c.followed(ReplanDirective::Refine, 0.6, 0.6);
        c.finished("find-files", TerminalDirective::Success, 1);
        c.finished("find-files", TerminalDirective::Accept, 0);
        c.finished("find-files", TerminalDirective::Abandon, 3);
        let v = c.view();
        let refine = &v.directives[0];
        assert_eq!(refine.directive, "refine");
        assert_eq!((refine.issued, refine.followed, refine.improved), (2, 2, 1));
        assert_eq!(refine.improved_rate, Some(0.5));
        assert!((refine.mean_delta_d.unwrap() + 0.15).abs() < 1e-12);
        let class = &v.classes[0];
        assert_eq!(
            (class.finished, class.succeeded, class.abandoned),
            (3, 2, 1)
        );
        assert_eq!(class.mean_rounds_to_success, Some(1.5));
        assert_eq!(class.rounds_to_success.get(&2), Some(&1));
    }
}
