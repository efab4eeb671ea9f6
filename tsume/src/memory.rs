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
    fn prefault(&self) {
        let mut i = 0;
        while i < self.len {
            // SAFETY: inside the block; a volatile write of the zero already there.
            unsafe { std::ptr::write_volatile(self.ptr.add(i), 0) };
            i += 4096;
        }
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
