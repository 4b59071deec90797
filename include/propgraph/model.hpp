// Value types of the property-graph model: ids, property values, vertices, edges, paths and
// the result records of the algorithms. All are regular values the caller owns; copies are cheap
// (short strings stay inline, property maps are shared copy-on-write).
#pragma once

#include <atomic>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace propgraph {

namespace detail {
struct ElementIdAccess;  // backends' door into ElementId's inline form
}  // namespace detail

/// Opaque element id issued by a backend. Ids from another graph, or arbitrary strings, are
/// valid ElementIds that simply find nothing.
///
/// Ordering is shortlex (shorter first, then bytewise). Backends issue ids whose shortlex
/// order is their creation order, so "sorted by id" means "oldest first" within one graph.
class ElementId {
 public:
  /// Ids up to this many bytes are stored inline: copying one allocates nothing and touches no
  /// reference count.
  static constexpr std::size_t inline_capacity = 23;

  ElementId() noexcept = default;
  explicit ElementId(std::string_view value) { assign(value.data(), value.size()); }
  explicit ElementId(const std::string& value) { assign(value.data(), value.size()); }
  explicit ElementId(const char* value) : ElementId(std::string_view(value)) {}
  ElementId(const char* data, std::size_t size) { assign(data, size); }

  /// The id's string form, valid while this ElementId lives; `ElementId(id.str()) == id`.
  [[nodiscard]] std::string_view str() const noexcept {
    return long_ ? std::string_view(*long_) : std::string_view(inline_, size_);
  }
  [[nodiscard]] bool empty() const noexcept { return str().empty(); }

  friend bool operator==(const ElementId& a, const ElementId& b) noexcept { return a.str() == b.str(); }
  friend std::strong_ordering operator<=>(const ElementId& a, const ElementId& b) noexcept {
    const std::string_view x = a.str();
    const std::string_view y = b.str();
    if (auto c = x.size() <=> y.size(); c != 0) return c;
    return x.compare(y) <=> 0;
  }

 private:
  friend struct detail::ElementIdAccess;
  void assign(const char* data, std::size_t size) {
    if (size <= inline_capacity) {
      if (size != 0) std::memcpy(inline_, data, size);
      size_ = static_cast<std::uint8_t>(size);
    } else {
      long_ = std::make_shared<const std::string>(data, size);
    }
  }

  char inline_[inline_capacity] = {};
  std::uint8_t size_ = 0;
  std::shared_ptr<const std::string> long_;  // ids longer than inline_capacity, shared
};

/// Direction of edges followed by a traversal, relative to the vertex being expanded.
enum class Direction : std::uint8_t { out, in, both };

class Value;
/// A list property value. Elements may have mixed types.
using ValueList = std::vector<Value>;

/// How deep lists may nest in a property value: [1] is depth 1, [[1]] depth 2. A write with a
/// deeper value throws InvalidArgument (validate_properties); every reader (imports, JSON,
/// durable files, PostgreSQL rows) refuses one with its own error, so no value the library
/// holds makes a reader recurse further than this.
inline constexpr int max_value_depth = 64;

/// Runtime type tag of a Value.
enum class ValueType : std::uint8_t { null, boolean, integer, real, string, list };

/// Name of a ValueType ("null", "bool", "int", "double", "string", "list").
[[nodiscard]] std::string_view to_string(ValueType type) noexcept;

/// A typed property value: null, bool, int64, double, string or a list of Values.
///
/// Equality is typed: int 30 != double 30.0, and "30" != 30. Integral arguments of any width
/// become int64 (unsigned values above INT64_MAX throw InvalidArgument); floating-point
/// arguments become double.
class Value {
 public:
  using Storage = std::variant<std::monostate, bool, std::int64_t, double, std::string, ValueList>;

