#include "logger/sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

namespace serverkit {
namespace {

constexpr std::size_t kStdioBuffer = 64 * 1024;

std::FILE* OpenForAppend(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "ae");
  if (f != nullptr) std::setvbuf(f, nullptr, _IOFBF, kStdioBuffer);
  return f;
}

}  // namespace

Sink::Sink(std::FILE* file, std::string description)
    : file_(file), description_(std::move(description)) {}

Sink::~Sink() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string Sink::last_error() const {
  std::lock_guard<std::mutex> lock(error_mu_);
  return last_error_;
}

void Sink::RecordError(std::string_view what, int err) {
  io_errors_.fetch_add(1, std::memory_order_relaxed);
  std::string text =
      fmt::format("{} {}: {}", what, description_,
                  err != 0 ? std::strerror(err) : "unknown error");
  std::lock_guard<std::mutex> lock(error_mu_);
  last_error_ = std::move(text);
}

bool Sink::WriteRaw(std::string_view bytes) {
  if (file_ == nullptr) {
    RecordError("write to", EBADF);
    return false;
  }
  errno = 0;
  if (::fwrite_unlocked(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    RecordError("write to", errno);
    ::clearerr_unlocked(file_);
    return false;
  }
  return true;
}

bool Sink::Write(std::string_view bytes) { return WriteRaw(bytes); }

bool Sink::Flush() {
  if (file_ == nullptr) return false;
  errno = 0;
  if (::fflush_unlocked(file_) != 0) {
    RecordError("flush of", errno);
    ::clearerr_unlocked(file_);
    return false;
  }
  return true;
}

FileSink::FileSink(std::string path, std::size_t rotate_bytes,
                   std::size_t max_files)
    : Sink(OpenForAppend(path), fmt::format("file '{}'", path)),
      path_(std::move(path)),
      rotate_bytes_(rotate_bytes),
      max_files_(max_files) {
  if (file_ == nullptr) {
    throw std::system_error(
        errno, std::generic_category(),
        fmt::format("cannot open log file '{}' for appending", path_));
  }
  struct stat st;
  if (::fstat(::fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
    size_ = static_cast<std::size_t>(st.st_size);
  }
}

bool FileSink::Write(std::string_view bytes) {
  if (rotate_bytes_ == 0) {
    if (!WriteRaw(bytes)) return false;
    size_ += bytes.size();
    return true;
  }
  bool ok = true;
  while (!bytes.empty()) {
    const std::size_t room = size_ < rotate_bytes_ ? rotate_bytes_ - size_ : 0;
    std::size_t take;
    if (bytes.size() <= room) {
      take = bytes.size();
    } else {
      // The longest run of whole lines that fits.
      const std::size_t nl = room == 0 ? std::string_view::npos
                                       : bytes.substr(0, room).rfind('\n');
      if (nl != std::string_view::npos) {
        take = nl + 1;
      } else if (size_ > 0) {
        ok &= Rotate();
        continue;
      } else {
        // An empty file and a first line longer than the limit: it alone.
        const std::size_t end = bytes.find('\n');
        take = end == std::string_view::npos ? bytes.size() : end + 1;
      }
    }
    if (WriteRaw(bytes.substr(0, take))) {
      size_ += take;
    } else {
      ok = false;
    }
    bytes.remove_prefix(take);
  }
  return ok;
}

bool FileSink::Rotate() {
  bool ok = true;
  if (file_ != nullptr) {
    if (::fflush_unlocked(file_) != 0) {
      RecordError("flush of", errno);
      ok = false;
    }
    std::fclose(file_);
    file_ = nullptr;
  }
  if (max_files_ == 0) {
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
      RecordError("rotation (unlink) of", errno);
      ok = false;
    }
  } else {
    for (std::size_t i = max_files_; i >= 1; --i) {
      const std::string from =
          i == 1 ? path_ : fmt::format("{}.{}", path_, i - 1);
      const std::string to = fmt::format("{}.{}", path_, i);
      if (::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
        RecordError("rotation (rename) of", errno);
        ok = false;
      }
    }
  }
  file_ = OpenForAppend(path_);
  if (file_ == nullptr) {
    RecordError("reopen after rotation of", errno);
    ok = false;
  }
  size_ = 0;
  return ok;
}

namespace {

std::FILE* OpenFd(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return nullptr;
  std::FILE* f = ::fdopen(copy, "w");
  if (f == nullptr) {
    const int err = errno;
    ::close(copy);
    errno = err;
    return nullptr;
  }
  std::setvbuf(f, nullptr, _IOFBF, kStdioBuffer);
  return f;
}

}  // namespace

ConsoleSink::ConsoleSink(int fd)
    : Sink(OpenFd(fd), fmt::format("console (fd {})", fd)) {
  if (file_ == nullptr) {
    throw std::system_error(
        errno, std::generic_category(),
        fmt::format("cannot use fd {} as the log console", fd));
  }
}

std::unique_ptr<Sink> MakeSink(const SinkOptions& options) {
  switch (options.kind) {
    case SinkKind::kConsole:
      return std::make_unique<ConsoleSink>(options.fd);
    case SinkKind::kFile:
      break;
  }
  return std::make_unique<FileSink>(options.path, options.rotate_bytes,
                                    options.max_files);
}

}  // namespace serverkit
