//! A stand-in for the desktop's notification server, for the end-to-end run of the real
//! app (tests/desktop/e2e.py) on a D-Bus session where nothing else serves
//! `org.freedesktop.Notifications`. It answers `Notify` with a fresh id and appends
//! each notification to the file named by its one argument, one JSON line each:
//! `{"id": 1, "summary": "…", "body": "…", "actions": ["approve", "Approve", …]}`. A
//! click is played by emitting `ActionInvoked(id, action)` on the session bus (the run
//! does it with `dbus-send`), as a real server does when the user clicks.

#[cfg(target_os = "linux")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    server::run()
}

/// Elsewhere the system's own notification centre is no D-Bus service to stand in for.
#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("notification-server stands in for a D-Bus notification server: Linux only");
    std::process::exit(2);
}

#[cfg(target_os = "linux")]
mod server {
    use std::io::Write;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The server's state: where it logs, and the last id it gave.
    struct Server {
        log: std::path::PathBuf,
        last: AtomicU32,
    }

    #[zbus::interface(name = "org.freedesktop.Notifications")]
    impl Server {
        /// Shows a notification: here, logs it and gives it an id.
        #[allow(clippy::too_many_arguments)] // the specification's signature
        fn notify(
            &self,
            _app_name: String,
            _replaces_id: u32,
            _app_icon: String,
            summary: String,
            body: String,
            actions: Vec<String>,
            _hints: std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
            _expire_timeout: i32,
        ) -> zbus::fdo::Result<u32> {
            let id = self.last.fetch_add(1, Ordering::SeqCst) + 1;
            let line =
                serde_json::json!({"id": id, "summary": summary, "body": body, "actions": actions});
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.log)
                .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
            writeln!(file, "{line}").map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
            Ok(id)
        }

        /// What it can show: bodies and actions.
        fn get_capabilities(&self) -> Vec<String> {
            vec!["body".into(), "actions".into()]
        }

        /// Who it is.
        fn get_server_information(&self) -> (String, String, String, String) {
            (
                "e2e-notifications".into(),
                "artoo".into(),
                "1".into(),
                "1.2".into(),
            )
        }

        /// Closing is not shown here.
        fn close_notification(&self, _id: u32) {}
    }

    /// Serves the session bus until killed.
    pub fn run() -> Result<(), Box<dyn std::error::Error>> {
        let log = std::env::args_os()
            .nth(1)
            .ok_or("usage: notification-server <log file>")?;
        let server = Server {
            log: log.into(),
            last: AtomicU32::new(0),
        };
        let _connection = zbus::blocking::connection::Builder::session()?
            .name("org.freedesktop.Notifications")?
            .serve_at("/org/freedesktop/Notifications", server)?
            .build()?;
        loop {
            std::thread::park();
        }
    }
}
