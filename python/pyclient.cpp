// PyClient — see pyclient.h.
#include "pyclient.h"

#include "pyerrors.h"
#include "pyinstance.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/openfilelimit.h"

#include <filesystem>

namespace syncline::py {

namespace pyb = pybind11;

namespace {

// A recorder callback that calls a Python callable with the event name. A Python exception
// becomes PythonErrorPending, which the recorder lets through (see pyclient.h for when).
std::function<void(std::string_view)> pythonCallback(PyObject *callable)
{
    if (!callable)
        return {};
    return [callable](std::string_view name) {
        PyObject *arg = PyUnicode_FromStringAndSize(name.data(), Py_ssize_t(name.size()));
        if (!arg)
            throw PythonErrorPending{};
        PyObject *r = PyObject_CallOneArg(callable, arg);
        Py_DECREF(arg);
        if (!r)
            throw PythonErrorPending{};
        Py_DECREF(r);
    };
}

PyObject *callableOrNull(const pyb::object &o, const char *what)
{
    if (o.is_none())
        return nullptr;
    if (!PyCallable_Check(o.ptr()))
        throw pyb::type_error(std::string(what) + " must be callable or None, got " +
                              Py_TYPE(o.ptr())->tp_name);
    return o.ptr();
}

} // namespace

PyClient::PyClient(const std::string &configPath, const std::string &logPath, pyb::object onStart,
                   pyb::object onEnd)
    : m_onStart(std::move(onStart)), m_onEnd(std::move(onEnd))
{
    rec::TimerCallbacks callbacks;
    callbacks.onStart = pythonCallback(callableOrNull(m_onStart, "on_event_start"));
    callbacks.onEnd = pythonCallback(callableOrNull(m_onEnd, "on_event_end"));
    pyb::gil_scoped_release release; // opening the log and starting threads may take a while
    m_client = std::make_unique<rec::FileTimerClient>(configPath, logPath, std::move(callbacks));
}

PyClient::~PyClient()
{
    // close() waits for the writer and the sync thread, which never need the GIL. During
    // interpreter shutdown the GIL is not given away.
    if (m_client && !_Py_IsFinalizing()) {
        pyb::gil_scoped_release release;
        m_client->close();
    }
    m_client.reset(); // with the GIL: its callbacks refer to Python objects
}

PyClient *PyClient::fromSelf(PyObject *self)
{
    return instanceValue<PyClient>(self, "FileTimerClient");
}

bool PyClient::start(std::string_view name, const rec::EventArgs *args) noexcept
{
    try {
        if (args && !args->empty())
            m_client->startEvent(name, *args);
        else
            m_client->startEvent(name);
        return true;
    } catch (...) {
        PyErrors::setCurrent();
        return false;
    }
}

bool PyClient::end(std::string_view name, const rec::EventArgs *args) noexcept
{
    try {
        if (args && !args->empty())
            m_client->endEvent(name, *args);
        else
            m_client->endEvent(name);
        return true;
    } catch (...) {
        PyErrors::setCurrent();
        return false;
    }
}

bool PyClient::instant(std::string_view name, const rec::EventArgs &args) noexcept
{
    try {
        m_client->instant(name, args);
        return true;
    } catch (...) {
        PyErrors::setCurrent();
        return false;
    }
}

bool PyClient::interval(std::string_view name, int64_t startNs, int64_t endNs,
                        const rec::EventArgs &args) noexcept
{
    try {
        m_client->recordInterval(name, startNs, endNs, args);
        return true;
    } catch (...) {
        PyErrors::setCurrent();
        return false;
    }
}

void PyClient::flush()
{
    pyb::gil_scoped_release release;
    m_client->flush();
}

void PyClient::close()
{
    pyb::gil_scoped_release release;
    m_client->close();
}

std::shared_ptr<Timeline> PyClient::timeline(const std::string &alignOn, const RankSet &ranks,
                                             std::optional<ClockChoice> clock)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path log = fs::absolute(m_client->logPath(), ec);
    LoadOptions options;
    options.paths.push_back(log.parent_path().string());
    const rec::TimerConfig &config = m_client->config();
    if (config.loadedFromFile && !config.sourcePath.empty())
        options.paths.push_back(config.sourcePath); // its event kinds (expected durations)
    options.alignOn = alignOn;
    options.ranks = ranks;
    options.clock = clock;
    raiseOpenFileLimit(); // a job of more logs than the usual soft limit of descriptors
    LoadResult result;
    {
        pyb::gil_scoped_release release;
        m_client->flush();
        result = JobLoader::load(options);
    }
    if (!result.timeline)
        throw LoadError("get_timeline: " + (result.fatalError.empty()
                                                ? std::string("nothing loaded")
                                                : result.fatalError));
    return result.timeline;
}

} // namespace syncline::py
