"""Runs an infernoc ``model.so`` on torch CUDA tensors through libinferno_runtime.

    import inferno
    model = inferno.load("model.so")          # the current torch CUDA device
    y = model(x)                               # x: a torch CUDA tensor; y: a new torch CUDA tensor
    new_ids = llm.generate([15496, 11, 995], max_new_tokens=32)   # an LLM: token ids in and out

The runtime library is found through $INFERNO_RUNTIME_LIB, else beside this package (an installed
prefix's lib/), else by the dynamic linker and in standard install directories. Calls go through
the native extension inferno._native when it is built (the library it links is then the one used),
else through ctypes; INFERNO_PYTHON_NATIVE=0 forces ctypes. Errors raise InfernoError carrying the
runtime's status name and message. torch is imported only by load().
"""
import ctypes
import os
import threading
from pathlib import Path

__all__ = ["InfernoError", "Model", "check", "load"]

_LIB_NAME = "libinferno_runtime.so"
_DEVICE_CURRENT = -1
_DEVICE_NONE = -2  # inspect a model only: no sessions


def _native_module():
    if os.environ.get("INFERNO_PYTHON_NATIVE") == "0":
        return None
    try:
        from . import _native
    except ImportError:
        return None
    return _native



_STEP_RANGE = "inferno step "


def _step_gpu_us(profiler, count):
    """Each profile step's GPU time in microseconds: the kernels, copies and memsets that
    torch.profiler's CUPTI records attribute to the step's record_function range; None when the
    profiler recorded no such range."""
    totals = [0.0] * count
    seen = False
    for event in profiler.events():
        if event.name.startswith(_STEP_RANGE):
            step = int(event.name[len(_STEP_RANGE):])
            if 0 <= step < count:
                totals[step] += getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0.0)
                seen = True
    return totals if seen else None

class InfernoError(RuntimeError):
    """A failed runtime call: ``status`` is its name ("invalid_argument", ...)."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


_native = _native_module()
if _native is not None:
    _native.set_error_class(InfernoError)


class _TensorDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _SessionOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("use_cuda_graph", ctypes.c_int32),
                ("graph_cache_size", ctypes.c_int32)]


class _StateDesc(ctypes.Structure):
    _fields_ = [("tensor", _TensorDesc), ("init_offset", ctypes.c_uint64)]


_TokenCallback = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64)


class _GenerateOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("max_new_tokens", ctypes.c_int32),
                ("temperature", ctypes.c_float), ("top_k", ctypes.c_int32), ("top_p", ctypes.c_float),
                ("num_stop_tokens", ctypes.c_int32), ("seed", ctypes.c_uint64),
                ("stop_tokens", ctypes.POINTER(ctypes.c_int64)), ("callback", _TokenCallback),
                ("user_data", ctypes.c_void_p)]


class _GenerateStats(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("prompt_tokens", ctypes.c_int32),
                ("new_tokens", ctypes.c_int32), ("prefill_runs", ctypes.c_int32),
                ("time_to_first_token_ms", ctypes.c_double), ("prefill_ms", ctypes.c_double),
                ("decode_ms", ctypes.c_double), ("decode_ms_per_token", ctypes.c_double),
                ("decode_ms_p50", ctypes.c_double), ("decode_ms_p90", ctypes.c_double)]


class _KernelCost(ctypes.Structure):
    """inferno_kernel_cost (inferno/model_profile.h): one step of a model's run with its cost."""
    _fields_ = [("node", ctypes.c_int32), ("launches", ctypes.c_int32), ("node_name", ctypes.c_char_p),
                ("op", ctypes.c_char_p), ("location", ctypes.c_char_p), ("kernel", ctypes.c_char_p),
                ("dtype", ctypes.c_int32), ("reserved", ctypes.c_int32), ("flops", ctypes.c_double),
                ("bytes_read", ctypes.c_uint64), ("bytes_written", ctypes.c_uint64)]


# inferno_profile_hook(user, step, phase, stream)
_ProfileHook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p)


def _candidates():
    if _native is not None:  # the extension's library, so that both see the same handles
        yield _native.library_path()
        return
    if os.environ.get("INFERNO_RUNTIME_LIB"):
        yield os.environ["INFERNO_RUNTIME_LIB"]
        return
    here = Path(__file__).resolve().parent
    yield str(here / _LIB_NAME)
    yield str(here.parent.parent / _LIB_NAME)  # installed: <prefix>/lib/python/inferno/
    yield _LIB_NAME                            # LD_LIBRARY_PATH, ld.so.cache
    for d in ("/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64"):
        yield str(Path(d) / _LIB_NAME)


