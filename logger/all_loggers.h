// -----------------------------------------------------------------------------
// logger/all_loggers.h
// -----------------------------------------------------------------------------
//
// The type list of every logger. The typed tests and the sweep iterate it:
// adding a logger is a header, its target, a dep and a line in `AllLoggers`
// below (the README's "Adding an implementation"). The
// reference (SyncLogger) comes first, so tests report it first.
//
// `AsyncQueueLogger<Q>` is listed over each queue of `AsyncQueueLoggerQueues`
// (entries of `AllQueues`): the bounded Vyukov ring, moodycamel's unbounded
// queue and the mutex queue (the reference). The sweep's full profile runs it
// over every other multi-producer queue of `AllQueues` too.
//
// Optional traits, detected rather than required:
//   - `static constexpr bool kRotates = false`: the logger cannot rotate files
//     (`SupportsRotation<L>()`).

#ifndef SERVERKIT_LOGGER_ALL_LOGGERS_H_
#define SERVERKIT_LOGGER_ALL_LOGGERS_H_

#include "base/type_list.h"
#include "logger/async_double_buffer_logger.h"
#include "logger/async_queue_logger.h"
#include "logger/boost_log_logger.h"
#include "logger/logger.h"
#include "logger/spdlog_loggers.h"
#include "logger/sync_logger.h"
#include "queues/all_queues.h"
#include "queues/bounded_mpmc_queue.h"
#include "queues/moodycamel_queues.h"
#include "queues/mutex_queue.h"

namespace serverkit {

template <typename L>
constexpr bool SupportsRotation() {
  if constexpr (requires { L::kRotates; }) {
    return L::kRotates;
  } else {
    return true;
  }
}

using AsyncQueueLoggerQueues = TypeList<  //
    QueueTemplate<BoundedMpmcQueue>,      //
    QueueTemplate<MoodycamelQueue>,       //
    QueueTemplate<MutexQueue>>;

namespace logger_internal {
template <typename L>
struct AsyncQueueLoggersOf;
template <typename... Fs>
struct AsyncQueueLoggersOf<TypeList<Fs...>> {
  using type = TypeList<AsyncQueueLogger<Fs::template Of>...>;
};

template <typename... Ls>
constexpr bool AllAreLoggers(TypeList<Ls...>) {
  return (Logger<Ls> && ...);
}
}  // namespace logger_internal

using AllLoggers = Concat<                                               //
    TypeList<SyncLogger,                                                 //
             AsyncDoubleBufferLogger>,                                   //
    logger_internal::AsyncQueueLoggersOf<AsyncQueueLoggerQueues>::type,  //
    TypeList<SpdlogSyncLogger,                                           //
             SpdlogAsyncLogger,                                          //
             BoostLogLogger>>;

static_assert(logger_internal::AllAreLoggers(AllLoggers{}));

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_ALL_LOGGERS_H_
