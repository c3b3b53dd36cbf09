//! Throughput of the transcript reader plus detectors, by hand:
//!
//! `cargo run --release -p reflect-lab --example reader_throughput -- [FILE] [--mb N] [--no-detect] [--one-thread]`
//!
//! Without FILE, a transcript of about N MB (default 100) is assembled in a temp directory from
//! the shared corpus (never inside the repository) and removed afterwards. Prints bytes, events,
//! signals, seconds and GB/s; `--no-detect` times the reader alone, `--one-thread` reads without
//! worker threads (a large read is otherwise split over the cores). The official measurement is `scripts/bench`.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use reflect_detect::Detector;
use reflect_transcript::{self as transcript, Position};

fn main() -> std::io::Result<()> {
    let mut file_arg = None;
    let mut mb: u64 = 100;
    let mut detect = true;
    let mut one_thread = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-detect" => detect = false,
            "--one-thread" => one_thread = true,
            "--mb" => mb = args.next().and_then(|n| n.parse().ok()).unwrap_or(mb),
            _ => file_arg = Some(PathBuf::from(arg)),
        }
    }
    let _tmp;
    let path = match file_arg {
        Some(path) => path,
        None => {
            let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/corpus/transcripts");
            let mut parts = Vec::new();
            for entry in std::fs::read_dir(&corpus)? {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    parts.push(std::fs::read(&path)?);
                }
            }
            parts.sort();
            let dir =
                std::env::temp_dir().join(format!("reflect-throughput-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            let path = dir.join("big.jsonl");
            let mut out = std::io::BufWriter::new(File::create(&path)?);
            let mut written = 0u64;
            'fill: loop {
                for part in &parts {
                    out.write_all(part)?;
                    if !part.ends_with(b"\n") {
                        out.write_all(b"\n")?;
                    }
                    written += part.len() as u64;
                    if written >= mb << 20 {
                        break 'fill;
                    }
                }
            }
            out.flush()?;
            _tmp = TempDir(dir);
            path
        }
    };
    let size = std::fs::metadata(&path)?.len();
    for round in 0..3 {
        let mut file = File::open(&path)?;
        let mut detector = Detector::new();
        let mut events = 0u64;
        let start = Instant::now();
        let on_event = |event: transcript::Event| {
            events += 1;
            if detect {
                detector.feed(&event);
            }
        };
        let end = if one_thread {
            transcript::read_split(&file, Position::default(), &[], on_event)?
        } else {
            transcript::read(&mut file, Position::default(), on_event)?
        };
        let signals = detector.finish().len();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "round {round}: {size} bytes, {} lines, {events} events, {signals} signals, {secs:.3} s, {:.2} GB/s",
            end.line,
            size as f64 / secs / 1e9
        );
    }
    Ok(())
}

/// Removes the assembled transcript on exit.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
