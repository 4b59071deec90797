#include "memory/durable/snapshot_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "memory/mapped_array.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail::durable {

namespace {

constexpr char kMagic[8] = {'P', 'G', 'S', 'N', 'A', 'P', '0', '1'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kBlockHeaderSize = 8;
constexpr std::size_t kWriteChunk = std::size_t{4} << 20;

/// A read-only mapping of a whole file.
class Mapping {
 public:
  explicit Mapping(const fs::path& path) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      fail(err);
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (data_ == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        data_ = nullptr;
        fail(err);
      }
      ::madvise(data_, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
  }
  ~Mapping() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {static_cast<const std::byte*>(data_), size_};
  }

 private:
  [[noreturn]] void fail(int err) const {
    throw StorageError(fmt::format("cannot read snapshot {}: {}", path_.string(), std::strerror(err)), path_.string());
  }
  fs::path path_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

SnapshotWriter::SnapshotWriter(fs::path path, std::uint64_t start_lsn, std::uint64_t vertex_slots,
                               std::uint64_t edge_slots)
    : file_(File::create(path)), vertex_slots_(vertex_slots), edge_slots_(edge_slots) {
  ByteWriter w(pending_);
  pending_.append(kMagic, sizeof kMagic);
  w.u32(kVersion);
  w.u32(0);
  w.u64(start_lsn);
  w.u64(vertex_slots);
  w.u64(edge_slots);
  w.u64(checksum(pending_.data(), pending_.size()));
}

ByteWriter SnapshotWriter::begin(BlockKind kind) {
  block_start_ = pending_.size();
  ByteWriter w(pending_);
  w.u32(0);  // size, filled in by end()
  w.u8(static_cast<std::uint8_t>(kind));
  w.u8(0);
  w.u8(0);
  w.u8(0);
  return w;
}

void SnapshotWriter::end() {
  const std::size_t payload = pending_.size() - block_start_ - kBlockHeaderSize;
  if (payload > UINT32_MAX) throw StorageError("a snapshot block is larger than 4 GiB", file_.path().string());
  const auto size = static_cast<std::uint32_t>(payload);
  std::memcpy(pending_.data() + block_start_, &size, sizeof size);
  ByteWriter(pending_).u64(checksum(pending_.data() + block_start_, pending_.size() - block_start_));
  ++blocks_;
  flush_if_large();
}

void SnapshotWriter::flush_if_large() {
  if (pending_.size() < kWriteChunk) return;
  file_.write(pending_.data(), pending_.size());
  pending_.clear();
}

void SnapshotWriter::finish() {
  ByteWriter w = begin(BlockKind::end);
  w.u64(vertex_slots_);
  w.u64(edge_slots_);
  w.u64(blocks_);
  end();
  file_.write(pending_.data(), pending_.size());
  pending_.clear();
  file_.sync();
  file_.close();
}

void write_vertex(ByteWriter& out, const Store& store, Slot v) {
  const bool alive = store.vertex_alive(v);
  out.u8(alive ? 1 : 0);
  if (!alive) return;
  out.varint(store.vertex_label(v));
  out.bytes(store.vertex_properties(v).bytes());
}

void write_edge(ByteWriter& out, const Store& store, Slot e) {
  const bool alive = store.edge_alive(e);
  out.u8(alive ? 1 : 0);
  if (!alive) return;
  out.varint(store.edge_label(e));
  out.varint(store.edge_from(e));
  out.varint(store.edge_to(e));
  out.bytes(store.edge_properties(e).bytes());
}

std::uint64_t read_snapshot(const fs::path& path, RecoveredGraph& graph) {
  const Mapping map(path);
  const auto bytes = map.bytes();
  auto damaged = [&](std::uint64_t offset, std::string_view what) -> StorageError {
    return StorageError(fmt::format("damaged snapshot {} at offset {}: {}", path.string(), offset, what), path.string(),
                        offset);
  };
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw damaged(0, "not a propgraph snapshot");
  }
  ByteReader header(bytes.first(kHeaderSize));
  header.u64();  // magic
  const std::uint32_t version = header.u32();
  header.u32();
  const std::uint64_t start_lsn = header.u64();
  const std::uint64_t vertex_slots = header.u64();
  const std::uint64_t edge_slots = header.u64();
  if (header.u64() != checksum(bytes.data(), kHeaderSize - 8)) throw damaged(0, "header checksum mismatch");
  if (version != kVersion) throw damaged(8, fmt::format("format version {} (this build reads {})", version, kVersion));
  if (vertex_slots >= kNoSlot || edge_slots >= kNoSlot) throw damaged(24, "slot counts out of range");

  // Pass 1: every block whole and checksummed, in file order.
  struct Block {
    BlockKind kind;
    std::size_t offset;  // of its payload
    std::span<const std::byte> payload;
  };
  std::vector<Block> blocks;
  std::size_t offset = kHeaderSize;
  bool ended = false;
  while (offset < bytes.size()) {
    if (ended) throw damaged(offset, "data after the end block");
    if (bytes.size() - offset < kBlockHeaderSize + 8) throw damaged(offset, "block cut short");
    std::uint32_t size;
    std::memcpy(&size, bytes.data() + offset, sizeof size);
    const auto kind = static_cast<BlockKind>(bytes[offset + 4]);
    const std::size_t total = kBlockHeaderSize + std::size_t{size} + 8;
    if (bytes.size() - offset < total) throw damaged(offset, "block cut short");
    std::uint64_t stored;
    std::memcpy(&stored, bytes.data() + offset + total - 8, sizeof stored);
    if (checksum(bytes.data() + offset, total - 8) != stored) throw damaged(offset, "block checksum mismatch");
    blocks.push_back({kind, offset + kBlockHeaderSize, bytes.subspan(offset + kBlockHeaderSize, size)});
    ended = kind == BlockKind::end;
    offset += total;
  }
  if (!ended) throw damaged(bytes.size(), "no end block");

  StoreRecords& store = graph.records;
  store = StoreRecords{};
  auto decode = [&](const Block& b, auto&& fn) {
    ByteReader in(b.payload);
    try {
      fn(in);
      if (!in.done()) throw DecodeError{in.offset(), "bytes left over in the block"};
    } catch (const DecodeError& e) {
      throw damaged(b.offset + e.offset, e.what);
    }
  };
  // Pass 2: schema and meta first (records refer to labels), then the records in slot order.
  for (const auto& b : blocks) {
    if (b.kind == BlockKind::schema) {
      decode(b, [&](ByteReader& in) {
        for (auto n = in.varint(1u << 24, "too many labels"); n > 0; --n) {
          const std::size_t at = in.offset();
          const std::string_view name = in.text();
          if (!is_valid_label(name) || store.labels.find(name) != kUnknownLabel) throw DecodeError{at, "bad label"};
          store.labels.intern(name);
        }
        for (auto* table : {&store.vertex_indexes, &store.edge_indexes}) {
          table->assign(store.labels.size(), {});
          for (auto n = in.varint(1u << 24, "too many indexes"); n > 0; --n) {
            const auto label = in.varint(store.labels.size() - 1, "index label out of range");
            const std::size_t at = in.offset();
            const std::string_view key = in.text();
            if (key.empty()) throw DecodeError{at, "empty index key"};
            (*table)[label].emplace_back(std::string(key), in.u8() != 0);
          }
        }
      });
    } else if (b.kind == BlockKind::meta) {
      decode(b, [&](ByteReader& in) {
        graph.prefix = std::string(in.text());
        graph.catalog.clear();
        for (auto n = in.varint(1u << 24, "too many graph names"); n > 0; --n) graph.catalog.emplace(in.text());
      });
    }
  }
  // Records are appended in slot order as the blocks come (checked below): no zeroing pass.
  store.vertices.reserve(vertex_slots);
  store.edges.reserve(edge_slots);
  // The records' memory is brought in on the other core while this one decodes into it.
  const BackgroundPopulate populate_edges(store.edges.data(), edge_slots * sizeof(EdgeRecord));
  std::uint64_t next_vertex = 0;
  std::uint64_t next_edge = 0;
  for (const auto& b : blocks) {
    if (b.kind != BlockKind::vertices && b.kind != BlockKind::edges) continue;
    const bool vertices = b.kind == BlockKind::vertices;
    decode(b, [&](ByteReader& in) {
      const std::size_t at = in.offset();
      const auto first = in.varint();
      const auto count = in.varint();
      std::uint64_t& next = vertices ? next_vertex : next_edge;
      const std::uint64_t slots = vertices ? vertex_slots : edge_slots;
      if (first != next || count > slots - first) throw DecodeError{at, "slot run out of order or past the end"};
      for (std::uint64_t i = 0; i < count; ++i) {
        if (in.u8() == 0) {  // dead: the default record
          if (vertices) {
            store.vertices.emplace_back();
          } else {
            store.edges.emplace_back();
          }
          continue;
        }
        const auto label = static_cast<LabelId>(in.varint(store.labels.size() == 0 ? 0 : store.labels.size() - 1,
                                                          "label id out of range"));
        if (store.labels.size() == 0) throw DecodeError{in.offset(), "a record without any label defined"};
        if (vertices) {
          auto& rec = store.vertices.emplace_back();
          rec.alive = true;
          rec.label = label;
          rec.properties = read_properties(in);
        } else {
          auto& rec = store.edges.emplace_back();
          rec.alive = true;
          rec.label = label;
          rec.from = static_cast<Slot>(in.varint(vertex_slots == 0 ? 0 : vertex_slots - 1, "edge endpoint past the end"));
          rec.to = static_cast<Slot>(in.varint(vertex_slots == 0 ? 0 : vertex_slots - 1, "edge endpoint past the end"));
          rec.properties = read_properties(in);
        }
      }
      next += count;
    });
  }
  const Block& last = blocks.back();
  decode(last, [&](ByteReader& in) {
    if (in.u64() != vertex_slots || in.u64() != edge_slots || in.u64() != blocks.size() - 1) {
      throw DecodeError{0, "end block does not match the header"};
    }
  });
  if (next_vertex != vertex_slots || next_edge != edge_slots) throw damaged(last.offset, "records missing");
  return start_lsn;
}

}  // namespace propgraph::detail::durable
