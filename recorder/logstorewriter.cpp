#include "recorder/logstorewriter.h"

#include <atomic>

namespace syncline::rec {

namespace {
std::atomic<LogStoreWriter> g_writer{nullptr};
}

void setLogStoreWriter(LogStoreWriter writer)
{
    g_writer.store(writer);
}

LogStoreWriter logStoreWriter()
{
    return g_writer.load();
}

} // namespace syncline::rec
