//! `prompt size --html FILE`, opened in a real headless Chromium: the DOM
//! the browser builds holds every layer with the numbers `--json` prints,
//! the breakpoint after the last Stable layer, the silent layers with their
//! reasons, and no element injected by a hostile file name.
//!
//! Chromium is found as `$CHROMIUM`, else `chromium`, `chromium-browser` or
//! `google-chrome` on `PATH`. Without one the test says so and passes, but
//! only outside CI: with `CI` set, a missing browser fails it (`.ci/run`
//! installs Debian's `chromium`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Workspace;

/// A skill folder whose name is markup: its note reaches the report.
const HOSTILE: &str = "<img src=x onerror=alert(1)>";

pub(crate) fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let dirs = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&dirs).map(move |dir| dir.join(name)))
        .find(|path| path.is_file())
}

/// The DOM Chromium builds from `page`, serialized (`--dump-dom`); at most
/// two minutes, then the browser is killed and the test fails.
pub(crate) fn dump_dom(browser: &Path, page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut dom).unwrap();
        dom
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish dumping the DOM in two minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

/// The start tags named `tag` in `html`, each as its attributes, in order.
pub(crate) fn tags<'a>(html: &'a str, tag: &str) -> Vec<(usize, Vec<(&'a str, String)>)> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = html[at..].find(&open) {
        let start = at + found;
        let end = start + html[start..].find('>').unwrap();
        out.push((start, attributes(&html[start + open.len()..end])));
        at = end;
    }
    out
}

/// `a="b" c="d"` as pairs, entities in values decoded.
fn attributes(text: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].trim();
        let value_start = eq + 2;
        let value_end = value_start + rest[value_start..].find('"').unwrap();
        let value = rest[value_start..value_end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&");
        out.push((name, value));
        rest = rest[value_end + 1..].trim_start();
    }
    out
}

pub(crate) fn get<'a>(attrs: &'a [(&str, String)], name: &str) -> &'a str {
    attrs
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no attribute {name} in {attrs:?}"))
}

fn number(value: &serde_json::Value) -> String {
    value.as_u64().map_or_else(String::new, |n| n.to_string())
}

