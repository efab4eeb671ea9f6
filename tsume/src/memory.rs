//! Zeroed memory for the table, backed by huge pages where the OS offers them.
//!
//! Every probe of a multi-GiB table is a random access; with 4 KiB pages nearly each one
//! also misses the TLB. On Linux the block is mapped directly and advised to use
//! transparent huge pages, and every page is touched at allocation, so that the kernel's
//! zeroing happens before the search starts, not during its first probes. Clearing
//! writes zeros and keeps the pages: handing them back would put that zeroing, and any
//! wait for the host to back fresh memory, inside the next search.

use std::alloc::Layout;

const HUGE: usize = 2 << 20;

/// The page size the block is touched by (huge pages are touched many times over).
const PAGE: usize = 4096;

/// Blocks from this size are touched by several threads.
const PARALLEL_PREFAULT_BYTES: usize = 64 << 20;

/// The most threads that touch a block.
const MAX_PREFAULT_THREADS: usize = 8;

/// Starts loading the cache line at `p` into the processor's caches, so that a read of it
/// soon after does not wait for memory. A hint only: it never faults, whatever the address.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch neither reads nor writes memory as the program sees it, and never
    // faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A zero-initialised block of `len` bytes, 64-byte aligned (2 MiB on Linux).
pub(crate) struct Block {
    ptr: *mut u8,
    len: usize,
    mapped: bool,
}

// The block is plain memory; the table guards concurrent access with its locks.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

#[cfg(target_os = "linux")]
mod os {
    use std::ffi::c_void;
    extern "C" {
        pub fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            off: i64,
        ) -> *mut c_void;
        pub fn munmap(addr: *mut c_void, len: usize) -> i32;
        pub fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
    }
    pub const PROT_READ: i32 = 1;
    pub const PROT_WRITE: i32 = 2;
    pub const MAP_PRIVATE: i32 = 2;
    pub const MAP_ANONYMOUS: i32 = 0x20;
    pub const MADV_HUGEPAGE: i32 = 14;
}

impl Block {
    /// Allocates `len` zeroed bytes.
    pub fn zeroed(len: usize) -> Block {
        let len = len.max(64);
        #[cfg(target_os = "linux")]
        {
            let rounded = len.div_ceil(HUGE) * HUGE;
            // SAFETY: an anonymous private mapping; checked for failure below.
            let p = unsafe {
                os::mmap(
                    std::ptr::null_mut(),
                    rounded,
                    os::PROT_READ | os::PROT_WRITE,
                    os::MAP_PRIVATE | os::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p as isize != -1 && !p.is_null() {
                // SAFETY: advice on our own mapping; failure only loses the speed-up.
                unsafe { os::madvise(p, rounded, os::MADV_HUGEPAGE) };
                let b = Block {
                    ptr: p as *mut u8,
                    len: rounded,
                    mapped: true,
                };
                b.prefault();
                return b;
            }
        }
        let layout = Layout::from_size_align(len, 64).expect("table layout");
        // SAFETY: non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Block {
            ptr,
            len,
            mapped: false,
        }
    }

    /// Touches every page now, so that the search does not pay for page faults (and
    /// huge-page compaction) on its first probes: allocation happens at `isready`.
    ///
    /// The kernel zeroes each page as it is first touched, and on a virtual machine whose
    /// host takes freed memory back, the host must also find a page for it; several threads
    /// touching their own parts of the block share that work. A 3 GiB block took 6.5 s on
    /// one thread and 3.4 s on two on this project's 2-core machine when its memory had
    /// been handed back, and 0.31 s against 0.19 s when it had not.
    fn prefault(&self) {
        let pages = self.len.div_ceil(PAGE);
        let threads = if self.len < PARALLEL_PREFAULT_BYTES {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_PREFAULT_THREADS)
        };
        let touch = |part: usize| {
            for page in share(pages, threads, part) {
                // SAFETY: inside the block; a volatile write of the zero already there.
                unsafe { std::ptr::write_volatile(self.ptr.add(page * PAGE), 0) };
            }
        };
        std::thread::scope(|s| {
            for part in 1..threads {
                let spawned = std::thread::Builder::new()
                    .name("kanju-prefault".into())
                    .spawn_scoped(s, move || touch(part));
                if spawned.is_err() {
                    // No thread to be had: this one does that part too.
                    touch(part);
                }
            }
            touch(0);
        });
    }

    /// The start of the block.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Zeroes the whole block, keeping its pages resident. The caller guarantees no one
    /// else is using it.
    pub fn clear(&mut self) {
        // SAFETY: the block is `len` bytes long and exclusively ours.
        unsafe { std::ptr::write_bytes(self.ptr, 0, self.len) };
    }
}

/// Part `part` of `n` items shared out in `parts` runs, the last ones shorter.
fn share(n: usize, parts: usize, part: usize) -> std::ops::Range<usize> {
    let each = n.div_ceil(parts);
    (part * each).min(n)..((part + 1) * each).min(n)
}

impl Drop for Block {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if self.mapped {
            // SAFETY: unmapping the mapping made in `zeroed`.
            unsafe { os::munmap(self.ptr as *mut _, self.len) };
            return;
        }
        let layout = Layout::from_size_align(self.len, 64).expect("table layout");
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threads that touch a block's pages share them all, each once.
    #[test]
    fn prefault_threads_share_every_page_once() {
        for n in [0, 1, 7, 8, 9, 1000, 786_432] {
            for parts in 1..=MAX_PREFAULT_THREADS {
                let mut next = 0;
                for part in 0..parts {
                    let r = share(n, parts, part);
                    assert_eq!(r.start, next, "{n} pages in {parts}");
                    next = r.end;
                }
                assert_eq!(next, n, "{n} pages in {parts}");
            }
        }
    }

    /// A block touched by several threads is zeroed and usable to its last byte.
    #[test]
    fn large_blocks_are_zeroed_throughout() {
        let b = Block::zeroed(PARALLEL_PREFAULT_BYTES + 12345);
        for offset in (0..b.len).step_by(PAGE).chain([b.len - 1]) {
            // SAFETY: within the block.
            unsafe {
                assert_eq!(*b.as_ptr().add(offset), 0, "{offset}");
                *b.as_ptr().add(offset) = 1;
            }
        }
    }

    #[test]
    fn blocks_start_and_clear_to_zero() {
        let mut b = Block::zeroed(3 << 20);
        // SAFETY: within the block.
        unsafe {
            assert_eq!(*b.as_ptr().add(12345), 0);
            *b.as_ptr().add(12345) = 7;
        }
        b.clear();
        // SAFETY: within the block.
        unsafe { assert_eq!(*b.as_ptr().add(12345), 0) };
    }
}
