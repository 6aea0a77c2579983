#include "sim/alerts/yaml_subset.h"

#include <set>
#include <string_view>

namespace llm {
namespace {

bool is_blank_line(std::string_view s) {
  return s.find_first_not_of(' ') == std::string_view::npos;
}

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(' ');
  return std::string(s.substr(b, e - b + 1));
}

// A plain scalar ends at " #" (a comment), whatever precedes it.
std::string strip_plain_comment(std::string_view s) {
  if (!s.empty() && s[0] == '#') return "";
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '#' && s[i - 1] == ' ') return trim(s.substr(0, i));
  }
  return trim(s);
}

bool is_sequence_item(std::string_view content) {
  return !content.empty() && content[0] == '-' && (content.size() == 1 || content[1] == ' ');
}

class Parser {
 public:
  explicit Parser(const std::string& text) {
    size_t start = 0;
    while (start < text.size() || (start == text.size() && text.empty())) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines_.push_back(line);
      start = end + 1;
    }
  }

  YamlNode document() {
    YamlNode root;
    root.kind = YamlNode::Kind::kMap;
    root.line = 1;
    if (!skip()) return root;
    if (indent() != 0) fail("the document must start at column 1");
    root = node(0);
    if (skip()) fail("unexpected indentation or content after the document");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw YamlError(static_cast<int>(pos_ + 1), what);
  }
  int line_number() const { return static_cast<int>(pos_ + 1); }

  // Moves to the next line that is neither blank nor a comment; false at the end.
  bool skip() {
    while (pos_ < lines_.size()) {
      const std::string& l = lines_[pos_];
      const size_t first = l.find_first_not_of(' ');
      if (first != std::string::npos && l[first] == '\t') fail("tab in indentation (use spaces)");
      if (first != std::string::npos && l[first] != '#') return true;
      ++pos_;
    }
    return false;
  }
  size_t indent() const { return lines_[pos_].find_first_not_of(' '); }
  std::string_view content() const { return std::string_view(lines_[pos_]).substr(indent()); }

  YamlNode node(size_t at_indent) {
    const std::string_view c = content();
    if (is_sequence_item(c)) return sequence(at_indent);
    if (key_colon(c) != std::string_view::npos) return map(at_indent);
    YamlNode n;
    n.line = line_number();
    const std::string rest(c);
    ++pos_;
    n.scalar = scalar_value(rest, at_indent);
    return n;
  }

  YamlNode sequence(size_t n) {
    YamlNode seq;
    seq.kind = YamlNode::Kind::kSequence;
    seq.line = line_number();
    while (skip() && indent() == n && is_sequence_item(content())) {
      const int line = line_number();
      const std::string_view rest = content().substr(1);
      const size_t spaces = rest.find_first_not_of(' ');
      if (spaces == std::string_view::npos || rest[spaces] == '#') {
        ++pos_;
        if (skip() && indent() > n) {
          seq.items.push_back(node(indent()));
        } else {
          YamlNode empty;
          empty.line = line;
          seq.items.push_back(empty);
        }
        continue;
      }
      // "- key: v" continues as a map (or scalar) starting at the column after "- ".
      const size_t column = n + 1 + spaces;
      lines_[pos_] = std::string(column, ' ') + std::string(rest.substr(spaces));
      seq.items.push_back(node(column));
    }
    if (skip() && indent() > n) fail("unexpected indentation in a sequence");
    return seq;
  }

  static size_t key_colon(std::string_view c) {
    if (c.empty() || c[0] == '{' || c[0] == '[' || c[0] == '#') return std::string_view::npos;
    size_t from = 0;
    if (c[0] == '"' || c[0] == '\'') {
      const size_t close = c.find(c[0], 1);
      if (close == std::string_view::npos) return std::string_view::npos;
      from = close + 1;
    }
    for (size_t i = from; i < c.size(); ++i) {
      if (c[i] == ':' && (i + 1 == c.size() || c[i + 1] == ' ')) return i;
      if (c[i] == '#' && i > 0 && c[i - 1] == ' ') break;
    }
    return std::string_view::npos;
  }

  YamlNode map(size_t n) {
    YamlNode m;
    m.kind = YamlNode::Kind::kMap;
    m.line = line_number();
    std::set<std::string> seen;
    while (skip() && indent() == n && !is_sequence_item(content())) {
      const std::string_view c = content();
      const size_t colon = key_colon(c);
      if (colon == std::string_view::npos)
        fail("expected 'key: value', got '" + std::string(c) + "'");
      const std::string key = unquote(trim(c.substr(0, colon)));
      if (!seen.insert(key).second) fail("duplicate key '" + key + "'");
      const std::string rest = trim(c.substr(colon + 1));
      YamlNode value;
      value.line = line_number();
      ++pos_;
      if (rest.empty() || rest[0] == '#') {
        if (skip() && (indent() > n || (indent() == n && is_sequence_item(content())))) {
          const int line = value.line;
          value = indent() > n ? node(indent()) : sequence(n);
          value.line = line;  // a block value is reported at its key
        }
      } else {
        const int line = value.line;
        value = flow_or_scalar(rest, n);
        value.line = line;
      }
      m.entries.push_back({key, std::move(value)});
    }
    if (skip() && indent() > n) fail("unexpected indentation in a map");
    return m;
  }

  // The value after "key: " (the line is already consumed).
  YamlNode flow_or_scalar(const std::string& rest, size_t n) {
    YamlNode v;
    if (rest[0] == '{' || rest[0] == '[') return flow(rest);
    v.scalar = scalar_value(rest, n);
    return v;
  }

  std::string scalar_value(const std::string& rest, size_t n) {
    if (rest[0] == '|' || rest[0] == '>') return block_scalar(rest, n);
    if (rest[0] == '"' || rest[0] == '\'') {
      --pos_;  // report errors on the scalar's line
      size_t end = 0;
      std::string s = quoted(rest, 0, &end);
      if (!strip_plain_comment(rest.substr(end)).empty()) {
        fail("unexpected text after the closing quote: '" + rest.substr(end) + "'");
      }
      ++pos_;
      return s;
    }
    std::string s = strip_plain_comment(rest);
    // A plain scalar goes on over more-indented lines, joined by spaces.
    while (pos_ < lines_.size() && !is_blank_line(lines_[pos_]) && indent() > n &&
           key_colon(content()) == std::string_view::npos && !is_sequence_item(content())) {
      const std::string more = strip_plain_comment(content());
      if (!more.empty()) s += " " + more;
      ++pos_;
    }
    return s;
  }

  std::string block_scalar(const std::string& header_text, size_t n) {
    const std::string header = strip_plain_comment(header_text);
    const bool folded = header[0] == '>';
    const std::string chomp = header.substr(1);
    if (chomp != "" && chomp != "-" && chomp != "+") {
      --pos_;
      fail("unsupported block scalar header '" + header + "' (use |, |-, |+, > or >-)");
    }
    std::vector<std::string> body;
    size_t block_indent = std::string::npos;
    while (pos_ < lines_.size()) {
      const std::string& l = lines_[pos_];
      if (is_blank_line(l)) {
        body.emplace_back();
        ++pos_;
        continue;
      }
      const size_t ind = l.find_first_not_of(' ');
      if (block_indent == std::string::npos) {
        if (ind <= n) break;
        block_indent = ind;
      }
      if (ind < block_indent) break;
      body.push_back(l.substr(block_indent));
      ++pos_;
    }
    size_t trailing = 0;
    while (!body.empty() && body.back().empty()) {
      body.pop_back();
      ++trailing;
    }
    std::string s;
    for (size_t i = 0; i < body.size(); ++i) {
      if (i > 0 && !folded) {
        s += "\n";
      } else if (i > 0) {  // folded: lines join with a space, a blank line is a line break
        s += body[i].empty() ? "\n" : body[i - 1].empty() ? "" : " ";
      }
      s += body[i];
    }
    if (chomp == "-" || body.empty()) return s;
    s += "\n";
    if (chomp == "+") s += std::string(trailing, '\n');
    return s;
  }

  // A quoted scalar starting at text[at]; *end is the index after its closing quote.
  std::string quoted(const std::string& text, size_t at, size_t* end) const {
    const char q = text[at];
    std::string s;
    for (size_t i = at + 1; i < text.size(); ++i) {
      const char c = text[i];
      if (q == '\'' && c == '\'') {
        if (i + 1 < text.size() && text[i + 1] == '\'') {
          s += '\'';
          ++i;
          continue;
        }
        *end = i + 1;
        return s;
      }
      if (q == '"' && c == '\\' && i + 1 < text.size()) {
        const char e = text[++i];
        switch (e) {
          case 'n':
            s += '\n';
            break;
          case 't':
            s += '\t';
            break;
          case '"':
            s += '"';
            break;
          case '\\':
            s += '\\';
            break;
          case '/':
            s += '/';
            break;
          default:
            fail(std::string("unsupported escape \\") + e + " in a double-quoted string");
        }
        continue;
      }
      if (q == '"' && c == '"') {
        *end = i + 1;
        return s;
      }
      s += c;
    }
    fail(std::string("missing closing ") + q + " (quoted strings must end on their line)");
  }

  std::string unquote(const std::string& s) const {
    if (s.empty() || (s[0] != '"' && s[0] != '\'')) return s;
    size_t end = 0;
    std::string v = quoted(s, 0, &end);
    if (end != s.size()) fail("unexpected text after the closing quote of key " + s);
    return v;
  }

  // {k: v, ...} or [a, b, ...] of scalars, on one line (the line is already consumed).
  YamlNode flow(const std::string& text) {
    --pos_;
    YamlNode v;
    v.line = line_number();
    const bool is_map = text[0] == '{';
    v.kind = is_map ? YamlNode::Kind::kMap : YamlNode::Kind::kSequence;
    const char close = is_map ? '}' : ']';
    std::vector<std::string> parts;
    std::string current;
    size_t i = 1;
    bool closed = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"' || c == '\'') {
        size_t end = 0;
        quoted(text, i, &end);
        current += text.substr(i, end - i);
        i = end - 1;
      } else if (c == '{' || c == '[') {
        fail("nested flow collections are not supported: " + text);
      } else if (c == ',') {
        parts.push_back(trim(current));
        current.clear();
      } else if (c == close) {
        closed = true;
        break;
      } else {
        current += c;
      }
    }
    if (!closed) fail(std::string("missing closing ") + close + " on this line");
    if (!strip_plain_comment(text.substr(i + 1)).empty()) {
      fail("unexpected text after " + std::string(1, close));
    }
    if (!trim(current).empty() || !parts.empty()) parts.push_back(trim(current));
    std::set<std::string> seen;
    for (const std::string& p : parts) {
      if (p.empty()) fail("empty entry in " + text);
      YamlNode item;
      item.line = v.line;
      if (is_map) {
        const size_t colon = key_colon(p);
        if (colon == std::string::npos)
          fail("expected 'key: value' in " + text + ", got '" + p + "'");
        const std::string key = unquote(trim(p.substr(0, colon)));
        if (!seen.insert(key).second) fail("duplicate key '" + key + "'");
        item.scalar = flow_scalar(trim(p.substr(colon + 1)));
        v.entries.push_back({key, item});
      } else {
        item.scalar = flow_scalar(p);
        v.items.push_back(item);
      }
    }
    ++pos_;
    return v;
  }

  std::string flow_scalar(const std::string& s) const {
    if (!s.empty() && (s[0] == '"' || s[0] == '\'')) return unquote(s);
    return s;
  }

  std::vector<std::string> lines_;
  size_t pos_ = 0;
};

}  // namespace

YamlNode parse_yaml_subset(const std::string& text) { return Parser(text).document(); }

}  // namespace llm
