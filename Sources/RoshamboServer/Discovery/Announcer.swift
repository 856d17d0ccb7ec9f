import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboDiscovery
import RoshamboProtocol

/// Announces a running server on the local network: an ``Announcement`` multicast on
/// every LAN interface every `interval`, and at once (to the group, never to the asker,
/// so a forged query cannot aim answers at a third party) when a client's query arrives,
/// at most once per `minimumGap`.
///
/// Failing to announce never stops the server: what cannot be set up or sent is logged
/// (a warning once, then at debug level) and play goes on.
///
/// Invariant: every datagram it sends is an encoded ``Announcement`` of at most
/// ``Announcement/maxBytes`` bytes, and it sends at most one per interface per
/// `minimumGap` however many queries arrive.
final class Announcer: Sendable {
  /// How the announcements are made.
  struct Settings: Sendable {
    var name: String
    var code: String
    var tlsPort: Int
    var groupPort = Announcement.port
    var interval: TimeAmount = .seconds(2)
    var minimumGap: TimeAmount = .milliseconds(250)
    /// The address the game listens on: a wildcard announces on every LAN interface,
    /// an address only on the interface that has it (none, for loopback).
    var listenHost = "0.0.0.0"
  }

  /// The interfaces to announce on for a server listening on `host`: every one for a
  /// wildcard, else the one holding that address (none for a loopback address: nobody
  /// else on the network could connect to it).
  static func devices(listeningOn host: String, among devices: [NIONetworkDevice])
    -> [NIONetworkDevice]
  {
    if host == "0.0.0.0" || host == "::" || host.isEmpty { return devices }
    return devices.filter { $0.address?.ipAddress == host }
  }

  private let loop: any EventLoop
  private let listener: (any Channel)?
  private let senders: [any Channel]
  private let state: NIOLoopBoundBox<State>

  private struct State {
    var timer: RepeatedTask?
    var lastSent: NIODeadline = .distantPast
    var pending = false
    var warned = false
    var stopped = false
  }

  private init(
    loop: any EventLoop, listener: (any Channel)?, senders: [any Channel],
    state: NIOLoopBoundBox<State>
  ) {
    self.loop = loop
    self.listener = listener
    self.senders = senders
    self.state = state
  }

