//! A profiling harness for CURSOR_SHARING = FORCE's lexical pass alone: N passes over the
//! statement given (or the slammer's), for `perf annotate` or callgrind:
//!
//! ```text
//! cargo build --release -p pythia --example force_scan
//! valgrind --tool=callgrind target/release/examples/force_scan 100000
//! ```

use pythia::library_cache::cursor_sharing::force_literals;

fn main() {
    let mut arguments = std::env::args().skip(1);
    let count: u64 = arguments
        .next()
        .map_or(1_000_000, |text| text.parse().expect("a count"));
    let sql = arguments.next().unwrap_or_else(|| {
        "SELECT /* comment: $$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$ */ \"DUMMY\" FROM dual WHERE dummy = '0412345'".to_string()
    });
    let started = std::time::Instant::now();
    let mut replaced = 0;
    for _ in 0..count {
        let forced = force_literals(std::hint::black_box(&sql));
        replaced += forced.map_or(0, |forced| forced.binds.len());
    }
    let elapsed = started.elapsed();
    println!(
        "{count} passes, {replaced} literals replaced: {:.0} ns per pass",
        elapsed.as_nanos() as f64 / count as f64
    );
}