_lib = None
_lib_lock = threading.Lock()


def _library():
    global _lib
    with _lib_lock:
        if _lib is None:
            errors = []
            for candidate in _candidates():
                try:
                    _lib = _bind(ctypes.CDLL(candidate))
                    break
                except OSError as e:
                    errors.append(str(e))
            else:
                raise InfernoError("load_failed", "cannot find " + _LIB_NAME +
                                   " (set INFERNO_RUNTIME_LIB): " + "; ".join(errors))
        return _lib


def _bind(lib):
    p, i32, c, P = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int, ctypes.POINTER
    signatures = {
        "inferno_model_num_states": ([p, P(i32)], c),
        "inferno_model_state": ([p, i32, P(_StateDesc), P(ctypes.c_uint64)], c),
        "inferno_model_max_positions": ([p, P(ctypes.c_int64)], c),
        "inferno_model_weights_bytes": ([p, P(ctypes.c_uint64)], c),
        "inferno_model_vocab_size": ([p, P(ctypes.c_int64)], c),
        "inferno_model_num_variants": ([p, P(i32)], c),
        "inferno_model_variant_num_inputs": ([p, i32, P(i32)], c),
        "inferno_model_variant_num_outputs": ([p, i32, P(i32)], c),
        "inferno_model_variant_input": ([p, i32, i32, P(_TensorDesc)], c),
        "inferno_model_variant_output": ([p, i32, i32, P(_TensorDesc)], c),
        "inferno_model_num_dynamic_dims": ([p, P(i32)], c),
        "inferno_model_dynamic_dim": ([p, i32, P(ctypes.c_char_p), P(ctypes.c_int64), P(ctypes.c_int64), P(i32)], c),
        "inferno_model_dynamic_dim_use": ([p, i32, i32, P(i32), P(i32)], c),
        "inferno_model_split_dim": ([p, P(i32)], c),
        "inferno_model_output_shape": ([p, P(_Tensor), i32, i32, P(ctypes.c_int64), i32, P(i32)], c),
        "inferno_session_reset_state": ([p, p], c),
        "inferno_generate_options_default": ([P(_GenerateOptions)], c),
        "inferno_session_generate": ([p, p, P(ctypes.c_int64), i32, P(_GenerateOptions),
                                      P(ctypes.c_int64), P(i32), P(_GenerateStats)], c),
        "inferno_status_name": ([c], ctypes.c_char_p),
        "inferno_last_error": ([], ctypes.c_char_p),
        "inferno_model_load": ([ctypes.c_char_p, c, ctypes.POINTER(p)], c),
        "inferno_model_device": ([p, ctypes.POINTER(c)], c),
        "inferno_model_unload": ([p], c),
        "inferno_model_check": ([ctypes.c_char_p, c], c),
        "inferno_model_num_inputs": ([p, ctypes.POINTER(i32)], c),
        "inferno_model_num_outputs": ([p, ctypes.POINTER(i32)], c),
        "inferno_model_input": ([p, i32, ctypes.POINTER(_TensorDesc)], c),
        "inferno_model_output": ([p, i32, ctypes.POINTER(_TensorDesc)], c),
        "inferno_session_options_default": ([ctypes.POINTER(_SessionOptions)], c),
        "inferno_session_create": ([p, ctypes.POINTER(_SessionOptions), ctypes.POINTER(p)], c),
        "inferno_session_destroy": ([p], c),
        "inferno_session_run": ([p, p, ctypes.POINTER(_Tensor), i32, ctypes.POINTER(_Tensor), i32], c),
        "inferno_model_profile_steps": ([p, i32, P(P(_KernelCost)), P(i32)], c),
        "inferno_session_run_profiled": ([p, p, P(_Tensor), i32, P(_Tensor), i32, _ProfileHook, p, P(i32)], c),
    }
    for name, (argtypes, restype) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
    return lib


def _check(status):
    if status != 0:
        lib = _library()
        raise InfernoError(lib.inferno_status_name(status).decode(), lib.inferno_last_error().decode())


def check(path, sm=0):
    """Validates a model.so without a GPU (ABI, weights checksum, and arch `sm` when > 0)."""
    _check(_library().inferno_model_check(os.fsencode(path), sm))


# inferno_dtype values (model_abi.h) by torch dtype name.
_DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "bool"]


