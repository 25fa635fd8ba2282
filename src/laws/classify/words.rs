//! Word lists shared by the layers of the classifier: which paths configure the system
//! or hold credentials, which variables make programs run other code, and which program
//! names are shells, interpreters, senders or disk tools.
//!
//! **Invariant:** a leaf: plain predicates over names and paths, depending on nothing
//! else in the classifier. A list only ever errs towards the careful answer (a path in
//! doubt counts as sensitive, a program in doubt as a sender).

use std::path::Path;

/// Folders where installed programs live: a program named by a path in one of them is
/// that program; any other path is a local file whose content decides.
pub(super) const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
    "/opt/homebrew/sbin/",
    "/usr/libexec/",
];

/// Environment variables that make programs run other code (pagers, editors, hooks,
/// preloaded libraries, start-up files) or look programs up elsewhere.
pub(super) fn is_code_variable(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "BASH_ENV"
            | "ENV"
            | "PROMPT_COMMAND"
            | "PAGER"
            | "MANPAGER"
            | "GIT_PAGER"
            | "EDITOR"
            | "VISUAL"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PYTHONSTARTUP"
            | "PYTHONPATH"
            | "PYTHONHOME"
            | "NODE_OPTIONS"
            | "NODE_PATH"
            | "PERL5OPT"
            | "PERL5LIB"
            | "RUBYOPT"
            | "RUBYLIB"
            | "CDPATH"
            | "TMUX"
            | "SSH_AUTH_SOCK"
    ) || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_")
        || name.starts_with("BASH_FUNC_")
}

/// Files and folders whose change alters how the computer or the shell behaves: system
/// folders, the home folder's dot-files and dot-folders (shell start-up files, `~/.ssh`,
/// `~/.config`), `~/bin`, launch agents and login items, and any repository's hooks and
/// configuration (both run commands). Writing there is never free, new files included.
pub fn is_sensitive_path(path: &Path, home: &Path) -> bool {
    const SYSTEM: &[&str] = &[
        "/etc",
        "/private/etc",
        "/Library",
        "/System",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/boot",
        "/opt",
        "/var/spool/cron",
        "/var/at",
        "/var/db",
        "/dev",
        "/proc",
        "/sys",
    ];
    if SYSTEM.iter().any(|p| path.starts_with(p)) {
        return true;
    }
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if comps
        .windows(2)
        .any(|w| w[0] == ".git" && matches!(w[1].as_str(), "hooks" | "config"))
    {
        return true;
    }
    if let Ok(rest) = path.strip_prefix(home) {
        let mut comps = rest.components();
        if let Some(first) = comps.next() {
            let first = first.as_os_str().to_string_lossy();
            if first.starts_with('.') || first == "bin" {
                return true;
            }
            if first == "Library" {
                let second = comps
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .unwrap_or_default();
                let third = comps
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .unwrap_or_default();
                return matches!(
                    second.as_str(),
                    "LaunchAgents" | "LaunchDaemons" | "Preferences" | "StartupItems"
                ) || (second == "Application Support"
                    && third.starts_with("com.apple.backgroundtaskmanagement"));
            }
        }
    }
    false
}

/// Whether something runs the file later: an executable, a script (by its first line or
/// its kind), a file of build or package commands, a shell's start-up file, a Git hook, a
/// crontab, a launch agent or an autostart entry. Adding lines to one plants commands
/// that run outside any sandbox, so an append there counts as an overwrite.
pub fn runs_later(path: &Path) -> bool {
    use std::io::Read as _;
    use std::os::unix::fs::PermissionsExt as _;
    /// Files whose lines are commands for a build, a package manager or a shell.
    const COMMAND_FILES: &[&str] = &[
        "makefile",
        "gnumakefile",
        "justfile",
        "rakefile",
        "package.json",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "tox.ini",
        "noxfile.py",
        "build.gradle",
        "cmakelists.txt",
        "dockerfile",
        "procfile",
        "crontab",
        ".envrc",
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".login",
        ".cshrc",
        ".tcshrc",
    ];
    /// Kinds of file that interpreters run.
    const SCRIPT_KINDS: &[&str] = &[
        "sh",
        "bash",
        "zsh",
        "fish",
        "ksh",
        "csh",
        "command",
        "tool",
        "ps1",
        "bat",
        "cmd",
        "py",
        "rb",
        "pl",
        "php",
        "js",
        "mjs",
        "cjs",
        "ts",
        "lua",
        "tcl",
        "applescript",
        "scpt",
        "mk",
        "service",
        "timer",
        "desktop",
    ];
    /// Folders whose files the system runs on its own.
    const RUN_FOLDERS: &[&str] = &[
        "hooks",
        "LaunchAgents",
        "LaunchDaemons",
        "autostart",
        "systemd",
        "cron.d",
        "init.d",
    ];
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if COMMAND_FILES.contains(&name.as_str()) {
        return true;
    }
    let kind = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if SCRIPT_KINDS.contains(&kind.as_str()) {
        return true;
    }
    if path
        .components()
        .any(|c| RUN_FOLDERS.iter().any(|f| c.as_os_str() == *f))
    {
        return true;
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if meta.is_file() && meta.permissions().mode() & 0o111 != 0 {
        return true;
    }
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"#!")
}

