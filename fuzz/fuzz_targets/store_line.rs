//! One store line: the full parser never panics, and wherever the reader's fast path (the
//! scanner) vouches for a line it agrees with the full parser on what the line is, on the fields
//! it reports and on the recurrence it counts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reflect_store::signal::{Kind, Signal};
use reflect_store::store::read::Reader;
use reflect_store::store::{Key, Read, Record, Selectable, Shape, Sightings};

fuzz_target!(|line: &[u8]| {
    let mut reader = Reader::default();
    let Some(full) = reader.view(line, Read::Parse) else {
        return;
    };
    let fast = reader
        .view(line, Read::Scan)
        .expect("a line that is not blank");
    if !fast.is_scanned() {
        return;
    }
    assert!(
        full.shape().is_some(),
        "the scanner vouched for a line the parser rejects"
    );
    assert_eq!(fast.shape(), full.shape(), "scanner and parser disagree");
    if full.shape() == Some(Shape::Signal) {
        for key in Key::ALL {
            if let Some(Some(value)) = fast.text(key) {
                if let Some(parsed) = full.text(key) {
                    assert_eq!(Some(value), parsed, "{key:?}");
                }
            }
        }
    }
    let (mut a, mut b) = (Sightings::default(), Sightings::default());
    assert_eq!(fast.count_recurrence(&mut a), full.count_recurrence(&mut b));
    if let Record::Recur(r) = full.into_record() {
        let fold = |s: &Sightings| {
            let mut sig = Signal::new(Kind::Gotcha, "x");
            sig.id = r.recur.clone();
            s.fold(&mut sig);
            sig
        };
        assert_eq!(fold(&a), fold(&b), "the recurrence counted differs");
    }
});
