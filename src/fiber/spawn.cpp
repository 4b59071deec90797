// Recycling of finished fibers: a per-thread list of parked fibers that take the next call.
#include "propgraph/fiber/spawn.hpp"

#include <boost/fiber/context.hpp>
#include <boost/fiber/type.hpp>

namespace propgraph::detail {
namespace {

/// Parked fibers of one thread. Parking and taking happen only on the owning thread, so no
/// locking: a parked fiber is in no ready queue and cannot migrate.
struct IdleList {
  RecycledFiber* head = nullptr;
  std::size_t count = 0;

  IdleList() noexcept;
  ~IdleList();
  IdleList(const IdleList&) = delete;
  IdleList& operator=(const IdleList&) = delete;
};

// Trivially destructible, hence readable during the whole thread exit.
constinit thread_local IdleList* tl_idle = nullptr;
constinit thread_local bool tl_idle_gone = false;

IdleList::IdleList() noexcept { tl_idle = this; }

// Runs at thread exit, before Boost.Fiber's per-thread scheduler is destroyed (the list is
// created inside a fiber, so after that scheduler): ends every parked fiber here, on its own
// thread, so the scheduler finds no fiber left waiting forever.
IdleList::~IdleList() {
  tl_idle = nullptr;
  tl_idle_gone = true;
  boost::fibers::context* self = boost::fibers::context::active();
  while (head != nullptr) {
    RecycledFiber* fiber = head;
    head = fiber->next;
    --count;
    fiber->quit = true;
    fiber->context->resume(self);  // it returns from recycle_loop and terminates
  }
}

// Never inlined: a fiber may resume on another thread (FiberPool), so the thread-local address
// must be computed afresh at each call rather than cached across a suspension.
[[gnu::noinline]] IdleList* current_list() noexcept { return tl_idle; }

// The list must be destroyed before Boost.Fiber's per-thread scheduler, or that scheduler's
// destructor would wait forever for the parked fibers. Thread-locals are destroyed in reverse
// order of construction, so the list is created only on the thread's main context: there the
// scheduler certainly exists already (context::active() creates it) and is not being torn down
// (its destructor runs on the main context and does not return to user code). A list created
// from inside a fiber could be created during that teardown, after which its parked fibers
// would never be released.
[[gnu::noinline]] IdleList* list_for_taking() noexcept {
  if (tl_idle != nullptr || tl_idle_gone) return tl_idle;
  if (!boost::fibers::context::active()->is_context(boost::fibers::type::main_context)) return nullptr;
  thread_local IdleList list;  // constructor sets tl_idle; destructor registered for this thread
  return &list;
}

/// Free promise state blocks of one thread.
struct StateBlocks {
  static constexpr std::size_t max_blocks = 64;
  void* head = nullptr;  // each free block starts with the pointer to the next
  std::size_t count = 0;

  StateBlocks() noexcept;
  ~StateBlocks();
  StateBlocks(const StateBlocks&) = delete;
  StateBlocks& operator=(const StateBlocks&) = delete;
};

constinit thread_local StateBlocks* tl_blocks = nullptr;
constinit thread_local bool tl_blocks_gone = false;

StateBlocks::StateBlocks() noexcept { tl_blocks = this; }

StateBlocks::~StateBlocks() {
  tl_blocks = nullptr;
  tl_blocks_gone = true;
  while (head != nullptr) {
    void* block = head;
    head = *static_cast<void**>(block);
    ::operator delete(block);
  }
}

}  // namespace

void* allocate_state_block() {
  StateBlocks* blocks = tl_blocks;
  if (blocks == nullptr && !tl_blocks_gone) {
    thread_local StateBlocks list;
    blocks = &list;
  }
  if (blocks != nullptr && blocks->head != nullptr) {
    void* block = blocks->head;
    blocks->head = *static_cast<void**>(block);
    --blocks->count;
    return block;
  }
  return ::operator new(state_block_size);
}

void free_state_block(void* block) noexcept {
  if (StateBlocks* blocks = tl_blocks; blocks != nullptr && blocks->count < StateBlocks::max_blocks) {
    *static_cast<void**>(block) = blocks->head;
    blocks->head = block;
    ++blocks->count;
    return;
  }
  ::operator delete(block);
}

RecycledFiber* take_idle_fiber(const StackAllocator& stack) noexcept {
  IdleList* list = list_for_taking();
  if (list == nullptr) return nullptr;
  for (RecycledFiber** link = &list->head; *link != nullptr; link = &(*link)->next) {
    RecycledFiber* fiber = *link;
    if (fiber->stack == stack) {
      *link = fiber->next;
      fiber->next = nullptr;
      --list->count;
      return fiber;
    }
  }
  return nullptr;
}

void start_recycled(RecycledFiber& fiber, boost::fibers::launch launch) noexcept {
  boost::fibers::context* self = boost::fibers::context::active();
  if (launch == boost::fibers::launch::dispatch) {
    fiber.context->resume(self);  // run it now; the caller goes to the ready queue
  } else {
    self->schedule(fiber.context);  // ready queue; it runs when the caller yields or blocks
  }
}

void recycle_loop(const StackAllocator& stack) noexcept {
  RecycledFiber self;
  self.stack = stack;
  self.context = boost::fibers::context::active();
  for (;;) {
    IdleList* list = current_list();  // parks only where the list exists (see list_for_taking)
    if (list == nullptr || list->count >= idle_fibers_per_thread) return;
    self.next = list->head;
    list->head = &self;
    ++list->count;
    self.context->suspend();  // parked until start_recycled() or ~IdleList() resumes it
    if (self.quit) return;
    self.run(self.storage);
  }
}

}  // namespace propgraph::detail
