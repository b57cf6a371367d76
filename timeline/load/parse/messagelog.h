// MessageLog — the `msg` records of one log (docs/log-format.md), kept only in the form the
// clock correction needs: 16 bytes a record (local ns, the id's place in one arena, direction)
// plus the id's bytes, with no heap object per record. 100 M-event jobs carry
// ~20 M of these; as one std::string per record they took ~56 bytes each before the engine even
// started matching them.
//
// Invariants: records in file order; id(i) is the record's id exactly as logged (ids longer
// than 8 MiB − 1 bytes are cut there — far beyond any line the recorder writes). track(i) is the
// index of the record's thread (tid) in the worker's tracks, kept as runs (a new entry only when
// the thread changes from one record to the next: 8 bytes a run, so the records stay 16 bytes);
// the builder remaps it when it sorts the tracks (remapTracks), the viewer draws links on it.
// Threading: one per parser, used by one thread; read-only once the file is parsed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline::load {

class MessageLog
{
public:
    struct Record
    {
        int64_t localNs = 0;
        uint64_t idOffset : 40;
        uint64_t idLength : 23;
        uint64_t send : 1;
    };
    static_assert(sizeof(Record) == 16);

    // `peer` (the other rank) is not kept: pairs are found by id, and nothing reads it.
    void add(int64_t localNs, bool send, int64_t /*peer*/, std::string_view id, uint32_t track = 0)
    {
        if (m_trackRuns.empty() || m_trackRuns.back().second != track)
            m_trackRuns.emplace_back(uint32_t(m_records.size()), track);
        constexpr size_t kMaxId = (size_t(1) << 23) - 1;
        id = id.substr(0, kMaxId);
        Record r;
        r.localNs = localNs;
        r.idOffset = m_ids.size();
        r.idLength = id.size();
        r.send = send ? 1 : 0;
        m_records.push_back(r);
        m_ids.append(id);
    }
    size_t size() const { return m_records.size(); }
    bool empty() const { return m_records.empty(); }
    const Record &operator[](size_t i) const { return m_records[i]; }
    bool send(size_t i) const { return m_records[i].send != 0; }
    std::string_view id(size_t i) const
    {
        const Record &r = m_records[i];
        return std::string_view(m_ids).substr(size_t(r.idOffset), size_t(r.idLength));
    }
    // All ids' bytes, one after the other (id(i) is a piece of it).
    std::string_view idBytes() const { return m_ids; }
    // The track of record i: O(log runs).
    uint32_t track(size_t i) const
    {
        auto it = std::upper_bound(m_trackRuns.begin(), m_trackRuns.end(), uint32_t(i),
                                   [](uint32_t v, const auto &run) { return v < run.first; });
        return it == m_trackRuns.begin() ? 0 : std::prev(it)->second;
    }
    // The tracks were reordered: track t is now where[t].
    void remapTracks(const std::vector<uint32_t> &where)
    {
        for (auto &run : m_trackRuns)
            if (run.second < where.size())
                run.second = where[run.second];
    }
    // Frees the records and the ids; track(i) still answers (the message pairing keeps what
    // else it needs in its own keys). The log is empty afterwards.
    void releaseRecords()
    {
        std::vector<Record>().swap(m_records);
        std::string().swap(m_ids);
    }
    void shrink()
    {
        m_trackRuns.shrink_to_fit();
        m_records.shrink_to_fit();
        m_ids.shrink_to_fit();
    }
    size_t bytes() const
    {
        return m_records.capacity() * sizeof(Record) + m_ids.capacity() +
               m_trackRuns.capacity() * sizeof(m_trackRuns[0]);
    }

private:
    std::vector<Record> m_records;
    std::string m_ids;
    std::vector<std::pair<uint32_t, uint32_t>> m_trackRuns; // (first record, track), ascending
};

} // namespace syncline::load
