//! `shell`: `bash -c COMMAND` in the workspace, with a per-call timeout, the app's keys
//! scrubbed from the environment and the whole process tree killed when the call ends.
//! The `find` guards rewrite the command first (see `guards`). Unless the user confirmed
//! the call, it runs inside the OS sandbox (`sandbox`). Where the sandbox holds a layer
//! (Linux), what the command did that Law 1 cares about comes back held
//! ([`ToolError::SandboxHeld`]) for the gate to ask about; where it stops changes as they
//! happen, they come back as [`ToolError::SandboxRefused`], and `"unsandboxed": true` asks
//! the user to run the command outside.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Value, json};

use crate::contracts::PathEffect;

use super::guards::{self, FindRewrite};
use super::process::{self, BaseEnv, Input, Spec};
use super::sandbox::{Confinement, Sandbox};
use super::{
    Law1Action, Param, Prepared, Tool, ToolContext, ToolError, ToolFuture, ToolName, ToolSpec,
};

/// Longest per-call timeout a model may ask for.
const MAX_TIMEOUT_SECS: u64 = 600;

/// The shell tool.
#[derive(Clone, Debug)]
pub struct Shell {
    env: BaseEnv,
    sandbox: Sandbox,
}

impl Default for Shell {
    fn default() -> Self {
        Self::new()
    }
}

impl Shell {
    /// The tool as the app runs it: children inherit the app's environment (scrubbed) and run in
    /// the standard sandbox.
    pub fn new() -> Self {
        Self {
            env: BaseEnv::Inherit,
            sandbox: Sandbox::standard(),
        }
    }

    /// A shell whose children see exactly `vars` (still scrubbed); its sandbox's own
    /// programs are the system's, as in the app. For tests.
    pub fn with_env(vars: Vec<(std::ffi::OsString, std::ffi::OsString)>) -> Self {
        Self::with_env_and_programs(vars, super::sandbox::SYSTEM_PROGRAMS.into())
    }

    /// A shell whose children see exactly `vars` and whose sandbox takes its own
    /// programs from the folders `programs` (as in `PATH`). For tests of a machine
    /// without bubblewrap.
    pub fn with_env_and_programs(
        vars: Vec<(std::ffi::OsString, std::ffi::OsString)>,
        programs: std::ffi::OsString,
    ) -> Self {
        let env = BaseEnv::Fixed(vars);
        Self {
            sandbox: Sandbox::with_env(env.clone(), programs),
            env,
        }
    }
}

impl Shell {
    /// Whether this shell's sandbox works here (probed once).
    pub async fn sandbox_status(&self) -> super::sandbox::Status {
        self.sandbox.status().await.clone()
    }
}

/// Names of the executor's own tools that are not programs of this system: a small
/// model that has just read the tool list writes them into shell commands.
#[cfg(target_os = "macos")]
const TOOLS_NOT_PROGRAMS: &[ToolName] = &[
    ToolName::ListFiles,
    ToolName::ReadTable,
    ToolName::ReadLines,
    ToolName::Calculate,
    ToolName::CopyFiles,
    ToolName::MoveFiles,
    ToolName::DeleteFiles,
    ToolName::ReadFile,
    ToolName::WriteFile,
    ToolName::EditFile,
    ToolName::ConvertFile,
    ToolName::SetValue,
    ToolName::Glob,
];
#[cfg(not(target_os = "macos"))]
const TOOLS_NOT_PROGRAMS: &[ToolName] = &[
    ToolName::ListFiles,
    ToolName::ReadTable,
    ToolName::ReadLines,
    ToolName::Calculate,
    ToolName::CopyFiles,
    ToolName::MoveFiles,
    ToolName::DeleteFiles,
    ToolName::ReadFile,
    ToolName::WriteFile,
    ToolName::EditFile,
    ToolName::ConvertFile,
    ToolName::SetValue,
    ToolName::Glob,
    ToolName::Mdfind,
];

/// The tool a command runs as if it were a program (at the start of the command or of
/// one of its pipeline or list parts), if any.
fn tool_as_program(command: &str) -> Option<ToolName> {
    command
        .split(['|', ';', '&', '(', '\n', '`'])
        .filter_map(|part| {
            part.split_whitespace()
                .find(|w| !w.contains('=') && *w != "sudo" && *w != "command")
        })
        .find_map(|program| {
            let name = program.rsplit('/').next().unwrap_or(program);
            TOOLS_NOT_PROGRAMS
                .iter()
                .copied()
                .find(|t| t.as_str() == name)
        })
}

