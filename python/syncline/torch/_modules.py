"""instrument(model, client, depth) and instrument_optimizer(optimizer, client).

Forward: each instrumented module's ``forward`` is replaced, on that module instance only, by a
bound method that records ``start_event(name)`` / ``end_event(name)`` around the original (a
``try``/``finally``: an exception inside forward still ends the event, and the log stays valid).
Event names come from the module path: the model itself is ``forward`` / ``backward``, a
submodule ``<path>.forward`` / ``<path>.backward`` (``encoder.0.forward``).

Backward: when the forward ran with grad enabled and produced tensors that require grad, a
tensor hook on those outputs marks the start of the module's backward (the gradient of its output
has arrived); the end is when the gradients of its inputs that require grad are computed — or,
for a module none of whose inputs requires grad (the first layer, the model itself), when the
last of its parameters' gradients is. All hooks of one tensor read the clock once, so a module's
backward ends exactly where the next one's starts and the intervals nest. Each backward is an
``X`` interval, so parts finishing out of order can never misnest, written on a track of its own
named ``backward`` (``record_interval_on``: backward hooks fire inside autograd's nodes, so on
the thread's own track the intervals would straddle the profiler's ops). Hooks return None: gradients, and so training
results, are unchanged. A module called several times in one step records the backward of its
last call.

Threading: forward events nest on the thread that runs forward; backward intervals go to the
track ``backward`` whichever thread runs the backward.
"""
import threading
import types
import warnings

import torch

from .. import TimerError

_MARK = "_syncline_instrumentation"


def _tensors(obj, out):
    """Appends the tensors in obj (a tensor or nested tuple/list/dict of them) to out."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors(o, out)
    return out


def _end_quietly(client, name, owner):
    """end_event(name), turning a TimerError (user code left an event open inside the span)
    into one warning: the recorder must never stop training."""
    try:
        client.end_event(name)
    except TimerError as e:
        if not owner.warned:
            owner.warned = True
            warnings.warn(f"syncline.torch: {e} (an event opened inside this span was not "
                          "ended; the span stays open in the log)", RuntimeWarning, stacklevel=3)


class _BackwardCall:
    """One forward call's backward: started by the first output gradient, ended when the
    `remaining` input (or parameter) gradients have all arrived."""

    __slots__ = ("writer", "name", "start", "last", "remaining", "state")

    def __init__(self, writer, name, remaining, state):
        self.writer = writer
        self.name = name
        self.start = None
        self.last = None
        self.remaining = remaining
        self.state = state

    def on_output_grad(self, now):
        if self.start is None:
            self.start = now

    def on_part(self, now):
        self.last = now
        self.remaining -= 1
        if self.remaining == 0:
            if self.state.pending is self:
                self.state.pending = None
            self._write()

    def superseded(self):
        """A new forward call replaces this one before all parts arrived (a parameter that got
        no gradient, e.g. unused in this step): written up to the last part seen, if any."""
        if self.last is not None:
            self._write()

    def _write(self):
        if self.start is not None and self.last >= self.start:
            self.writer.add(self.name, self.start, self.last, self.state.path == "")


def _watch(tensor, writer, role, call):
    """Adds `call` to the one hook of `tensor` (role 0: the grad ends the call's part, 1: it
    starts the call). The hook reads the clock once, runs the ends, then the starts."""
    roles = tensor.__dict__.get("_syncline_bw")
    if roles is None:
        roles = ([], [])
        tensor.__dict__["_syncline_bw"] = roles

        def hook(grad, roles=roles, now=writer.client.now_ns):
            t = now()
            for c in roles[0]:
                c.on_part(t)
            for c in roles[1]:
                c.on_output_grad(t)

        tensor.register_hook(hook)
    roles[role].append(call)


class _BackwardWriter:
    """Writes finished backward intervals on the track `track`."""

    def __init__(self, client, track="backward"):
        self.client = client
        self.track = track

    def add(self, name, start, end, root):
        self.client.record_interval_on(self.track, name, start, end)

    def stop(self):
        pass


class _ModuleState:
    __slots__ = ("module", "path", "forward_name", "backward_name", "params", "pending",
                 "had_forward_attr", "old_forward")

    def __init__(self, module, path):
        self.module = module
        self.path = path
        self.forward_name = f"{path}.forward" if path else "forward"
        self.backward_name = f"{path}.backward" if path else "backward"
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.pending = None
        self.had_forward_attr = "forward" in module.__dict__
        self.old_forward = module.__dict__.get("forward")


class ModuleInstrumentation:
    """What instrument() did: `modules` (path -> module), `remove()` undoes it."""

    def __init__(self, client, root, depth, backward):
        self.client = client
        self.root = root
        self.depth = depth
        self.backward = backward
        self.warned = False
        self._writer = _BackwardWriter(client)
        self._states = []
        self._param_hooks = []
        self._lock = threading.Lock()

    @property
    def modules(self):
        return {s.path: s.module for s in self._states}

    @property
    def event_names(self):
        names = []
        for s in self._states:
            names.append(s.forward_name)
            if self.backward:
                names.append(s.backward_name)
        return names

    def _add(self, module, path):
        state = _ModuleState(module, path)
        client = self.client
        inst = self
        name = state.forward_name
        if state.had_forward_attr:  # an override on the instance: call it as it is
            bound = module.forward
            call = lambda self_module, *a, **k: bound(*a, **k)  # noqa: E731
        else:  # the class's forward, called on whichever module the method is bound to
            call = type(module).forward

        def forward(self_module, *args, **kwargs):
            client.start_event(name)
            try:
                out = call(self_module, *args, **kwargs)
            except BaseException:
                _end_quietly(client, name, inst)
                raise
            _end_quietly(client, name, inst)
            if inst.backward and torch.is_grad_enabled():
                inst._watch_backward(state, args, kwargs, out)
            return out

        # A bound method, so that pickling the module stores getattr(module, "forward") (the
        # class's, unpickled) and a deepcopy binds it to the copy (which then records too).
        forward.__name__ = "forward"
        forward.__qualname__ = f"{type(module).__qualname__}.forward"
        forward.__wrapped__ = call
        object.__setattr__(module, "forward", types.MethodType(forward, module))
        object.__setattr__(module, _MARK, self)
        self._states.append(state)
        return state

    # A deepcopy of an instrumented model shares this instrumentation (instrument() on the copy
    # with the same client adds nothing); a pickled one (torch.save) is not instrumented.
    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_nothing, ())

    def _watch_backward(self, state, args, kwargs, out):
        outs = [t for t in _tensors(out, []) if t.requires_grad]
        if not outs:
            return
        ins = [t for t in _tensors(args, _tensors(kwargs, [])) if t.requires_grad]
        remaining = len(ins) if ins else len(state.params)
        if remaining == 0:
            return
        call = _BackwardCall(self._writer, state.backward_name, remaining, state)
        if state.pending is not None:
            state.pending.superseded()
        state.pending = call if not ins else None  # parameter hooks look for it
        writer = self._writer
        for t in ins:
            _watch(t, writer, 0, call)
        for t in outs:
            _watch(t, writer, 1, call)

    def _hook_params(self):
        # One persistent hook per parameter; it ends a part of the pending backward of every
        # instrumented module that owns the parameter and whose inputs need no gradient.
        owners = {}
        for s in self._states:
            for p in s.params:
                owners.setdefault(id(p), (p, []))[1].append(s)
        now = self.client.now_ns
        for p, states in owners.values():
            def hook(grad, states=tuple(states)):
                t = None
                for s in states:
                    call = s.pending
                    if call is not None:
                        if t is None:
                            t = now()
                        call.on_part(t)
            self._param_hooks.append(p.register_hook(hook))

    def remove(self):
        """Restores every instrumented module's forward and removes the parameter hooks."""
        for h in self._param_hooks:
            h.remove()
        self._param_hooks.clear()
        for s in self._states:
            d = s.module.__dict__
            if s.had_forward_attr:
                d["forward"] = s.old_forward
            else:
                d.pop("forward", None)
            d.pop(_MARK, None)
        self._states.clear()


