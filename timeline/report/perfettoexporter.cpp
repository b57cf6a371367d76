#include "timeline/report/perfettoexporter.h"

#include "timeline/report/protowriter.h"
#include "timeline/report/textwriter.h"

#include "recorder/utf8.h"

#include <algorithm>
#include <map>
#include <vector>

namespace syncline {

namespace {

// Field numbers of perfetto_trace.proto (tests/data/perfetto/perfetto_trace.proto).
namespace trace {
constexpr uint32_t kPacket = 1;
}
namespace packet {
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12,
                   kSequenceFlags = 13, kSystemInfo = 45, kTrackDescriptor = 60,
                   kFirstPacketOnSequence = 87, kMachineId = 98;
constexpr uint64_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
} // namespace packet
namespace event {
constexpr uint32_t kDebugAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                   kDoubleCounterValue = 44, kFlowIds = 47, kTerminatingFlowIds = 48;
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4;
} // namespace event
namespace annotation {
constexpr uint32_t kNameIid = 1, kIntValue = 4, kStringValue = 6;
// The debug annotation names, interned once per sequence in its first packet.
constexpr uint64_t kClockBound = 1, kStatus = 2, kArgs = 3;
} // namespace annotation
namespace interned {
constexpr uint32_t kEventNames = 2, kDebugAnnotationNames = 3, kIid = 1, kName = 2;
}
namespace track {
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5,
                   kCounter = 8;
constexpr uint32_t kPid = 1, kProcessName = 6, kProcessLabels = 8; // ProcessDescriptor
constexpr uint32_t kTid = 2, kThreadName = 5;                      // ThreadDescriptor
} // namespace track
constexpr uint32_t kMachineName = 17; // SystemInfo

// Track uuids: the worker in the high bits; 0 is no track.
uint64_t processUuid(size_t w) { return (uint64_t(w) + 1) << 32; }
uint64_t threadUuid(size_t w, size_t t) { return processUuid(w) | (uint64_t(t) + 1); }
uint64_t counterUuid(size_t w, size_t c) { return processUuid(w) | 0x80000000u | (uint64_t(c) + 1); }

struct Sequence
{
    uint32_t id = 0;      // trusted_packet_sequence_id
    uint32_t machine = 0; // 0: the first host (no machine_id)
    std::vector<uint64_t> iid; // per name id (+ the link names after them); 0 = not interned yet
    uint64_t next = 1;
};

class Packets
{
public:
    Packets(std::ostream &out, PerfettoExporter::Counts &n) : m_out(out), m_n(n) {}
    ~Packets() { flush(); }

    ProtoWriter &p() { return m_p; }
    // Starts a packet of `s`: timestamp (< 0: none), sequence, machine, flags.
    void start(const Sequence &s, int64_t ts, uint64_t flags)
    {
        m_p.clear();
        if (ts >= 0)
            m_p.varint(packet::kTimestamp, uint64_t(ts));
        m_p.varint(packet::kSequenceId, s.id);
        if (s.machine)
            m_p.varint(packet::kMachineId, s.machine);
        if (flags)
            m_p.varint(packet::kSequenceFlags, flags);
    }
    void finish()
    {
        ProtoWriter head;
        head.tag(trace::kPacket, ProtoWriter::Len);
        head.rawVarint(m_p.bytes().size());
        m_buf += head.bytes();
        m_buf += m_p.bytes();
        ++m_n.packets;
        if (m_buf.size() >= (1u << 20))
            flush();
    }
    void flush()
    {
        m_out.write(m_buf.data(), std::streamsize(m_buf.size()));
        m_n.bytes += int64_t(m_buf.size());
        m_buf.clear();
    }

private:
    std::ostream &m_out;
    PerfettoExporter::Counts &m_n;
    ProtoWriter m_p;
    std::string m_buf;
};

class Writer
{
public:
    Writer(const Timeline &tl, ClockMode mode, std::ostream &out, PerfettoExporter::Counts &n)
        : m_tl(tl), m_mode(mode), m_n(n), m_packets(out, n)
    {
    }

    void run()
    {
        hosts();
        for (size_t w = 0; w < m_tl.workers.size(); ++w)
            worker(w);
        links();
    }

private:
    static constexpr size_t kLinkNames = 3; // "send", "recv", "flow" after the string table
    static constexpr const char *kLinkName[kLinkNames] = {"send", "recv", "flow"};

