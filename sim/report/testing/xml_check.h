// Test helpers for the HTML report: a strict XML well-formedness check (the report's HTML and
// SVG are written to be well-formed XML, so a browser and an XML parser read the same tree) and
// small queries over the text: elements by tag, attribute values.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llm::testing {

// Empty when `text` (an optional <!DOCTYPE ...> first) is one well-formed XML element: tags
// nested and closed, attributes quoted and unique, only the five predefined entities or
// numeric references, no '<' or '&' loose in text. Otherwise what is wrong and where.
inline std::string xml_error(std::string_view text) {
  std::vector<std::string> open;
  size_t i = 0, roots = 0;
  auto at = [&](size_t pos) { return " at offset " + std::to_string(pos); };
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
  };
  auto check_entity = [&](size_t pos) -> std::string {
    const size_t semi = text.find(';', pos);
    if (semi == std::string_view::npos || semi - pos > 8) return "bad entity" + at(pos);
    const std::string_view e = text.substr(pos + 1, semi - pos - 1);
    if (e == "amp" || e == "lt" || e == "gt" || e == "quot" || e == "apos") return "";
    if (e.size() >= 2 && e[0] == '#') {
      for (size_t k = 1; k < e.size(); ++k) {
        if (e[k] < '0' || e[k] > '9') return "bad numeric entity" + at(pos);
      }
      return "";
    }
    return "unknown entity &" + std::string(e) + ";" + at(pos);
  };
  if (text.substr(0, 9) == "<!DOCTYPE") {
    i = text.find('>');
    if (i == std::string_view::npos) return "unterminated DOCTYPE";
    ++i;
  }
  while (i < text.size()) {
    const char c = text[i];
    if (c == '&') {
      if (auto e = check_entity(i); !e.empty()) return e;
      ++i;
      continue;
    }
    if (c != '<') {
      if (open.empty() && c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        return "text outside the root element" + at(i);
      }
      ++i;
      continue;
    }
    if (text.substr(i, 4) == "<!--") {
      const size_t end = text.find("-->", i);
      if (end == std::string_view::npos) return "unterminated comment" + at(i);
      i = end + 3;
      continue;
    }
    const bool closing = i + 1 < text.size() && text[i + 1] == '/';
    size_t p = i + (closing ? 2 : 1);
    const size_t name_start = p;
    while (p < text.size() && name_char(text[p])) ++p;
    const std::string name(text.substr(name_start, p - name_start));
    if (name.empty()) return "empty tag name" + at(i);
    if (closing) {
      while (p < text.size() && text[p] == ' ') ++p;
      if (p >= text.size() || text[p] != '>') return "bad closing tag </" + name + at(i);
      if (open.empty() || open.back() != name) {
        return "</" + name + "> does not close <" + (open.empty() ? "" : open.back()) + ">" + at(i);
      }
      open.pop_back();
      i = p + 1;
      continue;
    }
    // Attributes.
    std::vector<std::string> seen;
    while (true) {
      while (p < text.size() && (text[p] == ' ' || text[p] == '\n' || text[p] == '\t')) ++p;
      if (p >= text.size()) return "unterminated tag <" + name + at(i);
      if (text[p] == '>' || text.substr(p, 2) == "/>") break;
      const size_t attr_start = p;
      while (p < text.size() && name_char(text[p])) ++p;
      const std::string attr(text.substr(attr_start, p - attr_start));
      if (attr.empty()) return "bad attribute in <" + name + at(p);
      for (const std::string& s : seen) {
        if (s == attr) return "duplicate attribute " + attr + " in <" + name + at(p);
      }
      seen.push_back(attr);
      if (p + 1 >= text.size() || text[p] != '=' || text[p + 1] != '"') {
        return "attribute " + attr + " of <" + name + "> without a quoted value" + at(p);
      }
      p += 2;
      while (p < text.size() && text[p] != '"') {
        if (text[p] == '<') return "'<' in attribute " + attr + at(p);
        if (text[p] == '&') {
          if (auto e = check_entity(p); !e.empty()) return e;
        }
        ++p;
      }
      if (p >= text.size()) return "unterminated attribute " + attr + at(attr_start);
      ++p;
    }
    const bool self_closing = text[p] == '/';
    if (open.empty()) {
      if (++roots > 1) return "a second root element <" + name + ">" + at(i);
    }
    if (!self_closing) open.push_back(name);
    i = p + (self_closing ? 2 : 1);
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots == 0) return "no root element";
  return "";
}

// The start tags (text from '<' to '>') of every `tag` element.
inline std::vector<std::string> start_tags(std::string_view text, std::string_view tag) {
  std::vector<std::string> found;
  const std::string open = "<" + std::string(tag);
  for (size_t i = text.find(open); i != std::string_view::npos; i = text.find(open, i + 1)) {
    const size_t after = i + open.size();
    if (after < text.size() && text[after] != ' ' && text[after] != '>' && text[after] != '/') {
      continue;
    }
    found.emplace_back(text.substr(i, text.find('>', i) - i + 1));
  }
  return found;
}

// The value of attribute `name` in a start tag, or "" when absent.
inline std::string attribute(std::string_view start_tag, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const size_t at = start_tag.find(key);
  if (at == std::string_view::npos) return "";
  const size_t begin = at + key.size();
  return std::string(start_tag.substr(begin, start_tag.find('"', begin) - begin));
}

}  // namespace llm::testing
