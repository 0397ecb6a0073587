//! The YAML floor for `benches/run.sh`: how long yaml-rust2's event parser alone takes on a
//! catalog, the text already in memory. ixgen's one YAML reader (`src/catalog/yaml.rs`) is built
//! on these events, so no first `generate` can take less than this plus the file-system floor
//! (`examples/floor.rs`), before it types, lowers, renders or writes anything.
//!
//!     cargo run --release --example yaml_floor -- CATALOG.yaml
//!
//! Prints the event count and the time in milliseconds, as `floor` does.

use yaml_rust2::parser::{Event, EventReceiver, Parser};

/// Counts the events, so that the parser's work cannot be optimised away.
struct Count(usize);

impl EventReceiver for Count {
    fn on_event(&mut self, ev: Event) {
        self.0 += usize::from(!matches!(ev, Event::Nothing));
    }
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: yaml_floor CATALOG.yaml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).expect("a readable UTF-8 file");
    let start = std::time::Instant::now();
    let mut events = Count(0);
    Parser::new_from_str(&text).load(&mut events, true).expect("valid YAML");
    eprintln!(
        "{} events in {:.1} ms",
        events.0,
        start.elapsed().as_secs_f64() * 1000.0
    );
}
