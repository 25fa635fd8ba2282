//! Databases, containers and infrastructure: SQL clients, `dropdb` and dump/restore
//! tools, MongoDB and Redis clients, Docker and Kubernetes, Terraform and its kin.
//!
//! **Invariant:** a statement or sub-command that changes or drops data is an effect; SQL the
//! rule cannot read, and any database server, are unproven.

use super::generic::generic;
use super::rule::{Call, Rule, rule};
use crate::laws::classify::args::{Stdin, first_operand, parse};
use crate::laws::classify::assessment::EffectKind;
use crate::laws::classify::scan;
use crate::laws::classify::walker::Walker;

pub(super) const RULES: &[Rule] = &[
    rule(&["docker", "podman", "nerdctl", "docker-compose"], docker),
    rule(&["kubectl", "oc", "helm"], kubectl),
    rule(&["sqlite3", "psql", "mysql", "mariadb", "duckdb"], sql),
    rule(&["dropdb", "dropuser", "mysqladmin"], dropdb),
    rule(&["pg_restore"], pg_restore),
    rule(&["pg_dump", "pg_dumpall", "mysqldump"], pg_dump),
    rule(&["mongo", "mongosh"], mongo),
    rule(&["redis-cli"], redis_cli),
    rule(&["terraform", "tofu", "pulumi", "cdk"], terraform),
];

fn docker(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    let p = parse(
        rest,
        "HcL",
        &["host", "context", "log-level", "config"],
        false,
    );
    let ops: Vec<&str> = p.operands.iter().map(|a| a.text()).collect();
    let volumes = rest
        .iter()
        .any(|a| matches!(a.text(), "-v" | "--volumes" | "--rmi"));
    let destructive = match ops.as_slice() {
        [first, ..] if matches!(*first, "rm" | "rmi" | "kill") => true,
        [_, second, ..] if matches!(*second, "rm" | "prune" | "kill" | "reset") => true,
        ["compose", "down", ..] | ["compose", _, "down", ..] if volumes => true,
        ["down", ..] if volumes && name == "docker-compose" => true,
        _ => false,
    };
    if destructive {
        w.unknown(EffectKind::Delete, "containers, images or volumes", source);
    }
}

fn kubectl(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        rest,
        depth,
        source,
        ..
    } = *c;
    if let Some(i) = rest.iter().position(|a| a.text() == "--")
        && rest.iter().any(|a| a.text() == "exec")
    {
        let saved = (w.cwd.clone(), w.remote.clone());
        w.cwd = None;
        w.remote = Some("a container".into());
        let inner = rest[i + 1..].to_vec();
        w.argv(&inner, &Stdin::Closed, None, depth);
        (w.cwd, w.remote) = saved;
    }
    if rest
        .iter()
        .any(|a| matches!(a.text(), "delete" | "drain" | "uninstall"))
    {
        w.unknown(EffectKind::Delete, "cluster resources", source);
    }
}

fn dropdb(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name, rest, source, ..
    } = *c;
    if name != "mysqladmin" || rest.iter().any(|a| a.text() == "drop") {
        w.unknown(EffectKind::Delete, "a database", source)
    } else {
        generic(w, name, rest, source);
    }
}

fn pg_restore(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        matches!(a.text(), "-c" | "--clean")
            || (a.text().starts_with('-') && !a.text().starts_with("--") && a.text().contains('c'))
    }) {
        w.unknown(
            EffectKind::Delete,
            "database objects it replaces (--clean)",
            source,
        );
    }
}

fn pg_dump(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, .. } = *c;
    let p = parse(rest, "fdhpUn", &["file", "result-file"], false);
    if let Some(out) = p
        .value("f")
        .or_else(|| p.value("file"))
        .or_else(|| p.value("result-file"))
        .cloned()
    {
        w.write_target(&out, "-f");
    }
}

fn mongo(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let code = rest
        .iter()
        .filter_map(|a| a.lit.as_deref())
        .collect::<Vec<_>>()
        .join(" ");
    let lower = code.to_ascii_lowercase();
    if [
        "drop",
        "delete",
        "remove(",
        "deletemany",
        "deleteone",
        "update",
        "insert",
        "renamecollection",
    ]
    .iter()
    .any(|k| lower.contains(k))
    {
        w.unknown(EffectKind::Overwrite, "data in the database", source);
    }
}

fn redis_cli(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    if rest.iter().any(|a| {
        matches!(
            a.text().to_ascii_lowercase().as_str(),
            "flushall" | "flushdb" | "del" | "unlink" | "shutdown"
        )
    }) {
        w.unknown(EffectKind::Delete, "Redis data", source);
    }
}

fn terraform(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call { rest, source, .. } = *c;
    let sub = first_operand(rest);
    let destroys = sub == "destroy"
        || rest
            .iter()
            .any(|a| matches!(a.text(), "-destroy" | "--destroy"));
    if destroys {
        w.unknown(EffectKind::Delete, "the infrastructure it manages", source);
    } else if matches!(
        sub,
        "apply" | "up" | "deploy" | "import" | "taint" | "state"
    ) {
        w.unknown(
            EffectKind::SystemConfig,
            "the infrastructure it manages",
            source,
        );
    }
}

fn sql(w: &mut Walker<'_>, c: &Call<'_>) {
    let Call {
        name,
        rest,
        stdin,
        source,
        ..
    } = *c;
    let p = parse(
        rest,
        "cefdhUpPsvo",
        &[
            "command", "execute", "file", "dbname", "host", "username", "port", "set", "variable",
            "output", "log-file",
        ],
        false,
    );
    if p.value("f").or_else(|| p.value("file")).is_some() && name != "sqlite3" {
        w.unproven(source, "the SQL is in a file");
    }
    for key in ["o", "output", "log-file"] {
        if let Some(out) = p.value(key).cloned() {
            w.write_target(&out, "-o");
        }
    }
    let mut texts: Vec<String> = Vec::new();
    for key in ["c", "command", "e", "execute"] {
        for v in p.values_of(key) {
            match &v.lit {
                Some(s) => texts.push(s.clone()),
                None => {
                    w.unproven(source, "the SQL is only known when the command runs");
                    return;
                }
            }
        }
    }
    // sqlite3 DB "SQL…"
    if name == "sqlite3" && p.operands.len() >= 2 {
        for op in &p.operands[1..] {
            match &op.lit {
                Some(s) => texts.push(s.clone()),
                None => {
                    w.unproven(source, "the SQL is only known when the command runs");
                    return;
                }
            }
        }
    }
    let reads_stdin = texts.is_empty() && p.value("f").is_none() && p.value("file").is_none();
    if reads_stdin {
        match stdin {
            Stdin::Literal(s) => texts.push(s.clone()),
            Stdin::Unknown => {
                w.unproven(
                    source,
                    "it reads SQL from its input, which cannot be checked",
                );
                return;
            }
            Stdin::Closed => {}
        }
    }
    if let Some(kw) = texts.iter().find_map(|t| scan::sql_write_keyword(t)) {
        w.unknown(
            EffectKind::Overwrite,
            format!("data in the database ({kw})"),
            source,
        );
    }
    // Client commands that run programs, read scripts or write files.
    if let Some(meta) = texts.iter().find_map(|t| scan::sql_client_command(t)) {
        w.unproven(source, format!("it uses the client command `{meta}`"));
    }
    if name != "sqlite3" {
        // A server: what it holds and who else uses it cannot be seen from here.
        w.unproven(source, format!("{name} talks to a database server"));
    }
}