  Value() noexcept = default;
  Value(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)
  Value(bool b) noexcept : storage_(b) {}  // NOLINT
  /// Characters are not values: `Value('A')` would otherwise silently become the bool true.
  /// Pass a string ("A") or an integer instead. signed/unsigned char count as integers.
  template <class C>
    requires(std::same_as<C, char> || std::same_as<C, wchar_t> || std::same_as<C, char8_t> ||
             std::same_as<C, char16_t> || std::same_as<C, char32_t>)
  Value(C) = delete;
  template <std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char> && !std::same_as<I, wchar_t> &&
             !std::same_as<I, char8_t> && !std::same_as<I, char16_t> && !std::same_as<I, char32_t>)
  Value(I i) : storage_(checked_int(i)) {}  // NOLINT
  template <std::floating_point F>
  Value(F f) noexcept : storage_(static_cast<double>(f)) {}  // NOLINT
  Value(const char* s) : storage_(std::string(s)) {}            // NOLINT
  Value(std::string s) noexcept : storage_(std::move(s)) {}     // NOLINT
  Value(std::string_view s) : storage_(std::string(s)) {}       // NOLINT
  Value(ValueList list) noexcept : storage_(std::move(list)) {}  // NOLINT

  /// Builds a list value: `Value::list({1, "two", 3.0})`.
  [[nodiscard]] static Value list(std::initializer_list<Value> items) { return Value(ValueList(items)); }

  [[nodiscard]] ValueType type() const noexcept { return static_cast<ValueType>(storage_.index()); }
  [[nodiscard]] bool is_null() const noexcept { return storage_.index() == 0; }
  [[nodiscard]] bool is_bool() const noexcept { return storage_.index() == 1; }
  [[nodiscard]] bool is_int() const noexcept { return storage_.index() == 2; }
  [[nodiscard]] bool is_double() const noexcept { return storage_.index() == 3; }
  [[nodiscard]] bool is_string() const noexcept { return storage_.index() == 4; }
  [[nodiscard]] bool is_list() const noexcept { return storage_.index() == 5; }
  /// True for int and double.
  [[nodiscard]] bool is_number() const noexcept { return is_int() || is_double(); }

  /// Typed accessors; each throws InvalidArgument naming both types on a mismatch.
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] std::int64_t as_int() const;
  [[nodiscard]] double as_double() const;
  [[nodiscard]] const std::string& as_string() const;
  [[nodiscard]] const ValueList& as_list() const;
  /// int or double as double; InvalidArgument for any other type.
  [[nodiscard]] double as_number() const;

  /// Pointer to the held alternative, or nullptr: `if (auto* s = v.get_if<std::string>())`.
  template <typename T>
  [[nodiscard]] const T* get_if() const noexcept {
    return std::get_if<T>(&storage_);
  }
  [[nodiscard]] const Storage& storage() const noexcept { return storage_; }

  friend bool operator==(const Value& a, const Value& b) noexcept { return a.storage_ == b.storage_; }

 private:
  template <std::integral I>
  static std::int64_t checked_int(I i) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
      if (i > static_cast<I>(INT64_MAX)) throw_int_overflow();
    }
    return static_cast<std::int64_t>(i);
  }
  [[noreturn]] static void throw_int_overflow();

  Storage storage_;
};

namespace detail {
struct PropertiesAccess;
}

/// String-keyed property map, kept sorted by key, shared copy-on-write: copying a Properties
/// is one reference-count increment; the first mutation of a shared copy clones it.
///
/// Lookup is O(log n); set/erase are O(n) (maps are small). A Properties used as a filter or
/// patch may hold nulls; a graph's stored properties never do.
///
/// A backend may hand out maps in a packed form that is decoded on first read (iteration,
/// find, comparison); decoding happens once per map and its copies, is thread-safe, and can
/// throw std::bad_alloc like any copy.
class Properties {
 public:
  using Entry = std::pair<std::string, Value>;
  using const_iterator = std::vector<Entry>::const_iterator;

  Properties() noexcept = default;
  /// Later entries with the same key replace earlier ones.
  Properties(std::initializer_list<Entry> entries);
  explicit Properties(std::vector<Entry> entries);
  // Copies share the entries (a reference count) or copy inline bytes; empty maps cost nothing.
  Properties(const Properties& other) noexcept : tag_(other.tag_) {
    if (tag_ != 0) copy_from(other);
  }
  Properties(Properties&& other) noexcept : tag_(other.tag_) {
    if (tag_ != 0) steal(other);
  }
  Properties& operator=(const Properties& other) noexcept;
  Properties& operator=(Properties&& other) noexcept;
  ~Properties() {
    if (tag_ != 0) reset();
  }

  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] bool empty() const noexcept { return tag_ == 0; }
  /// Iteration is in ascending key order.
  [[nodiscard]] const_iterator begin() const;
  [[nodiscard]] const_iterator end() const;

  /// The value under key, or nullptr.
  [[nodiscard]] const Value* find(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// The value under key, or a null Value when absent.
  [[nodiscard]] const Value& operator[](std::string_view key) const;
  /// The value under key; throws NotFound when absent.
  [[nodiscard]] const Value& at(std::string_view key) const;

  /// Inserts or replaces (a null value is stored as null; see merge()).
  void set(std::string key, Value value);
  /// Removes key; returns whether it was present.
  bool erase(std::string_view key);
  /// Applies a patch: each non-null entry is set, each null entry removes its key.
  void merge(const Properties& patch);
  /// True when every filter entry equals (typed) this map's value; a null filter value matches
  /// an absent key. The empty filter matches everything.
  [[nodiscard]] bool matches(const Properties& filter) const;

  friend bool operator==(const Properties& a, const Properties& b);

 private:
  friend struct detail::PropertiesAccess;
  struct Rep;  // reference-counted entries, or packed bytes decoded on first read
  static constexpr std::size_t kInlineCapacity = 31;
  static constexpr std::uint8_t kShared = 0xFF;

  [[nodiscard]] const Rep* rep() const noexcept;  // tag_ == kShared only
  void set_rep(const Rep* rep) noexcept;
  void reset() noexcept;
  void copy_from(const Properties& other) noexcept;  // this->tag_ already set
  void steal(Properties& other) noexcept;             // this->tag_ already set
  [[nodiscard]] const std::vector<Entry>& entries() const;
  std::vector<Entry>& mutate();

  // Small packed maps (from a backend's storage) live inline: returning one allocates nothing.
  alignas(8) std::byte storage_[kInlineCapacity] = {};  // a Rep pointer, or packed bytes
  std::uint8_t tag_ = 0;  // 0: empty; 1..kInlineCapacity: inline packed size; kShared: Rep
  mutable std::atomic<const std::vector<Entry>*> decoded_{nullptr};  // inline: decoded on first read
};

