/// The backend routes DexKit uses, named as in the reference app.
public enum Endpoints {
  /// `POST /vision`: image plus optional prompt in, `{role, content}` out. Session-signed.
  public static let vision = Endpoint(method: "POST", path: "/vision", signing: .session)
  /// `POST /auth_token`: exchanges a bootstrap-signed request for a session. See
  /// ``AuthTokenResponse``.
  public static let authToken = Endpoint(
    method: "POST", path: "/auth_token", signing: .bootstrapKey)
}
