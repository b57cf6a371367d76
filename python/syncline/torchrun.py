"""``python3 -m syncline.torchrun [torchrun arguments] script.py [script arguments]`` — PyTorch's
torchrun (``torch.distributed.run``), unchanged, except that its ``--redirects``/``--tee`` values
are parsed correctly on Python 3.11.

Why: torch 1.13's ``Std.from_str`` finds the member for a number by iterating the ``Std``
IntFlag; Python 3.11 iterates only the single-bit members, so ``0`` (``NONE``, torchrun's
default) and ``3`` (``ALL``) give ``None`` and torchrun dies at start with
``AttributeError: 'NoneType' object has no attribute 'get'`` (Debian 12's python3-torch). This launcher replaces that one parser with ``Std(int(v))`` when, and only when,
the installed torch has the bug, then runs torchrun's own ``main()`` with the same arguments: the
defaults (no redirection, no tee) work, and every other option means what torchrun documents.
The plain work-around without this module is ``torchrun --redirects 2 --tee 2 ...`` (any of 1
or 2 in both; docs/pytorch.md).
"""
import re
import sys


def _patch_std_parser():
    """Fixes ``Std.from_str`` in this process when it is the broken one; returns True if patched."""
    from torch.distributed.elastic.multiprocessing import api

    std = api.Std
    try:
        if std.from_str("0") is not None and std.from_str("3") is not None:
            return False  # a torch (or Python) without the bug
    except Exception:  # noqa: BLE001 - any failure of the original parser means: replace it
        pass
    value_re = getattr(api, "_VALUE_REGEX", r"^[0-3]$")
    mapping_re = getattr(api, "_MAPPING_REGEX", r"^(\d:[0-3],)*(\d:[0-3])$")

    def from_str(cls, vm):
        if re.match(value_re, vm):
            return cls(int(vm))
        if re.match(mapping_re, vm):
            out = {}
            for item in vm.split(","):
                i, v = item.split(":")
                out[int(i)] = cls(int(v))
            return out
        raise ValueError(f"{vm} does not match: <{value_re}> or <{mapping_re}>")

    std.from_str = classmethod(from_str)
    return True


def main(argv=None):
    """Runs torchrun with `argv` (default: sys.argv[1:]) after the fix; returns its exit status."""
    try:
        import torch.distributed.run as run
    except ImportError as e:
        sys.stderr.write(f"syncline.torchrun: PyTorch is not installed ({e}); "
                         "Debian: apt-get install python3-torch\n")
        return 2
    _patch_std_parser()
    sys.argv[0] = "torchrun"
    run.main(sys.argv[1:] if argv is None else list(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
