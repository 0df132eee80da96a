#include "build/fuzz/allocations.h"

#include <cstdlib>
#include <new>

namespace serverkit::fuzz {
namespace {

bool g_counting = false;
std::size_t g_allocations = 0;
std::size_t g_largest = 0;

void* Allocate(std::size_t n) {
  if (g_counting) {
    ++g_allocations;
    if (n > g_largest) g_largest = n;
  }
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

AllocationCount::AllocationCount() {
  g_allocations = 0;
  g_largest = 0;
  g_counting = true;
}
void AllocationCount::stop() { g_counting = false; }
std::size_t AllocationCount::allocations() const { return g_allocations; }
std::size_t AllocationCount::largest() const { return g_largest; }

}  // namespace serverkit::fuzz

// Every replaceable form but the aligned ones (which keep the runtime's
// pair): a form left out would pair the runtime's new with this delete.
void* operator new(std::size_t n) { return serverkit::fuzz::Allocate(n); }
void* operator new[](std::size_t n) { return serverkit::fuzz::Allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return serverkit::fuzz::Allocate(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return operator new(n, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
