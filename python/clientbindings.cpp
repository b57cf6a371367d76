// ClientBindings — see clientbindings.h.
#include "clientbindings.h"

#include "eventscope.h"
#include "pyclient.h"
#include "pyerrors.h"
#include "pyeventargs.h"
#include "pyinstance.h"
#include "pytimeline.h"
#include "timeline/model/timeline.h"

#include <pybind11/stl.h>
#include "timedfunction.h"

#include <string_view>

namespace syncline::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace {

// The event name argument: a str, viewed as UTF-8 without copying (CPython caches the UTF-8
// form in the str object, so the view is valid while the str lives).
bool nameArg(const char *method, PyObject *const *args, Py_ssize_t nargs, std::string_view *out)
{
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s(name, **args) takes exactly one positional argument (%zd given)", method,
                     nargs);
        return false;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): name must be str, not %.200s", method,
                     Py_TYPE(args[0])->tp_name);
        return false;
    }
    Py_ssize_t n = 0;
    const char *p = PyUnicode_AsUTF8AndSize(args[0], &n);
    if (!p)
        return false;
    *out = std::string_view(p, size_t(n));
    return true;
}

template <bool Start>
PyObject *startOrEnd(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    const char *method = Start ? "start_event" : "end_event";
    PyClient *client = PyClient::fromSelf(self);
    std::string_view name;
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (!client || !nameArg(method, args, nargs, &name))
        return nullptr;
    bool ok;
    if (!kwnames) {
        ok = Start ? client->start(name, nullptr) : client->end(name, nullptr);
    } else {
        rec::EventArgs eventArgs;
        if (!PyEventArgs::fromKwnames(args + nargs, kwnames, &eventArgs))
            return nullptr;
        ok = Start ? client->start(name, &eventArgs) : client->end(name, &eventArgs);
    }
    if (!ok)
        return nullptr;
    Py_RETURN_NONE;
}

PyObject *startEventFast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return startOrEnd<true>(self, args, size_t(nargs), kw);
}

PyObject *endEventFast(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return startOrEnd<false>(self, args, size_t(nargs), kw);
}

// client.event(name, **args) -> EventScope, without pybind11's kwargs dispatch.
PyObject *eventFast(PyObject *self, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames)
{
    PyClient *client = PyClient::fromSelf(self);
    std::string_view name;
    const Py_ssize_t nargs = PyVectorcall_NARGS(size_t(nargsf));
    if (!client || !nameArg("event", args, nargs, &name))
        return nullptr;
    rec::EventArgs eventArgs;
    if (!PyEventArgs::fromKwnames(args + nargs, kwnames, &eventArgs))
        return nullptr;
    try {
        return pyb::cast(EventScope(pyb::reinterpret_borrow<pyb::object>(self), client,
                                    std::string(name), std::move(eventArgs)))
            .release()
            .ptr();
    } catch (...) {
        PyErrors::setCurrent();
        return nullptr;
    }
}

PyMethodDef g_fastMethods[] = {
    {"start_event", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(startEventFast)),
     METH_FASTCALL | METH_KEYWORDS,
     "start_event(name, **args)\n--\n\nStarts event `name` on the calling thread; keyword "
     "arguments (str, int, float, bool) are stored with it. Calls on_event_start(name) first."},
    {"end_event", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(endEventFast)),
     METH_FASTCALL | METH_KEYWORDS,
     "end_event(name, **args)\n--\n\nEnds `name`, which must be the innermost open event of the "
     "calling thread (else TimerError, nothing written). Calls on_event_end(name) after."},
    {"event", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(eventFast)),
     METH_FASTCALL | METH_KEYWORDS,
     "event(name, **args)\n--\n\nwith client.event(name, **args): ... records the block as one "
     "event (ended also when the block raises)."},
    {nullptr, nullptr, 0, nullptr}};

rec::EventArgs argsOf(const pyb::kwargs &kwargs)
{
    rec::EventArgs out;
    if (!PyEventArgs::fromDict(kwargs.ptr(), &out))
        throw pyb::error_already_set();
    return out;
}

