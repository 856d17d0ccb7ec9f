/// What a follower of the lobby sees of the whole server: who is here and what they are
/// doing, the live rooms and their scores, and the top of the leaderboard. Made by the
/// server from its lobby, its connections and its journal; sent as the protocol's
/// `lobby` message.
///
/// Invariants: every list is capped (``maxPeople``, ``maxRooms``, ``maxLeaders``), so a
/// view's size is bounded by construction whatever the server holds (`peopleCount` and
/// `roomCount` say how many there were); nothing private is in it: no pick, token,
/// commitment or address, only what every room's spectators may see.
public struct LobbyView: Sendable, Equatable {
  /// What someone present is doing.
  public enum Status: String, Sendable, CaseIterable {
    /// Following the lobby, in no room.
    case idle
    /// Seated alone, waiting for an opponent (also after a match whose opponent went,
    /// in a room someone may still come to).
    case waiting
    /// Seated in a match (running or just over).
    case playing
    /// Watching a room.
    case watching
  }

  /// Someone connected to the server.
  public struct Person: Sendable, Equatable {
    public var name: String
    public var status: Status
    /// The room they wait, play or watch in (nil when idle).
    public var room: String?
    /// Whether they can be challenged now: idle, following with a client that takes
    /// challenges.
    public var takesChallenges: Bool

    public init(name: String, status: Status, room: String?, takesChallenges: Bool = false) {
      self.name = name
      self.status = status
      self.room = room
      self.takesChallenges = takesChallenges
    }
  }

  /// A room with someone in it.
  public struct Room: Sendable, Equatable {
    public var name: String
    /// Seat 1's name then seat 2's (nil: the seat is free).
    public var players: [String?]
    /// Seat 1's score then seat 2's.
    public var scores: [Int]
    public var round: Int
    public var phase: RoomState.Phase
    public var bestOf: Int
    public var ruleset: Ruleset.ID
    public var fair: Bool
    public var spectators: Int

    public init(
      name: String, players: [String?], scores: [Int], round: Int, phase: RoomState.Phase,
      bestOf: Int, ruleset: Ruleset.ID, fair: Bool, spectators: Int
    ) {
      self.name = name
      self.players = players
      self.scores = scores
      self.round = round
      self.phase = phase
      self.bestOf = bestOf
      self.ruleset = ruleset
      self.fair = fair
      self.spectators = spectators
    }
  }

  /// A line of the leaderboard: the player's rating, and matches won and lost, as
  /// `roshambo-server history` counts them (a match always has a winner; a forfeit counts
  /// as any match does).
  public struct Leader: Sendable, Equatable {
    public var name: String
    public var won: Int
    public var lost: Int
    /// How many of the matches won were won by forfeit (the opponent gave the match up or
    /// never came back; extension field: 0 from an older server).
    public var wonByForfeit: Int
    /// The player's rating and its uncertainty (extension field: nil from an older
    /// server, which ranks by matches won).
    public var rating: Rating?

    public init(
      name: String, won: Int, lost: Int, wonByForfeit: Int = 0, rating: Rating? = nil
    ) {
      self.name = name
      self.won = won
      self.lost = lost
      self.wonByForfeit = wonByForfeit
      self.rating = rating
    }

    /// Whether `self` ranks above `other`: rated before unrated (an older server's),
    /// settled before provisional (one lucky win does not top the board), by rating, then
    /// the surer rating (smaller deviation), then matches won, fewest lost, and name. The
    /// journal and the shared history read their leaderboards in this order.
    public func ranksAbove(_ other: Leader) -> Bool {
      switch (rating, other.rating) {
      case (.some(let mine), .some(let theirs)):
        if mine.isProvisional != theirs.isProvisional { return !mine.isProvisional }
        if mine.points != theirs.points { return mine.points > theirs.points }
        if mine.deviation != theirs.deviation { return mine.deviation < theirs.deviation }
      case (.some, .none): return true
      case (.none, .some): return false
      case (.none, .none): break
      }
      if won != other.won { return won > other.won }
      if lost != other.lost { return lost < other.lost }
      return name < other.name
    }

    /// `leaders` in the leaderboard's order (``ranksAbove(_:)``).
    public static func ranked(_ leaders: [Leader]) -> [Leader] {
      leaders.sorted { $0.ranksAbove($1) }
    }
  }

  /// A rating as the leaderboard shows it: the points and their uncertainty (one
  /// standard deviation), as kept (to a millionth of a point).
  ///
  /// Invariant: provisional exactly when the deviation is above
  /// ``Glicko2Rating/provisionalDeviation``.
  public struct Rating: Sendable, Equatable {
    public var points: Double
    public var deviation: Double

