// MemoryGraph's storage pieces against simple references: label membership runs, the adjacency
// arena, the property heap, the packed property codec, the property index, pages given back by deleted slots and by
// traversal scratch, linking a store in bulk (on one thread and on two) and edge by edge, a store
// assigned from records and the same elements pushed one by one, edge maps found by their run
// against the ones the slots name, populating memory behind a writer's back, and the two ways breadth_first finds a
// level (top-down and bottom-up give the same queue and parents).
#include "memory/store.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "memory/algorithms/breadth_first.hpp"
#include "memory/scratch.hpp"
#include "memory/view.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/generate.hpp"

namespace propgraph::detail {
namespace {

TEST(SlotRuns, MatchesAPlainListOfSlots) {
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    SlotRuns runs;
    std::vector<Slot> plain;
    Slot next = random() % 5;
    for (int i = 0; i < 300; ++i) {
      runs.push_back(next);
      plain.push_back(next);
      next += random() % 3 == 0 ? 1 + random() % 4 : 1;  // mostly runs, some gaps
    }
    for (int query = 0; query < 40; ++query) {
      const Slot first = random() % (next + 2);
      std::vector<Slot> got;
      runs.for_each_from(first, [&](Slot s) {
        got.push_back(s);
        return got.size() < 25;  // stops early too
      });
      std::vector<Slot> want;
      for (Slot s : plain) {
        if (s >= first && want.size() < 25) want.push_back(s);
      }
      ASSERT_EQ(got, want) << "from " << first;
    }
    const Slot cut = random() % 7 + 2;
    runs.erase_if([&](Slot s) { return s % cut == 0; });
    std::erase_if(plain, [&](Slot s) { return s % cut == 0; });
    std::vector<Slot> all;
    runs.for_each([&](Slot s) { all.push_back(s); });
    ASSERT_EQ(all, plain);
  }
  SlotRuns consecutive;
  for (Slot s = 10; s < 100000; ++s) consecutive.push_back(s);
  EXPECT_EQ(consecutive.words(), 2u);  // one run
}

TEST(AdjacencyArena, ListsMatchVectorsThroughAppendsErasesAndReleases) {
  std::mt19937 random(11);
  AdjacencyArena arena;
  constexpr int kLists = 64;
  std::vector<AdjList> lists(kLists);
  std::vector<std::vector<Slot>> want(kLists);
  Slot next_edge = 0;
  for (int step = 0; step < 20000; ++step) {
    const auto i = static_cast<std::size_t>(random() % kLists);
    const int action = static_cast<int>(random() % 10);
    if (action < 7) {
      arena.append(lists[i], AdjEntry{next_edge, static_cast<Slot>(i), next_edge % 3});
      want[i].push_back(next_edge++);
    } else if (action < 9 && !want[i].empty()) {
      const Slot edge = want[i][random() % want[i].size()];
      arena.erase(lists[i], edge);
      std::erase(want[i], edge);
    } else if (random() % 20 == 0) {
      arena.release(lists[i]);
      want[i].clear();
    }
    if (step % 997 == 0) {
      for (int k = 0; k < kLists; ++k) {
        std::vector<Slot> got;
        for (const AdjEntry& a : arena.list(lists[k])) {
          got.push_back(a.edge);
          ASSERT_EQ(a.label16, a.edge % 3);
        }
        ASSERT_EQ(got, want[k]) << "list " << k << " at step " << step;
        ASSERT_GE(lists[k].capacity(), lists[k].size());
      }
    }
  }
}

TEST(AdjacencyEntries, LabelsBeyondSixteenBitsAreReadFromTheEdge) {
  EXPECT_EQ(AdjEntry(1, 2, 7).label16, 7);
  EXPECT_EQ(AdjEntry(1, 2, 70000).label16, kWideLabel);
  EXPECT_EQ(AdjEntry(1, 2, kWideLabel).label16, kWideLabel);
}

TEST(PropertyHeap, StoresBytesAndReusesFreedSpace) {
  PropertyHeap heap;
  auto bytes = [](std::size_t n, int seed) {
    std::vector<std::byte> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>(seed + static_cast<int>(i));
    return b;
  };
  EXPECT_EQ(heap.store({}), 0u);
  EXPECT_TRUE(heap.view(0).empty());
  std::map<PropertyHandle, std::vector<std::byte>> held;
  for (std::size_t n : {1, 3, 26, 254, 255, 256, 1000, 70000}) {
    const auto b = bytes(n, static_cast<int>(n));
    const PropertyHandle h = heap.store(b);
    held[h] = b;
  }
  for (const auto& [h, b] : held) {
    const auto got = heap.view(h).bytes();
    ASSERT_TRUE(std::equal(got.begin(), got.end(), b.begin(), b.end())) << b.size() << " bytes";
  }
  const std::size_t words = heap.words();
  // Replacing a map again and again with one of its size does not grow the heap.
  PropertyHandle h = heap.store(bytes(26, 1));
  const std::size_t after_one = heap.words();
  for (int i = 0; i < 1000; ++i) {
    heap.free(h);
    h = heap.store(bytes(26, i));
  }
  EXPECT_EQ(heap.words(), after_one);
  EXPECT_GT(after_one, words);
  for (const auto& [handle, b] : held) {
    const auto got = heap.view(handle).bytes();
    ASSERT_TRUE(std::equal(got.begin(), got.end(), b.begin(), b.end()));
  }
}

/// The bits of a double, so that -0.0 and NaN compare as stored.
std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

TEST(PackedProperties, DoublesComeBackBitForBitInFourBytesWhenAFloatHoldsThem) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::size_t eight = PackedProperties(Properties{{"w", 0.1}}).bytes().size();
  // double, whether a float holds it exactly
  const std::vector<std::pair<double, bool>> cases = {
      {0.5, true},
      {6.5, true},
      {-2.0, true},
      {0.0, true},
      {-0.0, true},
      {1e10, true},
      {inf, true},
      {-inf, true},
      {std::numeric_limits<double>::quiet_NaN(), true},
      {static_cast<double>(std::numeric_limits<float>::max()), true},
      {static_cast<double>(std::numeric_limits<float>::min()), true},
      {0.1, false},
      {16777217.0, false},
      {static_cast<double>(std::numeric_limits<float>::denorm_min()), false},  // subnormal floats are not used
      {1e300, false},
      {std::numeric_limits<double>::denorm_min(), false},
      {std::numeric_limits<double>::min(), false},
      {3.4028235677973366e38, false}};  // just above the largest float
  for (const auto& [d, fits] : cases) {
    SCOPED_TRACE(fmt::format("{} ({:#x})", d, bits(d)));
    const PackedProperties packed(Properties{{"w", d}, {"xs", ValueList{Value(d), Value(1)}}});
    const Value back = packed.get("w");
    ASSERT_EQ(back.type(), ValueType::real);
    EXPECT_EQ(bits(back.as_double()), bits(d));
    EXPECT_EQ(bits(packed.unpack().at("xs").as_list()[0].as_double()), bits(d));
    EXPECT_EQ(PackedProperties(Properties{{"w", d}}).bytes().size(), fits ? eight - 4 : eight);
    EXPECT_TRUE(PackedProperties::well_formed(packed.bytes()));
    // Typed equality as before: the same double matches (NaN matches nothing), an int never does.
    EXPECT_EQ(packed.matches(Properties{{"w", d}}), !std::isnan(d));
    EXPECT_EQ(packed.matches(Properties{{"xs", ValueList{Value(d), Value(1)}}}), !std::isnan(d));
    if (d == 2.0 || d == 0.5) {
      EXPECT_FALSE(packed.matches(Properties{{"w", static_cast<std::int64_t>(d)}}));
    }
    EXPECT_EQ(packed.index_key("w"), PackedProperties::value_key(Value(d)));
  }
  EXPECT_EQ(PackedProperties::value_key(Value(-0.0)), PackedProperties::value_key(Value(0.0)));
  EXPECT_FALSE(PackedProperties(Properties{{"w", 2.0}}).matches(Properties{{"w", std::int64_t{2}}}));
}