PyClient &self(pyb::object &o)
{
    if (!pyb::isinstance<PyClient>(o))
        throw pyb::type_error("expected a syncline.FileTimerClient, got " +
                              std::string(Py_TYPE(o.ptr())->tp_name));
    PyClient *c = PyClient::fromSelf(o.ptr());
    if (!c)
        throw pyb::error_already_set();
    return *c;
}

pyb::dict statsDict(const rec::RecorderStats &s)
{
    return pyb::dict("events"_a = s.events, "written"_a = s.written, "dropped"_a = s.dropped,
                     "buffer_full"_a = s.bufferFull, "bytes"_a = s.bytes, "io_error"_a = s.ioError);
}

} // namespace

void ClientBindings::bind(pyb::module_ &m)
{
    EventScope::bind(m);
    TimedFunction::bind(m);
    pyb::class_<PyClient> cls(m, "FileTimerClient", R"doc(
Records nested events of this worker process into a JSON Lines log (one per worker).

FileTimerClient(config_path="timer_config.json", log_path="timer_events.log",
                on_event_start=None, on_event_end=None)

config_path: timer_config.json (a missing file means defaults). log_path: the log file, a
template with {rank}, {pid}, ... (docs/config.md); with WORLD_SIZE > 1 and no {rank} the rank is
inserted before the extension. Callbacks get the event name. Raises ConfigError on a bad config.
)doc");
    cls.def(pyb::init<const std::string &, const std::string &, pyb::object, pyb::object>(),
            "config_path"_a = "timer_config.json", "log_path"_a = "timer_events.log",
            "on_event_start"_a = pyb::none(), "on_event_end"_a = pyb::none());
    addFastMethods(cls, g_fastMethods);
    cls.def("timed", &TimedFunction::decorate, "name"_a = pyb::none(),
            "Decorator: @client.timed(\"name\") (or bare @client.timed, named after the "
            "function) records every call as one event.")
        .def(
            "instant",
            [](pyb::object o, std::string_view name, pyb::kwargs kw) {
                if (!self(o).instant(name, argsOf(kw)))
                    throw pyb::error_already_set();
            },
            "name"_a, "Records a point in time (an `I` record) with optional args.")
        .def(
            "record_interval",
            [](pyb::object o, std::string_view name, int64_t startNs, int64_t endNs,
               pyb::kwargs kw) {
                if (!self(o).interval(name, startNs, endNs, argsOf(kw)))
                    throw pyb::error_already_set();
            },
            "name"_a, "start_ns"_a, "end_ns"_a,
            "Records an interval measured elsewhere, in this client's clock (now_ns()).")
        .def(
            "record_interval_on",
            [](pyb::object o, std::string_view track, std::string_view name, int64_t startNs,
               int64_t endNs, pyb::kwargs kw) {
                rec::EventArgs args = argsOf(kw);
                self(o).recorder().recordIntervalOnTrack(track, name, startNs, endNs, args);
            },
            "track"_a, "name"_a, "start_ns"_a, "end_ns"_a,
            "record_interval on a named track of its own (not the calling thread's): for "
            "intervals that overlap this thread's events without nesting in them (GPU work, "
            "asynchronous communication). Callable from any thread.")
        .def(
            "message",
            [](pyb::object o, std::string_view dir, int64_t peer, std::string_view id) {
                if (dir != "send" && dir != "recv")
                    throw pyb::value_error("message(): dir must be \"send\" or \"recv\", not \"" +
                                           std::string(dir) + "\"");
                self(o).recorder().message(dir == "send", peer, id);
            },
            "dir"_a, "peer"_a, "id"_a,
            "Records one side of a message between ranks (a `msg` record, stamped now): dir "
            "\"send\" or \"recv\", peer the other rank, id matching the send to its receive. "
            "The clock correction uses send/recv pairs as causality constraints.")
        .def(
            "counter",
            [](pyb::object o, std::string_view name, double value) {
                self(o).recorder().counter(name, value);
            },
            "name"_a, "value"_a,
            "Records one sample of the counter `name` (a `C` record, stamped now): GPU memory, "
            "loss, queue depth, ... Any number (or object with __float__, e.g. a 0-d tensor); "
            "NaN/inf are written as null (no sample). The viewer draws each counter as a graph "
            "under the worker's tracks.")
        .def(
            "set_thread_name",
            [](pyb::object o, std::string_view name) { self(o).recorder().setThreadName(name); },
            "name"_a, "Names the calling thread's track in the log.")
        .def(
            "now_ns", [](pyb::object o) { return self(o).recorder().nowNs(); },
            "This client's local clock (the stamps in the log), ns.")
        .def(
            "global_time_ns",
            [](pyb::object o, bool withBound) -> pyb::object {
                int64_t bound = -1;
                const int64_t t = self(o).recorder().globalTimeNs(&bound);
                if (withBound)
                    return pyb::make_tuple(t, bound);
                return pyb::int_(t);
            },
            "with_bound"_a = false,
            "Reference (job-wide) time now, ns, from the live sync estimate; the local clock "
            "while no sync sample exists. with_bound=True returns (ns, bound_ns), bound -1 = "
            "unknown (no sync).")
        .def(
            "get_timeline",
            [](pyb::object o, std::string alignOn, pyb::object ranks,
               std::optional<std::string> clock) {
                const RankSet selected = PyTimeline::ranksArg(ranks);
                const std::optional<ClockChoice> choice =
                    clock ? clockChoiceFromName(*clock) : std::optional<ClockChoice>();
                if (clock && !choice)
                    throw pyb::value_error("get_timeline(): clock must be \"corrected\", "
                                           "\"wall\" or \"raw\", got \"" + *clock + "\"");
                auto tl = self(o).timeline(alignOn, selected, choice);
                const ClockMode mode = modeOf(tl->clockChoice);
                return PyTimeline(std::move(tl), mode);
            },
            "align_on"_a = "", "ranks"_a = pyb::none(), pyb::kw_only(), "clock"_a = pyb::none(),
            "Flushes this client, then returns the corrected global Timeline of every worker "
            "whose log is in this log's directory (ranks: only those, as load_timeline). clock: "
            "as load_timeline's ('corrected', 'wall', 'raw'; None: the config's view_clock).")
        .def(
            "flush", [](pyb::object o) { self(o).flush(); },
            "Blocks until everything recorded so far is written.")
        .def(
            "close", [](pyb::object o) { self(o).close(); },
            "Writes what is queued and the close record; later calls are ignored. Idempotent.")
        .def("__enter__", [](pyb::object o) { return o; })
        .def("__exit__",
             [](pyb::object o, pyb::object, pyb::object, pyb::object) {
                 self(o).close();
                 return false;
             })
        .def_property_readonly("rank", [](pyb::object o) { return self(o).recorder().rank(); })
        .def_property_readonly("log_path",
                               [](pyb::object o) { return self(o).recorder().logPath(); })
        .def_property_readonly("config_path",
                               [](pyb::object o) { return self(o).recorder().configPath(); })
        .def_property_readonly("closed",
                               [](pyb::object o) { return !self(o).recorder().enabled(); })
        .def_property_readonly("ok", [](pyb::object o) { return self(o).recorder().ok(); })
        .def_property_readonly("last_error",
                               [](pyb::object o) { return self(o).recorder().lastError(); })
        .def_property_readonly(
            "stats", [](pyb::object o) { return statsDict(self(o).recorder().stats()); },
            "Recorder counters: events, written, dropped, buffer_full, bytes, io_error.")
        .def("__repr__", [](pyb::object o) {
            rec::FileTimerClient &r = self(o).recorder();
            return "<syncline.FileTimerClient rank " + std::to_string(r.rank()) + " log " +
                   pyb::repr(pyb::str(r.logPath())).cast<std::string>() +
                   (r.enabled() ? "" : " closed") + ">";
        });
}

} // namespace syncline::py
