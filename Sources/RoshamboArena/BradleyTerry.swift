import Foundation

/// Bradley–Terry ratings of bots from their decisive rounds: bot i beats bot j with
/// chance 1 / (1 + e^(θj − θi)). Fitted by Newton's method on the log-likelihood with a
/// weak prior (each bot is given `prior` won and `prior` lost rounds against an
/// imaginary bot of strength 0), so a bot that won every round still has a finite rating;
/// standard errors from the Fisher information at the fit.
///
/// Invariant: the strengths sum to zero (they are relative), and each standard error is
/// that of the bot's strength against the average of all.
public struct BradleyTerry: Sendable, Equatable {
  /// Log-strengths θ, centred on 0.
  public var strengths: [Double]
  /// The standard error of each strength.
  public var standardErrors: [Double]

  /// Elo points per unit of θ: a difference of 400 is 10 to 1.
  public static let eloPerUnit = 400 / log(10.0)

  /// Fits the ratings: `wins[i][j]` is how many decisive rounds bot i won against bot j.
  public init(wins: [[Int]], prior: Double = 1) {
    let n = wins.count
    var theta = [Double](repeating: 0, count: n)
    func likelihood(_ theta: [Double]) -> Double {
      var total = 0.0
      for i in 0..<n {
        for j in 0..<n where i != j && wins[i][j] > 0 {
          total += Double(wins[i][j]) * Self.logSigmoid(theta[i] - theta[j])
        }
        total += prior * (Self.logSigmoid(theta[i]) + Self.logSigmoid(-theta[i]))
      }
      return total
    }
    var information = Self.information(wins: wins, theta: theta, prior: prior)
    for _ in 0..<200 {
      var gradient = [Double](repeating: 0, count: n)
      for i in 0..<n {
        var g = prior - 2 * prior * Self.sigmoid(theta[i])
        for j in 0..<n where i != j {
          let games = Double(wins[i][j] + wins[j][i])
          g += Double(wins[i][j]) - games * Self.sigmoid(theta[i] - theta[j])
        }
        gradient[i] = g
      }
      guard let step = Self.solve(information, gradient) else { break }
      // Halve the step while it lowers the likelihood (Newton can overshoot far from the
      // fit, when a bot won nearly everything).
      let before = likelihood(theta)
      var scale = 1.0
      var next = theta
      while scale > 1e-6 {
        next = zip(theta, step).map { $0 + scale * $1 }
        if likelihood(next) >= before - 1e-12 { break }
        scale /= 2
      }
      let moved = zip(theta, next).map { abs($0 - $1) }.max() ?? 0
      theta = next
      information = Self.information(wins: wins, theta: theta, prior: prior)
      if moved < 1e-10 { break }
    }
    let covariance =
      Self.inverse(information) ?? Array(repeating: Array(repeating: 0, count: n), count: n)
    let mean = theta.reduce(0, +) / Double(max(n, 1))
    strengths = theta.map { $0 - mean }
    // The variance of θi − mean(θ): Σii − 2·mean_k Σik + mean_kl Σkl.
    let total = covariance.joined().reduce(0, +) / Double(max(n * n, 1))
    standardErrors = (0..<n).map { i in
      let row = covariance[i].reduce(0, +) / Double(n)
      return max(0, covariance[i][i] - 2 * row + total).squareRoot()
    }
  }

  /// The ratings on the Elo scale.
  public var elo: [Double] { strengths.map { $0 * Self.eloPerUnit } }
  public var eloErrors: [Double] { standardErrors.map { $0 * Self.eloPerUnit } }

  /// The chance the model gives bot i of winning a decisive round against bot j.
  public func chance(_ i: Int, beats j: Int) -> Double {
    Self.sigmoid(strengths[i] - strengths[j])
  }

  static func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

  static func logSigmoid(_ x: Double) -> Double {
    x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x))
  }

  /// The Fisher information of θ (the negative Hessian of the log-likelihood).
  static func information(wins: [[Int]], theta: [Double], prior: Double) -> [[Double]] {
    let n = theta.count
    var matrix = Array(repeating: [Double](repeating: 0, count: n), count: n)
    for i in 0..<n {
      let anchor = sigmoid(theta[i])
      matrix[i][i] += 2 * prior * anchor * (1 - anchor)
      for j in 0..<n where i != j {
        let games = Double(wins[i][j] + wins[j][i])
        guard games > 0 else { continue }
        let p = sigmoid(theta[i] - theta[j])
        matrix[i][i] += games * p * (1 - p)
        matrix[i][j] -= games * p * (1 - p)
      }
    }
    return matrix
  }

  /// x with A·x = b, by Gaussian elimination with partial pivoting (nil: A singular).
  static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let n = b.count
    var m = a
    var x = b
    for column in 0..<n {
      guard
        let pivot = (column..<n).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }),
        abs(m[pivot][column]) > 1e-300
      else { return nil }
      m.swapAt(column, pivot)
      x.swapAt(column, pivot)
      for row in (column + 1)..<max(n, column + 1) {
        let factor = m[row][column] / m[column][column]
        guard factor != 0 else { continue }
        for k in column..<n { m[row][k] -= factor * m[column][k] }
        x[row] -= factor * x[column]
      }
    }
    for row in stride(from: n - 1, through: 0, by: -1) {
      var sum = x[row]
      for k in (row + 1)..<max(n, row + 1) { sum -= m[row][k] * x[k] }
      x[row] = sum / m[row][row]
    }
    return x
  }

  static func inverse(_ a: [[Double]]) -> [[Double]]? {
    let n = a.count
    var columns: [[Double]] = []
    for i in 0..<n {
      var unit = [Double](repeating: 0, count: n)
      unit[i] = 1
      guard let column = solve(a, unit) else { return nil }
      columns.append(column)
    }
    return (0..<n).map { i in (0..<n).map { j in columns[j][i] } }
  }
}
