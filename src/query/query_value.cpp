// QueryValue and Parameters (query.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "propgraph/errors.hpp"
#include "propgraph/query.hpp"

namespace propgraph {

std::string_view to_string(QueryValue::Type type) noexcept {
  switch (type) {
    case QueryValue::Type::null: return "NULL";
    case QueryValue::Type::boolean: return "BOOLEAN";
    case QueryValue::Type::integer: return "INTEGER";
    case QueryValue::Type::real: return "FLOAT";
    case QueryValue::Type::string: return "STRING";
    case QueryValue::Type::list: return "LIST";
    case QueryValue::Type::map: return "MAP";
    case QueryValue::Type::vertex: return "NODE";
    case QueryValue::Type::edge: return "RELATIONSHIP";
    case QueryValue::Type::path: return "PATH";
  }
  return "UNKNOWN";
}

namespace {
[[noreturn]] void type_mismatch(QueryValue::Type wanted, QueryValue::Type held) {
  throw InvalidArgument(fmt::format("QueryValue holds {}, not {}", to_string(held), to_string(wanted)));
}
}  // namespace

QueryValue::QueryValue(List list) : storage_(std::make_shared<const List>(std::move(list))) {}
QueryValue::QueryValue(Map map) : storage_(std::make_shared<const Map>(std::move(map))) {}
QueryValue::QueryValue(Vertex vertex) : storage_(std::make_shared<const Vertex>(std::move(vertex))) {}
QueryValue::QueryValue(Edge edge) : storage_(std::make_shared<const Edge>(std::move(edge))) {}
QueryValue::QueryValue(Path path) : storage_(std::make_shared<const Path>(std::move(path))) {}

QueryValue::QueryValue(const Value& value) {
  switch (value.type()) {
    case ValueType::null: break;
    case ValueType::boolean: storage_ = value.as_bool(); break;
    case ValueType::integer: storage_ = value.as_int(); break;
    case ValueType::real: storage_ = value.as_double(); break;
    case ValueType::string: storage_ = value.as_string(); break;
    case ValueType::list: {
      List list;
      list.reserve(value.as_list().size());
      for (const Value& item : value.as_list()) list.emplace_back(item);
      storage_ = std::make_shared<const List>(std::move(list));
      break;
    }
  }
}

bool QueryValue::as_bool() const {
  if (auto* p = std::get_if<bool>(&storage_)) return *p;
  type_mismatch(Type::boolean, type());
}
std::int64_t QueryValue::as_int() const {
  if (auto* p = std::get_if<std::int64_t>(&storage_)) return *p;
  type_mismatch(Type::integer, type());
}
double QueryValue::as_double() const {
  if (auto* p = std::get_if<double>(&storage_)) return *p;
  type_mismatch(Type::real, type());
}
double QueryValue::as_number() const {
  if (auto* p = std::get_if<std::int64_t>(&storage_)) return static_cast<double>(*p);
  if (auto* p = std::get_if<double>(&storage_)) return *p;
  throw InvalidArgument(fmt::format("QueryValue holds {}, not a number", to_string(type())));
}
const std::string& QueryValue::as_string() const {
  if (auto* p = std::get_if<std::string>(&storage_)) return *p;
  type_mismatch(Type::string, type());
}
const QueryValue::List& QueryValue::as_list() const {
  if (auto* p = std::get_if<std::shared_ptr<const List>>(&storage_)) return **p;
  type_mismatch(Type::list, type());
}
const QueryValue::Map& QueryValue::as_map() const {
  if (auto* p = std::get_if<std::shared_ptr<const Map>>(&storage_)) return **p;
  type_mismatch(Type::map, type());
}
const Vertex& QueryValue::as_vertex() const {
  if (auto* p = std::get_if<std::shared_ptr<const Vertex>>(&storage_)) return **p;
  type_mismatch(Type::vertex, type());
}
const Edge& QueryValue::as_edge() const {
  if (auto* p = std::get_if<std::shared_ptr<const Edge>>(&storage_)) return **p;
  type_mismatch(Type::edge, type());
}
const Path& QueryValue::as_path() const {
  if (auto* p = std::get_if<std::shared_ptr<const Path>>(&storage_)) return **p;
  type_mismatch(Type::path, type());
}

Value QueryValue::to_value() const {
  switch (type()) {
    case Type::null: return Value();
    case Type::boolean: return Value(as_bool());
    case Type::integer: return Value(as_int());
    case Type::real: return Value(as_double());
    case Type::string: return Value(as_string());
    case Type::list: {
      ValueList list;
      list.reserve(as_list().size());
      for (const QueryValue& item : as_list()) {
        if (item.is_list() || item.is_map() || item.is_vertex() || item.is_edge() || item.is_path()) {
          throw InvalidArgument(fmt::format("a list holding a {} is not a property value", to_string(item.type())));
        }
        list.push_back(item.to_value());
      }
      return Value(std::move(list));
    }
    default: break;
  }
  throw InvalidArgument(fmt::format("a {} is not a property value", to_string(type())));
}

// Structural and typed; shared data compares by content, doubles by value.
bool operator==(const QueryValue& a, const QueryValue& b) noexcept {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case QueryValue::Type::null: return true;
    case QueryValue::Type::boolean: return a.as_bool() == b.as_bool();
    case QueryValue::Type::integer: return a.as_int() == b.as_int();
    case QueryValue::Type::real: return a.as_double() == b.as_double();
    case QueryValue::Type::string: return a.as_string() == b.as_string();
    case QueryValue::Type::list: return a.as_list() == b.as_list();
    case QueryValue::Type::map: return a.as_map() == b.as_map();
    case QueryValue::Type::vertex: return a.as_vertex() == b.as_vertex();
    case QueryValue::Type::edge: return a.as_edge() == b.as_edge();
    case QueryValue::Type::path: return a.as_path() == b.as_path();
  }
  return false;
}

Parameters::Parameters(std::initializer_list<std::pair<std::string, QueryValue>> entries) {
  for (const auto& [name, value] : entries) values_.insert_or_assign(name, value);
}

Parameters::Parameters(const Properties& properties) {
  for (const auto& [key, value] : properties) values_.insert_or_assign(key, QueryValue(value));
}

void Parameters::set(std::string name, QueryValue value) {
  values_.insert_or_assign(std::move(name), std::move(value));
}

const QueryValue* Parameters::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

}  // namespace propgraph
