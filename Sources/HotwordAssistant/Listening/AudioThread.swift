import Foundation

/// Plain threads for the audio loops, which block on devices and semaphores and so must not run
/// on Swift's cooperative pool.
enum AudioThread {
    /// Starts `body` on a new high-priority thread called `name`, also where `ps -L`, `top -H` and
    /// debuggers look (Foundation does not set it; Linux keeps 15 bytes).
    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let descriptor = open("/proc/thread-self/comm", O_WRONLY)
            if descriptor >= 0 {
                let bytes = Array(name.utf8.prefix(15))
                _ = write(descriptor, bytes, bytes.count)
                close(descriptor)
            }
            body()
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }
}
