//! A profiling harness for CURSOR_SHARING = FORCE's lexical pass alone: N passes over the
//! statement given (or the slammer's), through `force_literals_into` with its text and bind
//! buffers kept from one pass to the next, as a session keeps them; for `perf annotate` or
//! callgrind (instructions per pass: a run of N passes less a run of 0, over N):
//!
//! ```text
//! cargo build --release -p pythia --example force_scan
//! valgrind --tool=callgrind target/release/examples/force_scan 100000
//! valgrind --tool=callgrind target/release/examples/force_scan 0
//! ```

use pythia::library_cache::cursor_sharing::force_literals_into;

fn main() {
    let mut arguments = std::env::args().skip(1);
    let count: u64 = arguments
        .next()
        .map_or(1_000_000, |text| text.parse().expect("a count"));
    let sql = arguments.next().unwrap_or_else(|| {
        "SELECT /* comment: $$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$ */ \"DUMMY\" FROM dual WHERE dummy = '0412345'".to_string()
    });
    let (mut text, mut binds) = (String::new(), Vec::new());
    let started = std::time::Instant::now();
    let mut replaced = 0;
    for _ in 0..count {
        if force_literals_into(std::hint::black_box(&sql), &mut text, &mut binds) {
            replaced += binds.len();
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{count} passes, {replaced} literals replaced: {:.0} ns per pass",
        elapsed.as_nanos() as f64 / count as f64
    );
}