class Model:
    """A loaded model.so; call it with torch CUDA tensors. Each calling thread gets its own session
    (the runtime's thread contract), so one Model may be shared between threads."""

    def __init__(self, path, device, use_cuda_graph=True):
        import torch

        self._torch = torch
        self._lib = _library()
        self.path = str(path)
        self._use_cuda_graph = use_cuda_graph
        self._sessions, self._runners, self._local, self._lock = [], [], threading.local(), threading.Lock()
        self._handle = ctypes.c_void_p()
        if _native is not None:
            self._handle.value = _native.load(os.fsencode(path), device)
        else:
            _check(self._lib.inferno_model_load(os.fsencode(path), device, ctypes.byref(self._handle)))
        index = ctypes.c_int()
        _check(self._lib.inferno_model_device(self._handle, ctypes.byref(index)))
        # None for an inspection-only load (device INFERNO_DEVICE_NONE, -2): no sessions, no calls.
        self.device = torch.device("cuda", index.value) if index.value >= 0 else None
        lib, h = self._lib, self._handle
        count = ctypes.c_int32()
        _check(lib.inferno_model_num_variants(h, ctypes.byref(count)))
        # (inputs, outputs) of each variant (input shapes the model runs); variant 0 is the model.
        self.variants = [(self._describe(lib.inferno_model_variant_num_inputs, lib.inferno_model_variant_input, v),
                          self._describe(lib.inferno_model_variant_num_outputs, lib.inferno_model_variant_output, v))
                         for v in range(count.value)]
        self.inputs, self.outputs = self.variants[0]
        self.states = self._states()
        self.dynamic_dims = self._dynamic_dims()
        # A dim a run may be split along: a size no variant has runs as several runs of theirs.
        self._split = any(dim["split"] for dim in self.dynamic_dims)
        value = ctypes.c_int64()
        _check(lib.inferno_model_max_positions(h, ctypes.byref(value)))
        self.max_positions = value.value
        size = ctypes.c_uint64()
        _check(lib.inferno_model_weights_bytes(h, ctypes.byref(size)))
        self.weights_bytes = size.value
        # The LLM's vocabulary (logits' last dimension), or None for a model that cannot generate.
        self.vocab_size = value.value if lib.inferno_model_vocab_size(h, ctypes.byref(value)) == 0 else None

    def _spec(self, d):
        return (d.name.decode(), getattr(self._torch, _DTYPES[d.dtype]), tuple(d.shape[k] for k in range(d.rank)))

    def _describe(self, count_fn, desc_fn, variant):
        count = ctypes.c_int32()
        _check(count_fn(self._handle, variant, ctypes.byref(count)))
        specs = []
        for index in range(count.value):
            d = _TensorDesc()
            _check(desc_fn(self._handle, variant, index, ctypes.byref(d)))
            specs.append(self._spec(d))
        return specs

    def _states(self):
        """(name, dtype, shape, bytes) of each state tensor a session holds."""
        count = ctypes.c_int32()
        _check(self._lib.inferno_model_num_states(self._handle, ctypes.byref(count)))
        states = []
        for index in range(count.value):
            d, size = _StateDesc(), ctypes.c_uint64()
            _check(self._lib.inferno_model_state(self._handle, index, ctypes.byref(d), ctypes.byref(size)))
            states.append(self._spec(d.tensor) + (size.value,))
        return states

    def _dynamic_dims(self):
        """The input dims that were dynamic in the model's export, each a dict: name (the export's
        symbol), min, max (None: unbounded), uses ((input name, axis) pairs) and compiled (the
        sizes this library's variants run) and split (True for the dim a run of a size no variant
        has is split along, as runs of variants' sizes)."""
        lib, h = self._lib, self._handle
        count, split = ctypes.c_int32(), ctypes.c_int32()
        _check(lib.inferno_model_num_dynamic_dims(h, ctypes.byref(count)))
        _check(lib.inferno_model_split_dim(h, ctypes.byref(split)))
        dims = []
        for d in range(count.value):
            name, low, high, uses = ctypes.c_char_p(), ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int32()
            _check(lib.inferno_model_dynamic_dim(h, d, ctypes.byref(name), ctypes.byref(low), ctypes.byref(high),
                                                 ctypes.byref(uses)))
            places = []
            for u in range(uses.value):
                index, axis = ctypes.c_int32(), ctypes.c_int32()
                _check(lib.inferno_model_dynamic_dim_use(h, d, u, ctypes.byref(index), ctypes.byref(axis)))
                places.append((index.value, axis.value))
            first_input, first_axis = places[0]
            compiled = list(dict.fromkeys(ins[first_input][2][first_axis] for ins, _ in self.variants))
            dims.append({"name": name.value.decode(), "min": low.value, "max": high.value if high.value >= 0 else None,
                         "uses": [(self.inputs[i][0], axis) for i, axis in places], "compiled": compiled,
                         "split": d == split.value})
        return dims

    def _variant_for(self, inputs):
        """The (inputs, outputs) specs of the variant whose input shapes the given tensors have
        (the runtime makes the same choice), or None."""
        for ins, outs in self.variants:
            if len(ins) == len(inputs) and all(
                    isinstance(t, self._torch.Tensor) and t.dtype == dtype and tuple(t.shape) == shape
                    for t, (_, dtype, shape) in zip(inputs, ins)):
                return ins, outs
        return None

    def _outputs_for(self, inputs):
        """The output specs for a run on the given tensors: the variant's whose input shapes they
        have; for a split run, the runtime's (first dims scaled to the inputs' rows); else the
        model's own (the runtime then says why it refuses the inputs)."""
        variant = self._variant_for(inputs)
        if variant is not None:
            return variant[1]
        if not self._split or not all(isinstance(t, self._torch.Tensor) for t in inputs):
            return self.outputs
        keep = []
        ins = (_Tensor * max(len(inputs), 1))(*[self._tensor(t, keep) for t in inputs])
        specs = []
        for index, (name, dtype, shape) in enumerate(self.outputs):
            dims, rank = (ctypes.c_int64 * max(len(shape), 1))(), ctypes.c_int32()
            _check(self._lib.inferno_model_output_shape(self._handle, ins, len(inputs), index, dims, len(shape),
                                                        ctypes.byref(rank)))
            specs.append((name, dtype, tuple(dims[:rank.value])))
        return specs

    def _new_runner(self):
        """The calling thread's native runner, on its session."""
        runner = _native_runner(self._torch, self._session().value, self.device, self.variants)
        with self._lock:
            self._runners.append(runner)
        self._local.runner = runner
        return runner

    def _session(self):
        session = getattr(self._local, "session", None)
        if session is None:
            options = _SessionOptions()
            _check(self._lib.inferno_session_options_default(ctypes.byref(options)))
            options.use_cuda_graph = 1 if self._use_cuda_graph else 0
            session = ctypes.c_void_p()
            _check(self._lib.inferno_session_create(self._handle, ctypes.byref(options), ctypes.byref(session)))
            with self._lock:
                self._sessions.append(session)
            self._local.session = session
        return session

    def _tensor(self, t, keep):
        if not isinstance(t, self._torch.Tensor):
            raise TypeError(f"expected a torch.Tensor, got {type(t).__name__}")
        name = str(t.dtype).removeprefix("torch.")
        if name not in _DTYPES:
            raise TypeError(f"unsupported dtype {t.dtype}")
        t = t.contiguous()  # the runtime reads dense row-major memory
        shape = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
        keep.extend((t, shape))
        return _Tensor(t.data_ptr() or None, _DTYPES.index(name), t.dim(), shape)

    def __call__(self, *inputs, out=None):
        """Runs the model on the current torch stream; returns one tensor or a tuple of them.
        `out` (a tensor, or a sequence with one tensor per output) receives the outputs instead of
        freshly allocated tensors; the runtime checks their dtypes and shapes."""
        if self._handle is None:
            raise InfernoError("invalid_argument", "the model is closed")
        if _native is not None:
            runner = getattr(self._local, "runner", None) or self._new_runner()
            try:
                return runner(*inputs) if out is None else runner(*inputs, out=out)
            except InfernoError:
                # The native runner runs the variants' shapes only; a split run takes the path
                # below. Any other refusal stands.
                if not self._split or self._variant_for(inputs) is not None:
                    raise
        torch, keep = self._torch, []
        if out is None:
            outputs = [torch.empty(shape, dtype=dtype, device=self.device)
                       for _, dtype, shape in self._outputs_for(inputs)]
        else:
            outputs = [out] if isinstance(out, torch.Tensor) else list(out)
            if any(not t.is_contiguous() for t in outputs):
                raise ValueError("out tensors must be contiguous: the model writes them in place")
        ins = (_Tensor * max(len(inputs), 1))(*[self._tensor(t, keep) for t in inputs])
        outs = (_Tensor * max(len(outputs), 1))(*[self._tensor(t, keep) for t in outputs])
        stream = torch.cuda.current_stream(self.device).cuda_stream
        _check(self._lib.inferno_session_run(self._session(), ctypes.c_void_p(stream), ins, len(inputs),
                                             outs, len(outputs)))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def profile(self, *inputs):
        """Runs the model once profiled (plain launches, no CUDA graph; docs/profiling.md) after one
        untimed profiled run, and returns the steps slowest first, each a dict: node, op, location,
        kernel, dtype, launches, flops, bytes (read + written), ms and timing. Each step's time is
        the GPU time of its kernels as CUPTI recorded them under torch.profiler (timing "cupti"),
        the same measure as `inferno-run --profile`; where torch.profiler cannot attribute every
        step's kernels, a CUDA event before and after each step (timing "events", which adds the
        events' own cost). The model must carry a profile table (compiled by an infernoc that
        writes one)."""
        torch, keep = self._torch, []
        outputs = [torch.empty(shape, dtype=dtype, device=self.device) for _, dtype, shape in self._outputs_for(inputs)]
        ins = (_Tensor * max(len(inputs), 1))(*[self._tensor(t, keep) for t in inputs])
        outs = (_Tensor * max(len(outputs), 1))(*[self._tensor(t, keep) for t in outputs])
        stream = torch.cuda.current_stream(self.device)
        most = 0
        for variant in range(len(self.variants)):
            steps, count = ctypes.POINTER(_KernelCost)(), ctypes.c_int32()
            _check(self._lib.inferno_model_profile_steps(self._handle, variant, ctypes.byref(steps), ctypes.byref(count)))
            most = max(most, count.value)
        events = [torch.cuda.Event(enable_timing=True) for _ in range(2 * most)]
        ranges = {}

        def record(_, step, phase, __):  # on this thread, as each step is enqueued on `stream`
            if 0 <= step < most and phase in (0, 1):
                events[2 * step + phase].record(stream)
                if phase == 0 and profiler is not None:
                    ranges[step] = torch.profiler.record_function(f"{_STEP_RANGE}{step}")
                    ranges[step].__enter__()
                elif phase == 1 and step in ranges:
                    ranges.pop(step).__exit__(None, None, None)

        hook, variant = _ProfileHook(record), ctypes.c_int32()

        def run():
            _check(self._lib.inferno_session_run_profiled(self._session(), ctypes.c_void_p(stream.cuda_stream), ins,
                                                          len(inputs), outs, len(outputs), hook, None,
                                                          ctypes.byref(variant)))
            stream.synchronize()

        profiler = None
        run()  # warms up the plain launches' path
        try:
            profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                          torch.profiler.ProfilerActivity.CUDA])
        except Exception:  # no CUPTI in this torch: events only
            profiler = None
        if profiler is not None:
            with profiler:
                run()
        else:
            run()
        steps, count = ctypes.POINTER(_KernelCost)(), ctypes.c_int32()
        _check(self._lib.inferno_model_profile_steps(self._handle, variant.value, ctypes.byref(steps), ctypes.byref(count)))
        gpu_us = _step_gpu_us(profiler, count.value) if profiler is not None else None
        # Every step that launches must have kernels attributed, or the whole table is events.
        if gpu_us is not None and any(steps[k].launches > 0 and gpu_us[k] <= 0 for k in range(count.value)):
            gpu_us = None
        rows = []
        for k in range(count.value):
            s = steps[k]
            name = s.node_name.decode()
            ms = gpu_us[k] / 1e3 if gpu_us is not None else events[2 * k].elapsed_time(events[2 * k + 1])
            rows.append({"node": f"%{name}" if s.node >= 0 else f"({name})", "op": s.op.decode(),
                         "location": s.location.decode(), "kernel": s.kernel.decode(), "dtype": _DTYPES[s.dtype],
                         "launches": s.launches, "flops": s.flops, "bytes": s.bytes_read + s.bytes_written,
                         "ms": ms, "timing": "cupti" if gpu_us is not None else "events"})
        return sorted(rows, key=lambda row: -row["ms"])

    def reset_state(self):
        """Re-initializes the calling thread's session state (an LLM's KV cache) on the current torch
        stream, as a new session has it."""
        stream = self._torch.cuda.current_stream(self.device).cuda_stream
        _check(self._lib.inferno_session_reset_state(self._session(), ctypes.c_void_p(stream)))

    def generate(self, ids, max_new_tokens=16, temperature=0.0, top_k=0, top_p=1.0, seed=0, stop_tokens=(),
                 callback=None, return_stats=False):
        """Generates up to `max_new_tokens` token ids after the prompt `ids` (a sequence of ints, or a
        tensor/array of shape [L] or [1, L]) with an LLM model.so; returns the new ids as a list of
        ints (with a dict of timings when `return_stats`). Greedy when temperature is 0, else
        sampled on the GPU (top_k, top_p, seed). Generation ends after a token in `stop_tokens`
        (included) or when `callback(index, token)` returns True; an exception it raises stops
        generation and is re-raised. Uses the calling thread's session; resets its state first."""
        if self._handle is None:
            raise InfernoError("invalid_argument", "the model is closed")
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        if ids and isinstance(ids[0], (list, tuple)):
            if len(ids) != 1:
                raise ValueError("generate takes one prompt: shape [L] or [1, L]")
            ids = ids[0]
        prompt = (ctypes.c_int64 * max(len(ids), 1))(*[int(t) for t in ids])
        stops = (ctypes.c_int64 * max(len(stop_tokens), 1))(*[int(t) for t in stop_tokens])
        options = _GenerateOptions()
        _check(self._lib.inferno_generate_options_default(ctypes.byref(options)))
        options.max_new_tokens, options.temperature, options.top_k = max_new_tokens, temperature, top_k
        options.top_p, options.seed = top_p, seed
        options.stop_tokens, options.num_stop_tokens = stops, len(stop_tokens)
        raised = []

        def on_token(_, index, token):
            try:
                return 1 if callback(index, token) else 0
            except BaseException as e:  # re-raised after the runtime returns
                raised.append(e)
                return 1

        keep = _TokenCallback(on_token) if callback is not None else _TokenCallback()
        options.callback = keep
        out = (ctypes.c_int64 * max(max_new_tokens, 1))()
        count = ctypes.c_int32()
        stats = _GenerateStats()
        stats.struct_size = ctypes.sizeof(_GenerateStats)
        stream = self._torch.cuda.current_stream(self.device).cuda_stream
        status = self._lib.inferno_session_generate(self._session(), ctypes.c_void_p(stream), prompt, len(ids),
                                                    ctypes.byref(options), out, ctypes.byref(count),
                                                    ctypes.byref(stats))
        if raised:
            raise raised[0]
        _check(status)
        tokens = list(out[:count.value])
        if not return_stats:
            return tokens
        return tokens, {name: getattr(stats, name) for name, _ in _GenerateStats._fields_[1:]}

    def close(self):
        """Frees the sessions and the model (also done when the object is collected)."""
        with self._lock:
            for runner in self._runners:
                runner.close()  # its session is destroyed next
            self._runners.clear()
            for session in self._sessions:
                self._lib.inferno_session_destroy(session)
            self._sessions.clear()
        if self._handle is not None:
            self._lib.inferno_model_unload(self._handle)
            self._handle = None
        self._local = threading.local()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.close()

    def __repr__(self):
        return f"inferno.Model({self.path!r}, device={self.device}, inputs={self.inputs}, outputs={self.outputs})"


