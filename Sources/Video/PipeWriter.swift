#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a pipe whose reader may have died, without the SIGPIPE that would end this
/// process: SIGPIPE is blocked in the writing thread for the write, and a SIGPIPE the write
/// raised is taken off the thread's pending signals before the mask is restored (the
/// portable form of `MSG_NOSIGNAL`, which only sockets have).
enum PipeWriter {
    /// Writes all of `bytes` (continuing short writes, retrying EINTR); false when the pipe broke or failed.
    static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                #else
                Darwin.write(fd, buffer.baseAddress! + done, buffer.count - done)
                #endif
            }
            if count >= 0 {
                done += count
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EPIPE {
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var taken: Int32 = 0
                    sigwait(&pipeSignal, &taken)
                }
            }
            return false
        }
        return true
    }
}
