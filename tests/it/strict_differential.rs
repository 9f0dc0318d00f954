//! The strict reading against the parsers servers really use: seeded mutations of real client
//! messages are read by `driftlab_contract::jsonrpc::strict`, and every line it accepts is parsed again
//! by JavaScript's `JSON.parse` (Node) and Python's `json.loads`, which must read the same value.
//! A line the guard forwards is therefore the line the server reads.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use driftlab_contract::jsonrpc::{self, strict};
use driftlab_contract::rng::Stream;
use serde_json::Value;

/// Real client lines to mutate.
const BASES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/x","content":"héllo 😀"}}}"#,
    r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"search","arguments":{"query":"q","limit":10,"ratio":0.5,"tags":["a","b"],"deep":{"x":[1,2,{"y":null}]}}},"_meta":{"progressToken":3}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///w","name":"w"}]}}"#,
];

/// Fragments that parsers disagree on, or that make disagreement likely, spliced in at random.
const FRAGMENTS: &[&str] = &[
    "\"",
    "\\",
    "\\u",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\u0000",
    "\\/",
    "1e400",
    "-1e400",
    "1e-400",
    "NaN",
    "Infinity",
    "-0",
    "-0.0",
    "1.0",
    "1e0",
    "9007199254740991",
    "9007199254740993",
    "18446744073709551616",
    "0.1e1",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    " ",
    "\t",
    "\r",
    "\n",
    "\u{feff}",
    "\u{2028}",
    "\u{85}",
    ",\"method\":\"ping\"",
    ",\"id\":1",
    ",\"a\":1",
    "\"method\"",
    "\"meth\\u006fd\"",
    "\"1\":",
    "true",
    "null",
    "é",
    "😀",
];

fn mutate(base: &str, rng: &mut Stream) -> Vec<u8> {
    let mut bytes = base.as_bytes().to_vec();
    for _ in 0..=rng.below(3) {
        // Cut only at character boundaries, so lines stay UTF-8 and get past the first check.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let places: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = places[rng.index(places.len())];
        let fragment = FRAGMENTS[rng.index(FRAGMENTS.len())];
        let mut next = text[..at].to_string();
        if rng.chance(1, 3) {
            // Replace the next character instead of inserting before it.
            let rest = &text[at..];
            let skip = rest.chars().next().map_or(0, char::len_utf8);
            next.push_str(fragment);
            next.push_str(&rest[skip..]);
        } else {
            next.push_str(fragment);
            next.push_str(&text[at..]);
        }
        bytes = next.into_bytes();
    }
    bytes
}

/// Compares two values as JSON: numbers by value (every accepted integer is exact in a double),
/// objects as key sets (JavaScript puts integer-like keys first).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            // Integers exactly (a rounded one must show); JavaScript prints `1.0` as `1`.
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Runs `program args` with `input` on stdin; `None` when the runtime is not installed.
fn reparse(program: &str, args: &[&str], input: &[u8]) -> Option<Vec<Value>> {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "{program} is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set"
        );
        common::skip(&format!(
            "{program} is not installed, so its parser was not compared"
        ));
        return None;
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

// Each reads one line a time (split at "\n" only, as the servers' stdio readers do) and prints
// either the value it read, re-serialised, or {"refused": ...}.
const NODE: &str = r#"
let text = require('fs').readFileSync(0, 'utf8');
for (const line of text.split('\n').slice(0, -1)) {
  let out;
  try { out = JSON.stringify({value: JSON.parse(line)}); } catch (e) { out = JSON.stringify({refused: String(e)}); }
  console.log(out);
}
"#;
const PYTHON: &str = r#"
import json, sys
for line in sys.stdin.buffer.read().split(b'\n')[:-1]:
    try:
        print(json.dumps({"value": json.loads(line.decode('utf-8'))}, allow_nan=False))
    except Exception as e:
        print(json.dumps({"refused": repr(e)}))
"#;

#[test]
fn every_line_the_strict_reading_accepts_reads_the_same_in_node_python_and_serde() {
    let mut accepted: Vec<(Vec<u8>, Value)> = Vec::new();
    let mut refused = 0;
    for index in 0..4000u64 {
        let mut rng = Stream::derive(7, "strict-differential", index);
        let base = BASES[rng.index(BASES.len())];
        let line = mutate(base, &mut rng);
        // A line on the wire has no newline in it: the transport split it there already.
        if line.contains(&b'\n') {
            continue;
        }
        match strict::parse(&line, jsonrpc::CLIENT) {
            Ok(value) => accepted.push((line, value)),
            Err(_) => refused += 1,
        }
    }
    eprintln!("{} lines accepted, {refused} refused", accepted.len());
    // Both sides must be well represented, or the test says little.
    assert!(accepted.len() > 800, "accepted {}", accepted.len());
    assert!(refused > 800, "refused {refused}");
    for (line, value) in &accepted {
        let lenient: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "serde_json refuses what the strict reading accepts: {e}: {}",
                String::from_utf8_lossy(line)
            )
        });
        assert!(
            same(value, &lenient),
            "serde_json reads {}",
            String::from_utf8_lossy(line)
        );
    }
    let mut input = Vec::new();
    for (line, _) in &accepted {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    for (program, args) in [("node", ["-e", NODE]), ("python3", ["-c", PYTHON])] {
        let Some(values) = reparse(program, &args, &input) else {
            continue;
        };
        assert_eq!(values.len(), accepted.len(), "{program}");
        for ((line, value), theirs) in accepted.iter().zip(&values) {
            let text = String::from_utf8_lossy(line);
            let Some(theirs) = theirs.get("value") else {
                panic!("{program} refuses what the strict reading accepts: {theirs}: {text}");
            };
            assert!(
                same(value, theirs),
                "{program} reads {theirs} from {text}, driftlab {value}"
            );
        }
    }
}