/// Whether Law 1's classifier proves that `command` changes nothing.
fn only_reads(command: &str, ctx: &ToolContext) -> bool {
    use crate::laws::classify::{Action, Scope, Verdict, classify};
    let scope = Scope {
        cwd: &ctx.config.workspace,
        home: &ctx.config.home,
        fs: &super::RealFs,
    };
    classify(&Action::Shell(command), &scope).verdict() == Verdict::Reversible
        && !command.contains("-delete")
        && !command.contains("-exec")
        && !command.contains("-ok")
}

/// Whether the call asks to run outside the sandbox.
pub(super) fn unsandboxed(input: &Value) -> bool {
    input.get("unsandboxed").and_then(Value::as_bool) == Some(true)
}

const PARAMS: &[Param] = &[
    Param {
        name: Cow::Borrowed("command"),
        kind: Cow::Borrowed("string"),
        required: true,
        about: Cow::Borrowed("a bash command line; runs in the workspace folder"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("timeout_secs"),
        kind: Cow::Borrowed("integer"),
        required: false,
        about: Cow::Borrowed("seconds before the command is stopped; leave it out for the default"),
        choices: super::Choices::Open,
    },
    Param {
        name: Cow::Borrowed("unsandboxed"),
        kind: Cow::Borrowed("boolean"),
        required: false,
        about: Cow::Borrowed(
            "true only to rerun a command the sandbox refused; the user is asked first",
        ),
        choices: super::Choices::Open,
    },
];

/// The call's time limit: the one it gives (at most [`MAX_TIMEOUT_SECS`]), or the
/// setting's when it gives none — or 0, which a small model writes for "no limit of my
/// own" (a command that failed for its 0 threw away a move made by the same plan).
fn timeout_of(input: &Value, ctx: &ToolContext) -> Result<u64, ToolError> {
    match input.get("timeout_secs") {
        None | Some(Value::Null) => Ok(ctx.config.tools.shell_timeout_secs),
        Some(v) => match v.as_u64() {
            Some(0) => Ok(ctx.config.tools.shell_timeout_secs),
            Some(n) => Ok(n.min(MAX_TIMEOUT_SECS)),
            _ => Err(ToolError::InvalidInput(format!(
                "`timeout_secs` must be a whole number of seconds, got {v}"
            ))),
        },
    }
}

impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ToolName::Shell.into(),
            priority: 7,
            summary: Cow::Borrowed(
                "General bash for counting, aggregation or anything the tools above do not cover. Never use find on personal folders (use mdfind).",
            ),
            params: Cow::Borrowed(PARAMS),
            forms: &[],
        }
    }

    fn prepare(&self, input: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let command = super::str_param(input, "command")?;
        let timeout = timeout_of(input, ctx)?;
        if let Some(tool) = tool_as_program(command) {
            return Err(ToolError::InvalidInput(format!(
                "`{tool}` is one of your tools, not a program of this system: call the \
                 `{tool}` tool itself instead of shell"
            )));
        }
        if let Some(error) = guards::syntax_error(command) {
            return Err(ToolError::InvalidInput(format!(
                "bash cannot read this command ({error}); nothing ran. Write it again with \
                 every quote closed and no trailing backslash (for find, end -exec with + \
                 instead of \\;)"
            )));
        }
        if let Some(v) = input.get("unsandboxed")
            && !v.is_null()
            && !v.is_boolean()
        {
            return Err(ToolError::InvalidInput(format!(
                "`unsandboxed` must be true or false, got {v}"
            )));
        }
        let with_timeout = |command: &str| {
            let mut v = json!({ "command": command });
            if input.get("timeout_secs").is_some_and(|t| !t.is_null()) {
                v["timeout_secs"] = json!(timeout);
            }
            if unsandboxed(input) {
                v["unsandboxed"] = json!(true);
            }
            v
        };
        let as_written = || Prepared {
            tool: ToolName::Shell.into(),
            input: with_timeout(command),
            target: command.to_string(),
            action: Some(Law1Action::Shell(command.to_string())),
            note: None,
            approved: false,
            sandbox: None,
        };
        match guards::rewrite_find(command, &ctx.config.home) {
            FindRewrite::Unchanged => Ok(as_written()),
            // Widening a search is only for a command that only reads: a deeper `find`
            // feeding a deletion would reach files nobody named.
            FindRewrite::Stripped(_) if !only_reads(command, ctx) => Ok(as_written()),
            FindRewrite::Stripped(stripped) => Ok(Prepared {
                tool: ToolName::Shell.into(),
                input: with_timeout(&stripped),
                target: stripped.clone(),
                action: Some(Law1Action::Shell(stripped)),
                note: Some("-maxdepth was removed so the search covers every level".into()),
                approved: false,
                sandbox: None,
            }),
            FindRewrite::Mdfind {
                query,
                onlyin,
                kind,
                original,
            } => {
                let mut input = json!({
                    "query": query,
                    "onlyin": onlyin.to_string_lossy(),
                    "redirected_from": original,
                });
                if let Some(k) = kind {
                    input["type"] = json!(k.to_string());
                }
                Ok(Prepared {
                    tool: ToolName::Mdfind.into(),
                    input,
                    target: query,
                    action: None,
                    note: Some(format!(
                        "find on a personal folder was answered from the file index (mdfind) instead: `{original}`"
                    )),
                    approved: false,
                    sandbox: None,
                })
            }
        }
    }

    fn sandbox(&self) -> Option<&Sandbox> {
        Some(&self.sandbox)
    }

    fn run<'a>(&'a self, call: &'a Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let command = super::str_param(&call.input, "command")?;
            let timeout = timeout_of(&call.input, ctx)?;
            let workspace = &ctx.config.workspace;
            tokio::fs::create_dir_all(workspace).await.map_err(|e| {
                ToolError::io(
                    format!("cannot create the workspace {}", workspace.display()),
                    e,
                )
            })?;
            if let Some(plan) = &call.sandbox {
                let outcome = self
                    .sandbox
                    .run(
                        command,
                        Confinement {
                            workspace,
                            home: &ctx.config.home,
                            plan,
                            timeout: Duration::from_secs(timeout),
                        },
                        &ctx.cancel,
                    )
                    .await?;
                let f = &outcome.finished;
                let mut output = format_output(&f.stdout, &f.stderr, f.status);
                for (path, why) in &outcome.not_kept {
                    output.push_str(&format!("\n(not kept: {}: {why})", path.display()));
                }
                // What was not kept may be asked for outside the sandbox.
                let declined: Vec<PathEffect> = outcome
                    .not_kept
                    .iter()
                    .map(|(path, _)| PathEffect {
                        path: path.clone(),
                        exists: false,
                        effect: "create (outside the workspace)".into(),
                    })
                    .collect();
                if !declined.is_empty() {
                    ctx.history.remember_refusal(command, declined);
                }
                for effect in &outcome.kept {
                    ctx.effects.note(effect.clone());
                }
                if let Some(line) = ctx.journal_changes(&outcome.journaled) {
                    output.push_str(&format!("\n{line}"));
                }
                if let Some(held) = outcome.held {
                    return Err(ToolError::SandboxHeld {
                        held: Box::new(held),
                        output,
                    });
                }
                if !outcome.refused.is_empty() {
                    return Err(ToolError::SandboxRefused {
                        refused: outcome.refused,
                        output,
                    });
                }
                if let Some(failure) = command_failure(&f.stdout, &f.stderr, f.status) {
                    return Err(failure);
                }
                return Ok(output);
            }
            let finished = process::run(
                Spec {
                    program: "bash",
                    args: vec!["-c".into(), command.into()],
                    cwd: Some(workspace),
                    env: &self.env,
                    home: Some(&ctx.config.home),
                    stdin: Input::Null,
                    timeout: Duration::from_secs(timeout),
                },
                &ctx.cancel,
            )
            .await?;
            if let Some(failure) =
                command_failure(&finished.stdout, &finished.stderr, finished.status)
            {
                return Err(failure);
            }
            Ok(format_output(
                &finished.stdout,
                &finished.stderr,
                finished.status,
            ))
        })
    }
}

