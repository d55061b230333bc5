/// Why the proxy configuration could not be read: names the variable, never its value.
public struct ProxyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The environment variable at fault.
  public let variable: String
  /// What is wrong with it.
  public let problem: String

  /// Creates an error.
  public init(variable: String, problem: String) {
    self.variable = variable
    self.problem = problem
  }

  /// `"<VARIABLE> <problem>"`.
  public var description: String { "\(variable) \(problem)" }
}
