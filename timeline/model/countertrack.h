// CounterTrack — one series of sampled values of one worker: a syncline log's `C` records of one
// name, or one args key of a Chrome/Kineto trace's `C` events of one (pid, name[, id]).
//
// Invariants (after finish()): localTs sorted ascending (stable: samples of equal time keep
// their file order, the last one is the value from then on); value[i] is finite; localTs are
// the worker's LOCAL monotonic ns (global times come from the worker's ClockMap, exactly as for
// events, so raw/corrected is a map swap and counters are clock-corrected like events);
// minValue <= maxValue over all samples (both 0 when empty). A sample holds its value until
// the next one (step function, Chrome's counter semantics). 16 bytes per sample.
// Threading: no internal locking; the owner (Timeline) serialises writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

class CounterTrack
{
public:
    int64_t pid = 0;
    std::string name;     // counter name: "loss", "[memory]", "Memory"
    std::string series;   // args key of a Chrome `C` event ("Total Allocated"); "" for a log's
    std::string category; // Chrome `cat` ("" when none); kept for export
    std::vector<int64_t> localTs;
    std::vector<double> value;
    double minValue = 0;
    double maxValue = 0;

    size_t count() const { return localTs.size(); }
    // "loss", or "[memory] · Total Allocated" for a series of a multi-key counter (the name alone
    // when the series key is empty or the name itself).
    std::string label() const;
    void add(int64_t localNs, double v)
    {
        localTs.push_back(localNs);
        value.push_back(v);
    }
    // Sorts by time (stable) and computes min/max; call once after the samples are added.
    void finish();
    // The one order of a worker's counters: by (pid, name, series).
    static void sortByKey(std::vector<CounterTrack> &counters);
    // Last sample at or before localT (-1 when none): the value shown at localT.
    int sampleAt(int64_t localT) const;
};

} // namespace syncline
