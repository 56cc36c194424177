//! Issue 31, weak item: Codex instructions files were created 0666 under
//! umask 000 (0644 in a 0777 folder): any local user could read a prompt
//! holding the user's memory and the project's text. Now every instructions
//! file is 0600, whatever the umask, and a target that is not a regular file
//! is refused and left as it is.
//!
//! No test harness: the umask is a process's, so each case runs this binary
//! again as a child under `sh -c 'umask <mask> && exec <this binary>'`, which
//! writes the file; the parent checks its mode.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, ExitCode};

use prompt_checks::write::WriteError;
use prompt_providers::codex::{self, CodexError};

const CHILD: &str = "PRIVATE_FILES_WRITE_TO";

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn main() -> ExitCode {
    if let Some(path) = std::env::var_os(CHILD) {
        codex::write_instructions_text("You are terse.", Path::new(&path)).unwrap();
        return ExitCode::SUCCESS;
    }
    let dir = tempfile::tempdir().unwrap();
    // An open folder, as a shared cache folder may be.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    for umask in ["000", "002", "022", "077"] {
        for existing in [false, true] {
            let path = dir
                .path()
                .join(format!("instructions-{umask}-{existing}.md"));
            if existing {
                std::fs::write(&path, "old").unwrap();
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
            }
            let status = Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask} && exec \"$0\""))
                .arg(std::env::current_exe().unwrap())
                .env(CHILD, &path)
                .status()
                .unwrap();
            assert!(status.success(), "umask {umask}: the child failed");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "You are terse.");
            assert_eq!(
                mode(&path),
                0o600,
                "umask {umask}, existing {existing}: {:o}",
                mode(&path)
            );
        }
    }

    // A FIFO where the file should go: refused, named, left a FIFO.
    let fifo = dir.path().join("instructions-fifo.md");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()));
    let err = codex::write_instructions_text("You are terse.", &fifo).unwrap_err();
    assert!(
        matches!(
            &err,
            CodexError::File(WriteError::NotAFile {
                what: "a FIFO (named pipe)",
                ..
            })
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!(
            "cannot write {}: it is a FIFO (named pipe), not a regular file; nothing was written",
            fifo.display()
        )),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let temps = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        })
        .count();
    assert_eq!(temps, 0, "no temporary file is left");
    println!("private_files: ok");
    ExitCode::SUCCESS
}
