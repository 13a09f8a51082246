"""What compile() remembers in this process: a module compiled again unchanged, for the same input
shapes and dtypes and the same flags, skips torch.export (seconds for a transformer) and goes
straight to the cache entry its first compile found or made.

"Unchanged" is checked, not assumed: the same submodules (their classes and forward methods, an
instance's own forward, training mode and every plain attribute: numbers, strings, booleans,
None) and the same parameter and buffer tensors (storage, shape, dtype, device) at the same
versions; an in-place update of a tensor bumps its version. Anything else misses, and compile()
exports and takes the content key as before. The memory holds modules weakly.
"""
import weakref

_PER_MODULE = 8
_PLAIN = (bool, int, float, str, type(None))
_memory = weakref.WeakKeyDictionary()  # module -> {facts: cache key}, oldest first


def _fingerprint(module):
    parts = []
    for name, sub in module.named_modules():
        cls = type(sub)
        attributes = vars(sub)
        plain = tuple(sorted((k, type(v).__name__, repr(v)) for k, v in attributes.items()
                             if isinstance(v, _PLAIN)))
        parts.append((name, id(cls), id(getattr(cls, "forward", None)), id(attributes.get("forward")),
                      plain))
    tensors = list(module.named_parameters())
    tensors += list(module.named_buffers())
    for name, t in tensors:
        parts.append((name, t.data_ptr(), t._version, tuple(t.shape), str(t.dtype), str(t.device)))
    return tuple(parts)


def _facts(module, inputs, settings):
    shapes = tuple((tuple(t.shape), str(t.dtype)) for t in inputs)
    return (_fingerprint(module), shapes, settings)


def recall(module, inputs, settings):
    """The cache key of an earlier compile of this module, unchanged, with these inputs' shapes
    and dtypes and these settings (a hashable summary of everything else the key depends on)."""
    seen = _memory.get(module)
    return seen.get(_facts(module, inputs, settings)) if seen is not None else None


def remember(module, inputs, settings, key):
    seen = _memory.setdefault(module, {})
    facts = _facts(module, inputs, settings)
    seen.pop(facts, None)
    seen[facts] = key
    while len(seen) > _PER_MODULE:
        del seen[next(iter(seen))]