/// A command that exited non-zero, printed nothing on stdout and complained on stderr
/// failed: there is no result, only an error (`cat missing.txt`, `ls /nope`). Recording
/// it as an ok call let a validator take "No such file" for work done. A non-zero exit
/// with a quiet stderr stays a result — `grep` finding nothing is a valid empty answer —
/// and so does one with stdout: the partial output is evidence, judged with its status.
/// The failure is not-found when the command said something it named does not exist
/// ([`reports_missing`]), so GGS and R4a need not read the message again.
fn command_failure(
    stdout: &str,
    stderr: &str,
    status: std::process::ExitStatus,
) -> Option<ToolError> {
    if status.success() || !stdout.trim().is_empty() || stderr.trim().is_empty() {
        return None;
    }
    let how = match status.code() {
        Some(code) => format!("the command failed with exit status {code}"),
        None => "the command was stopped by a signal".to_string(),
    };
    let message = format!("{how}: {}", stderr.trim());
    Some(if reports_missing(stderr, status.code()) {
        ToolError::NotFound(message)
    } else if reports_forbidden(stderr) {
        ToolError::Forbidden(message)
    } else {
        ToolError::Failed(message)
    })
}

/// The exit status a POSIX shell gives a command it cannot find.
const COMMAND_NOT_FOUND: i32 = 127;

