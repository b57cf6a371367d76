// `syncline._core`: the extension module of the `syncline` package (python/syncline/__init__.py
// re-exports it), bindings over the recorder (FileTimerClient) and the timeline layer (Timeline,
// load_timeline). It holds no logic of its own.
#include "clientbindings.h"
#include "pyerrors.h"
#include "pysplit.h"
#include "pytimeline.h"

#include "timeline/load/jobloader.h"

#include <pybind11/pybind11.h>

PYBIND11_MODULE(_core, m)
{
    m.doc() = "syncline: nested event recording for distributed training, and the corrected "
              "global timeline of a job.";
    m.attr("__version__") = SYNCLINE_VERSION;
    syncline::py::PyErrors::registerTypes(m);
    syncline::py::PyTimeline::bind(m);
    syncline::py::ClientBindings::bind(m);
    syncline::py::PySplit::bind(m);
    // A recorder in this process with `event_store` on writes its log's index and event store
    // when it closes, through the loader linked here.
    syncline::JobLoader::installLogStoreWriter();
}
