// LogFileSink: canopyd's and canopy-agent's log file (--log-file), reopened on SIGUSR2 as
// Slurm's daemons do, so logrotate can move the file away and have the next line start a new
// one (deploy/logrotate). Lines are appended whole (O_APPEND) and flushed at once: a crash
// loses nothing already logged.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "spdlog/sinks/base_sink.h"

namespace canopy::log {

class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // False, with `error` naming the file and the reason, when it cannot be opened.
  static std::shared_ptr<LogFileSink> Open(const std::string& path, std::string& error) {
    auto sink = std::shared_ptr<LogFileSink>(new LogFileSink(path));
    if (!sink->OpenFile(error)) {
      return nullptr;
    }
    return sink;
  }
  ~LogFileSink() override {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  // Opens the path again (a new file if it was renamed); keeps the old one on failure.
  bool Reopen(std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int old = fd_;
    if (!OpenFile(error)) {
      fd_ = old;
      return false;
    }
    if (old >= 0) {
      ::close(old);
    }
    return true;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        return;  // a full disk loses this line, not the daemon
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  void flush_() override {}

 private:
  explicit LogFileSink(std::string path) : path_(std::move(path)) {}
  bool OpenFile(std::string& error) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd_ < 0) {
      error = "--log-file: cannot open " + path_ + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }

  const std::string path_;
  int fd_ = -1;
};

}  // namespace canopy::log