/// Programs that can send data off this computer.
pub(super) fn is_sender(name: &str) -> bool {
    matches!(
        name,
        "curl"
            | "wget"
            | "nc"
            | "ncat"
            | "netcat"
            | "socat"
            | "telnet"
            | "ssh"
            | "scp"
            | "sftp"
            | "rsync"
            | "gh"
            | "http"
            | "https"
            | "xh"
            | "xhs"
            | "mail"
            | "mailx"
            | "sendmail"
            | "mutt"
            | "msmtp"
            | "swaks"
            | "ftp"
            | "lftp"
            | "git"
            | "aws"
            | "gsutil"
            | "rclone"
            | "s3cmd"
            | "openssl"
            | "python"
            | "python3"
            | "node"
            | "perl"
            | "ruby"
            | "php"
            | "pbcopy"
    )
}

/// Files that hold credentials: private keys, cloud and API tokens, password stores.
pub(super) fn is_secret_path(path: &Path, home: &Path) -> bool {
    let s = path.to_string_lossy();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let in_home = |rel: &str| path.starts_with(home.join(rel));
    (in_home(".ssh")
        && (name.starts_with("id_") || name.contains("key"))
        && !name.ends_with(".pub"))
        || in_home(".aws")
        || in_home(".gnupg")
        || in_home(".netrc")
        || in_home(".config/gh")
        || in_home(".docker/config.json")
        || in_home(".kube")
        || in_home(".git-credentials")
        || in_home("Library/Keychains")
        || name.ends_with(".pem") && s.contains("private")
        || name.ends_with(".key")
        || name == ".env"
        || name == "credentials"
}

/// Programs whose every run destroys something: even a word a wrapper's options may
/// hide is taken as the command when it names one.
pub(super) fn is_verb_always_gated(name: &str) -> bool {
    matches!(
        name,
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" | "truncate" | "rimraf"
    ) || is_disk_tool(name)
}

/// Tools that make file systems or partition tables, or erase disks.
pub(super) fn is_disk_tool(name: &str) -> bool {
    name.starts_with("mkfs")
        || name.starts_with("newfs")
        || matches!(
            name,
            "mke2fs"
                | "mkswap"
                | "wipefs"
                | "fdisk"
                | "sfdisk"
                | "gdisk"
                | "cfdisk"
                | "parted"
                | "sgdisk"
                | "mkdosfs"
                | "zpool"
        )
}

/// Shells: their `-c` string and script files are walked as shell code.
pub(super) fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "csh" | "tcsh" | "ash" | "yash"
    )
}

/// Interpreters of other languages: their code is scanned, never proven.
pub(super) fn is_interpreter(name: &str) -> bool {
    name.starts_with("python")
        || matches!(
            name,
            "perl"
                | "ruby"
                | "node"
                | "nodejs"
                | "php"
                | "lua"
                | "rscript"
                | "deno"
                | "bun"
                | "tclsh"
                | "pwsh"
                | "powershell"
                | "jshell"
                | "groovy"
                | "julia"
        )
}

#[cfg(test)]
mod run_later_tests {
    use super::runs_later;

    #[test]
    fn scripts_build_files_start_up_files_and_executables_run_later_and_logs_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        };
        for p in [
            file("scripts/build.sh", "echo hi\n"),
            file("Makefile", "all:\n"),
            file("package.json", "{}"),
            file(".zshrc", ""),
            file("repo/.git/hooks/pre-commit", ""),
            file("tool", "#!/bin/sh\n"),
        ] {
            assert!(runs_later(&p), "{}", p.display());
        }
        let exe = file("bin-like", "binary");
        std::fs::set_permissions(
            &exe,
            <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
        )
        .unwrap();
        assert!(runs_later(&exe));
        for p in [
            file("app.log", "line\n"),
            file("notes.txt", "#note\n"),
            file("data.csv", "a,b\n"),
        ] {
            assert!(!runs_later(&p), "{}", p.display());
        }
    }
}
