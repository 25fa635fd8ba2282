//! `artoo grants`: the standing "always allow" grants, numbered — grants by effect
//! ("deleting .tmp files under ~/Downloads", with how often each was used) and grants of
//! MCP tools — and `artoo grants revoke N` to take one back. A revoked grant asks again
//! at once: every check reads the grants file anew.
//!
//! **Invariant:** listing only reads; `revoke` removes exactly the grant it names.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};

use artoo::config::Config;
use artoo::laws::grants::{EffectGrant, Grant, GrantStore};

#[derive(Args, Debug, Default)]
pub struct GrantsArgs {
    #[command(subcommand)]
    pub command: Option<GrantsCommand>,
}

#[derive(Subcommand, Debug)]
pub enum GrantsCommand {
    /// Revoke the grant with this number in the list.
    Revoke {
        /// Its number, as `artoo grants` shows it.
        number: usize,
    },
}

/// One standing grant, as the list numbers it.
enum Listed {
    Effect(EffectGrant),
    Mcp(Grant),
}

fn listed(store: &GrantStore) -> anyhow::Result<Vec<Listed>> {
    let mut all: Vec<Listed> = store
        .effect_grants()
        .context("reading the grants")?
        .into_iter()
        .map(Listed::Effect)
        .collect();
    all.extend(
        store
            .list()
            .context("reading the grants")?
            .into_iter()
            .map(Listed::Mcp),
    );
    Ok(all)
}

fn line(n: usize, grant: &Listed) -> String {
    match grant {
        Listed::Effect(g) => {
            let used = match (g.uses, g.last_used) {
                (0, _) | (_, None) => "not used yet".to_string(),
                (1, Some(at)) => format!("used once, {}", at.format("%Y-%m-%d %H:%M UTC")),
                (n, Some(at)) => {
                    format!("used {n} times, last {}", at.format("%Y-%m-%d %H:%M UTC"))
                }
            };
            format!(
                "{n:>3}. {} — since {}, {used}",
                g.class.words,
                g.granted_at.format("%Y-%m-%d")
            )
        }
        Listed::Mcp(g) => format!(
            "{n:>3}. the MCP tool `{}` of `{}` ({}) — since {}",
            g.subject.tool,
            g.subject.server,
            g.subject.origin,
            g.granted_at.format("%Y-%m-%d")
        ),
    }
}

/// The list's lines: one per grant, numbered, or why there is none.
fn table(all: &[Listed]) -> Vec<String> {
    if all.is_empty() {
        return vec![
            "No standing grants: every action that cannot be undone asks.".to_string(),
            "The dialog offers \"always\" for a kind of change in a folder once you approved it a few times (laws.offer_always_after).".to_string(),
        ];
    }
    let mut lines = vec!["Allowed without asking, until revoked:".to_string()];
    lines.extend(all.iter().enumerate().map(|(i, g)| line(i + 1, g)));
    lines.push("Revoke one with `artoo grants revoke N`.".to_string());
    lines
}

pub fn run(config: &Config, args: GrantsArgs) -> anyhow::Result<()> {
    let store = GrantStore::in_dir(&config.data_dir);
    let all = listed(&store)?;
    match args.command {
        None => {
            for l in table(&all) {
                println!("{l}");
            }
        }
        Some(GrantsCommand::Revoke { number }) => {
            let Some(grant) = number.checked_sub(1).and_then(|i| all.get(i)) else {
                bail!(
                    "there is no grant number {number} (`artoo grants` lists {})",
                    all.len()
                );
            };
            let removed = match grant {
                Listed::Effect(g) => store.revoke_effect(&g.class)?,
                Listed::Mcp(g) => store.revoke(&g.subject)?,
            };
            if removed {
                println!("Revoked: {}", line(number, grant).trim_start());
                println!("The next such action asks again.");
            } else {
                bail!("grant number {number} was revoked meanwhile");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use artoo::contracts::{EffectClass, FileEffect, GrantSubject};
    use chrono::{TimeZone, Utc};

    fn class(ext: &str) -> EffectClass {
        EffectClass {
            effect: FileEffect::Delete,
            place: "/h/Downloads".into(),
            extension: Some(ext.into()),
            words: format!("deleting .{ext} files under ~/Downloads"),
        }
    }

    #[test]
    fn the_list_numbers_grants_by_effect_then_mcp_tools_and_revoke_takes_exactly_one() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::with_dirs(dir.path().join("data"), dir.path());
        let store = GrantStore::in_dir(&config.data_dir);
        assert!(table(&listed(&store).unwrap())[0].starts_with("No standing grants"));
        let at = Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap();
        store.add_effect(class("tmp"), at).unwrap();
        store.add_effect(class("log"), at).unwrap();
        store
            .add(
                GrantSubject {
                    server: "files".into(),
                    origin: "mcp-server-filesystem /w".into(),
                    tool: "write_file".into(),
                    fingerprint: "ab".into(),
                },
                at,
            )
            .unwrap();
        let lines = table(&listed(&store).unwrap());
        assert_eq!(
            lines[1],
            "  1. deleting .tmp files under ~/Downloads — since 2026-11-30, not used yet"
        );
        assert!(
            lines[2].starts_with("  2. deleting .log files"),
            "{lines:?}"
        );
        assert!(
            lines[3].starts_with("  3. the MCP tool `write_file` of `files`"),
            "{lines:?}"
        );

        run(
            &config,
            GrantsArgs {
                command: Some(GrantsCommand::Revoke { number: 2 }),
            },
        )
        .unwrap();
        let left: Vec<String> = store
            .effect_grants()
            .unwrap()
            .into_iter()
            .map(|g| g.class.words)
            .collect();
        assert_eq!(left, ["deleting .tmp files under ~/Downloads"]);
        assert_eq!(store.list().unwrap().len(), 1);
        let none = run(
            &config,
            GrantsArgs {
                command: Some(GrantsCommand::Revoke { number: 7 }),
            },
        );
        assert!(none.unwrap_err().to_string().contains("no grant number 7"));
    }
}
