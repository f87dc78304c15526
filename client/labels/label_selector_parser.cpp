// LabelSelector::parse: the lexer and recursive-descent parser of the label selector string
// syntax, following apimachinery's pkg/labels/selector.go grammar:
//   selector    := [requirement {',' requirement}]
//   requirement := ['!'] key | key op value | key ('in'|'notin') '(' [values] ')'
//   op          := '=' | '==' | '!=' | '>' | '<'
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "client/labels/label_selector.hpp"
#include "client/labels/selector_error.hpp"

namespace rg::client {
namespace {

enum class Token {
  kEnd,
  kIdentifier,
  kComma,
  kNot,           // !
  kEquals,        // =
  kDoubleEquals,  // ==
  kNotEquals,     // !=
  kGreater,       // >
  kLess,          // <
  kOpenParen,
  kCloseParen,
};

struct Lexeme {
  Token token = Token::kEnd;
  std::string_view text;
  std::size_t position = 0;
};

bool is_whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

class Lexer {
 public:
  explicit Lexer(std::string_view input) : input_(input) {}

  Lexeme next() {
    while (pos_ < input_.size() && is_whitespace(input_[pos_])) ++pos_;
    std::size_t start = pos_;
    if (pos_ == input_.size()) return {Token::kEnd, "end of string", start};
    char c = input_[pos_];
    auto symbol = [&](Token token, std::size_t length) {
      pos_ += length;
      return Lexeme{token, input_.substr(start, length), start};
    };
    bool next_is_equals = pos_ + 1 < input_.size() && input_[pos_ + 1] == '=';
    switch (c) {
      case ',':
        return symbol(Token::kComma, 1);
      case '(':
        return symbol(Token::kOpenParen, 1);
      case ')':
        return symbol(Token::kCloseParen, 1);
      case '>':
        return symbol(Token::kGreater, 1);
      case '<':
        return symbol(Token::kLess, 1);
      case '!':
        return next_is_equals ? symbol(Token::kNotEquals, 2) : symbol(Token::kNot, 1);
      case '=':
        return next_is_equals ? symbol(Token::kDoubleEquals, 2) : symbol(Token::kEquals, 1);
      default:
        break;
    }
    while (pos_ < input_.size() && !is_whitespace(input_[pos_]) && !is_special(input_[pos_])) {
      ++pos_;
    }
    return {Token::kIdentifier, input_.substr(start, pos_ - start), start};
  }

 private:
  std::string_view input_;
  std::size_t pos_ = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view input) : input_(input), lexer_(input) { advance(); }

  std::vector<SelectorRequirement> parse() {
    std::vector<SelectorRequirement> requirements;
    if (current_.token == Token::kEnd) return requirements;
    while (true) {
      if (current_.token != Token::kIdentifier && current_.token != Token::kNot) {
        fail(current_, requirements.empty() ? "expected '!', a key or end of string"
                                            : "expected '!' or a key after ','");
      }
      requirements.push_back(parse_requirement());
      if (current_.token == Token::kEnd) return requirements;
      if (current_.token != Token::kComma) fail(current_, "expected ',' or end of string");
      advance();
    }
  }

 private:
  [[noreturn]] void fail(std::size_t position, std::string problem) const {
    throw SelectorError(kLabelSelectorKind, input_, position, std::move(problem));
  }
  [[noreturn]] void fail(const Lexeme& found, std::string_view expected) const {
    fail(found.position, fmt::format("found '{}', {}", found.text, expected));
  }

  void advance() { current_ = lexer_.next(); }

  SelectorRequirement parse_requirement() {
    SelectorRequirement r;
    std::size_t start = current_.position;
    bool negated = current_.token == Token::kNot;
    if (negated) advance();
    if (current_.token != Token::kIdentifier) fail(current_, "expected a key");
    r.key = current_.text;
    std::size_t key_position = current_.position;
    advance();
    if (negated || current_.token == Token::kEnd || current_.token == Token::kComma) {
      r.op = negated ? SelectorOperator::kDoesNotExist : SelectorOperator::kExists;
    } else {
      parse_operator_and_values(r);
    }
    if (std::string problem = r.normalize(); !problem.empty()) {
      // Key problems point at the key, the others at the start of the requirement.
      bool key_problem = problem.starts_with("key ");
      fail(key_problem ? key_position : start, std::move(problem));
    }
    return r;
  }

  void parse_operator_and_values(SelectorRequirement& r) {
    const Lexeme op = current_;
    if (op.token == Token::kIdentifier && (op.text == "in" || op.text == "notin")) {
      r.op = op.text == "in" ? SelectorOperator::kIn : SelectorOperator::kNotIn;
      advance();
      parse_value_set(r.values);
      return;
    }
    switch (op.token) {
      case Token::kEquals:
        r.op = SelectorOperator::kEquals;
        break;
      case Token::kDoubleEquals:
        r.op = SelectorOperator::kDoubleEquals;
        break;
      case Token::kNotEquals:
        r.op = SelectorOperator::kNotEquals;
        break;
      case Token::kGreater:
        r.op = SelectorOperator::kGreaterThan;
        break;
      case Token::kLess:
        r.op = SelectorOperator::kLessThan;
        break;
      default:
        fail(op, "expected an operator: =, ==, !=, in, notin, >, <");
    }
    advance();
    // A missing value (`key=` or `key=,b`) is the empty value.
    if (current_.token == Token::kEnd || current_.token == Token::kComma) {
      r.values.emplace_back();
      return;
    }
    if (current_.token != Token::kIdentifier) fail(current_, "expected a value");
    r.values.emplace_back(current_.text);
    advance();
  }

  /// '(' [value] {',' [value]} ')'; empty elements (`(a,)`, `(,a)`) are the empty value.
  void parse_value_set(std::vector<std::string>& values) {
    if (current_.token != Token::kOpenParen) fail(current_, "expected '('");
    advance();
    if (current_.token == Token::kCloseParen) {
      advance();
      return;
    }
    bool expect_value = true;
    while (true) {
      if (current_.token == Token::kIdentifier && expect_value) {
        values.emplace_back(current_.text);
        expect_value = false;
      } else if (current_.token == Token::kComma) {
        if (expect_value) values.emplace_back();
        expect_value = true;
      } else if (current_.token == Token::kCloseParen) {
        if (expect_value) values.emplace_back();
        advance();
        return;
      } else {
        fail(current_, expect_value ? "expected a value, ',' or ')'" : "expected ',' or ')'");
      }
      advance();
    }
  }

  std::string_view input_;
  Lexer lexer_;
  Lexeme current_;
};

}  // namespace

LabelSelector LabelSelector::parse(std::string_view selector) {
  return LabelSelector(Parser(selector).parse());
}

}  // namespace rg::client
