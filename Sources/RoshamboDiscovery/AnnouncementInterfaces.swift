import NIOCore
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The network interfaces announcements travel on: every IPv4 interface that supports
/// multicast and is not loopback (a laptop on Wi-Fi and Ethernet announces on both). A
/// machine with none has no LAN to announce on; its players use `--host`.
///
/// Invariant: every device listed has an IPv4 address, so it can be named to
/// `IP_MULTICAST_IF` and `IP_ADD_MEMBERSHIP`.
public enum AnnouncementInterfaces {
  /// The devices to announce on and listen on, now (interfaces come and go).
  public static func current() -> [NIONetworkDevice] {
    let devices = (try? System.enumerateDevices()) ?? []
    let v4 = devices.filter { device in
      if case .v4 = device.address { return true }
      return false
    }
    return v4.filter { $0.multicastSupported && !isLoopback($0) }
  }

  /// The multicast group's socket address.
  public static func groupAddress(port: Int = Announcement.port) throws -> SocketAddress {
    try SocketAddress(ipAddress: Announcement.group, port: port)
  }

  /// Joins the announcement group on `port` on each of `devices` with `channel` (a
  /// datagram channel bound to that port); returns the devices that would not join, with
  /// why.
  public static func join(
    _ channel: any Channel, port: Int = Announcement.port,
    devices: [NIONetworkDevice] = current()
  ) async -> [(device: NIONetworkDevice, error: any Error)] {
    guard let multicast = channel as? any MulticastChannel else {
      return devices.map { ($0, ChannelError.operationUnsupported) }
    }
    var failed: [(device: NIONetworkDevice, error: any Error)] = []
    for device in devices {
      do {
        try await multicast.joinGroup(try groupAddress(port: port), device: device).get()
      } catch {
        failed.append((device, error))
      }
    }
    return failed
  }

  /// The device's IPv4 address as `IP_MULTICAST_IF` takes it.
  public static func interfaceAddress(of device: NIONetworkDevice) -> in_addr? {
    guard case .v4(let address) = device.address else { return nil }
    return address.address.sin_addr
  }

  private static func isLoopback(_ device: NIONetworkDevice) -> Bool {
    device.address?.ipAddress?.hasPrefix("127.") ?? false
  }
}

extension Announcement {
  /// Whether a datagram was sent to the announcement group, as the kernel says
  /// (`IP_PKTINFO`, asked for with `ChannelOptions.receivePacketInfo`), rather than to the
  /// socket's own address: only what went to the group counts, so one host cannot whisper
  /// forged announcements or queries to another.
  public static func cameToGroup(_ envelope: AddressedEnvelope<ByteBuffer>) -> Bool {
    envelope.metadata?.packetInfo?.destinationAddress.ipAddress == group
  }
}
