//! The desktop UI reads bus traffic and command results through TypeScript types generated
//! from the Rust contracts (ui/src/ipc/contracts.ts), never hand-written copies. This test
//! renders them and fails when the committed file has drifted from the Rust types.
//!
//! Regenerate with `ARTOO_BLESS_TS=1 cargo test --features specta --test it ts_contracts`
//! (or `npm run contracts`).

use std::path::Path;

use artoo::bus::Envelope;
use artoo::config::Settings;
use artoo::contracts::{MacroState, Message, MessageKind, Role};
use specta::Types;
use specta_typescript::Typescript;
use specta_util::Remapper;

const HEADER: &str = "// Generated from the Rust contracts (src/contracts, src/bus/envelope.rs, src/config.rs) by\n\
// tests/it/ts_contracts.rs. Never edit by hand: run `npm run contracts`.\n\
/* eslint-disable */";

fn render() -> String {
    let types = Types::default()
        .register::<Envelope>()
        .register::<Message>()
        .register::<MessageKind>()
        .register::<Role>()
        .register::<MacroState>()
        .register::<Settings>();
    // Every 64-bit integer on the bus is a count, a duration in ms or a sequence number, all
    // far below 2^53; the IPC carries JSON, so they reach the UI as JS numbers either way.
    let types = Remapper::new()
        .dangerous_bigints_as_number()
        .remap_types(types);
    let phased = Typescript::default()
        .header(HEADER)
        .export(&types, specta_serde::PhasesFormat)
        .expect("every contract has a TypeScript shape");
    serialized_names_by_default(&phased)
}

/// Where serde reads and writes different shapes (defaults, skipped fields) the exporter
/// emits `X_Serialize` and `X_Deserialize` and makes `X` their union. The UI mostly reads
/// what Rust wrote, so, as tauri-specta does, `X` names the serialised shape; commands
/// that send values back use `X_Deserialize` explicitly.
fn serialized_names_by_default(ts: &str) -> String {
    let mut out = String::with_capacity(ts.len());
    for line in ts.split_inclusive('\n') {
        let phased_alias = line
            .strip_prefix("export type ")
            .and_then(|rest| rest.split_once(" = "))
            .filter(|(name, rhs)| {
                rhs.trim_end() == format!("{name}_Serialize | {name}_Deserialize;")
            });
        match phased_alias {
            Some((name, _)) => out.push_str(&format!("export type {name} = {name}_Serialize;\n")),
            None => out.push_str(line),
        }
    }
    out
}

#[test]
fn the_committed_typescript_contracts_match_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/ipc/contracts.ts");
    let fresh = render();
    if std::env::var_os("ARTOO_BLESS_TS").is_some() {
        std::fs::write(&path, &fresh).expect("ui/src/ipc is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "ui/src/ipc/contracts.ts is out of date with the Rust contracts; run `npm run contracts` and commit the result"
    );
}

#[test]
fn criteria_serialise_in_the_shape_the_typescript_names() {
    use artoo::contracts::{Check, Criterion, CriterionMode};
    let ts = render();
    assert!(ts.contains(
        "export type CriterionShape_Serialize = string | { criterion: string; mode?: \
         CriterionMode | null; check?: Check_Serialize | null };"
    ));
    assert!(ts.contains("export type Criterion_Serialize = CriterionShape_Serialize;"));
    assert_eq!(
        serde_json::to_value(Criterion::new("lists a path")).unwrap(),
        serde_json::json!("lists a path")
    );
    assert_eq!(
        serde_json::to_value(Criterion::with_mode(
            "lists a path",
            CriterionMode::Plausible
        ))
        .unwrap(),
        serde_json::json!({"criterion": "lists a path", "mode": "plausible"})
    );
    // A criterion code checks carries its check; read back, it is the same criterion.
    let checked = Criterion::checked(
        "the list is saved",
        Check::FileExists {
            path: "~/out/list.txt".into(),
            contains: None,
        },
    );
    let written = serde_json::to_value(&checked).unwrap();
    assert_eq!(
        written,
        serde_json::json!({"criterion": "the list is saved", "mode": "verifiable",
            "check": {"kind": "file_exists", "path": "~/out/list.txt", "contains": null}})
    );
    assert_eq!(
        serde_json::from_value::<Criterion>(written).unwrap(),
        checked
    );
    let bare: Criterion = serde_json::from_value(serde_json::json!({"criterion": "c",
        "check": {"kind": "file_gone", "path": "/tmp/x"}}))
    .unwrap();
    assert_eq!(bare.mode, None);
    assert_eq!(
        bare.check,
        Some(Check::FileGone {
            path: "/tmp/x".into()
        })
    );
}

#[test]
fn a_tool_call_read_from_a_seed_string_is_written_as_the_exported_object() {
    use artoo::contracts::ToolCallRecord;
    let record: ToolCallRecord =
        serde_json::from_str(r#""shell: ls ~/Downloads → a.mp4""#).unwrap();
    let written = serde_json::to_value(&record).unwrap();
    let keys: Vec<&str> = written
        .as_object()
        .expect("an object, never the seed string")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "duration_ms",
            "error",
            "input",
            "output_head",
            "status",
            "target",
            "tool"
        ]
    );
    let ts = render();
    for key in keys {
        assert!(
            ts.contains(&format!("\t{key}: ")),
            "{key} missing from ToolCallRecord"
        );
    }
}
