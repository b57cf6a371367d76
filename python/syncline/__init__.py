"""syncline: nested event recording for distributed training, and the corrected global timeline
of a job.

This package re-exports the extension module ``syncline._core`` (the C++ recorder and timeline
layer, docs/python.md): ``syncline.FileTimerClient``, ``syncline.load_timeline``, the exceptions,
... are the extension's own objects. The submodules need more than the core and are imported only
on request:

- ``syncline.torch`` — hooks for PyTorch training scripts (docs/pytorch.md); needs torch.
- ``syncline.torchrun`` — ``python3 -m syncline.torchrun ...``: torchrun with values for
  ``--redirects``/``--tee`` that Debian's torchrun on Python 3.11 accepts.
"""
from . import _core

__doc__ = _core.__doc__ or __doc__
__version__ = _core.__version__
__all__ = [name for name in dir(_core) if not name.startswith("_")]
for _name in __all__:
    _obj = getattr(_core, _name)
    globals()[_name] = _obj
    # Classes and functions say they belong to `syncline` (repr, help(), pickling by name), as
    # they did when the extension was the top-level module.
    if getattr(_obj, "__module__", None) == _core.__name__:
        try:
            _obj.__module__ = __name__
        except (AttributeError, TypeError):
            pass
del _name, _obj
