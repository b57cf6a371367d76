// MessagePairing — the one pairing rule of `msg` records (docs/sync.md §6), for the clock
// correction (the engine's message pairs) and for the viewer's arrows (Timeline::links):
// per id, the last send and the last receive (in worker, then file order) make a pair; Chrome
// flows add their steps (s → t → … → f) as arrows and their s → f ends as pairs.
//
// Memory is the point (the pairing was the peak of a whole load). Every record
// becomes one 32-byte key, written in worker order while each worker's records are freed (the
// keys replace the records instead of adding to them); the keys are bucketed in place by a
// hash of the id, each bucket paired on its own (an open-addressing table per thread), its
// arrows written over its own front; the arrows are then packed at the front of the same
// buffer, which is shrunk to them, bucketed in place by sending worker and sorted per worker,
// and turned into the 16-byte LinkTable before the 32-byte form is freed; the engine's pairs are
// read off the table last. At no point do two full-size copies coexist.
// Invariants of the output: pairs sorted by (send worker, send time, receive worker, receive
// time); links in MessageLink::lessByPair order (a total order: the result never depends on the
// hashing or the threads).
// Threading: runs on the loader thread, using every core for the per-bucket and per-worker work.
#pragma once

#include "timeline/load/parse/messagelog.h"
#include "timeline/model/linktable.h"
#include "timeline/model/timeline.h"

#include "sync/syncengine.h"

#include <vector>

namespace syncline::load {

class MessagePairing
{
public:
    // `messages` per worker of `timeline`. `consumable`, when given, is `messages` itself,
    // handed over: its records are freed as the pairing goes. Either output may be null.
    static void run(const Timeline &timeline, const std::vector<MessageLog> &messages,
                    std::vector<MessageLog> *consumable, std::vector<sync::MessagePair> *pairs,
                    LinkTable *links);
};

} // namespace syncline::load
