// -----------------------------------------------------------------------------
// reactor/poller/internal/uring_buffers.h
// -----------------------------------------------------------------------------
//
// `ProvidedBuffers`: the ring of provided buffers a `UringPoller`'s
// multishot receives pick from (reactor/poller/uring_poller.h). The kernel
// takes one buffer per receive completion; the poller hands its bytes to the
// channel and gives the buffer back (`give_back`), and `recycle` returns
// every buffer given back to the kernel at the next poll(), once the
// channels' callbacks have copied them.
//
// Loop thread only.

#ifndef SERVERKIT_REACTOR_POLLER_INTERNAL_URING_BUFFERS_H_
#define SERVERKIT_REACTOR_POLLER_INTERNAL_URING_BUFFERS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

struct io_uring;
struct io_uring_buf_ring;

namespace serverkit::reactor_internal {

class ProvidedBuffers {
 public:
  // The buffers' group id in the receives' submission entries.
  static constexpr unsigned short kGroup = 0;

  // `count` buffers of `bytes` each, registered with `ring` as group
  // kGroup. Null when they cannot be (kernels before 5.19, or no memory);
  // a failed registration is said once per process.
  static std::unique_ptr<ProvidedBuffers> Register(struct io_uring* ring,
                                                   unsigned count,
                                                   unsigned bytes);
  ~ProvidedBuffers();

  ProvidedBuffers(const ProvidedBuffers&) = delete;
  ProvidedBuffers& operator=(const ProvidedBuffers&) = delete;

  const char* at(unsigned id) const {
    return data_ + static_cast<std::size_t>(id) * bytes_;
  }
  // Buffer `id` was handed out (its bytes delivered or dropped): the kernel
  // may fill it again after the next recycle().
  void give_back(std::uint16_t id) { to_recycle_.push_back(id); }
  // Returns the buffers given back since the last call to the kernel.
  void recycle();

 private:
  ProvidedBuffers(unsigned count, unsigned bytes);
  void add(unsigned id);
  void publish();

  const unsigned count_;
  const unsigned bytes_;
  struct io_uring_buf_ring* ring_ = nullptr;  // count_ entries, page-aligned
  char* data_ = nullptr;                      // count_ x bytes_
  unsigned pending_ = 0;                      // added since the last advance
  std::vector<std::uint16_t> to_recycle_;     // buffer ids handed out
};

}  // namespace serverkit::reactor_internal

#endif  // SERVERKIT_REACTOR_POLLER_INTERNAL_URING_BUFFERS_H_
