//! What a piece of work leaves allocated on the heap: the shared pool charges each library
//! cache object the bytes it really holds (its syntax tree, its plan), measured rather than
//! estimated.
//!
//! With the `heap-accounting` feature (on by default) Pythia's global allocator wraps
//! mimalloc and keeps, per thread, the net bytes allocated (allocations minus frees).
//! mimalloc rather than the system allocator: the shared pool frees, on one session's
//! thread, trees and plans that other sessions' threads allocated, and glibc's malloc
//! serializes such frees on its arena locks (seen as idle CPU in the `slammer` lab, outside
//! any wait event, growing with the pool's size); mimalloc frees them without a lock. [`measure`] reads that count before and after a closure: the difference is what
//! the closure built and kept, temporary allocations having been freed. One thread-local
//! add per allocation and per free is the whole cost.
//!
//! Without the feature (an embedding program with its own global allocator turns it off)
//! [`measure`] returns `None` and callers estimate.
//!
//! Invariant: the count is only ever compared within one thread, over a window in which
//! the thread frees nothing it allocated before the window (building a new object frees
//! only its own temporaries), so the difference is never less than the object's size by
//! more than what the window freed of older memory, and is clamped at zero.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

thread_local! {
    static NET_BYTES: Cell<i64> = const { Cell::new(0) };
}

#[cfg(feature = "heap-accounting")]
use mimalloc::Mimalloc as Inner;
#[cfg(not(feature = "heap-accounting"))]
use std::alloc::System as Inner;

#[cfg(feature = "heap-accounting")]
mod mimalloc {
    use libmimalloc_sys as ffi;
    use std::alloc::{GlobalAlloc, Layout};
    use std::ffi::c_void;

    /// mimalloc through its C interface, taking `mi_malloc`'s fast path whenever its blocks
    /// have the layout's alignment anyway (as the standard library's System allocator does
    /// with malloc), and the aligned functions otherwise. The `mimalloc` crate's wrapper
    /// calls `mi_malloc_aligned` for everything, whose fast path covers only blocks up to
    /// 1 KiB that happen to be aligned: a fifth of a point select's allocations took its
    /// slow path.
    pub struct Mimalloc;

    /// Whether `mi_malloc(size)` is aligned to `align`: every block is a whole number of
    /// 8-byte words at a word-aligned place, and a block whose size is a multiple of 16
    /// comes from a size class of such blocks in a 16-byte-aligned page. This holds while
    /// mimalloc's padding is off: the `secure` and `debug` features of libmimalloc-sys must
    /// stay off (a test allocates runs of blocks of every size and checks).
    #[inline]
    fn plain(align: usize, size: usize) -> bool {
        (align <= 8 && align <= size) || (align == 16 && size > 0 && size.is_multiple_of(16))
    }

    // SAFETY: each call is mimalloc's function for the layout: blocks from `mi_malloc` and
    // `mi_malloc_aligned` alike are freed by `mi_free` and resized by `mi_realloc` /
    // `mi_realloc_aligned`, and the plain functions are used only where their alignment
    // meets the layout's.
    unsafe impl GlobalAlloc for Mimalloc {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if plain(layout.align(), layout.size()) {
                ffi::mi_malloc(layout.size()) as *mut u8
            } else {
                ffi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if plain(layout.align(), layout.size()) {
                ffi::mi_zalloc(layout.size()) as *mut u8
            } else {
                ffi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }

        #[inline]
        unsafe fn dealloc(&self, pointer: *mut u8, _layout: Layout) {
            ffi::mi_free(pointer as *mut c_void);
        }

        #[inline]
        unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if plain(layout.align(), new_size) {
                ffi::mi_realloc(pointer as *mut c_void, new_size) as *mut u8
            } else {
                ffi::mi_realloc_aligned(pointer as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

/// The underlying allocator (mimalloc with `heap-accounting`), counting each thread's net
/// bytes.
pub struct CountingAllocator;

#[inline]
fn count(bytes: i64) {
    // `try_with`: a thread's last frees run while its thread-locals are being destroyed.
    let _ = NET_BYTES.try_with(|net| net.set(net.get() + bytes));
}

// SAFETY: every call is forwarded unchanged to `Inner`; only a thread-local counter is
// updated beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = Inner.alloc(layout);
        if !pointer.is_null() {
            count(layout.size() as i64);
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = Inner.alloc_zeroed(layout);
        if !pointer.is_null() {
            count(layout.size() as i64);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        Inner.dealloc(pointer, layout);
        count(-(layout.size() as i64));
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = Inner.realloc(pointer, layout, new_size);
        if !moved.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        moved
    }
}

#[cfg(feature = "heap-accounting")]
#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Whether [`measure`] measures (the `heap-accounting` feature).
pub const fn enabled() -> bool {
    cfg!(feature = "heap-accounting")
}

/// Runs `work` and returns its result with the bytes it left allocated on this thread, or
/// None without the `heap-accounting` feature.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = NET_BYTES.with(Cell::get);
    let result = work();
    let after = NET_BYTES.with(Cell::get);
    let kept = enabled().then(|| after.saturating_sub(before).max(0) as u64);
    (result, kept)
}

#[cfg(all(test, feature = "heap-accounting"))]
mod tests {
    use super::*;

    #[test]
    fn measures_what_is_kept_and_not_what_is_freed() {
        let (kept, bytes) = measure(|| {
            let temporary = vec![0u8; 1 << 20];
            drop(temporary);
            vec![1u64; 1000]
        });
        let bytes = bytes.expect("heap accounting is on");
        assert!(bytes >= 8000, "{bytes}");
        assert!(bytes < 16_000, "the freed megabyte must not count: {bytes}");
        drop(kept);
        let ((), nothing) = measure(|| {});
        assert_eq!(nothing, Some(0));
    }

    #[test]
    fn every_layout_gets_its_alignment_through_allocation_and_reallocation() {
        let allocator = CountingAllocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..=300).chain([1000, 1024, 1040, 4096, 70_000]) {
                let size = size.max(1);
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero-sized layout; the block is written within its size,
                // reallocated with the layout it has, and freed with the layout it has.
                unsafe {
                    // Several at once, so that consecutive blocks of a size class are seen
                    // (with mimalloc's padding on, every other 16-byte block would be
                    // misaligned).
                    let held: Vec<*mut u8> = (0..8).map(|_| allocator.alloc(layout)).collect();
                    for &block in &held {
                        assert_eq!(block as usize % align, 0, "size {size} align {align}");
                    }
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "size {size} align {align}");
                    block.write_bytes(0xa5, size);
                    let grown = size * 3 + 5;
                    let moved = allocator.realloc(block, layout, grown);
                    assert_eq!(moved as usize % align, 0, "realloc {grown} align {align}");
                    assert_eq!(*moved.add(size - 1), 0xa5);
                    let grown_layout = Layout::from_size_align(grown, align).unwrap();
                    allocator.dealloc(moved, grown_layout);
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} align {align}");
                    assert!((0..size).all(|at| *zeroed.add(at) == 0));
                    allocator.dealloc(zeroed, layout);
                    for block in held {
                        allocator.dealloc(block, layout);
                    }
                }
            }
        }
    }
}
