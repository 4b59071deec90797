#include "memory/durable/snapshot_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "memory/mapped_array.hpp"
#include "memory/run_both.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::detail::durable {

namespace {

constexpr char kMagic[8] = {'P', 'G', 'S', 'N', 'A', 'P', '0', '1'};
// Version 2 property maps may hold 4-byte doubles (packed_properties.hpp); this build reads
// versions 1 and 2 and writes 2.
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kOldestReadableVersion = 1;
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

namespace {

/// A block of a snapshot, located (and, but for edge blocks, checked) by the first pass.
struct Block {
  BlockKind kind;
  std::size_t offset;  // of its payload
  std::span<const std::byte> payload;
  std::uint64_t stored_checksum;  // of the block header and payload
};

/// An edge block's run of slots as its first bytes say (unchecked until its checksum is).
struct EdgeRun {
  const Block* block;
  std::uint64_t first = UINT64_MAX;
  std::uint64_t count = UINT64_MAX;
};

/// A vertex or edge block's run of slots, {first, count}: it must start at `expected` and end
/// by `slots`.
std::pair<std::uint64_t, std::uint64_t> read_run(ByteReader& in, std::uint64_t expected, std::uint64_t slots) {
  const std::size_t at = in.offset();
  const auto first = in.varint();
  const auto count = in.varint();
  if (first != expected || count > slots - first) throw DecodeError{at, "slot run out of order or past the end"};
  return {first, count};
}

/// Thrown when a part of the heap set aside for a run of edge blocks is full.
struct RoomFull {};

/// Words set aside in the heap for the maps of edge records of `bytes` bytes: a live edge's
/// record takes at least 4 bytes besides its map, which takes a word more than a quarter of
/// its bytes up to 256 bytes, so a quarter and a little is nearly always enough.
std::uint64_t heap_room(std::uint64_t bytes) { return bytes == 0 ? 0 : bytes / 4 + bytes / 32 + 16; }

/// Snapshots with fewer bytes of edge records (a block or two) decode them on one thread.
constexpr std::size_t kParallelEdgeBytes = std::size_t{256} << 10;

}  // namespace

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
  if (version < kOldestReadableVersion || version > kVersion) {
    throw damaged(
        8, fmt::format("format version {} (this build reads {} to {})", version, kOldestReadableVersion, kVersion));
  }
  if (vertex_slots >= kNoSlot || edge_slots >= kNoSlot) throw damaged(24, "slot counts out of range");

  // Pass 1: every block whole, in file order; checksums of all but edge blocks (theirs are
  // checked where they are decoded, on two threads).
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
    if (kind != BlockKind::edges && checksum(bytes.data() + offset, total - 8) != stored) {
      throw damaged(offset, "block checksum mismatch");
    }
    blocks.push_back({kind, offset + kBlockHeaderSize, bytes.subspan(offset + kBlockHeaderSize, size), stored});
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
  // Pass 2: schema and meta first (records refer to labels), then the records.
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
  auto read_label = [&](ByteReader& in) {
    const auto label = static_cast<LabelId>(
        in.varint(store.labels.size() == 0 ? 0 : store.labels.size() - 1, "label id out of range"));
    if (store.labels.size() == 0) throw DecodeError{in.offset(), "a record without any label defined"};
    return label;
  };

  // Vertex records, appended in slot order as the blocks come.
  store.vertices.reserve(vertex_slots);
  std::uint64_t next_vertex = 0;
  for (const auto& b : blocks) {
    if (b.kind != BlockKind::vertices) continue;
    decode(b, [&](ByteReader& in) {
      const auto [first, count] = read_run(in, next_vertex, vertex_slots);
      for (std::uint64_t i = 0; i < count; ++i) {
        auto& rec = store.vertices.emplace_back();
        if (in.u8() == 0) continue;  // dead: the default record
        rec.label = read_label(in);
        rec.alive = true;
        rec.properties = read_properties(in);
      }
      next_vertex += count;
    });
  }

