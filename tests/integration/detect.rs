//! The transcript reader and the detectors against the shared corpus of real Claude Code
//! transcripts (read in place from `../shared/corpus`, never copied into the repository).

use std::fs::File;
use std::path::PathBuf;

use reflect_core::detect::eval::evaluate;
use reflect_core::detect::Detector;
use reflect_core::signal::Kind;
use reflect_core::transcript::{self, Position};

/// The floor the detectors must keep on the labelled dev set (precision and recall of
/// "learning moment" predictions over every labelled prompt).
const FLOOR: f64 = 0.70;

fn corpus() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    assert!(
        dir.join("labels-dev.jsonl").is_file(),
        "the shared corpus is missing at {}",
        dir.display()
    );
    dir
}

#[test]
fn detectors_keep_precision_and_recall_above_the_floor_on_labelled_transcripts() {
    let corpus = corpus();
    let eval = evaluate(
        &corpus.join("labels-dev.jsonl"),
        &corpus.join("transcripts"),
    )
    .unwrap();
    let overall = eval.overall;
    assert!(
        overall.tp + overall.fn_ >= 40,
        "the dev set should hold dozens of learning moments: {overall:?}"
    );
    assert!(
        overall.precision() >= FLOOR && overall.recall() >= FLOOR,
        "precision {:.3} recall {:.3} (floor {FLOOR}); run scripts/eval-detectors --verbose\n{overall:?}",
        overall.precision(),
        overall.recall()
    );
}

#[test]
fn the_reader_yields_exactly_the_prompts_a_human_typed() {
    let corpus = corpus();
    let eval = evaluate(
        &corpus.join("labels-dev.jsonl"),
        &corpus.join("transcripts"),
    )
    .unwrap();
    assert!(
        eval.unread_labels.is_empty(),
        "labelled prompts not read as user text: {:?}",
        eval.unread_labels
    );
    assert!(
        eval.unlabelled_texts.is_empty(),
        "user text the labels say nobody typed: {:?}",
        eval.unlabelled_texts
    );
}

#[test]
fn every_real_transcript_reads_to_its_end_and_warmup_agents_raise_nothing() {
    let dir = corpus().join("transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20);
    for path in files {
        let len = std::fs::metadata(&path).unwrap().len();
        let text = std::fs::read(&path).unwrap();
        let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
        let mut detector = Detector::new();
        let end = transcript::read(&mut File::open(&path).unwrap(), Position::default(), |e| {
            detector.feed(&e)
        })
        .unwrap();
        let complete = if text.ends_with(b"\n") {
            len
        } else {
            text.iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i as u64 + 1)
        };
        assert_eq!(
            end,
            Position {
                offset: complete,
                line: lines
            },
            "{}",
            path.display()
        );
        let signals = detector.finish();
        for s in &signals {
            assert!(s.source.line.is_some_and(|l| l >= 1 && l <= lines), "{s:?}");
        }
        let name = path.file_name().unwrap().to_string_lossy();
        if name.contains("agent-ae7f6bd") {
            // A "Warmup" sub-agent: its refused calls are written by Claude Code, not failures.
            assert!(
                signals.iter().all(|s| s.kind != Kind::Failure),
                "{signals:#?}"
            );
        }
    }
}

#[test]
fn resuming_from_a_returned_position_reads_each_entry_once() {
    let dir = corpus().join("transcripts");
    let path = dir.join("bradymholt__dotfiles__9c2556bd-b2fa-495e-ab5d-da8c5fceff5e.jsonl");
    let whole = {
        let mut all = Vec::new();
        transcript::read(&mut File::open(&path).unwrap(), Position::default(), |e| {
            all.push((e.line, e.uuid))
        })
        .unwrap();
        all
    };
    // Read a copy that grows in three steps, cut mid-line, as a live session file does.
    let bytes = std::fs::read(&path).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join("live.jsonl");
    let mut pos = Position::default();
    let mut pieces = Vec::new();
    for cut in [bytes.len() / 3 + 7, 2 * bytes.len() / 3 + 11, bytes.len()] {
        std::fs::write(&live, &bytes[..cut]).unwrap();
        pos = transcript::read(&mut File::open(&live).unwrap(), pos, |e| {
            pieces.push((e.line, e.uuid))
        })
        .unwrap();
    }
    assert_eq!(pieces, whole);
    assert!(!whole.is_empty());
}
