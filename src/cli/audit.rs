//! `artoo audit verify|report|calibrate|events|timeline`: the operator's view of the audit
//! history from a terminal. Reads the files of the data directory (works while the app
//! runs); human-readable by default, `--json` for scripts.
//!
//! **Invariant:** read-only — the CLI never writes to the audit directory; an on-demand
//! report printed here is a snapshot of the persisted window, not added to the history.

use std::io::Write;

use anyhow::{Context, anyhow, bail};
use clap::{Args, Subcommand};
use serde::Serialize;

use artoo::Config;
use artoo::clock::{Clock, SystemClock};
use artoo::contracts::{AuditReport, ReportId, Role, TaskId};

use artoo::auditor::{
    AnomalyFilter, AnomalyKind, AuditEvent, AuditHistory, CalibrationView, EventFilter, EventKind,
    TaskTimeline, VerifyReport,
};

/// How times are shown to people (the log and `--json` keep full precision).
const TIME: &str = "%Y-%m-%d %H:%M:%S UTC";

#[derive(Args, Debug)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: AuditCommand,
}

#[derive(Subcommand, Debug)]
pub enum AuditCommand {
    /// Check the hash chain, the checkpoint and the stored reports; print the first
    /// broken link (exit status 1 if there is one).
    Verify {
        #[arg(long)]
        json: bool,
    },
    /// Show the current window as an on-demand report, or reports from the history.
    Report {
        /// List the most recent reports of the history.
        #[arg(long)]
        list: bool,
        /// How many reports `--list` shows.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Show one report of the history.
        #[arg(long, conflicts_with = "list")]
        id: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Per directive, how often the next round improved D; rounds to success per task
    /// class (the first two content words of the intent).
    Calibrate {
        #[arg(long)]
        json: bool,
    },
    /// The most recent events of the log matching the filters, oldest first.
    Events {
        #[arg(long)]
        task: Option<String>,
        /// Message type (`PlanDirective`, `FinalResult`, …) or `TapGap`/`AuditorStarted`/`Retention`.
        #[arg(long)]
        kind: Option<String>,
        /// Sender or receiver (`R3`, `executor`, `user`, …).
        #[arg(long)]
        role: Option<String>,
        /// Only events with anomalies, or with one kind of anomaly (`law3`,
        /// `boundary_violation`, `ggs_thrashing`, …).
        #[arg(long, num_args = 0..=1, default_missing_value = "any")]
        anomaly: Option<String>,
        /// Only events numbered below this (page back through history).
        #[arg(long)]
        before: Option<u64>,
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// Everything the log says about one task, in order.
    Timeline {
        task: String,
        #[arg(long)]
        json: bool,
    },
}

/// Runs one `artoo audit` command against `config.data_dir`, printing to stdout.
pub fn run(config: &Config, args: AuditArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run_to(config, args, &mut out) {
        // The reader (`| head`) has what it wanted.
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// [`run`] with the output going to `out`.
pub fn run_to(config: &Config, args: AuditArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let history = AuditHistory::new(&config.data_dir);
    match args.command {
        AuditCommand::Verify { json } => verify(&history, json, out),
        AuditCommand::Report {
            list,
            limit,
            id,
            json,
        } => {
            if list {
                let reports = history.reports(limit)?;
                if json {
                    print_json(out, &reports)
                } else {
                    print_report_list(out, &reports)
                }
            } else if let Some(id) = id {
                let id: ReportId = uuid_arg(&id).map(ReportId::from)?;
                let report = history
                    .report(id)?
                    .ok_or_else(|| anyhow!("no report {id} in the history"))?;
                if json {
                    print_json(out, &report)
                } else {
                    print_report(out, &report, "from the history")
                }
            } else {
                let Some(report) = history.current_window(SystemClock.now())? else {
                    writeln!(
                        out,
                        "No audit data yet in {} (the auditor has not run).",
                        history.dir().display()
                    )?;
                    return Ok(());
                };
                if json {
                    print_json(out, &report)
                } else {
                    print_report(
                        out,
                        &report,
                        "current window, from the persisted statistics; not added to the history",
                    )
                }
            }
        }
        AuditCommand::Calibrate { json } => {
            let view = history.calibration()?;
            if json {
                print_json(out, &view)
            } else {
                print_calibration(out, &view)
            }
        }
        AuditCommand::Events {
            task,
            kind,
            role,
            anomaly,
            before,
            limit,
            json,
        } => {
            let filter = EventFilter {
                task: task.map(TaskId::from_existing),
                kind: kind.as_deref().map(parse_kind).transpose()?,
                role: role.as_deref().map(parse_role).transpose()?,
                anomaly: anomaly.as_deref().map(parse_anomaly).transpose()?,
                before_seq: before,
                limit: limit.max(1),
            };
            let events = history.events(&filter)?;
            if json {
                print_json(out, &events)
            } else {
                if events.is_empty() {
                    writeln!(out, "No matching events.")?;
                }
                for e in &events {
                    print_event(out, e)?;
                }
                Ok(())
            }
        }
        AuditCommand::Timeline { task, json } => {
            let timeline = history.timeline(&TaskId::from_existing(&task))?;
            if json {
                print_json(out, &timeline)
            } else {
                print_timeline(out, &timeline)
            }
        }
    }
}

fn verify(history: &AuditHistory, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = history.verify()?;
    if json {
        print_json(out, &report)?;
    } else {
        print_verify(out, history, &report)?;
    }
    if report.is_clean() {
        Ok(())
    } else {
        bail!("the audit log failed verification")
    }
}

fn print_verify(
    out: &mut dyn Write,
    history: &AuditHistory,
    report: &VerifyReport,
) -> anyhow::Result<()> {
    match &report.broken {
        None => writeln!(
            out,
            "audit log OK: {} events in {} segment file(s), {} reports, chain head {}{}",
            report.events,
            report.segments,
            report.reports,
            &report.head.hash[..16],
            if report.live_writer {
                " (an auditor is writing)"
            } else {
                ""
            }
        )?,
        Some(broken) => {
            writeln!(
                out,
                "audit log BROKEN in {}: {}",
                history.dir().display(),
                broken
            )?;
            writeln!(
                out,
                "  {} events verified before the first broken link",
                report.events
            )?;
        }
    }
    Ok(())
}

fn print_json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

pub fn print_report(out: &mut dyn Write, r: &AuditReport, origin: &str) -> anyhow::Result<()> {
    let trigger = match r.trigger {
        artoo::contracts::AuditTrigger::Periodic => "periodic",
        artoo::contracts::AuditTrigger::OnDemand => "on-demand",
    };
    writeln!(out, "Audit report {} ({trigger}; {origin})", r.report_id)?;
    writeln!(
        out,
        "window:       {} → {}",
        r.window_start.format(TIME),
        r.window_end.format(TIME)
    )?;
    writeln!(
        out,
        "tasks:        {} observed, {} corrections",
        r.tasks_observed, r.total_corrections
    )?;
    let trends: Vec<String> = r
        .gap_trends
        .iter()
        .map(|g| format!("{} {}", g.task_id, plain(&g.trend)))
        .collect();
    writeln!(
        out,
        "gap trends:   {}",
        if trends.is_empty() {
            "none".to_string()
        } else {
            trends.join(", ")
        }
    )?;
    let h = r.tool_health;
    writeln!(
        out,
        "tool health:  {} execution failures, {} environmental retries, {} logical retries",
        h.execution_failures, h.environmental_retries, h.logical_retries
    )?;
    let l = r.law1;
    writeln!(
        out,
        "Law 1:        {} requests: {} approved, {} denied, {} timed out, {} trashed",
        l.requests, l.approved, l.denied, l.timed_out, l.trashed
    )?;
    for (title, lines) in [
        ("boundary violations", &r.boundary_violations),
        ("drift alerts", &r.drift_alerts),
        ("anomalies", &r.anomalies),
    ] {
        if lines.is_empty() {
            writeln!(out, "{title}: none")?;
        } else {
            writeln!(out, "{title} ({}):", lines.len())?;
            for line in lines {
                writeln!(out, "  - {line}")?;
            }
        }
    }
    Ok(())
}

fn print_report_list(out: &mut dyn Write, reports: &[AuditReport]) -> anyhow::Result<()> {
    if reports.is_empty() {
        writeln!(out, "No reports in the history yet.")?;
    }
    for r in reports {
        writeln!(
            out,
            "{}  {:9}  {} → {}  tasks {}  corrections {}  violations {}  drift {}  anomalies {}",
            r.report_id,
            plain(&r.trigger),
            r.window_start.format(TIME),
            r.window_end.format(TIME),
            r.tasks_observed,
            r.total_corrections,
            r.boundary_violations.len(),
            r.drift_alerts.len(),
            r.anomalies.len()
        )?;
    }
    Ok(())
}

fn print_event(out: &mut dyn Write, e: &AuditEvent) -> anyhow::Result<()> {
    let route = match (e.from, e.to) {
        (Some(from), Some(to)) => format!("{from} → {to}"),
        _ => "auditor".to_string(),
    };
    writeln!(
        out,
        "#{:<7} {}  {:<14} {:<22} {}  {}",
        e.seq,
        e.at.format("%Y-%m-%d %H:%M:%S%.3f"),
        route,
        e.kind.name(),
        e.task_id.as_ref().map_or("-", |t| t.as_str()),
        e.detail
    )?;
    for finding in &e.anomalies {
        writeln!(out, "          ! {finding}")?;
    }
    Ok(())
}

fn print_timeline(out: &mut dyn Write, t: &TaskTimeline) -> anyhow::Result<()> {
    if t.events.is_empty() {
        writeln!(out, "The audit log has no events of task {}.", t.task_id)?;
        return Ok(());
    }
    writeln!(
        out,
        "Task {}: {} events, {} anomal{}",
        t.task_id,
        t.events.len(),
        t.anomalies,
        if t.anomalies == 1 { "y" } else { "ies" }
    )?;
    match &t.run {
        Some(run) => {
            writeln!(
                out,
                "run {}: {} round(s), {}",
                run.run_id,
                run.rounds,
                run.status.as_str()
            )?;
            if let Some(end) = run.ended_at {
                writeln!(
                    out,
                    "from {} to {} ({:.1} s)",
                    run.started_at.format(TIME),
                    end.format(TIME),
                    (end - run.started_at).num_milliseconds() as f64 / 1000.0
                )?;
            }
        }
        None => writeln!(out, "(the task logs hold no run of this task)")?,
    }
    for e in &t.events {
        print_event(out, e)?;
    }
    Ok(())
}

fn print_calibration(out: &mut dyn Write, view: &CalibrationView) -> anyhow::Result<()> {
    let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
    writeln!(out, "Directives: how often the next round improved D")?;
    if view.directives.is_empty() {
        writeln!(out, "  (no replan directives observed yet)")?;
    } else {
        writeln!(
            out,
            "  {:<16} {:>7} {:>9} {:>9} {:>6} {:>9}",
            "directive", "issued", "followed", "improved", "rate", "mean ΔD"
        )?;
        for d in &view.directives {
            writeln!(
                out,
                "  {:<16} {:>7} {:>9} {:>9} {:>6} {:>9}",
                d.directive,
                d.issued,
                d.followed,
                d.improved,
                pct(d.improved_rate),
                d.mean_delta_d
                    .map_or("-".to_string(), |v| format!("{v:+.3}"))
            )?;
        }
    }
    writeln!(out, "Task classes: rounds to success")?;
    if view.classes.is_empty() {
        writeln!(out, "  (no finished tasks observed yet)")?;
    } else {
        writeln!(
            out,
            "  {:<24} {:>8} {:>9} {:>9} {:>7} {:>11}  rounds:tasks",
            "class", "finished", "succeeded", "abandoned", "success", "mean rounds"
        )?;
        for c in &view.classes {
            let histogram: Vec<String> = c
                .rounds_to_success
                .iter()
                .map(|(rounds, n)| format!("{rounds}:{n}"))
                .collect();
            writeln!(
                out,
                "  {:<24} {:>8} {:>9} {:>9} {:>7} {:>11}  {}",
                c.class,
                c.finished,
                c.succeeded,
                c.abandoned,
                pct(c.success_rate),
                c.mean_rounds_to_success
                    .map_or("-".to_string(), |v| format!("{v:.2}")),
                histogram.join(" ")
            )?;
        }
    }
    Ok(())
}

/// A serde unit variant's name without quotes.
fn plain<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".to_string(),
    }
}

fn uuid_arg(text: &str) -> anyhow::Result<uuid::Uuid> {
    uuid::Uuid::parse_str(text.trim()).with_context(|| format!("{text:?} is not a report id"))
}

/// `R3`, `executor`, `User`, … (short or long names, any case).
pub fn parse_role(text: &str) -> anyhow::Result<Role> {
    Role::ALL_ROLES
        .into_iter()
        .chain([Role::Observer, Role::All])
        .find(|r| r.short().eq_ignore_ascii_case(text) || r.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| anyhow!("unknown role {text:?} (use R1…R7, R4a, R4b, user, observer)"))
}

fn parse_kind(text: &str) -> anyhow::Result<EventKind> {
    EventKind::parse(text).ok_or_else(|| anyhow!("unknown message type {text:?}"))
}

fn parse_anomaly(text: &str) -> anyhow::Result<AnomalyFilter> {
    if text.eq_ignore_ascii_case("any") {
        return Ok(AnomalyFilter::Any);
    }
    AnomalyKind::parse(text)
        .map(AnomalyFilter::Kind)
        .ok_or_else(|| {
            let names: Vec<&str> = AnomalyKind::ALL.iter().map(|k| k.as_str()).collect();
            anyhow!(
                "unknown anomaly {text:?} (one of: any, {})",
                names.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_not_an_error_but_other_io_errors_are() {
        let pipe: anyhow::Error = std::io::Error::from(std::io::ErrorKind::BrokenPipe).into();
        assert!(is_broken_pipe(&pipe.context("printing events")));
        let denied: anyhow::Error =
            std::io::Error::from(std::io::ErrorKind::PermissionDenied).into();
        assert!(!is_broken_pipe(&denied));
    }

    #[test]
    fn roles_parse_by_short_or_long_name() {
        assert_eq!(parse_role("r3").unwrap(), Role::Executor);
        assert_eq!(parse_role("agent-validator").unwrap(), Role::AgentValidator);
        assert_eq!(parse_role("USER").unwrap(), Role::User);
        assert!(parse_role("R9").is_err());
    }

    #[test]
    fn anomaly_filters_parse_any_or_a_kind() {
        assert_eq!(parse_anomaly("any").unwrap(), AnomalyFilter::Any);
        assert_eq!(
            parse_anomaly("law3").unwrap(),
            AnomalyFilter::Kind(AnomalyKind::Law3)
        );
        let err = parse_anomaly("law9").unwrap_err().to_string();
        assert!(err.contains("ggs_thrashing"), "{err}");
    }
}