    void hosts()
    {
        std::map<std::string, size_t> index;
        for (const Worker &wk : m_tl.workers) {
            const auto [it, added] = index.try_emplace(wk.info.host, m_sequences.size());
            if (added) {
                Sequence s;
                s.id = uint32_t(m_sequences.size() + 1);
                s.machine = uint32_t(m_sequences.size());
                s.iid.assign(m_tl.names.size() + kLinkNames, 0);
                m_sequences.push_back(std::move(s));
                // The sequence's first packet: the machine's name, the annotation names.
                const Sequence &seq = m_sequences.back();
                m_packets.start(seq, -1, packet::kIncrementalStateCleared);
                ProtoWriter &p = m_packets.p();
                p.varint(packet::kFirstPacketOnSequence, 1);
                const size_t info = p.begin(packet::kSystemInfo);
                p.string(kMachineName, wk.info.host.empty() ? std::string("?")
                                                            : utf8::replaceInvalid(wk.info.host));
                p.end(info);
                const size_t data = p.begin(packet::kInternedData);
                const char *names[] = {"clock_bound_ns", "status", "args"};
                for (uint64_t k = 0; k < 3; ++k) {
                    const size_t n = p.begin(interned::kDebugAnnotationNames);
                    p.varint(interned::kIid, k + 1);
                    p.string(interned::kName, names[k]);
                    p.end(n);
                }
                p.end(data);
                m_packets.finish();
            }
            m_sequenceOf.push_back(it->second);
        }
    }

    // A track event packet of worker w's sequence; the name (an index into Sequence::iid) is
    // interned in this packet when it is new. Returns the writer positioned inside the
    // TrackEvent (close it with done()).
    size_t startEvent(size_t w, int64_t ts, uint64_t type, uint64_t trackUuid, int64_t nameIndex)
    {
        Sequence &s = m_sequences[m_sequenceOf[w]];
        m_packets.start(s, std::max<int64_t>(ts, 0), packet::kNeedsIncrementalState);
        ProtoWriter &p = m_packets.p();
        uint64_t iid = 0;
        if (nameIndex >= 0) {
            iid = s.iid[size_t(nameIndex)];
            if (!iid) {
                iid = s.iid[size_t(nameIndex)] = s.next++;
                const size_t data = p.begin(packet::kInternedData);
                const size_t n = p.begin(interned::kEventNames);
                p.varint(interned::kIid, iid);
                p.string(interned::kName,
                         size_t(nameIndex) < m_tl.names.size()
                             ? utf8::replaceInvalid(m_tl.names.name(uint32_t(nameIndex)))
                             : std::string(kLinkName[size_t(nameIndex) - m_tl.names.size()]));
                p.end(n);
                p.end(data);
            }
        }
        const size_t mark = p.begin(packet::kTrackEvent);
        p.varint(event::kType, type);
        p.varint(event::kTrackUuid, trackUuid);
        if (iid)
            p.varint(event::kNameIid, iid);
        return mark;
    }
    void done(size_t mark)
    {
        m_packets.p().end(mark);
        m_packets.finish();
    }
    void annotation(uint64_t nameIid, const std::string *text, int64_t value)
    {
        ProtoWriter &p = m_packets.p();
        const size_t a = p.begin(event::kDebugAnnotations);
        p.varint(annotation::kNameIid, nameIid);
        if (text)
            p.string(annotation::kStringValue, *text);
        else
            p.sint(annotation::kIntValue, value);
        p.end(a);
    }

    void descriptor(size_t w, uint64_t uuid, uint64_t parent)
    {
        m_packets.start(m_sequences[m_sequenceOf[w]], -1, 0);
        ProtoWriter &p = m_packets.p();
        m_descriptor = p.begin(packet::kTrackDescriptor);
        p.varint(track::kUuid, uuid);
        if (parent)
            p.varint(track::kParentUuid, parent);
    }
    void descriptorDone()
    {
        m_packets.p().end(m_descriptor);
        m_packets.finish();
    }

    void worker(size_t w)
    {
        const Worker &wk = m_tl.workers[w];
        const int64_t pid = int64_t(w) + 1;
        ProtoWriter &p = m_packets.p();
        std::string label = "rank " + std::to_string(wk.info.rank);
        if (!wk.info.host.empty())
            label += " (" + wk.info.host + ")";
        if (wk.info.restart > 0)
            label += ", restart " + std::to_string(wk.info.restart);
        const bool corrected = m_mode == ClockMode::Corrected;
        descriptor(w, processUuid(w), 0);
        {
            const size_t proc = p.begin(track::kProcess);
            p.sint(track::kPid, pid);
            p.string(track::kProcessName, utf8::replaceInvalid(label));
            p.string(track::kProcessLabels,
                     corrected ? "clock: " + std::string(sync::methodName(wk.clock.method)) +
                                     ", bound ±" + std::to_string(wk.clock.boundNs) + " ns"
                               : std::string("clock: raw (uncorrected)"));
            p.end(proc);
        }
        descriptorDone();
        const sync::ClockMap &map = wk.map(m_mode);
        for (size_t ti = 0; ti < wk.tracks.size(); ++ti) {
            const EventTrack &t = wk.tracks[ti];
            descriptor(w, threadUuid(w, ti), processUuid(w));
            if (t.async) {
                p.string(track::kName, utf8::replaceInvalid(t.category.empty() ? t.threadName
                                                                                : t.category));
            } else {
                const size_t th = p.begin(track::kThread);
                p.sint(track::kPid, pid);
                p.sint(track::kTid, int64_t(ti) + 1);
                p.string(track::kThreadName,
                         utf8::replaceInvalid(t.threadName.empty() ? "tid " + std::to_string(t.tid)
                                                                   : t.threadName));
                p.end(th);
            }
            descriptorDone();
            events(w, ti, map, corrected ? wk.clock.boundNs : -1);
        }
        for (size_t c = 0; c < wk.counters.size(); ++c) {
            const CounterTrack &ct = wk.counters[c];
            descriptor(w, counterUuid(w, c), processUuid(w));
            p.string(track::kName, utf8::replaceInvalid(
                                       ct.series.empty() ? ct.name : ct.name + " " + ct.series));
            p.end(p.begin(track::kCounter));
            descriptorDone();
            for (size_t i = 0; i < ct.count(); ++i) {
                const size_t e = startEvent(w, map.toGlobal(ct.localTs[i]), event::kCounter,
                                            counterUuid(w, c), -1);
                p.dbl(event::kDoubleCounterValue, ct.value[i]);
                done(e);
                ++m_n.counterSamples;
            }
        }
    }