/// A vertex as returned by a backend: a snapshot the caller owns.
struct Vertex {
  ElementId id;
  std::string label;
  Properties properties;
  friend bool operator==(const Vertex&, const Vertex&) = default;
};

/// A vertex to create in bulk (GraphOperations::create_vertices).
struct NewVertex {
  std::string label;
  Properties properties;
};

/// An edge to create in bulk (GraphOperations::create_edges).
struct NewEdge {
  ElementId from;
  ElementId to;
  std::string label;
  Properties properties;
};

/// A directed edge `from -> to`, as returned by a backend.
struct Edge {
  ElementId id;
  std::string label;
  ElementId from;
  ElementId to;
  Properties properties;
  friend bool operator==(const Edge&, const Edge&) = default;
};

/// An alternating walk: vertices[i] and vertices[i + 1] are joined by edges[i] (in either
/// direction when the path was found with Direction::both).
struct Path {
  std::vector<Vertex> vertices;
  std::vector<Edge> edges;
  /// Number of edges.
  [[nodiscard]] std::size_t length() const noexcept { return edges.size(); }
  friend bool operator==(const Path&, const Path&) = default;
};

/// upsert_vertex's result: the vertex as stored after the call, and whether it was created.
struct Upserted {
  Vertex vertex;
  bool created = false;
  friend bool operator==(const Upserted&, const Upserted&) = default;
};

/// One page_rank result.
struct PageRankScore {
  Vertex vertex;
  double score = 0.0;
  friend bool operator==(const PageRankScore&, const PageRankScore&) = default;
};

/// Degree of one vertex; a self-loop counts once as in and once as out.
struct Degree {
  ElementId id;
  std::int64_t in = 0;
  std::int64_t out = 0;
  [[nodiscard]] std::int64_t total() const noexcept { return in + out; }
  friend bool operator==(const Degree&, const Degree&) = default;
};

/// One connected component: id is its position in the result; vertices sorted by id.
struct Component {
  std::int64_t id = 0;
  std::vector<Vertex> vertices;
  friend bool operator==(const Component&, const Component&) = default;
};

/// One step of bfs/dfs. The start vertex has depth 0 and no parent.
struct Visit {
  Vertex vertex;
  int depth = 0;
  std::optional<ElementId> parent;
  friend bool operator==(const Visit&, const Visit&) = default;
};

/// A simple directed cycle; path.vertices.front() == path.vertices.back(), path.length() >= 1.
struct Cycle {
  Path path;
  friend bool operator==(const Cycle&, const Cycle&) = default;
};

/// True for a valid element label: 1 to 63 characters of [A-Za-z0-9_], not starting with a digit.
[[nodiscard]] bool is_valid_label(std::string_view label) noexcept;
/// Throws InvalidArgument unless is_valid_label(label); `what` names the argument in the message.
void validate_label(std::string_view label, std::string_view what = "label");
/// The rule for the text a graph stores, which every backend and file format can carry:
/// - a string value (also inside a list) is valid UTF-8 without NUL characters;
/// - a property key is a non-empty string value without control characters (U+0001-U+001F,
///   U+007F-U+009F) and without the noncharacters U+FFFE and U+FFFF.
/// Labels keep the stricter is_valid_label rule. Each function returns what breaks the rule,
/// naming the byte offset ("invalid UTF-8 at byte 3"), or an empty string. O(size).
[[nodiscard]] std::string string_fault(std::string_view text);
[[nodiscard]] std::string property_key_fault(std::string_view key);
/// string_fault of every string `value` holds, lists included; and lists nested deeper than
/// max_value_depth.
[[nodiscard]] std::string value_fault(const Value& value);
/// Throws InvalidArgument, naming the key, for a property that breaks the text rule above.
/// Null values store nothing (they remove a key, or are dropped), so their keys are not checked.
void validate_properties(const Properties& properties);

}  // namespace propgraph

template <>
struct std::hash<propgraph::ElementId> {
  std::size_t operator()(const propgraph::ElementId& id) const noexcept {
    return std::hash<std::string_view>{}(id.str());
  }
};