  /// Opens the sockets and starts announcing. `waiting` says how many players wait for
  /// an opponent now. Returns the announcer (nil when there is no interface to announce
  /// on) and the warnings met.
  static func start(
    _ settings: Settings, loop: any EventLoop, logger: Logger,
    waiting: @escaping @Sendable () -> EventLoopFuture<Int>
  ) async -> (Announcer?, [String]) {
    var warnings: [String] = []
    let all = AnnouncementInterfaces.current()
    let devices = Self.devices(listeningOn: settings.listenHost, among: all)
    if devices.isEmpty, !all.isEmpty {
      return (
        nil,
        [
          "not announcing on the local network: the server listens only on "
            + "\(settings.listenHost), which no LAN interface here has; players on this "
            + "machine connect with --host \(settings.listenHost)"
        ]
      )
    }
    guard !devices.isEmpty else {
      return (
        nil,
        [
          "not announcing on the local network: no network interface here supports IPv4 "
            + "multicast; players connect with --host"
        ]
      )
    }
    let group: SocketAddress
    do {
      group = try AnnouncementInterfaces.groupAddress(port: settings.groupPort)
    } catch {
      preconditionFailure("the announcement group \(Announcement.group) is not an address")
    }
    let state = NIOLoopBoundBox.makeBoxSendingValue(State(), eventLoop: loop)
    let trigger = Trigger()

    // One socket bound to the group's port hears queries on every interface.
    var listener: (any Channel)?
    do {
      let channel = try await DatagramBootstrap(group: loop)
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .channelOption(.receivePacketInfo, value: true)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              QueryHandler(logger: logger, onQuery: { trigger.fire() }))
          }
        }
        .bind(host: "0.0.0.0", port: settings.groupPort).get()
      listener = channel
      for (device, error) in await AnnouncementInterfaces.join(
        channel, port: settings.groupPort, devices: devices)
      {
        warnings.append(
          "cannot hear queries on \(device.name) (\(error)); servers are still announced "
            + "every \(settings.interval.nanoseconds / 1_000_000_000) s")
      }
    } catch {
      warnings.append(
        "cannot listen for queries on UDP port \(settings.groupPort) (\(error)); announcing "
          + "every \(settings.interval.nanoseconds / 1_000_000_000) s without answering them")
    }

    // One sending socket per interface, so each announcement leaves by every interface.
    var senders: [any Channel] = []
    for device in devices {
      guard let address = AnnouncementInterfaces.interfaceAddress(of: device) else { continue }
      do {
        let channel = try await DatagramBootstrap(group: loop)
          .bind(host: "0.0.0.0", port: 0).get()
        let options = channel as! any SocketOptionProvider
        try await options.setIPMulticastIF(address).get()
        try await options.setIPMulticastLoop(1).get()
        try await options.setIPMulticastTTL(1).get()
        senders.append(channel)
      } catch {
        warnings.append("cannot announce on \(device.name): \(error)")
      }
    }

    guard !senders.isEmpty else {
      try? await listener?.close()
      return (nil, warnings + ["not announcing on the local network; players connect with --host"])
    }
    let announcer = Announcer(loop: loop, listener: listener, senders: senders, state: state)
    trigger.set { announcer.announceSoon(settings, group: group, logger: logger, waiting: waiting) }
    try? await loop.submit {
      state.value.timer = loop.scheduleRepeatedTask(
        initialDelay: .zero, delay: settings.interval
      ) { _ in
        announcer.announce(settings, group: group, logger: logger, waiting: waiting)
      }
    }.get()
    return (announcer, warnings)
  }

  /// Stops announcing and closes the sockets.
  func stop() async {
    try? await loop.submit {
      self.state.value.stopped = true
      self.state.value.timer?.cancel()
      self.state.value.timer = nil
    }.get()
    try? await listener?.close()
    for sender in senders { try? await sender.close() }
  }

  /// Announces now unless one went out less than `minimumGap` ago, in which case one
  /// more goes out when the gap has passed (however many queries came in between).
  private func announceSoon(
    _ settings: Settings, group: SocketAddress, logger: Logger,
    waiting: @escaping @Sendable () -> EventLoopFuture<Int>
  ) {
    loop.assertInEventLoop()
    guard !state.value.stopped, !state.value.pending else { return }
    let next = state.value.lastSent + settings.minimumGap
    if next <= .now() {
      announce(settings, group: group, logger: logger, waiting: waiting)
    } else {
      state.value.pending = true
      loop.scheduleTask(deadline: next) {
        self.state.value.pending = false
        self.announce(settings, group: group, logger: logger, waiting: waiting)
      }
    }
  }

  private func announce(
    _ settings: Settings, group: SocketAddress, logger: Logger,
    waiting: @escaping @Sendable () -> EventLoopFuture<Int>
  ) {
    guard !state.value.stopped else { return }
    state.value.lastSent = .now()
    waiting().hop(to: loop).whenSuccess { count in
      guard !self.state.value.stopped else { return }
      let announcement = Announcement(
        name: settings.name, port: settings.tlsPort, protocolVersion: WireProtocol.version,
        waiting: min(count, Announcement.maxWaiting), code: settings.code)
      let bytes = announcement.encoded()
      for sender in self.senders {
        let envelope = AddressedEnvelope(
          remoteAddress: group, data: sender.allocator.buffer(bytes: bytes))
        sender.writeAndFlush(envelope).whenFailure { error in
          self.sendFailed(error, logger: logger)
        }
      }
    }
  }

  private func sendFailed(_ error: any Error, logger: Logger) {
    if state.value.warned {
      logger.debug("an announcement was not sent", metadata: ["error": "\(error)"])
    } else {
      state.value.warned = true
      logger.warning(
        """
        cannot announce on the local network: \(error); play goes on, and players connect \
        with --host (this is said once)
        """)
    }
  }

  /// Lets the query handler, made before the announcer, reach it.
  ///
  /// `@unchecked Sendable`: `action` is set once under `lock` and read under it.
  private final class Trigger: @unchecked Sendable {
    private let lock = NIOLock()
    private var action: (@Sendable () -> Void)?

    func set(_ action: @escaping @Sendable () -> Void) { lock.withLock { self.action = action } }
    func fire() { lock.withLock { action }?() }
  }

  /// Reads datagrams on the group's port and reports queries; everything else (other
  /// servers' announcements, junk) is dropped.
  private final class QueryHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let logger: Logger
    private let onQuery: @Sendable () -> Void

    init(logger: Logger, onQuery: @escaping @Sendable () -> Void) {
      self.logger = logger
      self.onQuery = onQuery
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let envelope = unwrapInboundIn(data)
      // Queries come to the group: one sent to this socket's address directly is not.
      guard envelope.data.readableBytes <= Announcement.maxBytes,
        Announcement.cameToGroup(envelope)
      else { return }
      do {
        let datagram = try envelope.data.withUnsafeReadableBytes {
          try Announcement.decode(UnsafeRawBufferPointer($0))
        }
        if datagram == .query { onQuery() }
      } catch {
        logger.debug(
          "ignored a datagram on the announcement port",
          metadata: ["from": "\(envelope.remoteAddress)", "problem": "\(error)"])
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      logger.debug("announcement listener", metadata: ["error": "\(error)"])
    }
  }
}