def _nothing():
    return None


def _unwrap(model):
    # DistributedDataParallel / DataParallel: the user's model is .module; names are relative to
    # it (the wrapper's own forward does bucketing, not the model's work).
    if isinstance(model, (torch.nn.parallel.DistributedDataParallel, torch.nn.DataParallel)):
        return model.module
    return model


def instrument(model, client, depth=1, backward=True):
    """Records forward (and, with backward=True, backward) of `model` and its submodules down to
    `depth` (0: the model only; 1: the model and its direct children; ...) as nested events.

    Returns a ModuleInstrumentation (``.remove()`` undoes it). Instrumenting a model that is
    already instrumented returns the existing instrumentation and adds nothing (no double
    events); with another client it raises ValueError.
    """
    if depth < 0:
        raise ValueError(f"instrument(): depth must be >= 0, not {depth}")
    root = _unwrap(model)
    if not isinstance(root, torch.nn.Module):
        raise TypeError(f"instrument(): expected a torch.nn.Module, not {type(model).__name__}")
    existing = root.__dict__.get(_MARK)
    if existing is not None:
        if existing.client is not client:
            raise ValueError("instrument(): this model is already instrumented with another "
                             "client; call .remove() on that instrumentation first")
        return existing
    inst = ModuleInstrumentation(client, root, depth, backward)
    for path, module in root.named_modules():
        level = 0 if not path else path.count(".") + 1
        if level > depth or module.__dict__.get(_MARK) is not None:
            continue  # deeper than asked, or instrumented already (by an earlier call)
        inst._add(module, path)
    if backward:
        inst._hook_params()
    return inst


def instrument_optimizer(optimizer, client, name="optimizer.step"):
    """Records every ``optimizer.step()`` as one event `name` (ended also when step raises).
    A second call on the same optimizer does nothing. Returns the optimizer."""
    if optimizer.__dict__.get(_MARK) is not None:
        return optimizer
    if "step" in optimizer.__dict__:  # already wrapped on the instance (an LR scheduler)
        bound = optimizer.step
        orig = lambda self_opt, *a, **k: bound(*a, **k)  # noqa: E731
    else:
        orig = type(optimizer).step
    owner = types.SimpleNamespace(warned=False)

    def step(self_opt, *args, **kwargs):
        client.start_event(name)
        try:
            return orig(self_opt, *args, **kwargs)
        finally:
            _end_quietly(client, name, owner)

    step.__name__ = "step"
    step.__wrapped__ = orig
    # A bound method, as the one it replaces: torch's LR schedulers re-wrap optimizer.step and
    # need __func__/__self__.
    optimizer.step = types.MethodType(step, optimizer)
    optimizer.__dict__[_MARK] = True
    return optimizer
