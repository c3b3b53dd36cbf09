//! Transcript reader + detectors + session tally on any bytes. Never panics; the position it
//! returns is right after the last complete line; a read resumed from a cursor ends where a
//! single read ends and sees every event the single read saw; a read split over threads at any
//! points gives exactly the events and end of the one-thread read; every signal the detectors
//! make survives the store round trip.
#![no_main]

use std::fs::{File, OpenOptions};
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use reflect_detect::Detector;
use reflect_store::store::{parse_line, Record};
use reflect_app::summary::{self, Tally};
use reflect_transcript::{self as transcript, Event, Position};

fn scratch() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "reflect-fuzz-transcript-{}.jsonl",
        std::process::id()
    ))
}

fn read_all(file: &mut File, from: Position) -> (Position, Vec<Event>) {
    let mut events = Vec::new();
    let end = transcript::read(file, from, |e| events.push(e)).expect("reading a scratch file");
    (end, events)
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(&path, data).unwrap();
    let mut file = File::open(&path).unwrap();
    let (end, events) = read_all(&mut file, Position::default());
    let complete = data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    assert_eq!(
        end.offset, complete as u64,
        "position is not after the last complete line"
    );
    assert_eq!(
        end.line,
        data[..complete].iter().filter(|&&b| b == b'\n').count() as u64
    );

    // The same read split over threads at points taken from the input (mid-line points too).
    if data.len() > 2 {
        let a = u64::from(data[1]) * data.len() as u64 / 256;
        let b = u64::from(data[2]) * data.len() as u64 / 256;
        let mut splits = vec![a.min(b), a.max(b), data.len() as u64 / 2];
        splits.sort_unstable();
        let mut parallel = Vec::new();
        let file = File::open(&path).unwrap();
        let at = transcript::read_split(&file, Position::default(), &splits, |e| parallel.push(e))
            .expect("reading a scratch file");
        assert_eq!(at, end, "a split read ends elsewhere");
        assert_eq!(parallel, events, "a split read saw other events");
    }

    // The same bytes in two runs, as a cursor does it: first up to some line, then the rest.
    let newlines: Vec<usize> = (0..complete).filter(|&i| data[i] == b'\n').collect();
    if !newlines.is_empty() {
        let cut = newlines[usize::from(data[0]) % newlines.len()] + 1;
        std::fs::write(&path, &data[..cut]).unwrap();
        let mut file = File::open(&path).unwrap();
        let (mid, mut split) = read_all(&mut file, Position::default());
        assert_eq!(mid.offset, cut as u64);
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(&data[cut..])
            .unwrap();
        let mut file = File::open(&path).unwrap();
        let (end2, rest) = read_all(&mut file, mid);
        assert_eq!(end2, end, "a resumed read ends elsewhere");
        split.extend(rest);
        // A fresh run does not know the uuids the first run saw, so it may see more, never less.
        let mut it = split.iter();
        for e in &events {
            assert!(it.any(|s| s == e), "a resumed read lost an event: {e:?}");
        }
    }

    let mut detector = Detector::new();
    let mut tally = Tally::default();
    for e in &events {
        detector.feed(e);
        tally.observe(e);
    }
    let mut signals = detector.finish();
    signals.extend(summary::summary_signal(
        &tally,
        "fuzz-session",
        Some("/p"),
        Some("other"),
    ));
    for sig in signals {
        let line = serde_json::to_vec(&sig).expect("a signal serializes");
        match parse_line(&line) {
            Record::Signal(back) => assert_eq!(*back, sig, "store round trip changed the signal"),
            other => panic!("a detected signal did not read back as a signal: {other:?}"),
        }
    }
});