    public init(points: Double, deviation: Double) {
      self.points = points
      self.deviation = deviation
    }

    public init(_ rating: Glicko2Rating) {
      self.init(points: rating.rating, deviation: rating.deviation)
    }

    /// Too uncertain to mean much yet (shown "1500?").
    public var isProvisional: Bool { deviation > Glicko2Rating.provisionalDeviation }

    /// As people read it, in whole points: "1623 ±48", or "1500?" while provisional.
    public var text: String {
      let points = Int(points.rounded())
      return isProvisional ? "\(points)?" : "\(points) ±\(Int(deviation.rounded()))"
    }
  }

  /// A match finished lately, to replay by its number (`roshambo replay NUMBER`).
  public struct Recent: Sendable, Equatable {
    /// The match's number on this server.
    public var id: Int64
    public var room: String
    /// Seat 1's then seat 2's.
    public var players: [String]
    public var scores: [Int]
    /// The winner's seat (a name twice would not fit the frame with every list full).
    public var winner: Seat
    public var fair: Bool
    /// Whether it ended by a forfeit (one player gave it up or never came back;
    /// extension field).
    public var forfeit = false

    public init(
      id: Int64, room: String, players: [String], scores: [Int], winner: Seat, fair: Bool
    ) {
      self.id = id
      self.room = room
      self.players = players
      self.scores = scores
      self.winner = winner
      self.fair = fair
    }

    public init?(_ match: FinishedMatch) {
      guard let id = match.id, match.players.count == 2, match.scores.count == 2,
        let winner = Seat.allCases.first(where: { match.players[$0.rawValue - 1] == match.winner })
      else { return nil }
      self.init(
        id: id, room: match.room, players: match.players, scores: match.scores,
        winner: winner, fair: match.fair)
      forfeit = match.forfeit
    }
  }

  /// The tournament as the lobby shows it: where it stands, the standings, this round's
  /// pairings, the champion once there is one.
  public struct TournamentView: Sendable, Equatable {
    public var kind: Tournament.Kind
    public var phase: Tournament.Phase
    /// The round being played (0 while it takes entries).
    public var round: Int
    /// How many rounds it plays (with its entrants so far).
    public var rounds: Int
    public var standings: [Tournament.Standing]
    /// The pairings of the current round.
    public var pairings: [Tournament.Pairing]
    public var champion: String?
    /// While it takes entries, when they close; between rounds, when the next is paired
    /// (ms since 1970, by the server's clock). Nil otherwise (extension field).
    public var startsAt: Int64? = nil
    /// Entries close once this many have entered (nil: by the timer only; extension).
    public var startsWith: Int? = nil
    /// The pairings of the rounds before the current one, oldest first, each in the order
    /// of ``pairings`` and cut as it is, the latest rounds kept whole, at most
    /// ``maxEarlierPairings`` in all (extension: the party's board's view only, so that a
    /// page opened late draws every round of the bracket; a follower's view, held to one
    /// frame, never has them).
    public var earlier: [[Tournament.Pairing]] = []

    public init(
      kind: Tournament.Kind, phase: Tournament.Phase, round: Int, rounds: Int,
      standings: [Tournament.Standing], pairings: [Tournament.Pairing], champion: String?
    ) {
      self.kind = kind
      self.phase = phase
      self.round = round
      self.rounds = rounds
      self.standings = Array(standings.prefix(Self.maxStandings))
      self.pairings = Self.listed(pairings)
      self.champion = champion
    }

    /// A round's pairings as a view lists them: matches still played first, then decided
    /// ones, byes last, at most ``maxPairings``.
    public static func listed(_ pairings: [Tournament.Pairing]) -> [Tournament.Pairing] {
      let order = { (pairing: Tournament.Pairing) in
        pairing.isBye ? 2 : pairing.winner == nil ? 0 : 1
      }
      return Array(
        pairings.enumerated().sorted { (order($0.1), $0.0) < (order($1.1), $1.0) }.map(\.1)
          .prefix(maxPairings))
    }

    /// The latest of `rounds` that fit ``maxEarlierPairings`` once each is listed, whole.
    public static func earlier(_ rounds: some Collection<[Tournament.Pairing]>)
      -> [[Tournament.Pairing]]
    {
      var kept: [[Tournament.Pairing]] = []
      var count = 0
      for round in rounds.reversed() {
        let listed = listed(round)
        guard count + listed.count <= maxEarlierPairings else { break }
        kept.append(listed)
        count += listed.count
      }
      return kept.reversed()
    }

