//! The model layer against the scripted server (real HTTP on 127.0.0.1), and extraction
//! over the malformed-reply corpus and generated input.

mod calls;
mod extraction;
mod probe;
mod scripted_server;
mod snapshots;
mod structured;

use std::path::PathBuf;

use artoo::FakeClock;
use artoo::bus::{Bus, Tap, TapEvent};
use artoo::config::LlmConfig;
use artoo::contracts::{LlmCall, Message, Role};
use artoo::llm::{Llm, RoleLlm};
use artoo::testkit::{Script, ScriptedServer, llm_config};

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/llm")
        .join(name)
}

pub fn script(name: &str) -> Script {
    Script::from_file(fixture(name)).expect("fixture script parses")
}

/// A scripted server, a client whose tiers both point at it, and a bus with a tap that
/// sees every `LlmCall` record.
pub struct Rig {
    pub server: ScriptedServer,
    pub llm: Llm,
    pub bus: Bus,
    pub tap: Tap,
}

impl Rig {
    pub async fn new(script: Script) -> Rig {
        Self::with(script, |_| {}).await
    }

    pub async fn with(script: Script, tweak: impl FnOnce(&mut LlmConfig)) -> Rig {
        let server = ScriptedServer::start(script).await.expect("server starts");
        let mut config = llm_config(&server.base_url());
        tweak(&mut config);
        let clock = FakeClock::at_epoch();
        let llm = Llm::new(&config, clock.clone()).expect("both tiers configured");
        let bus = Bus::new(clock);
        let tap = bus.tap("llm-test", 1024);
        Rig {
            server,
            llm,
            bus,
            tap,
        }
    }

    pub fn role(&self, role: Role) -> RoleLlm {
        self.llm
            .for_role(self.bus.handle(role))
            .expect("role has a tier")
    }

    /// Every `LlmCall` published so far, with its sender and receiver.
    pub fn calls(&mut self) -> Vec<(Role, Role, LlmCall)> {
        let mut calls = Vec::new();
        while let Some(event) = self.tap.try_recv() {
            match event {
                TapEvent::Message(env) => {
                    if let Message::LlmCall(call) = &env.message {
                        calls.push((env.from, env.to, call.clone()));
                    }
                }
                TapEvent::Gap { skipped } => panic!("the tap lost {skipped} messages"),
            }
        }
        calls
    }
}
