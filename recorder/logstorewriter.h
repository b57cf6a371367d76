// LogStoreWriter — what writes a closed log's index and event store in the training process,
// when the config's `event_store` is on (docs/scale.md "What a worker writes itself"), so that
// the first open of the job decodes stores instead of parsing every log's JSON.
//
// The writing is the loader's own reading of the log (StoredLog: the same parse, index and
// event store a first load writes, trusted by the same checks), which lives above the recorder:
// a program that links the loader installs it (JobLoader::installLogStoreWriter; the Python
// module does so when it is imported). Without one, the log is left to be parsed when opened,
// as with event_store off, and the client says so once on stderr.
// Threading: set before clients close (at start-up); read by the thread that closes a client.
#pragma once

#include <string>

namespace syncline::rec {

class TimerConfig;

// Writes `log`'s index and event store as a load of it would; false and *error when it could
// not (nothing is then left half-written: the caches are written through a temporary file).
// Never throws.
using LogStoreWriter = bool (*)(const std::string &log, const TimerConfig &config,
                                std::string *error);

void setLogStoreWriter(LogStoreWriter writer);
LogStoreWriter logStoreWriter(); // nullptr when none is installed

} // namespace syncline::rec
