// What the exporters share: choosing the elements, typing property columns, and writing the
// output through a buffer into a stream or, atomically, a file.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "io/values.hpp"
#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
#include "propgraph/model.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io::detail {

/// The selected vertices, ascending id (labels merged). Throws InvalidArgument, naming the
/// element, when one breaks the text rule of model.hpp (validate_label, validate_properties).
[[nodiscard]] std::vector<Vertex> collect_vertices(GraphOperations& graph, const ExportOptions& options);
/// The selected edges, ascending id (labels merged).
[[nodiscard]] std::vector<Edge> collect_edges(GraphOperations& graph, const ExportOptions& options);

/// Formats whose property columns carry one type for every element.
enum class TypedFormat { csv, graphml };

/// One typed property column: its name and the kind every value in it is written as.
struct Column {
  std::string name;
  ValueKind kind;
};

/// The property columns of `properties` (one entry per element), sorted by name. A column has
/// the kind all its values share in that format, or json when they differ or the format
/// cannot hold a value otherwise.
[[nodiscard]] std::vector<Column> infer_columns(const std::vector<const Properties*>& properties, TypedFormat format);

/// Buffered output. Appends go to `text()`; call maybe_flush() after each record.
class Output {
 public:
  explicit Output(std::ostream& out) : out_(&out) { buffer_.reserve(kFlushAt + 4096); }
  [[nodiscard]] std::string& text() noexcept { return buffer_; }
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }
  /// Writes what is buffered; throws Error when the stream fails.
  void flush();
  [[nodiscard]] std::uint64_t bytes() const noexcept { return written_ + buffer_.size(); }

 private:
  static constexpr std::size_t kFlushAt = std::size_t{1} << 20;
  std::ostream* out_;
  std::string buffer_;
  std::uint64_t written_ = 0;
};

/// A file written under a temporary name beside its target and renamed over it by commit();
/// destroyed without commit(), it removes the temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  [[nodiscard]] std::ostream& stream() noexcept { return stream_; }
  /// Closes and renames into place; throws Error on failure.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::ofstream stream_;
  bool committed_ = false;
};

/// Measures an export from construction.
struct ExportClock {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  [[nodiscard]] std::chrono::nanoseconds elapsed() const { return std::chrono::steady_clock::now() - started; }
};

/// `vertex g1:v3`, `edge g1:e7`: how export errors name elements.
[[nodiscard]] std::string describe(const Vertex& v);
[[nodiscard]] std::string describe(const Edge& e);

}  // namespace propgraph::io::detail
