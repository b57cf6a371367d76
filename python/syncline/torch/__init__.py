"""syncline.torch — a thin layer that records a PyTorch training job through a
``syncline.FileTimerClient`` (docs/pytorch.md). Every part is opt-in, and the recording itself
is the C++ recorder's (``start_event``/``end_event``/``record_interval``/``message``): this
package only decides what to record and when.

=============================  ==============================================================
``instrument(model, client)``  forward (B/E) and backward (X) of each module down to ``depth``
``instrument_optimizer(opt)``  ``optimizer.step()`` as one event
``DdpCommHook`` /              each DDP gradient bucket's all-reduce, launch to completion, as a
``register_ddp_hook(ddp, c)``  ``collective`` interval with bucket index and iteration
``record_collectives(client)`` ``torch.distributed`` collectives called by user code, with a
                               per-process-group sequence number; send/recv as ``msg`` pairs
``timed_loader(it, client)``   the wait for each batch of a data loader
``ProfilerRecorder``           ``torch.profiler`` CPU ops written into the log in the client's
                               clock (time zero tied to it by measurement)
``CudaIntervals``              ``torch.cuda.Event`` pairs resolved later, without synchronising
``record_memory(client)``      memory counters now (CUDA allocated/reserved, else the RSS)
=============================  ==============================================================

Importing this package imports torch; ``import syncline`` alone never does.
"""
from ._collectives import CollectiveRecorder, record_collectives
from ._cuda import CudaIntervals, HostEvent
from ._data import timed_loader, TimedLoader
from ._ddp import DdpCommHook, register_ddp_hook
from ._memory import record_memory
from ._modules import ModuleInstrumentation, instrument, instrument_optimizer
from ._profiler import ProfilerRecorder, ClockTie

__all__ = [
    "instrument", "ModuleInstrumentation", "instrument_optimizer",
    "DdpCommHook", "register_ddp_hook",
    "record_collectives", "CollectiveRecorder",
    "timed_loader", "TimedLoader",
    "ProfilerRecorder", "ClockTie",
    "CudaIntervals", "HostEvent",
    "record_memory",
]