  // Edge records: straight into the store's slots and heap (StoreRecords), the blocks in two
  // halves at once. Each half checks its blocks' checksums and slot runs (a run starts where
  // the one before ends: a damaged block is reported at itself, the earliest damage first)
  // and writes its maps into room of its own in the heap. A block whose room runs out is
  // decoded again afterwards, appending to the heap.
  std::vector<EdgeRun> runs;
  std::uint64_t edge_bytes = 0;
  for (const auto& b : blocks) {
    if (b.kind != BlockKind::edges) continue;
    EdgeRun& run = runs.emplace_back(EdgeRun{&b});
    try {
      ByteReader in(b.payload);
      run.first = in.varint();
      run.count = in.varint();
    } catch (const DecodeError&) {  // damaged: its checksum says so below
    }
    edge_bytes += b.payload.size();
  }
  store.edges.resize_for_overwrite(edge_slots);
  store.edges.prefer_huge_pages();
  store.edge_properties.prefer_huge_pages();
  // Returns the first run of [lo, hi) not decoded (hi when all are); put(bytes) stores a map.
  auto decode_runs = [&](std::size_t lo, std::size_t hi, auto&& put) -> std::size_t {
    for (std::size_t r = lo; r < hi; ++r) {
      const Block& b = *runs[r].block;
      const std::size_t header_at = b.offset - kBlockHeaderSize;
      if (checksum(bytes.data() + header_at, kBlockHeaderSize + b.payload.size()) != b.stored_checksum) {
        throw damaged(header_at, "block checksum mismatch");
      }
      const std::uint64_t expected = r == 0 ? 0 : runs[r - 1].first + runs[r - 1].count;
      try {
        decode(b, [&](ByteReader& in) {
          const auto [first, count] = read_run(in, expected, edge_slots);
          for (std::uint64_t i = 0; i < count; ++i) {
            if (in.u8() == 0) {  // dead
              store.edges[first + i] = EdgeSlot{};
              continue;
            }
            const LabelId label = read_label(in);
            const auto from =
                static_cast<Slot>(in.varint(vertex_slots == 0 ? 0 : vertex_slots - 1, "edge endpoint past the end"));
            const auto to =
                static_cast<Slot>(in.varint(vertex_slots == 0 ? 0 : vertex_slots - 1, "edge endpoint past the end"));
            const auto encoding = read_property_bytes(in);
            store.edges[first + i] = EdgeSlot{from, to, label + 1, encoding.empty() ? 0 : put(encoding)};
          }
        });
      } catch (const RoomFull&) {
        return r;
      }
    }
    return hi;
  };
  auto into_room = [&](PropertyHandle& next, PropertyHandle end) {
    return [&store, &next, end](std::span<const std::byte> encoding) {
      const std::uint32_t words = PropertyHeap::words_for(encoding.size());
      if (end - next < words) throw RoomFull{};
      const PropertyHandle h = next;
      store.edge_properties.write(h, encoding);
      next += words;
      return h;
    };
  };
  // The halves: about equal in bytes.
  std::size_t split = 0;
  for (std::uint64_t seen = 0; split < runs.size() && seen < edge_bytes / 2; ++split) {
    seen += runs[split].block->payload.size();
  }
  std::uint64_t first_half_bytes = 0;
  for (std::size_t r = 0; r < split; ++r) first_half_bytes += runs[r].block->payload.size();
  const std::uint64_t room1 = heap_room(first_half_bytes);
  const std::uint64_t room2 = heap_room(edge_bytes - first_half_bytes);
  const PropertyHandle base = store.edge_properties.extend(room1 + room2);
  const auto end1 = static_cast<PropertyHandle>(base + room1);
  const auto end2 = static_cast<PropertyHandle>(base + room1 + room2);
  PropertyHandle next1 = base;  // each half's next free word
  PropertyHandle next2 = end1;
  std::size_t stop1 = split;
  std::size_t stop2 = runs.size();
  // No thread brings the memory in ahead: on huge pages the faults are few, and a third
  // thread would take a core from the two that decode.
  auto first_half = [&] { stop1 = decode_runs(0, split, into_room(next1, end1)); };
  auto second_half = [&] { stop2 = decode_runs(split, runs.size(), into_room(next2, end2)); };
  if (edge_bytes >= kParallelEdgeBytes) {
    run_both(first_half, second_half);
  } else {
    first_half();
    second_half();
  }
  // What did not fit its room, appended; the first half's unused room stays a gap of pages
  // never touched.
  store.edge_properties.shrink(next2);
  auto append = [&](std::span<const std::byte> encoding) { return store.edge_properties.append(encoding); };
  decode_runs(stop1, split, append);
  decode_runs(stop2, runs.size(), append);
  const std::uint64_t next_edge = runs.empty() ? 0 : runs.back().first + runs.back().count;

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
