// PyClient — the C++ object behind syncline.FileTimerClient: owns one rec::FileTimerClient and
// the Python callbacks, and turns C++ exceptions into Python errors. No recording logic of its
// own: every call goes straight to the recorder.
//
// Error convention: the bool-returning calls (the hot path, used by the vectorcall methods)
// return false with a Python error set (syncline.TimerError for misuse, or whatever a callback
// raised); they never throw.
// Callbacks: on_event_start(name) runs before the event is recorded — if it raises, the event is
// NOT started and the exception propagates; on_event_end(name) runs after the end is recorded —
// if it raises, the event HAS ended and the exception propagates. Either way the log stays valid
// (the recorder's contract, recorder/filetimerclient.h). They run on the calling thread with the
// GIL held.
// GIL: start/end/instant/interval keep the GIL (they are a few tens of ns and never block);
// close(), flush() and timeline() release it while they wait for the writer or load files.
// Threading: any Python thread; events nest per OS thread, as in the recorder.
#pragma once

#include "recorder/filetimerclient.h"
#include "timeline/model/clockmode.h"
#include "timeline/model/rankset.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace syncline {
class Timeline;
}

namespace syncline::py {

class PyClient
{
public:
    PyClient(const std::string &configPath, const std::string &logPath, pybind11::object onStart,
             pybind11::object onEnd);
    ~PyClient();
    PyClient(const PyClient &) = delete;
    PyClient &operator=(const PyClient &) = delete;

    // The initialised PyClient of a syncline.FileTimerClient instance, or null with a Python
    // error set (an instance whose __init__ did not run).
    static PyClient *fromSelf(PyObject *self);

    bool start(std::string_view name, const rec::EventArgs *args) noexcept;
    bool end(std::string_view name, const rec::EventArgs *args) noexcept;
    bool instant(std::string_view name, const rec::EventArgs &args) noexcept;
    bool interval(std::string_view name, int64_t startNs, int64_t endNs,
                  const rec::EventArgs &args) noexcept;

    void flush();
    void close();
    // Flushes this client, then loads every log in its log's directory (plus its config) into
    // a corrected Timeline (JobLoader). Throws LoadError when nothing can be loaded.
    // `ranks`: LoadOptions::ranks; `clock`: LoadOptions::clock (unset: the config's view_clock).
    std::shared_ptr<Timeline> timeline(const std::string &alignOn, const RankSet &ranks = {},
                                       std::optional<ClockChoice> clock = std::nullopt);

    rec::FileTimerClient &recorder() { return *m_client; }

private:
    // Declared before m_client: the recorder's callbacks borrow these objects.
    pybind11::object m_onStart;
    pybind11::object m_onEnd;
    std::unique_ptr<rec::FileTimerClient> m_client;
};

} // namespace syncline::py
