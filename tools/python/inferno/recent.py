"""What compile() remembers in this process: a module compiled again unchanged, for the same input
shapes and dtypes and the same flags, skips torch.export (seconds for a transformer) and goes
straight to the cache entry its first compile found or made.

"Unchanged" is checked by content, not by identity (addresses and ids are reused once freed): the
same submodules (class names, the bytecode and constants of their forward methods, an instance's
own forward, training mode, every plain attribute: numbers, strings, booleans, None) and the same
bytes in every parameter and buffer (hashed: a fraction of what exporting the module costs).
Anything else misses, and compile() exports and takes the content key as before. A change none of
these show (a global or a closure that forward reads) is not seen. The memory holds modules
weakly.
"""
import hashlib
import weakref

_PER_MODULE = 8
_PLAIN = (bool, int, float, str, type(None))
_memory = weakref.WeakKeyDictionary()  # module -> {facts: cache key}, oldest first


def _code(function):
    code = getattr(function, "__code__", None)
    return (code.co_code, repr(code.co_consts), code.co_names) if code is not None else repr(function)


def _fingerprint(module):
    import torch

    h = hashlib.sha256()
    for name, sub in module.named_modules():
        cls = type(sub)
        attributes = vars(sub)
        plain = sorted((k, type(v).__name__, repr(v)) for k, v in attributes.items() if isinstance(v, _PLAIN))
        own_forward = attributes.get("forward")
        h.update(repr((name, cls.__module__, cls.__qualname__, _code(getattr(cls, "forward", None)),
                       _code(own_forward) if own_forward is not None else None, plain)).encode())
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        h.update(repr((name, tuple(t.shape), str(t.dtype))).encode())
        h.update(t.detach().reshape(-1).contiguous().cpu().view(torch.uint8).numpy())
    return h.digest()


def facts(module, inputs, settings):
    """What a compile of `module` for `inputs` with `settings` (a hashable summary of everything
    else its cache key depends on) is remembered under."""
    shapes = tuple((tuple(t.shape), str(t.dtype)) for t in inputs)
    return (_fingerprint(module), shapes, settings)


def recall(module, remembered_facts):
    """The cache key of an earlier compile of this module with these facts, or None."""
    seen = _memory.get(module)
    return seen.get(remembered_facts) if seen is not None else None


def remember(module, remembered_facts, key):
    seen = _memory.setdefault(module, {})
    seen.pop(remembered_facts, None)
    seen[remembered_facts] = key
    while len(seen) > _PER_MODULE:
        del seen[next(iter(seen))]
