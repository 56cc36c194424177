//! Issue 31, weak item: `prompt size --html PATH` renamed a temporary file
//! over PATH whatever it was; run as root with `--html /dev/null` it
//! replaced the machine's `/dev/null` with a regular file. Every file the
//! tools write now goes through one writer that refuses a target that exists
//! and is not a regular file, names it, and replaces nothing.
//!
//! The targets are made in a temporary folder: a FIFO (`mkfifo`), a socket,
//! a folder, a symbolic link to the FIFO and, when the tests run as root, a
//! character device of the same numbers as `/dev/null` (`mknod c 1 3`). The
//! real `/dev/null` is never named.

use crate::common;

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Output;

use common::Workspace;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn made(status: std::io::Result<std::process::ExitStatus>) -> bool {
    status.is_ok_and(|s| s.success())
}

/// What `path` is, without following a link.
fn what(path: &Path) -> &'static str {
    let kind = std::fs::symlink_metadata(path).unwrap().file_type();
    if kind.is_fifo() {
        "fifo"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_char_device() {
        "char device"
    } else if kind.is_dir() {
        "folder"
    } else if kind.is_symlink() {
        "link"
    } else {
        "file"
    }
}

#[test]
fn size_html_refuses_a_fifo_a_socket_a_device_a_folder_and_a_link() {
    let ws = Workspace::empty(&[]);
    let dir = ws.dir.path();
    let fifo = dir.join("report.fifo");
    assert!(made(
        std::process::Command::new("mkfifo").arg(&fifo).status()
    ));
    let socket = dir.join("report.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let folder = dir.join("report.d");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("keep"), "x").unwrap();
    let link = dir.join("report.link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let mut targets = vec![
        ("report.fifo", "a FIFO (named pipe)", "fifo"),
        ("report.sock", "a socket", "socket"),
        ("report.d", "a folder", "folder"),
        ("report.link", "a symbolic link", "link"),
    ];
    // A device node of our own (root only): the same numbers as /dev/null.
    let device = dir.join("null.dev");
    if made(
        std::process::Command::new("mknod")
            .arg(&device)
            .args(["c", "1", "3"])
            .status(),
    ) {
        targets.push(("null.dev", "a character device", "char device"));
        let device_link = dir.join("null.link");
        std::os::unix::fs::symlink(&device, &device_link).unwrap();
        targets.push(("null.link", "a symbolic link", "link"));
    }
    for (name, said, kind) in targets {
        let output = ws.run(&["size", "--html", name]);
        let err = stderr(&output);
        assert!(!output.status.success(), "{name}: {err}");
        assert!(
            err.contains(&format!(
                "cannot write {name}: it is {said}, not a regular file; nothing was written"
            )),
            "{name}: {err}"
        );
        assert_eq!(what(&dir.join(name)), kind, "{name} was replaced");
    }
    assert_eq!(what(&fifo), "fifo");
    assert!(folder.join("keep").is_file());
    if device.exists() {
        assert_eq!(what(&device), "char device");
    }
    // No temporary file was left beside them.
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(left, Vec::<String>::new());

    // A regular file, or a new one, is written.
    let ok = ws.run(&["size", "--html", "report.html"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(
        std::fs::read_to_string(dir.join("report.html"))
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

/// Round four, issue 38: `prompt size --html reports/r.html` in a
/// repository whose `reports` is a symlink out of it (to a folder of the
/// user's) wrote the report there. The folders of a path inside the
/// workspace are checked like the file: a symlink on the way that leads
/// out is refused, named as the workspace names it, and nothing is written
/// anywhere; a link that stays inside is written through; `reports/..` is
/// taken by name (the workspace), never as the parent of where the link
/// points; a path outside the workspace is the user's own, written as given.
#[test]
fn size_html_refuses_a_folder_of_the_path_that_links_out_of_the_workspace() {
    let ws = Workspace::empty(&[]);
    let dir = ws.dir.path();
    let user = tempfile::tempdir().unwrap();
    let theirs = user.path().join("config/autostart");
    std::fs::create_dir_all(&theirs).unwrap();
    std::os::unix::fs::symlink(&theirs, dir.join("reports")).unwrap();
    std::fs::create_dir(dir.join("out")).unwrap();
    std::os::unix::fs::symlink(&theirs, dir.join("out/deep")).unwrap();
    for (html, link) in [
        ("reports/r.html", "reports"),
        ("out/deep/r.html", "out/deep"),
    ] {
        let output = ws.run(&["size", "--html", html]);
        assert!(!output.status.success(), "{html}");
        assert_eq!(
            stderr(&output).trim_end(),
            format!(
                "prompt: cannot write {html}: its folder leads outside the workspace through the \
                 symlink {link}; nothing was written (a repository may not choose where its \
                 folders point: give a path whose folders are inside the workspace, or one \
                 outside it)"
            )
        );
        assert!(!stderr(&output).contains(&*user.path().to_string_lossy()));
    }
    let names = |d: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert!(names(&theirs).is_empty(), "{:?}", names(&theirs));

    // `reports/../r.html`: the workspace's `r.html`, not `config/r.html`.
    let output = ws.run(&["size", "--html", "reports/../r.html"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(dir.join("r.html").is_file());
    assert_eq!(names(&user.path().join("config")), ["autostart"]);

    // A link inside the workspace, and a folder outside it, are written to.
    std::fs::create_dir_all(dir.join("build/reports")).unwrap();
    std::os::unix::fs::symlink("build/reports", dir.join("latest")).unwrap();
    let output = ws.run(&["size", "--html", "latest/r.html"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(dir.join("build/reports/r.html").is_file());
    let mine = user.path().join("mine.html");
    let output = ws.run(&["size", "--html", &mine.to_string_lossy()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(mine.is_file());
}
