//! Memory bound: a 1 GiB (sparse) file in the place of every capped source
//! costs the session load a small, fixed amount of memory, never the file's size.
//!
//! A counting global allocator measures the peak of live heap bytes; it is in
//! its own test binary so no other test shares (or disturbs) the count.
#![cfg(unix)]
// A global allocator needs an `unsafe impl`: it only counts, then defers to the system's.
#![allow(unsafe_code)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::full_config;
use prompt_layers::load_session;
use prompt_layers::sources::git_branch;
use prompt_tests::FixtureWorkspace;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged to the system allocator.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above; `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak growth of live heap bytes while `f` runs.
fn peak_growth(f: impl FnOnce()) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed).saturating_sub(before)
}

const GIB: u64 = 1 << 30;
/// "Well under the file size": 8 MiB is under 1% of a GiB.
const BOUND: usize = 8 << 20;

fn sparse(path: &Path) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let _ = std::fs::remove_file(path);
    std::fs::File::create(path).unwrap().set_len(GIB).unwrap();
}

#[test]
fn every_capped_source_reads_a_1_gib_file_within_a_few_mib() {
    let sources = [
        "AGENTS.md",
        "CLAUDE.md",
        "services/api/AGENTS.override.md",
        "services/api/src/CLAUDE.md",
        ".agent/memory/project.md",
        ".agent/system-prompt.md",
        ".agent/skills/deploy/SKILL.md",
        ".agent/memory/facts.jsonl",
        ".agent/memory/episodes.jsonl",
    ];
    let mut measured = Vec::new();
    for rel in sources {
        let ws = FixtureWorkspace::new();
        sparse(&ws.repo.join(rel));
        let config = full_config(&ws);
        let growth = peak_growth(|| {
            let session = load_session(&config).unwrap();
            drop(session);
        });
        measured.push((rel, growth));
    }
    // The user's files and the per-turn ones.
    let ws = FixtureWorkspace::new();
    sparse(&ws.home.join(".agent/memory/user.md"));
    sparse(&ws.home.join(".agent/memory/facts.jsonl"));
    let config = full_config(&ws);
    measured.push((
        "~/.agent/memory/{user.md,facts.jsonl}",
        peak_growth(|| drop(load_session(&config).unwrap())),
    ));
    sparse(&ws.repo.join(".agent/scratchpad.json"));
    measured.push((
        ".agent/scratchpad.json",
        peak_growth(|| drop(config.load_scratchpad())),
    ));
    sparse(&ws.repo.join(".git/HEAD"));
    measured.push((
        ".git/HEAD",
        peak_growth(|| drop(git_branch(&ws.repo, &ws.repo))),
    ));
    for (rel, growth) in &measured {
        println!("{rel}: peak heap growth {growth} bytes");
        assert!(
            *growth < BOUND,
            "{rel}: a 1 GiB file cost {growth} bytes of heap (bound {BOUND})"
        );
    }
}