/// How the system and the common command-line tools say that a path, a program or a web
/// page does not exist: the C library's text for ENOENT and ENOTDIR, the shell's and
/// macOS `open`'s wording, and curl's HTTP 404 and 410.
const MISSING_COMPLAINTS: &[&str] = &[
    "no such file or directory",
    "not a directory",
    "command not found",
    "does not exist",
    "returned error: 404",
    "returned error: 410",
];

/// Whether a failed command's stderr (or its exit status) says that something it named
/// does not exist. The text read here is the system's and the tools' own, never a
/// model's: this is where a shell failure gets its kind, once.
fn reports_missing(stderr: &str, code: Option<i32>) -> bool {
    if code == Some(COMMAND_NOT_FOUND) {
        return true;
    }
    let lower = stderr.to_lowercase();
    MISSING_COMPLAINTS.iter().any(|m| lower.contains(m))
}

/// How the C library says the system refused access (EACCES, EPERM, EROFS).
const FORBIDDEN_COMPLAINTS: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
];

/// Whether a failed command's stderr says the system refused it access to something.
fn reports_forbidden(stderr: &str) -> bool {
    let lower = stderr.to_lowercase();
    FORBIDDEN_COMPLAINTS.iter().any(|m| lower.contains(m))
}

/// How a shell call's output shows a failed command: the exit status it reports, when
/// the command did not succeed and the status is not an answer. `grep`, `diff`, `cmp` and
/// `test` say "no" with status 1 and a quiet stderr (no match, the files differ), which is
/// a result; any other non-zero status, a 1 with a complaint on stderr, or a stop by a
/// signal (reported as 128 + the signal, as shells do) is a failure. Reads the lines
/// [`format_output`] writes, so the two stay together here.
pub(crate) fn failed_exit(output: &str) -> Option<i32> {
    let mut complained = false;
    let mut status = None;
    for line in output.lines() {
        if line == STDERR_MARK {
            complained = true;
        } else if let Some(code) = line
            .strip_prefix("[exit status ")
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|code| code.parse::<i32>().ok())
        {
            status = Some(code);
        } else if let Some(signal) = line
            .strip_prefix("[stopped by signal ")
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|n| n.parse::<i32>().ok())
        {
            status = Some(128 + signal);
        } else if line == "[stopped by a signal]" {
            status = Some(128);
        }
    }
    status.filter(|&code| code != 0 && (code != 1 || complained))
}

const STDERR_MARK: &str = "[stderr]";

/// stdout, then stderr and the exit status when they say something.
fn format_output(stdout: &str, stderr: &str, status: std::process::ExitStatus) -> String {
    let mut out = stdout.trim_end_matches('\n').to_string();
    if !stderr.trim().is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(STDERR_MARK);
        out.push('\n');
        out.push_str(stderr.trim_end_matches('\n'));
    }
    if !status.success() {
        if !out.is_empty() {
            out.push('\n');
        }
        match (status.code(), signal_of(status)) {
            (Some(code), _) => out.push_str(&format!("[exit status {code}]")),
            (None, Some(signal)) => out.push_str(&format!("[stopped by signal {signal}]")),
            (None, None) => out.push_str("[stopped by a signal]"),
        }
    }
    if out.is_empty() {
        out.push_str("(no output)");
    }
    out
}

