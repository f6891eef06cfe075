#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of a buffer to a file descriptor with `write(2)`, so that a failure is an errno
/// to report rather than a trap (`FileHandle.write` traps).
///
/// Rules: a short write is continued; EINTR is retried; EAGAIN (a non-blocking descriptor)
/// waits with `poll` until it is writable. With `suppressingSIGPIPE` (a pipe to a child that
/// may have died) SIGPIPE is blocked in the writing thread for the write, and a SIGPIPE the
/// write raised is taken off the thread's pending signals before the mask is restored (the
/// portable form of `MSG_NOSIGNAL`, which only sockets have): a broken pipe is then EPIPE,
/// never the end of this process.
public enum DescriptorWriter {
    /// Writes `bytes` to `fd`; nil when all were written, else the errno that stopped it.
    public static func write(_ bytes: [UInt8], to fd: Int32, suppressingSIGPIPE: Bool = false) -> Int32? {
        guard fd >= 0 else { return EBADF }
        var pipeSignal = sigset_t(), previous = sigset_t()
        if suppressingSIGPIPE {
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        }
        defer { if suppressingSIGPIPE { pthread_sigmask(SIG_SETMASK, &previous, nil) } }
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
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                var request = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, -1)
            default:
                if code == EPIPE && suppressingSIGPIPE {
                    var pending = sigset_t()
                    sigpending(&pending)
                    if sigismember(&pending, SIGPIPE) == 1 {
                        var taken: Int32 = 0
                        sigwait(&pipeSignal, &taken)
                    }
                }
                return code
            }
        }
        return nil
    }
}
