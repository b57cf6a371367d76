#include "timeline/load/store/storedlog.h"

#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/store/windowreader.h"

#include <algorithm>

namespace syncline::load {

ParsedFile StoredLog::read(const std::atomic<bool> *cancel, size_t interval)
{
    const std::string &path = m_path;
    interval = std::max<size_t>(interval, 1);
    const bool needIndex = !LogIndex::load(path);
    bool needStore = !EventStore::open(path);
    if (!needIndex && !needStore) {
        // Unchanged since a parse wrote its index and store: its store is decoded instead
        // (LogExtension with nothing new). A store that does not decode (a damaged chunk) is
        // written again from the JSON parse below; a log whose parse cannot be taken up at its
        // end (problems, a record without its '\n') is parsed.
        std::optional<LogExtension> e = LogExtension::prepare(path, nullptr, true);
        if (!e)
            return LogParser::parseFile(path, cancel);
        if (std::optional<ParsedFile> f = e->parse(cancel, interval)) {
            m_fromStore = true;
            return std::move(*f);
        }
        needStore = true;
    }
    if (needIndex && needStore)
        if (std::optional<LogExtension> e = LogExtension::prepare(path))
            if (std::optional<ParsedFile> f = e->parse(cancel, interval)) {
                m_extension = std::move(e);
                return std::move(*f);
            }
    const std::optional<LogFileStamp> before = LogFileStamp::of(path);
    LogIndex::Builder builder;
    ParsedFile f = needIndex ? LogParser::parseFile(
                                   path, cancel, [&](const LogParser &p) { builder.checkpoint(p); },
                                   interval)
                             : LogParser::parseFile(path, cancel);
    if (needIndex && before && f.usable) {
        LogIndex x = builder.finish(f, *before, LogIndex::headerLengthOf(path));
        x.resume = LogExtension::continuation(path, f, x);
        if (LogFileStamp::of(path) == before && !(cancel && cancel->load()))
            x.store(path);
    }
    const std::optional<LogFileStamp> after = LogFileStamp::of(path);
    if (needStore && before && after && *before == *after && f.usable &&
        !(cancel && cancel->load()))
        m_storeStamp = *before;
    return f;
}

void StoredLog::finish(const ParsedFile &prepared)
{
    if (m_extension)
        m_extension->finish(prepared); // the store and the index extended
    else if (m_storeStamp)
        EventStore::write(m_path, prepared, *m_storeStamp);
}

StoredLog::Window StoredLog::readWindow(const sync::ClockMap &map, int64_t begin, int64_t end,
                                        int64_t aLocal, int64_t bLocal, EventKindLookup &kinds,
                                        bool withMessages, bool writeStore,
                                        const std::atomic<bool> *cancel,
                                        const EventStore::ArgSink &sink, ParsedFile &out,
                                        int64_t *bytesRead)
{
    const std::string &path = m_path;
    // This log's index and store, opened here and freed once read.
    const std::optional<LogIndex> index = LogIndex::load(path);
    if (!index)
        return Window::NoIndex;
    const std::optional<EventStore> store = EventStore::open(path);
    int64_t n = 0;
    if (store) {
        out = WindowReader::header(path, *index);
        // The args texts go straight into the window's one store.
        if (store->read(map, begin, end, aLocal, bLocal, kinds, out, &n, nullptr, withMessages,
                        sink)) {
            if (!withMessages)
                out.messages = MessageLog();
            *bytesRead = n;
            return Window::Decoded;
        }
        n = 0; // not trusted: parsed again below, which writes a new one
    }
    if (!writeStore) {
        // No store, and none to be written: only the index's blocks for the window are parsed.
        out = WindowReader::read(path, *index, aLocal, bLocal, &n);
        TimelineBuilder::prepareFile(out, kinds);
    } else {
        const std::optional<LogFileStamp> before = LogFileStamp::of(path);
        out = LogParser::parseFile(path, cancel);
        n = out.bytes;
        TimelineBuilder::prepareFile(out, kinds);
        const std::optional<LogFileStamp> after = LogFileStamp::of(path);
        if (before && after && *before == *after && out.usable && !(cancel && cancel->load()))
            EventStore::write(path, out, *before);
    }
    // Cut now (the same rule as the final cut): the file's events outside the window are freed
    // before the next file is read.
    for (EventTrack &t : out.worker.tracks)
        WindowReader::cutTrack(t, map, begin, end);
    // The window's message records are only needed for its arrows (paired after the merge, then
    // freed): those inside the window are kept (a store's read keeps only those already).
    out.messages = withMessages ? WindowReader::messagesIn(out.messages, map, begin, end)
                                : MessageLog();
    *bytesRead = n;
    return Window::Parsed;
}

} // namespace syncline::load
