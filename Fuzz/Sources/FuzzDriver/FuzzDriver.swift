import NIOCore
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The input handler libFuzzer calls; set once before the driver starts, then only read
/// from libFuzzer's one fuzzing thread.
nonisolated(unsafe) private var currentTarget: ((UnsafeRawBufferPointer) -> Void)?

/// Runs libFuzzer (its flags and corpus folders come from the command line) with `body`
/// as the target: `body` gets each input and traps when an invariant fails.
public func fuzz(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
  currentTarget = body
  var argc = CommandLine.argc
  var argv = CommandLine.unsafeArgv
  exit(
    runDriver(&argc, &argv) { start, count in
      currentTarget!(UnsafeRawBufferPointer(start: start, count: count))
      return 0
    })
}

/// Fails the run with `message` when `condition` does not hold (also in release builds).
public func require(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String
) {
  if !condition() { fatalError("invariant broken: \(message())") }
}

/// Cuts `bytes`, a connection's stream, into frames with the real `FrameDecoder` rule,
/// as a connection does; returns the whole frames and whether the stream broke the
/// framing (which ends a real connection).
public func frames(in bytes: UnsafeRawBufferPointer) -> (frames: [ByteBuffer], broken: Bool) {
  var buffer = ByteBuffer(bytes: bytes)
  let decoder = FrameDecoder()
  var frames: [ByteBuffer] = []
  do {
    while let frame = try decoder.nextFrame(from: &buffer) {
      require(frame.readableBytes <= WireProtocol.maxFrameLength, "a frame over the limit")
      frames.append(frame)
    }
  } catch {
    return (frames, true)
  }
  return (frames, false)
}