def _native_runner(torch, session, device, variants):
    """An inferno._native.Runner for `session` on `device` (a torch.device): per variant the
    (name, dtype, shape) of the inputs it matches and of the outputs, with their torch.empty
    keyword arguments."""
    dtypes = tuple(getattr(torch, name) for name in _DTYPES)
    table = tuple((tuple(ins), tuple(spec + ({"dtype": spec[1], "device": device},) for spec in outs))
                  for ins, outs in variants)
    index = -1 if device.type == "cpu" else device.index  # cpu: the tests' way past the device check
    return _native.Runner(session, index, table, dtypes, torch.Tensor, torch.empty, _stream_function(torch))


def _stream_function(torch):
    """device index -> the current torch stream's cudaStream_t, as cheaply as this torch allows."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda index: torch.cuda.current_stream(index).cuda_stream


def load(path, device=None, use_cuda_graph=True):
    """Loads `path` on `device` (an index, "cuda:N", a torch.device; default: torch's current one,
    and without a CUDA torch the runtime's current device, whose absence it reports)."""
    import torch

    if device is None:
        index = torch.cuda.current_device() if torch.cuda.is_available() else _DEVICE_CURRENT
    elif isinstance(device, int):
        index = device
    else:
        device = torch.device(device)
        index = device.index if device.index is not None else torch.cuda.current_device()
    return Model(path, index, use_cuda_graph)
