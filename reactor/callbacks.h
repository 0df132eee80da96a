// -----------------------------------------------------------------------------
// reactor/callbacks.h
// -----------------------------------------------------------------------------
//
// Every callback type of the reactor, in one place (muduo's Callbacks.h).
// Connection callbacks are templates over the connection's buffer type, since
// `TcpConnection<B>` is.

#ifndef SERVERKIT_REACTOR_CALLBACKS_H_
#define SERVERKIT_REACTOR_CALLBACKS_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

namespace serverkit::reactor {

using Clock = std::chrono::steady_clock;

// A unit of work posted to a loop.
using Functor = std::function<void()>;
using TimerCallback = std::function<void()>;

template <typename B>
class TcpConnection;

template <typename B>
using TcpConnectionPtr = std::shared_ptr<TcpConnection<B>>;

// Called when a connection comes up and again when it goes down
// (`conn->connected()` tells which).
template <typename B>
using ConnectionCallback = std::function<void(const TcpConnectionPtr<B>&)>;

// Called with the input buffer whenever bytes arrive; the callee retrieves
// what it consumed and leaves partial messages in place.
template <typename B>
using MessageCallback = std::function<void(const TcpConnectionPtr<B>&, B* input,
                                           Clock::time_point)>;

// Called when the output buffer has drained completely.
template <typename B>
using WriteCompleteCallback = std::function<void(const TcpConnectionPtr<B>&)>;

// Called once when the output buffer grows past the high-water mark.
template <typename B>
using HighWaterMarkCallback =
    std::function<void(const TcpConnectionPtr<B>&, std::size_t queued)>;

// Called once when the peer's EOF arrives (it half-closed); the connection
// has stopped reading and closes once its queued output is written.
template <typename B>
using HalfCloseCallback = std::function<void(const TcpConnectionPtr<B>&)>;

template <typename B>
using CloseCallback = std::function<void(const TcpConnectionPtr<B>&)>;

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_CALLBACKS_H_
