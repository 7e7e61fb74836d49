// A small JSON value for the lab's result files: write, parse, look up. Numbers are doubles;
// non-finite numbers are written as null (JSON has no inf/NaN) and read back as NaN.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vlak::lab {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(double v) : type_(Type::kNumber), num_(v) {}
  Json(int v) : Json(static_cast<double>(v)) {}
  Json(long v) : Json(static_cast<double>(v)) {}
  Json(long long v) : Json(static_cast<double>(v)) {}
  Json(unsigned v) : Json(static_cast<double>(v)) {}
  Json(unsigned long v) : Json(static_cast<double>(v)) {}
  Json(unsigned long long v) : Json(static_cast<double>(v)) {}
  Json(const char* s) : type_(Type::kString), str_(s) {}
  Json(std::string s) : type_(Type::kString), str_(std::move(s)) {}

  static Json Array() { Json j; j.type_ = Type::kArray; return j; }
  static Json Object() { Json j; j.type_ = Type::kObject; return j; }

  Type type() const { return type_; }
  bool IsNull() const { return type_ == Type::kNull; }
  bool IsNumber() const { return type_ == Type::kNumber; }
  bool IsString() const { return type_ == Type::kString; }
  bool IsArray() const { return type_ == Type::kArray; }
  bool IsObject() const { return type_ == Type::kObject; }

  // Loose accessors: a missing or mistyped value gives the fallback (NaN, "", false).
  double Num(double fallback = __builtin_nan("")) const { return type_ == Type::kNumber ? num_ : fallback; }
  const std::string& Str() const;
  bool Bool(bool fallback = false) const { return type_ == Type::kBool ? bool_ : fallback; }

  // Arrays.
  void Push(Json v);
  size_t Size() const;
  const Json& At(size_t i) const;
  const std::vector<Json>& Items() const;

  // Objects keep insertion order so files diff cleanly.
  Json& Set(const std::string& key, Json v);
  bool Has(const std::string& key) const;
  const Json& operator[](const std::string& key) const;  // a null Json when absent
  const std::vector<std::pair<std::string, Json>>& Members() const;

  // indent < 0: one line. Otherwise pretty-printed with that many spaces.
  std::string Dump(int indent = -1) const;

  // Parses text; on failure returns false and sets *err to "line:col: message".
  static bool Parse(const std::string& text, Json* out, std::string* err);

 private:
  void DumpTo(std::string& out, int indent, int depth) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  double num_ = 0;
  std::string str_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

// Escapes s as a JSON string literal (with the quotes).
std::string JsonQuote(const std::string& s);

}  // namespace vlak::lab