#[test]
fn the_report_holds_every_layer_with_the_json_numbers_in_a_real_browser() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no chromium is installed: .ci/run installs Debian's `chromium`; \
             set CHROMIUM to its path if it is elsewhere"
        );
        eprintln!(
            "SKIPPED: no chromium on PATH (and CI unset): the HTML report was not checked in a \
             browser; `apt-get install chromium` or set CHROMIUM to run it"
        );
        return;
    };
    let ws = Workspace::empty(&[]);
    ws.write("AGENTS.md", "Run `make test` before you commit.");
    ws.write(
        &format!(".agent/skills/{HOSTILE}/SKILL.md"),
        "no frontmatter here",
    );
    let report = ws.dir.path().join("report.html");
    let output = ws.run(&["size", "--html", "report.html", "--turns", "4"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = ws.run(&["size", "--json", "--tokenizer", "approx"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cache = ws.run(&["cache", "--turns", "4", "--json"]);
    let cache: serde_json::Value = serde_json::from_slice(&cache.stdout).unwrap();

    let dom = dump_dom(&browser, &report);
    assert!(dom.contains("<body"), "chromium printed no DOM: {dom}");

    // Nothing from a file became an element or an attribute.
    assert!(!dom.contains("<img"), "an element was injected:\n{dom}");
    assert!(!dom.contains("onerror=alert(1)>"), "{dom}");
    assert!(
        dom.contains("skipped: .agent/skills/&lt;img src=x onerror=alert(1)&gt;/SKILL.md"),
        "the hostile name is shown as text:\n{dom}"
    );

    let sections = tags(&dom, "section");
    let rows = tags(&dom, "tr");
    let assemblies = json["assemblies"].as_array().unwrap();
    let assembly_sections: Vec<_> = sections
        .iter()
        .filter(|(_, a)| get(a, "class") == "assembly")
        .collect();
    assert_eq!(assembly_sections.len(), assemblies.len());
    // The Cached path comes first.
    assert_eq!(get(&assembly_sections[0].1, "data-path"), "cached");
    for expected in assemblies {
        let (path, mode) = (
            expected["path"].as_str().unwrap(),
            expected["mode"].as_str().unwrap(),
        );
        let index = assembly_sections
            .iter()
            .position(|(_, a)| get(a, "data-path") == path && get(a, "data-mode") == mode)
            .unwrap_or_else(|| panic!("no section for {path}/{mode}"));
        let (start, attrs) = assembly_sections[index];
        assert_eq!(
            get(attrs, "data-stable-bytes"),
            number(&expected["stable_bytes"])
        );
        assert_eq!(
            get(attrs, "data-dynamic-bytes"),
            number(&expected["dynamic_bytes"])
        );
        assert_eq!(get(attrs, "data-tokens"), number(&expected["tokens"]));
        let end = assembly_sections
            .get(index + 1)
            .map_or(dom.len(), |(next, _)| *next);
        let own: Vec<_> = rows
            .iter()
            .filter(|(at, _)| (*start..end).contains(at))
            .map(|(_, a)| a)
            .collect();
        let layers: Vec<_> = own
            .iter()
            .filter(|a| get(a, "class").starts_with("layer"))
            .collect();
        let json_layers = expected["layers"].as_array().unwrap();
        assert_eq!(layers.len(), json_layers.len(), "{path}/{mode}");
        for (row, layer) in layers.iter().zip(json_layers) {
            assert_eq!(get(row, "data-name"), layer["name"].as_str().unwrap());
            assert_eq!(get(row, "data-bytes"), number(&layer["bytes"]));
            assert_eq!(get(row, "data-tokens"), number(&layer["tokens"]));
            assert_eq!(
                get(row, "data-stability"),
                layer["stability"].as_str().unwrap()
            );
            assert_eq!(
                get(row, "data-scope"),
                layer["scope"].as_str().unwrap_or("")
            );
            assert_eq!(
                get(row, "data-silent"),
                (layer["bytes"].as_u64() == Some(0)).to_string()
            );
        }
        // The breakpoints: on the Cached path only, one after the last
        // speaking Stable layer of each scope, as the Anthropic request
        // carries them; the last closes the stable prefix.
        let breakpoints: Vec<usize> = own
            .iter()
            .enumerate()
            .filter(|(_, a)| get(a, "class") == "breakpoint")
            .map(|(i, _)| i)
            .collect();
        if path == "cached" {
            let speaking: Vec<&serde_json::Value> = json_layers
                .iter()
                .filter(|l| l["stability"] == "stable" && l["bytes"].as_u64() != Some(0))
                .collect();
            let expected: Vec<&str> = speaking
                .iter()
                .enumerate()
                .filter(|(k, l)| {
                    speaking
                        .get(k + 1)
                        .is_none_or(|next| next["scope"] != l["scope"])
                })
                .map(|(_, l)| l["name"].as_str().unwrap())
                .collect();
            let after: Vec<&str> = breakpoints
                .iter()
                .map(|&i| get(own[i], "data-after"))
                .collect();
            assert_eq!(after, expected, "{path}/{mode}");
            for &i in &breakpoints {
                assert_eq!(get(own[i - 1], "data-name"), get(own[i], "data-after"));
            }
            let last = *breakpoints.last().unwrap();
            for row in &own[last + 1..] {
                assert!(
                    get(row, "data-stability") == "dynamic" || get(row, "data-silent") == "true",
                    "{path}/{mode}: a speaking Stable layer after the prefix's end"
                );
            }
        } else {
            assert!(breakpoints.is_empty(), "{path}/{mode}");
        }
    }
    // Silent layers are listed with why.
    let silent: Vec<_> = tags(&dom, "li")
        .into_iter()
        .map(|(_, a)| get(&a, "data-name").to_owned())
        .collect();
    assert!(silent.contains(&"skills_index".to_owned()), "{silent:?}");
    assert!(
        dom.contains("<b>skills_index</b> was silent: skipped:"),
        "{dom}"
    );

    // The cache chart: the simulation `prompt cache --json` prints.
    let (_, chart) = sections
        .iter()
        .find(|(_, a)| get(a, "class") == "cache")
        .unwrap();
    assert_eq!(get(chart, "data-turns"), "4");
    assert_eq!(
        get(chart, "data-total-cost"),
        format!("{:.2}", cache["total"]["cost"].as_f64().unwrap())
    );
    assert_eq!(
        get(chart, "data-uncached-cost"),
        number(&cache["uncached_cost"])
    );
    let series = tags(&dom, "polyline");
    assert_eq!(series.len(), 2);
    assert_eq!(get(&series[1].1, "data-series"), "with-cache");
    assert_eq!(
        get(&series[1].1, "points").split(' ').count(),
        4,
        "one point per turn"
    );
}

/// Without a browser: the page as written holds a hostile file name only as
/// escaped text, forbids scripts and fetches, and loads nothing.
#[test]
fn the_report_file_escapes_what_files_say_and_loads_nothing() {
    let ws = Workspace::empty(&[]);
    ws.write(
        &format!(".agent/skills/{HOSTILE}/SKILL.md"),
        "no frontmatter here",
    );
    let output = ws.run(&["size", "--html", "report.html", "--turns", "2"]);
    assert!(output.status.success());
    let page = std::fs::read_to_string(ws.dir.path().join("report.html")).unwrap();
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{page}"
    );
    assert!(page.contains("default-src 'none'"));
    for forbidden in [
        "<script",
        "<link",
        "src=\"http",
        "href=\"http",
        "@import",
        "url(",
    ] {
        assert!(!page.contains(forbidden), "{forbidden}");
    }
    // Nothing else was left beside it (no temporary file).
    let mut names: Vec<_> = std::fs::read_dir(ws.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, [".agent", "report.html"]);
}
