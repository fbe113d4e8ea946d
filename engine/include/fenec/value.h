// Value and Document: what an application puts and gets.
//
// A Document is positional: values[i] belongs to the schema's field i, so
// landing a row never looks a name up. A null Value (default-constructed)
// stands for a missing field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fenec {

enum class FieldType : uint8_t { kText = 1, kInt = 2, kFloat = 3, kBool = 4, kVector = 5 };
const char* FieldTypeName(FieldType type);

class Value {
 public:
  Value() = default;  // null
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(const char* s) : v_(std::string(s)) {}  // not bool
  Value(int64_t i) : v_(i) {}
  Value(int i) : v_(int64_t{i}) {}
  Value(uint32_t i) : v_(int64_t{i}) {}
  Value(double d) : v_(d) {}
  explicit Value(bool b) : v_(b) {}
  Value(std::vector<float> v) : v_(std::move(v)) {}

  bool is_null() const { return v_.index() == 0; }
  bool is_text() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_float() const { return v_.index() == 3; }
  bool is_bool() const { return v_.index() == 4; }
  bool is_vector() const { return v_.index() == 5; }

  // Accessors assume the matching is_*() holds.
  const std::string& text() const { return std::get<1>(v_); }
  int64_t int_value() const { return std::get<2>(v_); }
  double float_value() const { return std::get<3>(v_); }
  bool bool_value() const { return std::get<4>(v_); }
  const std::vector<float>& vector() const { return std::get<5>(v_); }
  // An int or float as a double (for sums and comparisons across the two).
  double as_double() const { return is_int() ? static_cast<double>(int_value()) : float_value(); }

  std::string ToString() const;  // for CLIs and test messages: "null", "42", "\"text\"", "[1, 2]"
  bool operator==(const Value& o) const { return v_ == o.v_; }

 private:
  std::variant<std::monostate, std::string, int64_t, double, bool, std::vector<float>> v_;
};

using Document = std::vector<Value>;
using DocId = uint64_t;  // per collection, from 1, never reused
inline constexpr DocId kNoDoc = 0;

}  // namespace fenec
