// -----------------------------------------------------------------------------
// buffer/internal/mirrored_mapping.h
// -----------------------------------------------------------------------------
//
// MirroredMapping: `size` bytes of memory mapped twice, back to back, so that
// data()[i] and data()[i + size] are the same byte. Built from one memfd and
// two MAP_FIXED views placed inside a PROT_NONE reservation of 2 * size bytes,
// which keeps another thread's mmap from landing between the views.
//
// Errors: Create() throws std::system_error whose what() names the call that
// failed ("MirroredRingBuffer: memfd_create failed: Too many open files").
// Every path that throws first releases what it had mapped and closes the
// memfd; a live MirroredMapping holds no file descriptor (the views keep the
// memory alive), and its destructor unmaps both views.
//
// Thread-safety: thread-compatible. Create() is thread-safe.

#ifndef SERVERKIT_BUFFER_INTERNAL_MIRRORED_MAPPING_H_
#define SERVERKIT_BUFFER_INTERNAL_MIRRORED_MAPPING_H_

#include <cstddef>
#include <utility>

namespace serverkit::buffer_internal {

class MirroredMapping {
 public:
  // The system's page size; sizes passed to Create() are multiples of it.
  static std::size_t PageSize();

  // Maps `size` bytes twice (`size` a positive multiple of PageSize()).
  // Throws std::system_error on failure (see above).
  static MirroredMapping Create(std::size_t size);

  MirroredMapping() = default;
  MirroredMapping(const MirroredMapping&) = delete;
  MirroredMapping& operator=(const MirroredMapping&) = delete;
  MirroredMapping(MirroredMapping&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  MirroredMapping& operator=(MirroredMapping&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~MirroredMapping() { Release(); }

  char* data() const { return data_; }
  std::size_t size() const { return size_; }  // one view; 2 * size() mapped

 private:
  MirroredMapping(char* data, std::size_t size) : data_(data), size_(size) {}
  void Release() noexcept;

  char* data_ = nullptr;
  std::size_t size_ = 0;
};

// Test-only fault injection: while non-zero, Create() fails at that step as
// if the system call had failed with ENOMEM: 1 memfd_create, 2 ftruncate,
// 3 the reservation, 4 the first view, 5 the second view. Not thread-safe;
// tests set and clear it around one call.
void SetMirroredMappingFaultForTesting(int step);

}  // namespace serverkit::buffer_internal

#endif  // SERVERKIT_BUFFER_INTERNAL_MIRRORED_MAPPING_H_
