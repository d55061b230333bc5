/// Text from a model, an imported archive or a file name, made safe to put in an HTML page's
/// text or a quoted attribute (`dex export --html`).
///
/// It escapes by Unicode scalar, as a browser reads: a quote followed by a combining mark is one
/// `Character` in Swift but still a quote to the browser, so escaping `Character`s would let
/// `Fox"\u{301} onmouseover=…` out of an attribute.
public enum HTMLText {
  /// `text` with `&`, `<`, `>`, `"` and `'` replaced by their character references.
  public static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