#[cfg(unix)]
fn signal_of(status: std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal_of(_: std::process::ExitStatus) -> Option<i32> {
    None
}

#[cfg(test)]
mod tests {
    use super::tool_as_program;
    use super::{command_failure, failed_exit, format_output};
    use crate::contracts::ToolFailure;
    use crate::tools::ToolName;

    #[cfg(unix)]
    fn exited(code: i32) -> std::process::ExitStatus {
        std::os::unix::process::ExitStatusExt::from_raw(code << 8)
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_exit_is_read_back_from_the_output_the_shell_formats() {
        // Success, and the quiet 1 of grep/diff/test, are answers.
        assert_eq!(failed_exit(&format_output("a\n", "", exited(0))), None);
        assert_eq!(failed_exit(&format_output("", "", exited(1))), None);
        assert_eq!(failed_exit(&format_output("0\n", "", exited(1))), None);
        // A complaint with status 1, any higher status, a signal: failures.
        assert_eq!(
            failed_exit(&format_output("a\n", "cat: b: No such file\n", exited(1))),
            Some(1)
        );
        assert_eq!(failed_exit(&format_output("a\n", "", exited(2))), Some(2));
        let killed = std::os::unix::process::ExitStatusExt::from_raw(9);
        let text = format_output("partial\n", "", killed);
        assert!(text.ends_with("[stopped by signal 9]"), "{text}");
        assert_eq!(failed_exit(&text), Some(137));
        // Lines the sandbox appends after the status do not hide it.
        let kept = format!(
            "{}\n(not kept: /x: outside)",
            format_output("", "e\n", exited(3))
        );
        assert_eq!(failed_exit(&kept), Some(3));
        // Text that only mentions a status is not one.
        assert_eq!(failed_exit("the log says [exit status 2] here"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_command_that_says_something_is_missing_fails_as_not_found() {
        for (stderr, code) in [
            (
                "ls: cannot access '/h/gone': No such file or directory\n",
                2,
            ),
            ("ls: /h/gone: No such file or directory\n", 1),
            ("bash: line 1: cd: /h/gone: No such file or directory\n", 1),
            ("cat: /h/a.txt/b: Not a directory\n", 1),
            ("bash: line 1: frobnicate: command not found\n", 127),
            ("The file /h/gone does not exist.\n", 1),
            ("curl: (22) The requested URL returned error: 404\n", 22),
            // The status alone says it: the shell could not find the program.
            ("bash: frobnicate: something else\n", 127),
        ] {
            let err = command_failure("", stderr, exited(code)).expect("a failure");
            assert_eq!(err.failure(), ToolFailure::NotFound, "{stderr}");
            assert!(err.to_string().contains(stderr.trim()), "{err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn other_failed_commands_stay_failed_and_answers_stay_answers() {
        for (stderr, code) in [
            ("rm: cannot remove '/h/a': Permission denied\n", 1),
            ("touch: cannot touch '/h/b': Operation not permitted\n", 1),
        ] {
            let err = command_failure("", stderr, exited(code)).expect("a failure");
            assert_eq!(err.failure(), ToolFailure::Forbidden, "{stderr}");
        }
        for (stderr, code) in [
            ("bash: line 1: syntax error near unexpected token `)'\n", 2),
            ("curl: (6) Could not resolve host: example.invalid\n", 6),
        ] {
            let err = command_failure("", stderr, exited(code)).expect("a failure");
            assert_eq!(err.failure(), ToolFailure::Failed, "{stderr}");
        }
        // Output on stdout, or a quiet non-zero status, is a result, not a failure.
        assert!(command_failure("a\n", "ls: b: No such file or directory\n", exited(1)).is_none());
        assert!(command_failure("", "", exited(1)).is_none());
    }

    #[test]
    fn a_tool_written_as_a_program_is_found_wherever_a_program_starts() {
        for (command, tool) in [
            ("read_file ~/notes/a.txt", ToolName::ReadFile),
            ("ls ~/notes | write_file out.txt", ToolName::WriteFile),
            ("cd ~ && glob '*.md'", ToolName::Glob),
            ("X=1 read_file a", ToolName::ReadFile),
            ("echo $(read_file a)", ToolName::ReadFile),
        ] {
            assert_eq!(tool_as_program(command), Some(tool), "{command}");
        }
        #[cfg(not(target_os = "macos"))]
        assert_eq!(
            tool_as_program("mdfind -name x.pdf"),
            Some(ToolName::Mdfind)
        );
    }

    #[test]
    fn a_tool_name_as_an_argument_or_inside_a_word_is_not_a_program() {
        for command in [
            "grep -r read_file src",
            "ls ~/glob_results",
            "echo write_file",
            "cat notes/read_file.txt",
            "ls -1 ~/Downloads/*.pdf | wc -l",
        ] {
            assert_eq!(tool_as_program(command), None, "{command}");
        }
    }
}