TEST(PackedProperties, EightByteDoublesOfEarlierFilesReadAsBeforeAndIndexAsNewOnes) {
  // {"w": 0.5} as format version 1 wrote it: count, key, ValueType::real, 8 bytes.
  std::vector<std::byte> old{std::byte{1}, std::byte{1}, std::byte{'w'}, static_cast<std::byte>(ValueType::real)};
  const double half = 0.5;
  old.resize(old.size() + 8);
  std::memcpy(old.data() + 4, &half, 8);
  const auto packed = PackedProperties::from_bytes(old);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->get("w"), Value(0.5));
  EXPECT_TRUE(packed->matches(Properties{{"w", 0.5}}));
  EXPECT_EQ(packed->index_key("w"), PackedProperties(Properties{{"w", 0.5}}).index_key("w"));
  EXPECT_EQ(packed->unpack(), (Properties{{"w", 0.5}}));
  // A 4-byte double cut short is refused.
  const PackedProperties fresh(Properties{{"w", 0.5}});
  std::vector<std::byte> cut(fresh.bytes().begin(), fresh.bytes().end() - 1);
  EXPECT_FALSE(PackedProperties::well_formed(cut));
}

TEST(PackedProperties, StoredListsDeeperThanWritesAllowAreMalformed) {
  // {"v": [[...[]...]]} encoded by hand: count, key, then `depth` lists of one element each
  // around an empty list. Damaged or foreign bytes must not make a reader recurse that deep.
  auto encoded = [](int depth) {
    std::vector<std::byte> bytes{std::byte{1}, std::byte{1}, std::byte{'v'}};
    for (int i = 0; i < depth; ++i) {
      bytes.push_back(static_cast<std::byte>(ValueType::list));
      bytes.push_back(static_cast<std::byte>(i + 1 < depth ? 1 : 0));
    }
    return bytes;
  };
  const auto deepest = PackedProperties::from_bytes(encoded(max_value_depth));
  ASSERT_TRUE(deepest.has_value());
  EXPECT_EQ(deepest->get("v").type(), ValueType::list);
  EXPECT_FALSE(PackedProperties::well_formed(encoded(max_value_depth + 1)));
  EXPECT_FALSE(PackedProperties::from_bytes(encoded(100'000)).has_value());
}

/// Whether the page holding p is in memory.
bool resident(const void* p) {
  const auto page = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
  unsigned char in_core = 0;
  EXPECT_EQ(mincore(reinterpret_cast<void*>(page), 4096, &in_core), 0);
  return (in_core & 1) != 0;
}

TEST(PropertyIndex, MatchesAMapOfSetsThroughAddsRemovesAndGrowth) {
  // Few distinct values (shared buckets; probe runs that wrap around the table's end, with value
  // sets varied so that their hashes land everywhere) and many (the table grows several times);
  // removals exercise backward-shift deletion at every position.
  struct Round {
    std::uint32_t distinct, slots, sets, steps, check_every;
  };
  for (const Round round : {Round{7, 3, 60, 3000, 7}, Round{11, 2, 60, 3000, 7}, Round{5000, 64, 1, 60000, 997}}) {
    for (std::uint32_t set = 0; set < round.sets; ++set) {
      std::mt19937 random(round.distinct * 1000 + set);
      PropertyIndex index("name");
      std::map<std::string, std::set<Slot>> reference;
      auto value_of = [&](std::uint32_t n) {
        return n % 3 == 0 ? fmt::format("a-long-value-beyond-sso-{}-{}", set, n) : fmt::format("v{}-{}", set, n);
      };
      for (std::uint32_t step = 0; step < round.steps; ++step) {
        const std::string value = value_of(random() % round.distinct);
        const Slot slot = random() % round.slots;
        if (random() % 2 != 0) {
          index.add(value, slot);
          reference[value].insert(slot);
        } else {
          index.remove(value, slot);
          if (auto it = reference.find(value); it != reference.end() && it->second.erase(slot) && it->second.empty()) {
            reference.erase(it);
          }
        }
        if (step % round.check_every != 0) continue;
        ASSERT_EQ(index.values(), reference.size()) << "step " << step;
        for (std::uint32_t n = 0; n < round.distinct; ++n) {
          const std::string probe = value_of(n);
          const auto found = index.find(probe);
          const auto it = reference.find(probe);
          const std::vector<Slot> want =
              it == reference.end() ? std::vector<Slot>{} : std::vector<Slot>(it->second.begin(), it->second.end());
          ASSERT_EQ(std::vector<Slot>(found.begin(), found.end()), want) << probe << " at step " << step;
        }
      }
      std::size_t shared = 0;
      index.for_each_shared_bucket([&](std::span<const Slot> slots) {
        EXPECT_GT(slots.size(), 1U);
        ++shared;
      });
      EXPECT_EQ(shared, static_cast<std::size_t>(std::count_if(reference.begin(), reference.end(),
                                                               [](const auto& r) { return r.second.size() > 1; })));
    }
  }
}

TEST(PropertyIndex, IgnoresEmptyValuesAndRepeatedAdds) {
  PropertyIndex index("k", true);
  EXPECT_TRUE(index.unique());
  index.add("", 1);
  EXPECT_EQ(index.values(), 0U);
  EXPECT_TRUE(index.find("").empty());
  index.add("x", 4);
  index.add("x", 4);
  index.add("x", 2);
  index.add("x", 2);
  EXPECT_EQ(std::vector<Slot>(index.find("x").begin(), index.find("x").end()), (std::vector<Slot>{2, 4}));
  index.remove("x", 9);
  index.remove("y", 2);
  index.remove("x", 4);
  EXPECT_EQ(std::vector<Slot>(index.find("x").begin(), index.find("x").end()), (std::vector<Slot>{2}));
  index.remove("x", 2);
  EXPECT_TRUE(index.find("x").empty());
  EXPECT_EQ(index.values(), 0U);
}

TEST(MappedArray, KeepsGrowingAfterAskingForHugePages) {
  // Asked before it is a mapping, and again once it is one (with a part released): the hint
  // covers the whole mapping, which grows by mremap as before (a mapping split by a hint on a
  // part of it could not).
  for (const bool early : {true, false}) {
    MappedArray<std::uint64_t> a;
    if (early) a.prefer_huge_pages();
    for (std::uint64_t i = 0; i < 300'000; ++i) a.push_back(i);
    a.release(1'000, 200'000);
    if (!early) a.prefer_huge_pages();
    for (std::uint64_t i = 300'000; i < 6'000'000; ++i) a.push_back(i);  // 48 MB
    a.resize(7'000'000);
    ASSERT_EQ(a.size(), 7'000'000u);
    EXPECT_EQ(a[500], 500u);
    EXPECT_EQ(a[100'000], 0u);
    for (std::uint64_t i = 300'000; i < 6'000'000; i += 4999) ASSERT_EQ(a[i], i);
    EXPECT_EQ(a[6'500'000], 0u);
  }
}

TEST(MappedArray, GrowsInPlaceOfACopyAndGivesBackReleasedPages) {
  MappedArray<std::uint64_t> a;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) a.push_back(i);  // 8 MB: a mapping, grown by mremap
  for (std::uint64_t i = 0; i < 1'000'000; i += 997) ASSERT_EQ(a[i], i);
  a.release(100'000, 600'000);
  EXPECT_FALSE(resident(&a[300'000]));
  EXPECT_EQ(a[300'000], 0u);  // released pages read as zeros
  EXPECT_TRUE(resident(&a[50'000]));
  // Whole pages only: the partly released pages at the edges keep their values.
  EXPECT_EQ(a[100'000], 100'000u);
  EXPECT_EQ(a[599'999], 599'999u);
  EXPECT_EQ(a[700'000], 700'000u);
  a.resize(2'000'000);
  EXPECT_EQ(a[1'500'000], 0u);
  EXPECT_EQ(a[999'999], 999'999u);
}

TEST(Store, SlotsOfDeletedElementsGiveTheirPagesBack) {
  Store s;
  const LabelId node = s.labels.intern("Node");
  const LabelId link = s.labels.intern("LINK");
  constexpr Slot kVertices = 100'000;
  for (Slot v = 0; v < kVertices; ++v) s.push_vertex(node, {});
  for (Slot v = 0; v + 1 < kVertices; ++v) s.push_edge(v, v + 1, link, {});
  s.link();
  // Delete the elements of slots [256 * 10, 256 * 200): whole groups of both kinds.
  for (Slot v = 256 * 10; v < 256 * 200; ++v) {
    s.remove_edge(v);
    if (v > 0 && v - 1 < 256 * 10) s.remove_edge(v - 1);  // the edge into the first deleted vertex
  }
  for (Slot v = 256 * 10; v < 256 * 200; ++v) s.remove_isolated_vertex(v);
  for (Slot v = 0; v < kVertices; ++v) ASSERT_EQ(s.vertex_alive(v), v < 256 * 10 || v >= 256 * 200) << v;
  EXPECT_EQ(s.live_vertices, kVertices - 256 * 190);
  for (Slot v = 256 * 200; v + 1 < kVertices; ++v) {
    ASSERT_EQ(s.out(v).size(), 1u);
    ASSERT_EQ(s.out(v)[0].other, v + 1);
  }
  for (Slot e = 256 * 11; e < 256 * 199; e += 101) ASSERT_FALSE(s.edge_alive(e));
  EXPECT_EQ(s.out(256 * 10 - 2).size(), 1u);
  EXPECT_TRUE(s.out(256 * 10 - 1).empty());
  EXPECT_TRUE(s.in(256 * 200).empty());
  // New elements after the released groups.
  const Slot fresh = s.push_vertex(node, {});
  s.push_edge(0, fresh, link, {});
  s.link();
  EXPECT_EQ(s.in(fresh).size(), 1u);
}

TEST(Store, ReleasedGroupsStayReleasedThroughScansAndRelinks) {
  Store s;
  const LabelId node = s.labels.intern("Node");
  const LabelId link = s.labels.intern("LINK");
  constexpr Slot kVertices = 1'000;
  constexpr Slot kEdges = 256 * 1'000;  // 4 MB of edge slots: a mapping
  for (Slot v = 0; v < kVertices; ++v) s.push_vertex(node, {});
  for (Slot e = 0; e < kEdges; ++e) s.push_edge(e % kVertices, (e * 7 + 1) % kVertices, link, {});
  s.link();
  const std::size_t full = s.resident_slot_bytes();
  // Delete all but the last group's edges: the label's member list is compacted on the way
  // (it reads slots), and the groups give their pages back.
  for (Slot e = 0; e < kEdges - 256; ++e) s.remove_edge(e);
  const std::size_t emptied = s.resident_slot_bytes();
  EXPECT_LT(emptied, full / 10) << "full " << full << " after deletes " << emptied;
  // Many new edges at once relink every list from the slots: dead groups must not be read.
  for (Slot e = 0; e < kEdges / 2; ++e) s.push_edge(e % kVertices, (e * 3 + 2) % kVertices, link, {});
  s.link();
  for (Slot e = kEdges; e < kEdges + kEdges / 2; ++e) s.remove_edge(e);
  EXPECT_LT(s.resident_slot_bytes(), full / 10) << "full " << full;
  for (Slot e = 0; e < kEdges - 256; e += 997) ASSERT_FALSE(s.edge_alive(e));
  EXPECT_EQ(s.live_edges, 256);
  std::size_t listed = 0;
  for (Slot v = 0; v < kVertices; ++v) listed += s.out(v).size();
  EXPECT_EQ(listed, 256u);
}

TEST(Marks, FollowAGrowingSlotCountWithoutBringingItsPagesIn) {
  Marks m;
  constexpr std::size_t kSlots = std::size_t{1} << 22;  // 16 MiB per array
  for (std::size_t n = 1024; n <= kSlots; n *= 2) {
    m.reset(n);
    ASSERT_TRUE(m.mark(static_cast<Slot>(n - 1)));  // a traversal visiting one new slot
    m.parent[n - 1] = 7;
  }
  // Each array holds what it copied when it outgrew the heap (under kMapAt) and the pages of
  // the slots marked since, not the 16 MiB the slots span.
  constexpr std::size_t kBound = MappedArray<Slot>::kMapAt + (std::size_t{64} << 10);
  for (const auto* a : {&m.stamp, &m.parent}) EXPECT_LE(a->resident_bytes(), kBound);
  m.reset(kSlots);
  for (Slot v = 0; v < kSlots; v += 4099) ASSERT_FALSE(m.marked(v)) << v;
  EXPECT_EQ(m.parent[kSlots - 1], 7u);
  // Shrinking and growing again clears what was written below the largest size.
  m.stamp.resize(16);
  m.stamp.resize(kSlots);
  EXPECT_EQ(m.stamp[kSlots - 1], 0u);
}

TEST(Marks, GiveTheirPagesBackEveryFewUsesAndStayConsistent) {
  Marks m;  // not the thread's own: this test counts its uses
  constexpr std::size_t kSlots = std::size_t{1} << 20;  // 4 MiB per array
  m.reset(kSlots);
  for (Slot v = 0; v < kSlots; v += 512) {
    m.mark(v);
    m.parent[v] = v;
  }
  ASSERT_TRUE(resident(&m.stamp[kSlots / 2]));
  for (std::uint32_t i = 1; i + 1 < ScratchTrim::kEvery; ++i) m.reset(kSlots);
  EXPECT_TRUE(resident(&m.stamp[kSlots / 2]));  // not due yet
  m.mark(7);
  m.reset(kSlots);  // the kEvery-th use: given back
  EXPECT_FALSE(resident(&m.stamp[kSlots / 2]));
  EXPECT_FALSE(resident(&m.parent[kSlots / 2]));
  for (Slot v = 0; v < kSlots; v += 4099) ASSERT_FALSE(m.marked(v)) << v;
  EXPECT_TRUE(m.mark(7));
  EXPECT_FALSE(m.mark(7));
  EXPECT_TRUE(m.marked(7));
}

/// The smallest view make_id and parse_id need.
struct PrefixOnly {
  std::string prefix;
  [[nodiscard]] const std::string& id_prefix() const noexcept { return prefix; }
};

TEST(Ids, MakeAndParseRoundTripAtEveryDigitCount) {
  std::vector<Slot> slots{0,        1,         9,         10,         11,         99,        100,    101,
                          999,      1000,      9999,      10000,      12345,      99999,     100000, 1234567,
                          99999999, 100000000, 999999999, 1000000000, 2147483646, 4294967294};
  for (Slot s = 0; s < 2000; ++s) slots.push_back(s);
  for (const std::string prefix : {"g1:", "g0123abcd:", "a-prefix-much-longer-than-ids-fit-inline:"}) {
    const PrefixOnly g{prefix};
    for (Slot s : slots) {
      const ElementId id = make_id(g, ElementKind::edge, s);
      ASSERT_EQ(id.str(), prefix + "e" + std::to_string(s));
      ASSERT_EQ(parse_id(prefix, id, ElementKind::edge, kNoSlot), s);
      ASSERT_EQ(parse_id(prefix, id, ElementKind::vertex, kNoSlot), kNoSlot);
      ASSERT_EQ(parse_id(prefix, id, ElementKind::edge, s), kNoSlot);  // at the limit
    }
  }
  for (const char* bad : {"g1:e", "g1:e01", "g1:e1x", "g1:e-1", "g1:e4294967296", "g2:e1", "g1e1", ""}) {
    EXPECT_EQ(parse_id("g1:", ElementId(bad), ElementKind::edge, kNoSlot), kNoSlot) << bad;
  }
}

/// A store holding `list` with edge labels A and B alternating, linked.
Store make_store(const generate::EdgeList& list, std::size_t batch_between_links) {
  Store s;
  const LabelId vertex = s.labels.intern("Node");
  const LabelId a = s.labels.intern("A");
  const LabelId b = s.labels.intern("B");
  for (std::uint32_t v = 0; v < list.vertex_count; ++v) s.push_vertex(vertex, {});
  for (std::size_t i = 0; i < list.edges.size(); ++i) {
    s.push_edge(list.edges[i].first, list.edges[i].second, i % 2 == 0 ? a : b, {});
    if ((i + 1) % batch_between_links == 0) s.link();
  }
  s.link();
  return s;
}

TEST(Store, LinkingInBulkOrEdgeByEdgeGivesTheSameLists) {
  // The larger graph is laid out on two threads (Store::kParallelRebuild edges and more).
  for (const auto& list : {generate::rmat_graph(2048, 20000, 3), generate::rmat_graph(1 << 16, 1'100'000, 5)}) {
    const Store bulk = make_store(list, list.edges.size() + 1);
    const Store single = make_store(list, 1);
    const Store batches = make_store(list, 1500);
    for (const Store* s : {&single, &batches}) {
      for (Slot v = 0; v < list.vertex_count; ++v) {
        for (bool out : {true, false}) {
          const auto x = out ? bulk.out(v) : bulk.in(v);
          const auto y = out ? s->out(v) : s->in(v);
          ASSERT_EQ(x.size(), y.size());
          for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(x[i].edge, y[i].edge);
            ASSERT_EQ(x[i].other, y[i].other);
            ASSERT_EQ(x[i].label16, y[i].label16);
          }
          ASSERT_TRUE(
              std::is_sorted(x.begin(), x.end(), [](const AdjEntry& p, const AdjEntry& q) { return p.edge < q.edge; }));
        }
      }
    }
  }
}

TEST(Store, AssignedRecordsEqualTheSameElementsPushedOneByOne) {
  // More than Store::kParallelRebuild edges: the lists are laid out on two threads. Dead slots,
  // edges without properties and maps past 255 bytes vary the heap.
  const auto list = generate::rmat_graph(1 << 12, 1'100'000, 11);
  auto dead_vertex = [](Slot v) { return v % 97 == 5; };
  auto edge_properties = [](std::size_t i) -> Properties {
    if (i % 5 == 0) return {};
    if (i % 1000 == 1) return Properties{{"note", std::string(300, static_cast<char>('a' + i % 26))}};
    return Properties{{"w", static_cast<std::int64_t>(i)}};
  };
  StoreRecords records;
  Store pushed;
  for (auto* labels : {&records.labels, &pushed.labels}) {
    labels->intern("Node");
    labels->intern("A");
    labels->intern("B");
  }
  for (Slot v = 0; v < list.vertex_count; ++v) {
    const bool alive = !dead_vertex(v);
    records.vertices.push_back(VertexRecord{0, alive, {}});
    if (alive) {
      pushed.push_vertex(0, {});
    } else {
      pushed.push_dead_vertex();
    }
  }
  for (std::size_t i = 0; i < list.edges.size(); ++i) {
    const auto [from, to] = list.edges[i];
    const bool alive = i % 13 != 0 && !dead_vertex(from) && !dead_vertex(to);
    const LabelId label = i % 2 == 0 ? 1 : 2;
    PackedProperties properties(alive ? edge_properties(i) : Properties{});
    if (alive) {
      pushed.push_edge(from, to, label, properties.view());
    } else {
      pushed.push_dead_edge();
    }
    records.edges.push_back(alive ? EdgeSlot{from, to, label + 1, records.edge_properties.store(properties.bytes())}
                                  : EdgeSlot{});
  }
  Store assigned;
  assigned.assign(std::move(records));
  ASSERT_EQ(assigned.edge_slots(), pushed.edge_slots());
  EXPECT_EQ(assigned.live_edges, pushed.live_edges);
  // The heap is laid out as the pushes laid it out: every map at the same distance from the first.
  const std::byte* x0 = nullptr;
  const std::byte* y0 = nullptr;
  for (Slot e = 0; e < pushed.edge_slots(); ++e) {
    ASSERT_EQ(assigned.edge_alive(e), pushed.edge_alive(e)) << "edge " << e;
    if (!pushed.edge_alive(e)) continue;
    ASSERT_EQ(assigned.edge_from(e), pushed.edge_from(e));
    ASSERT_EQ(assigned.edge_to(e), pushed.edge_to(e));
    ASSERT_EQ(assigned.edge_label(e), pushed.edge_label(e));
    const auto x = assigned.edge_properties(e).bytes();
    const auto y = pushed.edge_properties(e).bytes();
    ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "edge " << e;
    if (x.empty()) continue;
    if (x0 == nullptr) {
      x0 = x.data();
      y0 = y.data();
    }
    ASSERT_EQ(x.data() - x0, y.data() - y0) << "edge " << e;
  }
  for (LabelId label : {1u, 2u}) EXPECT_EQ(assigned.edges_by_label[label].live, pushed.edges_by_label[label].live);
}

/// Every live edge's map, found as incident_edges finds it, is the one its slot names.
void expect_listed_maps_are_the_slots(const Store& s) {
  for (Slot e = 0; e < s.edge_slots(); ++e) {
    if (!s.edge_alive(e)) continue;
    const auto listed = s.listed_edge_properties(e).bytes();
    const auto slot = s.edge_properties(e).bytes();
    ASSERT_EQ(listed.data(), slot.data()) << "edge " << e;
    ASSERT_EQ(listed.size(), slot.size()) << "edge " << e;
  }
}

TEST(Store, MapsFoundByRunAreTheSlotsMapsThroughEveryWrite) {
  // Runs of Store::kEdgeRun edge slots: [0] one property shape, [1] no properties, [2] maps of
  // two sizes, [3] one shape and a dead slot, [4] one shape, later replaced once, [5] one
  // shape, later partly deleted, [6] maps reusing the deleted ones' space, [7] one shape, still
  // filling.
  Store s;
  const LabelId node = s.labels.intern("Node");
  const LabelId link = s.labels.intern("LINK");
  for (int v = 0; v < 64; ++v) s.push_vertex(node, {});
  auto shape = [](std::size_t i) {
    return PackedProperties(
        Properties{{"since", static_cast<std::int64_t>(1990 + i % 35)}, {"weight", 0.5 + static_cast<double>(i % 7)}});
  };
  auto push = [&](std::size_t i, const PackedProperties& p) {
    s.push_edge(static_cast<Slot>(i * 7 % 64), static_cast<Slot>(i * 11 % 64), link, p.view());
  };
  constexpr std::size_t kRun = Store::kEdgeRun;
  for (std::size_t i = 0; i < kRun; ++i) push(i, shape(i));
  for (std::size_t i = kRun; i < 2 * kRun; ++i) push(i, PackedProperties{});
  for (std::size_t i = 2 * kRun; i < 3 * kRun; ++i) {
    push(i, i % 100 == 50 ? PackedProperties(Properties{{"note", std::string(40, 'n')}}) : shape(i));
  }
  for (std::size_t i = 3 * kRun; i < 4 * kRun; ++i) {
    if (i == 3 * kRun + 500) {
      s.push_dead_edge();
    } else {
      push(i, shape(i));
    }
  }
  for (std::size_t i = 4 * kRun; i < 6 * kRun; ++i) push(i, shape(i));
  s.link();
  const std::vector<bool> even{true, true, false, false, true, true};
  for (std::size_t run = 0; run < even.size(); ++run) {
    EXPECT_EQ(s.edge_map_by_run(static_cast<Slot>(run * kRun + 1)), even[run]) << "run " << run;
  }
  expect_listed_maps_are_the_slots(s);

  s.set_edge_properties(static_cast<Slot>(4 * kRun + 7), shape(3).view());
  for (Slot e = 5 * kRun + 100; e < 5 * kRun + 200; ++e) s.remove_edge(e);
  EXPECT_FALSE(s.edge_map_by_run(static_cast<Slot>(4 * kRun)));
  EXPECT_TRUE(s.edge_map_by_run(static_cast<Slot>(5 * kRun)));  // deleted edges leave the lists
  for (std::size_t i = 6 * kRun; i < 7 * kRun + 300; ++i) push(i, shape(i));  // the first 100 reuse freed maps
  s.link();
  EXPECT_FALSE(s.edge_map_by_run(static_cast<Slot>(6 * kRun)));
  EXPECT_TRUE(s.edge_map_by_run(static_cast<Slot>(7 * kRun)));
  expect_listed_maps_are_the_slots(s);

  // A store assigned from records finds its runs anew.
  StoreRecords records;
  records.labels.intern("Node");
  records.labels.intern("LINK");
  for (int v = 0; v < 64; ++v) records.vertices.push_back(VertexRecord{0, true, {}});
  for (Slot e = 0; e < s.edge_slots(); ++e) {
    records.edges.push_back(s.edge_alive(e) ? EdgeSlot{s.edge_from(e), s.edge_to(e), link + 1,
                                                       records.edge_properties.store(s.edge_properties(e).bytes())}
                                            : EdgeSlot{});
  }
  Store assigned;
  assigned.assign(std::move(records));
  // Laid out anew in slot order: the runs with a replaced map or a reused one are even again,
  // those with a dead slot or two sizes are not.
  const std::vector<bool> even_assigned{true, true, false, false, true, false, true, true};
  for (std::size_t run = 0; run < even_assigned.size(); ++run) {
    EXPECT_EQ(assigned.edge_map_by_run(static_cast<Slot>(run * kRun + 1)), even_assigned[run]) << "run " << run;
  }
  expect_listed_maps_are_the_slots(assigned);
}

TEST(Store, AssigningAnEdgeToADeadVertexFailsAndKeepsTheStore) {
  StoreRecords records;
  records.labels.intern("Node");
  records.vertices.push_back(VertexRecord{0, true, {}});
  records.vertices.push_back(VertexRecord{0, false, {}});
  records.edges.push_back(EdgeSlot{0, 0, 1, 0});
  records.edges.push_back(EdgeSlot{0, 1, 1, 0});
  Store s;
  s.labels.intern("Kept");
  s.push_vertex(0, {});
  try {
    s.assign(std::move(records));
    FAIL() << "assign took an edge to a dead vertex";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("edge slot 1 joins vertex slots 0 and 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.vertex_slots(), 1u);
  EXPECT_EQ(s.edge_slots(), 0u);
  EXPECT_EQ(s.labels.find("Kept"), 0u);
}

struct BfsRun {
  std::vector<Slot> queue;
  std::vector<Slot> parent;
  std::vector<int> depth;
  std::vector<Slot> parent_edge;
  friend bool operator==(const BfsRun&, const BfsRun&) = default;
};

BfsRun run_bfs(const Store& s, Slot start, const EdgeFilter& f, int max_depth, BfsStrategy strategy,
               std::size_t max_vertices) {
  static const std::string prefix = "g0:";
  const CommittedView g(s, prefix);
  const std::size_t visited = breadth_first(
      g, StoreAdjacency{&s}, start, f, max_depth,
      [&, count = std::size_t{0}](Slot, int) mutable { return ++count < max_vertices; }, "bfs", strategy);
  const Marks& m = scratch();
  BfsRun r;
  r.queue.assign(m.queue.begin(), m.queue.begin() + static_cast<std::ptrdiff_t>(visited));
  r.parent.assign(m.queue_parent.begin(), m.queue_parent.begin() + static_cast<std::ptrdiff_t>(visited));
  r.depth.assign(m.queue_depth.begin(), m.queue_depth.begin() + static_cast<std::ptrdiff_t>(visited));
  for (std::size_t i = 1; i < visited; ++i) r.parent_edge.push_back(m.parent_edge[r.queue[i]]);
  return r;
}

TEST(BreadthFirst, BottomUpLevelsEqualTopDownOnes) {
  for (const auto& list : {generate::rmat_graph(4096, 40000, 5), generate::random_graph(3000, 24000, 5),
                           generate::rmat_graph(512, 600, 9)}) {
    const Store s = make_store(list, list.edges.size() + 1);
    const LabelId a = s.labels.find("A");
    for (Direction d : {Direction::out, Direction::in, Direction::both}) {
      for (LabelId label : {kAnyLabel, a}) {
        for (Slot start : {Slot{0}, Slot{7}, Slot{300}}) {
          for (int max_depth : {1, 3, 1 << 30}) {
            for (std::size_t max_vertices : {std::size_t{50}, ~std::size_t{0}}) {
              const EdgeFilter f{d, label, kAnyLabel};
              const BfsRun top = run_bfs(s, start, f, max_depth, BfsStrategy::top_down, max_vertices);
              ASSERT_EQ(run_bfs(s, start, f, max_depth, BfsStrategy::bottom_up, max_vertices), top)
                  << "direction " << static_cast<int>(d) << " label " << label << " start " << start;
              ASSERT_EQ(run_bfs(s, start, f, max_depth, BfsStrategy::automatic, max_vertices), top);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace propgraph::detail
