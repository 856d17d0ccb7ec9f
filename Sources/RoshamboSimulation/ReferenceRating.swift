#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The simulator's own Glicko-2 for one game, written from Glickman's "Example of the
/// Glicko-2 system" (glicko.net/glicko/glicko2.pdf), steps 1 to 8, with no code of
/// `RoshamboGame`'s rating: the oracle the journal's rated matches are compared with. Its
/// own test holds it to the paper's worked example.
///
/// Invariant: pure; numbers in, numbers out (points, not Glicko-2's own scale).
struct ReferenceRating: Equatable {
  var rating: Double
  var deviation: Double
  var volatility: Double

  /// The paper's constants: points per unit of Glicko-2's scale, τ and the stopping ε.
  static let pointsPerUnit = 173.7178
  static let tau = 0.5
  static let epsilon = 0.000_001

  /// One rating period of `games` (the opponent, and 1, ½ or 0).
  func after(_ games: [(opponent: ReferenceRating, score: Double)]) -> ReferenceRating {
    // Step 2: to Glicko-2's scale.
    let mu = (rating - 1500) / Self.pointsPerUnit
    let phi = deviation / Self.pointsPerUnit
    let sigma = volatility
    func dampening(_ phiJ: Double) -> Double {
      1 / sqrt(1 + 3 * phiJ * phiJ / (Double.pi * Double.pi))
    }
    // Steps 3 and 4: v and Δ.
    var vInverse = 0.0
    var sum = 0.0
    for (opponent, score) in games {
      let muJ = (opponent.rating - 1500) / Self.pointsPerUnit
      let gJ = dampening(opponent.deviation / Self.pointsPerUnit)
      let e = 1 / (1 + exp(-gJ * (mu - muJ)))
      vInverse += gJ * gJ * e * (1 - e)
      sum += gJ * (score - e)
    }
    let v = 1 / vInverse
    let delta = v * sum
    // Step 5: σ′ by the Illinois algorithm, as the paper writes it.
    let a = log(sigma * sigma)
    func f(_ x: Double) -> Double {
      let top = exp(x) * (delta * delta - phi * phi - v - exp(x))
      let bottom = 2 * pow(phi * phi + v + exp(x), 2)
      return top / bottom - (x - a) / (Self.tau * Self.tau)
    }
    var bigA = a
    var bigB: Double
    if delta * delta > phi * phi + v {
      bigB = log(delta * delta - phi * phi - v)
    } else {
      var k = 1.0
      while f(a - k * Self.tau) < 0 { k += 1 }
      bigB = a - k * Self.tau
    }
    var fA = f(bigA)
    var fB = f(bigB)
    while abs(bigB - bigA) > Self.epsilon {
      let bigC = bigA + (bigA - bigB) * fA / (fB - fA)
      let fC = f(bigC)
      if fC * fB <= 0 {
        bigA = bigB
        fA = fB
      } else {
        fA /= 2
      }
      bigB = bigC
      fB = fC
    }
    let sigmaPrime = exp(bigA / 2)
    // Steps 6 and 7: φ*, then φ′ and μ′.
    let phiStar = sqrt(phi * phi + sigmaPrime * sigmaPrime)
    let phiPrime = 1 / sqrt(1 / (phiStar * phiStar) + 1 / v)
    let muPrime = mu + phiPrime * phiPrime * sum
    // Step 8: back to points.
    return ReferenceRating(
      rating: Self.pointsPerUnit * muPrime + 1500, deviation: Self.pointsPerUnit * phiPrime,
      volatility: sigmaPrime)
  }
}
