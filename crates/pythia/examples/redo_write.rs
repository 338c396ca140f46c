//! What a commit's redo write costs on this disk, three ways: a 1 KiB write at advancing
//! 512-byte offsets of a formatted file, then `fdatasync`, through the page cache; the same
//! with `O_DIRECT` (what `filesystemio_options=DIRECTIO` does); and an `O_DIRECT | O_DSYNC`
//! write alone. The three take turns in each round, so that all meet the disk of the same
//! seconds (its latency drifts from minute to minute). Linux only.
//!
//! ```text
//! cargo run --release -p pythia --example redo_write -- 3000 /path/on/the/disk
//! ```

#[cfg(target_os = "linux")]
fn main() -> std::io::Result<()> {
    use std::fs::{File, OpenOptions};
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    use std::time::{Duration, Instant};

    const FILE_BYTES: u64 = 8 << 20;
    const WRITE_BYTES: usize = 1024;
    const STEP_BYTES: u64 = 512;

    let mut arguments = std::env::args().skip(1);
    let rounds: u32 = arguments
        .next()
        .map_or(3000, |text| text.parse().expect("a round count"));
    let dir = arguments
        .next()
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from);
    let open = |name: &str, flags: i32| -> std::io::Result<(File, std::path::PathBuf)> {
        let path = dir.join(format!("redo-write-{}-{name}", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(flags)
            .open(&path)?;
        Ok((file, path))
    };
    let ways = [
        ("cached write + fdatasync", open("cached", 0)?),
        (
            "O_DIRECT write + fdatasync",
            open("direct", libc::O_DIRECT)?,
        ),
        (
            "O_DIRECT | O_DSYNC write",
            open("dsync", libc::O_DIRECT | libc::O_DSYNC)?,
        ),
    ];
    // An aligned buffer for O_DIRECT: one allocation of FILE_BYTES, 4 KiB-aligned, leaked.
    let layout = std::alloc::Layout::from_size_align(FILE_BYTES as usize, 4096).expect("layout");
    // SAFETY: the layout's size is non-zero; the memory is zeroed, so every byte is initialized,
    // and it is never freed, so the slice lives as long as the program.
    let bytes = unsafe {
        let pointer = std::alloc::alloc_zeroed(layout);
        assert!(!pointer.is_null(), "out of memory");
        std::slice::from_raw_parts_mut(pointer, FILE_BYTES as usize)
    };
    bytes.fill(0x5a);
    for (_, (file, _)) in &ways {
        file.write_all_at(bytes, 0)?; // formatted, as a redo log is before its writes
        file.sync_all()?;
    }
    let mut spent = [Duration::ZERO; 3];
    let mut offset = 0;
    for _ in 0..rounds {
        for (index, (_, (file, _))) in ways.iter().enumerate() {
            let started = Instant::now();
            file.write_all_at(&bytes[..WRITE_BYTES], offset)?;
            if index < 2 {
                file.sync_data()?;
            }
            spent[index] += started.elapsed();
        }
        offset = (offset + STEP_BYTES) % (FILE_BYTES - WRITE_BYTES as u64);
    }
    for ((name, (_, path)), spent) in ways.iter().zip(spent) {
        println!(
            "{name}: {:.1} us each over {rounds} rounds",
            spent.as_secs_f64() * 1e6 / f64::from(rounds.max(1))
        );
        std::fs::remove_file(path)?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("redo_write measures O_DIRECT, which this example knows only on Linux");
}
