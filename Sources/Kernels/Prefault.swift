#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps a range of memory in one system call before it is touched (Linux's
/// `MADV_POPULATE_READ` / `MADV_POPULATE_WRITE`, kernel 5.14+), instead of one page fault per
/// 4 KiB page as a copy first reads or writes it. A hint: on older kernels and other systems
/// the call fails or is skipped and the pages fault in as before.
package enum Prefault {
    private static let page = 4096

    /// The pages of `bytes`, about to be read (a mapped file's pages: mapped from the page cache).
    package static func read(_ bytes: UnsafeRawBufferPointer) {
        advise(bytes.baseAddress, bytes.count, 22)  // MADV_POPULATE_READ
    }

    /// The pages of `bytes`, about to be written (fresh memory: zero pages mapped writable), in
    /// 2 MiB slices shared across up to `threads` workers (the kernel zeroes each page).
    package static func write(_ bytes: UnsafeMutableRawBufferPointer, threads: Int = 1) {
        guard threads > 1 else {
            advise(bytes.baseAddress.map(UnsafeRawPointer.init), bytes.count, 23)  // MADV_POPULATE_WRITE
            return
        }
        let slice = 2 << 20
        let slices = (bytes.count + slice - 1) / slice
        nonisolated(unsafe) let bytes = bytes
        Parallel.forChunks(of: slices, work: bytes.count / 4, threads: threads) { range in
            for index in range {
                let start = index * slice, end = min(bytes.count, start + slice)
                write(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]))
            }
        }
    }

    private static func advise(_ base: UnsafeRawPointer?, _ count: Int, _ advice: Int32) {
        #if os(Linux)
        guard let base, count > 0 else { return }
        let start = Int(bitPattern: base) / page * page
        let end = Int(bitPattern: base) + count
        guard let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, end - start, advice)
        #endif
    }
}
