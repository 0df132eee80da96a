#include "buffer/internal/mirrored_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <system_error>

namespace serverkit::buffer_internal {
namespace {

int g_fault_step = 0;

// True, with errno = ENOMEM, at the step a test asked to fail.
bool Injected(int step) {
  if (g_fault_step == step) {
    errno = ENOMEM;
    return true;
  }
  return false;
}

[[noreturn]] void Fail(int err, const std::string& what, std::size_t size) {
  throw std::system_error(err, std::generic_category(),
                          "MirroredRingBuffer: " + what + " failed (capacity " +
                              std::to_string(size) + " bytes)");
}

}  // namespace

void SetMirroredMappingFaultForTesting(int step) { g_fault_step = step; }

std::size_t MirroredMapping::PageSize() {
  static const std::size_t page = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return page;
}

MirroredMapping MirroredMapping::Create(std::size_t size) {
  if (size == 0 || size % PageSize() != 0 || size > SIZE_MAX / 4) {
    throw std::system_error(EINVAL, std::generic_category(),
                            "MirroredRingBuffer: capacity " +
                                std::to_string(size) +
                                " is not a positive multiple of the page size");
  }
  const int fd =
      Injected(1) ? -1 : ::memfd_create("serverkit-mirrored-ring", MFD_CLOEXEC);
  if (fd < 0) Fail(errno, "memfd_create", size);

  if (Injected(2) || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    const int err = errno;
    ::close(fd);
    Fail(err, "ftruncate of the memfd", size);
  }

  void* reserved =
      Injected(3) ? MAP_FAILED
                  : ::mmap(nullptr, 2 * size, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    Fail(err, "mmap of the address-space reservation", size);
  }
  char* base = static_cast<char*>(reserved);

  for (int view = 0; view < 2; ++view) {
    void* at = Injected(4 + view)
                   ? MAP_FAILED
                   : ::mmap(base + view * size, size, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_FIXED, fd, 0);
    if (at == MAP_FAILED) {
      const int err = errno;
      ::munmap(base, 2 * size);  // the reservation and any view inside it
      ::close(fd);
      Fail(err,
           view == 0 ? "mmap of the first view" : "mmap of the second view",
           size);
    }
  }
  ::close(fd);  // the two views keep the memory
  return MirroredMapping(base, size);
}

void MirroredMapping::Release() noexcept {
  if (data_ != nullptr) ::munmap(data_, 2 * size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace serverkit::buffer_internal
