//! Hook payload parser: any bytes on a hook's stdin. Never panics; every JSON object is a payload
//! (all fields are lenient); a failure signal built from one survives the store round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reflect_app::hookio::{parse_payload, PayloadError};
use reflect_store::store::{parse_line, Record};
use reflect_detect::failure;

fuzz_target!(|data: &[u8]| {
    let parsed = parse_payload(data);
    if let Ok(serde_json::Value::Object(_)) = serde_json::from_slice::<serde_json::Value>(data) {
        assert!(
            parsed.is_ok() || matches!(parsed, Err(PayloadError::TooLarge(_))),
            "a JSON object was refused: {parsed:?}"
        );
    }
    let Ok(payload) = parsed else { return };
    let Some(signal) = failure::failure_signal(&payload.tool_failure()) else {
        return;
    };
    let line = serde_json::to_vec(&signal).expect("a signal serializes");
    assert!(!line.contains(&b'\n'), "a stored line must be one line");
    match parse_line(&line) {
        Record::Signal(back) => assert_eq!(*back, signal, "store round trip changed the signal"),
        other => panic!("a failure signal did not read back as a signal: {other:?}"),
    }
    let _ = reflect_app::inject::context(&[&signal], 2000);
});
