// -----------------------------------------------------------------------------
// buffer/all_buffers.h
// -----------------------------------------------------------------------------
//
// The type list of every buffer. The typed tests and the benchmark sweep
// iterate it: adding a buffer is a header, its target, a dep and a line
// below (the README's "Adding an implementation").

#ifndef SERVERKIT_BUFFER_ALL_BUFFERS_H_
#define SERVERKIT_BUFFER_ALL_BUFFERS_H_

#include "base/type_list.h"
#include "buffer/linear_buffer.h"
#include "buffer/mirrored_ring_buffer.h"
#include "buffer/ring_buffer.h"
#include "buffer/string_buffer.h"

namespace serverkit {
// The reference (std::string) comes first: tests report it first.
using AllBuffers = TypeList<  //
    StringBuffer,             //
    LinearBuffer,             //
    RingBuffer,               //
    MirroredRingBuffer>;

}  // namespace serverkit

#endif  // SERVERKIT_BUFFER_ALL_BUFFERS_H_
