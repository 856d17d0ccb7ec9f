import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboDiscovery
import RoshamboProtocol

/// Finds servers on the local network: listens to the announcement group on every LAN
/// interface, multicasts a query so that servers announce at once, and collects what it
/// hears for a while (docs/PROTOCOL.md, "Finding servers on a LAN").
///
/// Invariant: at most ``maxServers`` servers are kept, one per address and port (the
/// newest announcement wins), at most ``maxPerSource`` from one source address, and only
/// datagrams sent to the group, whatever is sent.
public enum ServerDiscovery {
  /// More servers than this on one LAN are not listed (a flood of forged announcements
  /// cannot grow the list without bound).
  public static let maxServers = 64
  /// Servers listed from one source address (one machine may run a few servers on
  /// several ports; one forger cannot fill the list and hide the real server).
  public static let maxPerSource = 4

  /// What was heard within `timeout`, ordered by name then address. Announcements of
  /// another protocol version are left out. Throws when no interface could join the
  /// group (so "none found" means none answered).
  public static func find(
    timeout: Duration, groupPort: Int = Announcement.port,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> [DiscoveredServer] {
    let loop = group.next()
    let heard = NIOLockedValueBox([String: DiscoveredServer]())
    let groupAddress = try AnnouncementInterfaces.groupAddress(port: groupPort)
    let channel = try await DatagramBootstrap(group: loop)
      .channelOption(.socketOption(.so_reuseaddr), value: 1)
      .channelOption(.receivePacketInfo, value: true)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(AnnouncementReader(heard: heard))
        }
      }
      .bind(host: "0.0.0.0", port: groupPort).get()
    let devices = AnnouncementInterfaces.current()
    let joined =
      devices.count
      - (await AnnouncementInterfaces.join(channel, port: groupPort, devices: devices)).count
    // Ask on every interface, so servers answer now rather than at their next beacon.
    let options = channel as! any SocketOptionProvider
    _ = try? await options.setIPMulticastLoop(1).get()
    _ = try? await options.setIPMulticastTTL(1).get()
    for device in devices {
      guard let address = AnnouncementInterfaces.interfaceAddress(of: device) else { continue }
      _ = try? await options.setIPMulticastIF(address).get()
      let query = AddressedEnvelope(
        remoteAddress: groupAddress, data: channel.allocator.buffer(bytes: Announcement.query()))
      _ = try? await channel.writeAndFlush(query).get()
    }
    try? await Task.sleep(for: timeout)
    try? await channel.close()
    if joined == 0 { throw DiscoveryError.noInterface }
    return heard.withLockedValue { $0.values }.sorted {
      ($0.announcement.name, $0.address) < ($1.announcement.name, $1.address)
    }
  }

  /// Why nothing could be heard at all.
  public enum DiscoveryError: Error, CustomStringConvertible {
    case noInterface

    public var description: String {
      "no network interface here can join the announcement group \(Announcement.group)"
    }
  }

  /// Keeps each announcement heard, by source address and port.
  private final class AnnouncementReader: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let heard: NIOLockedValueBox<[String: DiscoveredServer]>

    init(heard: NIOLockedValueBox<[String: DiscoveredServer]>) {
      self.heard = heard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let envelope = unwrapInboundIn(data)
      guard envelope.data.readableBytes <= Announcement.maxBytes,
        Announcement.cameToGroup(envelope),
        let host = envelope.remoteAddress.ipAddress,
        case .announcement(let announcement)? = try? envelope.data.withUnsafeReadableBytes({
          try Announcement.decode(UnsafeRawBufferPointer($0))
        }),
        announcement.protocolVersion == WireProtocol.version
      else { return }
      let server = DiscoveredServer(host: host, announcement: announcement)
      heard.withLockedValue { heard in
        let fromSource = heard.values.count { $0.host == host }
        if heard[server.address] != nil
          || (heard.count < ServerDiscovery.maxServers && fromSource < ServerDiscovery.maxPerSource)
        {
          heard[server.address] = server
        }
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
  }
}