    /// The most standings a view lists (the top), and pairings (matches still played
    /// first): with every other list full, a view still fits one frame.
    public static let maxStandings = 32
    public static let maxPairings = 8
    public static let maxEarlierPairings = 32

    public init(_ tournament: Tournament) {
      self.init(
        kind: tournament.kind, phase: tournament.phase, round: tournament.rounds.count,
        rounds: tournament.roundCount, standings: tournament.standings,
        pairings: tournament.rounds.last ?? [], champion: tournament.champion)
    }
  }

  /// The most people a view lists: 120, so that the leaders' ratings fit a frame with
  /// every other list full (a server without ratings lists up to ``maxPeopleAccepted``).
  public static let maxPeople = 120
  /// The most people a client takes in a view from any server, older ones included.
  public static let maxPeopleAccepted = 128
  /// The most rooms a view lists.
  public static let maxRooms = 64
  /// The leaderboard's length in a view.
  public static let maxLeaders = 10
  /// The recent matches a view lists (the latest).
  public static let maxRecent = 6

  /// The people listed: players, then spectators, then followers, each by name.
  public var people: [Person]
  /// How many people are connected (the list may be cut).
  public var peopleCount: Int
  /// The rooms listed: running matches first, then by name.
  public var rooms: [Room]
  /// How many rooms there are (the list may be cut).
  public var roomCount: Int
  public var leaders: [Leader]
  /// The lobby's tournament, if one was opened.
  public var tournament: TournamentView?
  /// Matches finished lately, newest first (extension: none from an older server).
  public var recent: [Recent]
  /// The server's name for people, as it announces itself (extension: nil from an older
  /// server, or one that does not announce).
  public var server: String?

  public init(
    people: [Person], peopleCount: Int, rooms: [Room], roomCount: Int, leaders: [Leader],
    tournament: TournamentView? = nil, recent: [Recent] = []
  ) {
    self.tournament = tournament
    self.recent = Array(recent.prefix(Self.maxRecent))
    self.people = Array(people.prefix(Self.maxPeople))
    self.peopleCount = peopleCount
    self.rooms = Array(rooms.prefix(Self.maxRooms))
    self.roomCount = roomCount
    self.leaders = Array(leaders.prefix(Self.maxLeaders))
  }
}

extension LobbyState {
  /// The lobby as its followers see it: the rooms from this state (running matches
  /// first, then by name; at most ``LobbyView/maxRooms``; none that is over for good,
  /// ``isOverForGood(_:)``), with `people` (at most ``LobbyView/maxPeople``, as the caller
  /// lists them), `leaders` and `recent` added.
  public func view(
    people: [LobbyView.Person], peopleCount: Int, leaders: [LobbyView.Leader],
    recent: [LobbyView.Recent] = []
  ) -> LobbyView {
    // Running matches first (what a party wants to watch), then by name; chosen by their
    // keys alone (copying whole rooms to compare them would cost more than the choice).
    let open = rooms.lazy.filter { !Self.isOverForGood($0.value) }
    let keys = open.map { (running: $0.value.phase == .choosing, name: $0.key) }
    let order = keys.smallest(LobbyView.maxRooms) { a, b in
      a.running != b.running ? a.running : a.name < b.name
    }.map { rooms[$0.name]! }
    let listed = order.map { room in
      let seats = Seat.allCases.map { seat in room.seats[seat].flatMap { $0.hasLeft ? nil : $0 } }
      return LobbyView.Room(
        name: room.name, players: seats.map { $0?.name },
        scores: Seat.allCases.map { room.seats[$0]?.score ?? 0 }, round: room.round,
        phase: room.phase, bestOf: room.settings.bestOf, ruleset: room.settings.ruleset,
        fair: room.settings.fair, spectators: room.spectators)
    }
    return LobbyView(
      people: people, peopleCount: peopleCount, rooms: listed, roomCount: open.count,
      leaders: leaders, tournament: tournament.map(LobbyView.TournamentView.init),
      recent: recent)
  }

  /// Whether `room` is a challenge's or a tournament's whose match is over and one of
  /// whose players has left: nobody will play in it again (no rematch, nobody seated in
  /// the free seat), so the lobby does not list it; its result is in the recent matches.
  public static func isOverForGood(_ room: RoomState) -> Bool {
    room.phase == .over && room.seats.values.contains(where: \.hasLeft)
      && (isChallengeRoom(room.name) || Tournament.isTournamentRoom(room.name))
  }
}
