// MessageLog — the `msg` records of one log (docs/log-format.md), kept only in the form the
// clock correction needs: 16 bytes a record (local ns, the id's place in one arena, direction)
// plus the id's bytes, with no heap object per record. 100 M-event jobs carry
// ~20 M of these; as one std::string per record they took ~56 bytes each before the engine even
// started matching them.
//
// Invariants: records in file order; id(i) is the record's id exactly as logged (ids longer
// than 8 MiB − 1 bytes are cut there — far beyond any line the recorder writes).
// Threading: one per parser, used by one thread; read-only once the file is parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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
    void add(int64_t localNs, bool send, int64_t /*peer*/, std::string_view id)
    {
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
    void shrink()
    {
        m_records.shrink_to_fit();
        m_ids.shrink_to_fit();
    }
    size_t bytes() const { return m_records.capacity() * sizeof(Record) + m_ids.capacity(); }

private:
    std::vector<Record> m_records;
    std::string m_ids;
};

} // namespace syncline::load
