//! settings.json editor on any bytes: never panics; what `on` writes loads again, is idempotent
//! and reads as all four hooks current; `off` after it leaves none of ours; neither touches any
//! key but `hooks`; and on a file with nothing of ours, `off` right after `on` gives back the very
//! bytes (from the backup `on` made, or, when `on` created `hooks` itself, by splicing alone).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use reflect_app::settings::Document;
use serde_json::{Map, Value};

fn others(root: &Map<String, Value>) -> Vec<(String, Value)> {
    root.iter()
        .filter(|(k, _)| k.as_str() != "hooks")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let path =
        std::env::temp_dir().join(format!("reflect-fuzz-settings-{}.json", std::process::id()));
    let bin = Path::new("/opt/my tools/reflect bin");
    std::fs::write(&path, data).unwrap();
    let Ok(mut doc) = Document::load(&path) else {
        return;
    };
    let before = doc.clone();
    let kept = others(doc.root());

    doc.enable(bin);
    std::fs::write(&path, doc.render()).unwrap();
    let mut on = Document::load(&path).expect("what `on` writes must load again");
    assert_eq!(
        others(on.root()),
        kept,
        "`on` changed a key other than hooks"
    );
    let status = on.status(bin);
    assert!(
        status
            .hooks
            .iter()
            .all(|h| h.current.is_some() && h.stale.is_empty()),
        "{status:?}"
    );
    assert!(status.other.is_empty(), "{status:?}");
    assert!(on.enable(bin).is_empty(), "a second `on` changed something");

    if before.found().is_empty() {
        let mut undone = on.clone();
        undone.disable_after(Some(&before), bin);
        assert_eq!(undone.render(), data, "`off` right after `on` changed bytes");
        if !before.root().is_empty() && !before.root().contains_key("hooks") {
            let mut spliced = on.clone();
            spliced.disable();
            assert_eq!(spliced.render(), data, "`off` did not take out what `on` put in");
        }
    }

    on.disable();
    std::fs::write(&path, on.render()).unwrap();
    let off = Document::load(&path).expect("what `off` writes must load again");
    assert_eq!(
        others(off.root()),
        kept,
        "`off` changed a key other than hooks"
    );
    let status = off.status(bin);
    assert!(
        status
            .hooks
            .iter()
            .all(|h| h.current.is_none() && h.stale.is_empty()),
        "{status:?}"
    );
    assert!(status.other.is_empty(), "{status:?}");
});
