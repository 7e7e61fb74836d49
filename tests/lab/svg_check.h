// A minimal XML well-formedness check for the report's SVG files: one <svg> root with the SVG
// namespace, balanced tags, quoted attributes, nothing but entities after '&'. Not a validator;
// enough to catch a chart writer that forgets to close or escape something.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace vlak::lab::testing {

inline bool ValidEntity(const std::string& s, size_t amp) {
  const size_t semi = s.find(';', amp);
  if (semi == std::string::npos || semi - amp > 10) return false;
  const std::string e = s.substr(amp + 1, semi - amp - 1);
  if (e == "amp" || e == "lt" || e == "gt" || e == "quot" || e == "apos") return true;
  if (e.size() > 1 && e[0] == '#') {
    for (size_t i = 1; i < e.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(e[i])) && !(i == 1 && e[i] == 'x')) return false;
    }
    return true;
  }
  return false;
}

inline bool WellFormedSvg(const std::string& s, std::string* why) {
  std::vector<std::string> stack;
  size_t roots = 0, p = 0;
  bool root_is_svg = false, has_ns = false;
  const auto fail = [&](const std::string& msg) {
    *why = msg + " at byte " + std::to_string(p);
    return false;
  };
  while (p < s.size()) {
    if (s[p] != '<') {
      if (s[p] == '&' && !ValidEntity(s, p)) return fail("bare '&' in text");
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(s[p]))) return fail("text outside the root");
      ++p;
      continue;
    }
    if (s.compare(p, 5, "<?xml") == 0) {
      const size_t e = s.find("?>", p);
      if (e == std::string::npos || p != 0) return fail("bad XML declaration");
      p = e + 2;
      continue;
    }
    if (s.compare(p, 4, "<!--") == 0) {
      const size_t e = s.find("-->", p);
      if (e == std::string::npos) return fail("unterminated comment");
      p = e + 3;
      continue;
    }
    const bool closing = p + 1 < s.size() && s[p + 1] == '/';
    size_t q = p + (closing ? 2 : 1);
    const size_t name_start = q;
    while (q < s.size() && (std::isalnum(static_cast<unsigned char>(s[q])) || s[q] == '-' || s[q] == ':' || s[q] == '_')) ++q;
    const std::string name = s.substr(name_start, q - name_start);
    if (name.empty()) return fail("tag without a name");
    // Attributes: name="value" pairs up to '>' or '/>'.
    bool self_closing = false;
    std::string attrs;
    for (;;) {
      while (q < s.size() && std::isspace(static_cast<unsigned char>(s[q]))) ++q;
      if (q >= s.size()) return fail("unterminated tag <" + name);
      if (s[q] == '>') {
        ++q;
        break;
      }
      if (s[q] == '/' && q + 1 < s.size() && s[q + 1] == '>' && !closing) {
        self_closing = true;
        q += 2;
        break;
      }
      if (closing) return fail("attributes in a closing tag");
      const size_t an = q;
      while (q < s.size() && (std::isalnum(static_cast<unsigned char>(s[q])) || s[q] == '-' || s[q] == ':' || s[q] == '_')) ++q;
      if (q == an || q + 1 >= s.size() || s[q] != '=' || (s[q + 1] != '"' && s[q + 1] != '\'')) return fail("bad attribute in <" + name);
      const std::string aname = s.substr(an, q - an);
      const char quote = s[q + 1];
      const size_t end = s.find(quote, q + 2);
      if (end == std::string::npos) return fail("unterminated attribute");
      const std::string value = s.substr(q + 2, end - q - 2);
      if (value.find('<') != std::string::npos) return fail("'<' in an attribute");
      for (size_t a = value.find('&'); a != std::string::npos; a = value.find('&', a + 1)) {
        if (!ValidEntity(value, a)) return fail("bare '&' in an attribute");
      }
      if (name == "svg" && aname == "xmlns" && value == "http://www.w3.org/2000/svg") has_ns = true;
      q = end + 1;
    }
    if (closing) {
      if (stack.empty() || stack.back() != name) return fail("</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">");
      stack.pop_back();
    } else {
      if (stack.empty()) {
        ++roots;
        root_is_svg = name == "svg";
      }
      if (!self_closing) stack.push_back(name);
    }
    p = q;
  }
  if (!stack.empty()) return fail("<" + stack.back() + "> never closed");
  if (roots != 1) return fail("expected one root element, found " + std::to_string(roots));
  if (!root_is_svg) return fail("the root is not <svg>");
  if (!has_ns) return fail("<svg> lacks xmlns=\"http://www.w3.org/2000/svg\"");
  return true;
}

}  // namespace vlak::lab::testing