    // One track's events in time order: a begin at each start, the ends of the events that
    // enclose no later event popped (by depth) before the next begins.
    void events(size_t w, size_t ti, const sync::ClockMap &map, int64_t bound)
    {
        const EventTrack &t = m_tl.workers[w].tracks[ti];
        const uint64_t uuid = threadUuid(w, ti);
        std::vector<uint32_t> stack;
        auto endTop = [&] {
            const uint32_t j = stack.back();
            stack.pop_back();
            done(startEvent(w, map.toGlobal(t.localEnd[j]), event::kSliceEnd, uuid, -1));
        };
        std::string text;
        for (size_t i = 0; i < t.count(); ++i) {
            while (!stack.empty() && t.depth[stack.back()] >= t.depth[i])
                endTop();
            const uint16_t f = t.flags[i];
            const bool instant = f & EventInstant;
            const size_t e = startEvent(w, map.toGlobal(t.localStart[i]),
                                        instant ? event::kInstant : event::kSliceBegin, uuid,
                                        int64_t(t.nameId[i]));
            if (bound >= 0 && t.depth[i] == 0 && !instant)
                annotation(annotation::kClockBound, nullptr, bound);
            if (f & (EventOpen | EventOverdue)) {
                text = (f & EventOpen) ? "open" : "overdue";
                annotation(annotation::kStatus, &text, 0);
            }
            const int64_t args = (f & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
            if (args >= 0) {
                text = utf8::replaceInvalid(m_tl.args[size_t(args)]);
                annotation(annotation::kArgs, &text, 0);
            }
            done(e);
            if (instant) {
                ++m_n.instants;
            } else {
                ++m_n.slices;
                stack.push_back(uint32_t(i));
            }
        }
        while (!stack.empty())
            endTop();
    }

    void links()
    {
        const int64_t base = int64_t(m_tl.names.size());
        for (const LinkTable::Group &g : m_tl.links.groups()) {
            const bool flow = g.kind == MessageLink::Flow;
            const sync::ClockMap &from = m_tl.workers[g.fromWorker].map(m_mode);
            const sync::ClockMap &to = m_tl.workers[g.toWorker].map(m_mode);
            for (size_t i = g.begin; i < g.end; ++i) {
                const LinkTable::Ends &e = m_tl.links.ends(i);
                size_t ev = startEvent(g.fromWorker, from.toGlobal(e.fromLocal), event::kInstant,
                                       threadUuid(g.fromWorker, g.fromTrack), base + (flow ? 2 : 0));
                m_packets.p().fixed64(event::kFlowIds, uint64_t(i) + 1);
                done(ev);
                ev = startEvent(g.toWorker, to.toGlobal(e.toLocal), event::kInstant,
                                threadUuid(g.toWorker, g.toTrack), base + (flow ? 2 : 1));
                m_packets.p().fixed64(event::kTerminatingFlowIds, uint64_t(i) + 1);
                done(ev);
                ++m_n.flows;
            }
        }
    }

    const Timeline &m_tl;
    ClockMode m_mode;
    PerfettoExporter::Counts &m_n;
    Packets m_packets;
    std::vector<Sequence> m_sequences;
    std::vector<size_t> m_sequenceOf; // per worker
    size_t m_descriptor = 0;
};

} // namespace

PerfettoExporter::Counts PerfettoExporter::write(const Timeline &tl, ClockMode mode,
                                                 std::ostream &out)
{
    Counts n;
    {
        Writer w(tl, mode, out, n);
        w.run();
    } // the packets' last buffer flushed
    return n;
}

bool PerfettoExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                                 std::string *error, Counts *counts)
{
    Counts n;
    const bool ok = TextWriter::toFile(path, error, [&](std::ostream &out) { n = write(tl, mode, out); });
    if (counts)
        *counts = n;
    return ok;
}

} // namespace syncline
