#include "lab/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vlak::lab {

namespace {
const Json kNull;
const std::string kEmpty;
const std::vector<Json> kNoItems;
const std::vector<std::pair<std::string, Json>> kNoMembers;
}  // namespace

const std::string& Json::Str() const { return type_ == Type::kString ? str_ : kEmpty; }

void Json::Push(Json v) {
  if (type_ != Type::kArray) *this = Array();
  items_.push_back(std::move(v));
}

size_t Json::Size() const { return type_ == Type::kArray ? items_.size() : type_ == Type::kObject ? members_.size() : 0; }

const Json& Json::At(size_t i) const { return type_ == Type::kArray && i < items_.size() ? items_[i] : kNull; }

const std::vector<Json>& Json::Items() const { return type_ == Type::kArray ? items_ : kNoItems; }

Json& Json::Set(const std::string& key, Json v) {
  if (type_ != Type::kObject) *this = Object();
  for (auto& m : members_) {
    if (m.first == key) {
      m.second = std::move(v);
      return m.second;
    }
  }
  members_.emplace_back(key, std::move(v));
  return members_.back().second;
}

bool Json::Has(const std::string& key) const {
  for (const auto& m : Members()) if (m.first == key) return true;
  return false;
}

const Json& Json::operator[](const std::string& key) const {
  for (const auto& m : Members()) if (m.first == key) return m.second;
  return kNull;
}

const std::vector<std::pair<std::string, Json>>& Json::Members() const {
  return type_ == Type::kObject ? members_ : kNoMembers;
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {

// Shortest text that reads back to the same double (so a round trip is exact).
std::string NumberText(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[40];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

void Json::DumpTo(std::string& out, int indent, int depth) const {
  const auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (type_) {
    case Type::kNull: out += "null"; break;
    case Type::kBool: out += bool_ ? "true" : "false"; break;
    case Type::kNumber: out += NumberText(num_); break;
    case Type::kString: out += JsonQuote(str_); break;
    case Type::kArray: {
      // Arrays of scalars stay on one line: sample lists would otherwise take a page each.
      bool flat = true;
      for (const auto& v : items_) flat = flat && !v.IsArray() && !v.IsObject();
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out += flat || indent < 0 ? (indent < 0 ? "," : ", ") : ",";
        if (!flat) newline(depth + 1);
        items_[i].DumpTo(out, indent, depth + 1);
      }
      if (!flat && !items_.empty()) newline(depth);
      out += ']';
      break;
    }
    case Type::kObject: {
      out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        out += JsonQuote(members_[i].first);
        out += indent < 0 ? ":" : ": ";
        members_[i].second.DumpTo(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      out += '}';
      break;
    }
  }
}

std::string Json::Dump(int indent) const {
  std::string out;
  DumpTo(out, indent, 0);
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  bool Run(Json* out, std::string* err) {
    bool ok = Value(out, 0);
    if (ok) {
      Ws();
      if (p_ != t_.size()) ok = Fail("trailing characters");
    }
    if (!ok && err) *err = err_;
    return ok;
  }

 private:
  bool Fail(const char* msg) {
    if (err_.empty()) {
      size_t line = 1, col = 1;
      for (size_t i = 0; i < p_ && i < t_.size(); ++i) {
        if (t_[i] == '\n') ++line, col = 1;
        else ++col;
      }
      err_ = std::to_string(line) + ":" + std::to_string(col) + ": " + msg;
    }
    return false;
  }
  void Ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  bool Lit(const char* word) {
    const size_t n = std::strlen(word);
    if (t_.compare(p_, n, word) != 0) return false;
    p_ += n;
    return true;
  }
  static void AppendUtf8(std::string& s, unsigned cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool Hex4(unsigned* cp) {
    if (p_ + 4 > t_.size()) return Fail("short \\u escape");
    *cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = t_[p_++];
      *cp <<= 4;
      if (c >= '0' && c <= '9') *cp |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') *cp |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') *cp |= static_cast<unsigned>(c - 'A' + 10);
      else return Fail("bad \\u escape");
    }
    return true;
  }
  bool String(std::string* s) {
    ++p_;  // opening quote
    while (p_ < t_.size()) {
      const char c = t_[p_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in string");
      if (c != '\\') {
        *s += c;
        continue;
      }
      if (p_ >= t_.size()) break;
      const char e = t_[p_++];
      switch (e) {
        case '"': *s += '"'; break;
        case '\\': *s += '\\'; break;
        case '/': *s += '/'; break;
        case 'b': *s += '\b'; break;
        case 'f': *s += '\f'; break;
        case 'n': *s += '\n'; break;
        case 'r': *s += '\r'; break;
        case 't': *s += '\t'; break;
        case 'u': {
          unsigned cp;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && t_.compare(p_, 2, "\\u") == 0) {
            p_ += 2;
            unsigned lo;
            if (!Hex4(&lo)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(*s, cp);
          break;
        }
        default: return Fail("bad escape");
      }
    }
    return Fail("unterminated string");
  }
  bool Value(Json* out, int depth) {
    if (depth > 200) return Fail("nesting too deep");
    Ws();
    if (p_ >= t_.size()) return Fail("unexpected end");
    const char c = t_[p_];
    if (c == '{') {
      ++p_;
      *out = Json::Object();
      Ws();
      if (p_ < t_.size() && t_[p_] == '}') return ++p_, true;
      for (;;) {
        Ws();
        if (p_ >= t_.size() || t_[p_] != '"') return Fail("expected a key");
        std::string key;
        if (!String(&key)) return false;
        Ws();
        if (p_ >= t_.size() || t_[p_] != ':') return Fail("expected ':'");
        ++p_;
        Json v;
        if (!Value(&v, depth + 1)) return false;
        out->Set(key, std::move(v));
        Ws();
        if (p_ < t_.size() && t_[p_] == ',') { ++p_; continue; }
        if (p_ < t_.size() && t_[p_] == '}') return ++p_, true;
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++p_;
      *out = Json::Array();
      Ws();
      if (p_ < t_.size() && t_[p_] == ']') return ++p_, true;
      for (;;) {
        Json v;
        if (!Value(&v, depth + 1)) return false;
        out->Push(std::move(v));
        Ws();
        if (p_ < t_.size() && t_[p_] == ',') { ++p_; continue; }
        if (p_ < t_.size() && t_[p_] == ']') return ++p_, true;
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      std::string s;
      if (!String(&s)) return false;
      *out = Json(std::move(s));
      return true;
    }
    if (Lit("true")) return *out = Json(true), true;
    if (Lit("false")) return *out = Json(false), true;
    if (Lit("null")) return *out = Json(), true;
    if (c == '-' || (c >= '0' && c <= '9')) {
      const char* begin = t_.c_str() + p_;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin) return Fail("bad number");
      p_ += static_cast<size_t>(end - begin);
      *out = Json(v);
      return true;
    }
    return Fail("unexpected character");
  }

  const std::string& t_;
  size_t p_ = 0;
  std::string err_;
};

}  // namespace

bool Json::Parse(const std::string& text, Json* out, std::string* err) { return Parser(text).Run(out, err); }

}  // namespace vlak::lab
