//! `prompt cache --users N`: a team of N over one workspace, priced by
//! [`TeamSimulation`]; this file only renders the prompts.

use crate::cli::CliError;
use crate::sources::{CappedText, MemoryFile, UserPreferences};
use prompt_core::PromptBuilder;
use prompt_core::tokens::{CountStats, Memoized, TokenCounter};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::simulation::{TeamPrefix, TeamSimulation};
use serde::Serialize;

use super::formats::DEFAULT_ANTHROPIC_MODEL;
use super::workspace::WorkspaceArgs;

/// What `--users N --json` prints: the simulation's report, with what
/// counting cost.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    report: &'a prompt_providers::simulation::TeamReport,
    counting: CountStats,
}

/// The report for `users` teammates who differ only in their one-line
/// `user.md` (`I am teammate K of N.`), as text or JSON.
///
/// The prompts share everything but that line, so one [`Memoized`] counter
/// serves the whole run: the shared text is counted once, not once per
/// teammate and prefix.
pub(crate) fn run(
    workspace: WorkspaceArgs,
    users: usize,
    ttl: Option<CacheTtl>,
    usd_per_mtok: f64,
    counter: &dyn TokenCounter,
    json: bool,
) -> Result<String, CliError> {
    let model = workspace
        .model
        .clone()
        .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned());
    let chosen = workspace.choose(prompt_core::AssemblyPath::Cached, None, None)?;
    let mut loaded = chosen.load()?;
    let path = loaded
        .session
        .get::<UserPreferences>()
        .map(|p| p.0.path.clone())
        .unwrap_or_else(|| "~/.agent/memory/user.md".into());
    let counter = Memoized::new(counter);
    let mut simulation = TeamSimulation::new(&model).usd_per_mtok(usd_per_mtok);
    if let Some(ttl) = ttl {
        simulation = simulation.ttl(ttl);
    }
    let mut team: Vec<TeamPrefix> = Vec::with_capacity(users);
    for k in 1..=users {
        let line = format!("I am teammate {k} of {users}.");
        loaded.session.insert(UserPreferences(MemoryFile::new(
            path.clone(),
            Some(CappedText::from_text(
                path.to_string_lossy(),
                &line,
                line.len(),
            )),
        )));
        let prompt = PromptBuilder::new(&loaded.pipeline)
            .build_cached(&loaded.session, &loaded.turn)
            .map_err(CliError::from_error)?;
        team.push(simulation.prefix(format!("teammate {k}"), &prompt, &counter));
    }
    let report = simulation
        .run(&team, &counter)
        .map_err(CliError::from_error)?;
    let counting = counter.stats();
    if json {
        let output = Output {
            report: &report,
            counting,
        };
        return super::escape::json(&output).map_err(CliError::from_error);
    }
    Ok(format!(
        "pipeline `{}`, {users} teammates who differ only in a one-line {}, tokens counted with {}\n{report}\n{}",
        loaded.pipeline.name(),
        path.display(),
        counter.name(),
        super::cache::estimate_note(&counter),
    ))
}

#[cfg(all(test, feature = "tiktoken"))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use clap::Parser;
    use prompt_core::tokens::{O200kBase, TokenCounter};
    use prompt_providers::anthropic::CacheTtl;

    use super::super::workspace::WorkspaceArgs;

    /// `o200k_base`, recording the bytes it is given: the encoder's work.
    #[derive(Default)]
    struct Spy {
        given: AtomicUsize,
    }

    impl TokenCounter for Spy {
        fn count(&self, text: &str) -> usize {
            self.given.fetch_add(text.len(), Ordering::Relaxed);
            O200kBase.count(text)
        }

        fn name(&self) -> &'static str {
            O200kBase.name()
        }

        fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
            O200kBase.cuts(text, cuts);
        }
    }

    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        workspace: WorkspaceArgs,
    }

    /// `bytes` of short runs of CJK, emoji and accented Latin, mixed within
    /// and between words, with spaces, commas, ideographic full stops and
    /// line breaks: the text the issue planted, the same on every run.
    fn mixed_script(bytes: usize) -> String {
        const WORDS: [&str; 24] = [
            "東京",
            "日本語",
            "设定",
            "测试代码",
            "仓库",
            "프로젝트",
            "한국어",
            "ファイル",
            "🎉",
            "🚀",
            "✅",
            "👩\u{200d}💻",
            "🇯🇵",
            "⚠\u{fe0f}",
            "📦",
            "🔥",
            "café",
            "naïve",
            "Ångström",
            "façade",
            "résumé",
            "Zürich",
            "brûlée",
            "Kraków",
        ];
        const GAPS: [&str; 6] = [" ", " ", " ", ", ", "。", "\n"];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        let mut text = String::new();
        loop {
            let mut word = String::new();
            for _ in 0..1 + next() % 3 {
                word.push_str(WORDS[next() % WORDS.len()]);
            }
            word.push_str(GAPS[next() % GAPS.len()]);
            if text.len() + word.len() > bytes {
                return text;
            }
            text.push_str(&word);
        }
    }

    /// The bytes the encoder is given for a team of `users` over `agents`.
    fn encoded(agents: &str, users: usize) -> usize {
        let dir = tempfile::tempdir().unwrap();
        let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(ws.join("AGENTS.md"), agents).unwrap();
        let args = Args::try_parse_from([
            "prompt".as_ref(),
            "--workspace".as_ref(),
            ws.as_os_str(),
            "--home".as_ref(),
            home.as_os_str(),
            "--date".as_ref(),
            "2026-01-01".as_ref(),
        ])
        .unwrap();
        let spy = Spy::default();
        let report = super::run(
            args.workspace,
            users,
            Some(CacheTtl::FiveMinutes),
            3.0,
            &spy,
            false,
        )
        .unwrap();
        assert!(
            report.contains(&format!(", {users} teammates who differ only")),
            "{report}"
        );
        assert_eq!(report.matches("\nteammate ").count(), users, "{report}");
        // Every count is exact: no note on estimates.
        assert!(!report.contains("note:"), "{report}");
        spy.given.load(Ordering::Relaxed)
    }

    /// The exhaustion: 100 teammates over 16 KiB of mixed-script
    /// text had the encoder count the shared text again for every teammate
    /// and every prefix. Now the shared text is encoded once: 100 teammates
    /// cost what one does plus, for each other one, the lines that are
    /// their own (`I am teammate K of 100.` and what a line cut puts with it).
    #[test]
    fn a_hundred_teammates_encode_the_shared_text_once() {
        let agents = mixed_script(16 * 1024);
        assert!(agents.len() > 16 * 1024 - 64, "{}", agents.len());
        let one = encoded(&agents, 1);
        assert!(one >= agents.len(), "the shared text is encoded: {one}");
        assert!(one < 2 * agents.len(), "and once for one teammate: {one}");
        let hundred = encoded(&agents, 100);
        assert!(
            hundred <= one + 99 * 128,
            "{hundred} against {one} for one teammate"
        );
    }
}
