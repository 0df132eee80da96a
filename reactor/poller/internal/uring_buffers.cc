#include "reactor/poller/internal/uring_buffers.h"

#include <liburing.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace serverkit::reactor_internal {

ProvidedBuffers::ProvidedBuffers(unsigned count, unsigned bytes)
    : count_(count), bytes_(bytes) {}

ProvidedBuffers::~ProvidedBuffers() {
  std::free(ring_);
  std::free(data_);
}

std::unique_ptr<ProvidedBuffers> ProvidedBuffers::Register(
    struct io_uring* ring, unsigned count, unsigned bytes) {
  auto bufs =
      std::unique_ptr<ProvidedBuffers>(new ProvidedBuffers(count, bytes));
  void* mem = nullptr;
  const std::size_t ring_bytes = count * sizeof(struct io_uring_buf);
  if (posix_memalign(&mem, 4096, ring_bytes) != 0) return nullptr;
  bufs->ring_ = static_cast<struct io_uring_buf_ring*>(mem);
  bufs->data_ =
      static_cast<char*>(std::aligned_alloc(4096, std::size_t{count} * bytes));
  if (bufs->data_ == nullptr) return nullptr;
  io_uring_buf_ring_init(bufs->ring_);
  struct io_uring_buf_reg reg {};
  reg.ring_addr = reinterpret_cast<std::uint64_t>(bufs->ring_);
  reg.ring_entries = count;
  reg.bgid = kGroup;
  const int reg_rc = io_uring_register_buf_ring(ring, &reg, 0);
  if (reg_rc < 0) {
    static std::once_flag said;  // once per process, like the fallback line
    std::call_once(said, [reg_rc] {
      std::fprintf(stderr,
                   "reactor: io_uring provided buffers are not available "
                   "here (%s); reading and writing on readiness\n",
                   std::strerror(-reg_rc));
    });
    return nullptr;
  }
  for (unsigned id = 0; id < count; ++id) bufs->add(id);
  bufs->publish();
  return bufs;
}

void ProvidedBuffers::add(unsigned id) {
  io_uring_buf_ring_add(ring_, data_ + static_cast<std::size_t>(id) * bytes_,
                        bytes_, static_cast<unsigned short>(id),
                        io_uring_buf_ring_mask(count_),
                        static_cast<int>(pending_++));
}

void ProvidedBuffers::publish() {
  if (pending_ == 0) return;
  io_uring_buf_ring_advance(ring_, static_cast<int>(pending_));
  pending_ = 0;
}

// The buffers handed out in the last iteration: their channels' callbacks
// have run (or the channels are gone), so the kernel may fill them again.
void ProvidedBuffers::recycle() {
  if (to_recycle_.empty()) return;
  for (std::uint16_t id : to_recycle_) add(id);
  publish();
  to_recycle_.clear();
}

}  // namespace serverkit::reactor_internal
