"""timed_loader(iterable, client) — the time the training loop waits for each batch.

    for batch in timed_loader(loader, client):     # or TimedLoader(loader, client)
        ...

Each ``next()`` on the loader's iterator is one event (default name ``dataloader_wait``, arg
``batch``: its index in this pass, from 0), on the thread that iterates. With worker processes
(``num_workers > 0``) it is the time the batch was not ready yet; with ``num_workers=0`` it is
the loading itself. The last ``next()``, which ends the pass, is recorded too (arg
``end=True``). ``len()`` and attribute access go to the wrapped loader.
"""


class TimedLoader:
    def __init__(self, iterable, client, name="dataloader_wait"):
        self.iterable = iterable
        self.client = client
        self.name = name

    def __iter__(self):
        client, name = self.client, self.name
        it = iter(self.iterable)
        i = 0
        while True:
            client.start_event(name, batch=i)
            try:
                batch = next(it)
            except StopIteration:
                client.end_event(name, end=True)
                return
            except BaseException:
                client.end_event(name, error=True)
                raise
            client.end_event(name)
            yield batch
            i += 1

    def __len__(self):
        return len(self.iterable)

    def __getattr__(self, attr):
        if attr == "iterable":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(attr)
        return getattr(self.iterable, attr)


def timed_loader(iterable, client, name="dataloader_wait"):
    """Wraps `iterable` (a DataLoader or any iterable) so that each wait for its next item is
    an event `name`; see the module's docstring."""
    return TimedLoader(iterable, client, name)
