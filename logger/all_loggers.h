// -----------------------------------------------------------------------------
// logger/all_loggers.h
// -----------------------------------------------------------------------------
//
// The type list of every logger. The typed tests and the sweep iterate it:
// adding a logger is one header and one line below. The reference (SyncLogger)
// comes first, so tests report it first.
//
// `AsyncQueueLogger<Q>` is listed over three multi-producer queues of the
// queue sweep: the bounded Vyukov ring, moodycamel's unbounded queue and the
// mutex queue (the reference). The sweep's full profile runs it over every
// multi-producer queue in `AllQueues`.
//
// Optional traits, detected rather than required:
//   - `static constexpr bool kRotates = false`: the logger cannot rotate files
//     (`SupportsRotation<L>()`).

#ifndef SERVERKIT_LOGGER_ALL_LOGGERS_H_
#define SERVERKIT_LOGGER_ALL_LOGGERS_H_

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

using AllLoggers = TypeList<             //
    SyncLogger,                          //
    AsyncDoubleBufferLogger,             //
    AsyncQueueLogger<BoundedMpmcQueue>,  //
    AsyncQueueLogger<MoodycamelQueue>,   //
    AsyncQueueLogger<MutexQueue>,        //
    SpdlogSyncLogger,                    //
    SpdlogAsyncLogger,                   //
    BoostLogLogger>;

static_assert(Logger<AsyncQueueLogger<BoundedMpmcQueue>>);
static_assert(Logger<AsyncQueueLogger<MoodycamelQueue>>);
static_assert(Logger<AsyncQueueLogger<MutexQueue>>);

}  // namespace serverkit

#endif  // SERVERKIT_LOGGER_ALL_LOGGERS_H_
