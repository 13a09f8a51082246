// inferno._native: the Python loader's call path without ctypes. A Runner holds one session (the
// calling thread's, made by the loader) and, per variant, the input types it matches and the
// torch.empty arguments of its outputs, all converted once; a call reads each tensor's dtype,
// device, contiguity, shape and data pointer, picks the variant, allocates the outputs (or checks
// `out=`), and calls inferno_session_run. Nothing else is allocated per call. Links only the
// runtime's C API (include/inferno/runtime.h).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "inferno/runtime.h"

namespace {

constexpr int kMaxTensors = 128;  // inputs, or outputs, of one call
constexpr int kMaxRank = 16;      // the runtime's limit (runtime/descriptor.h)
constexpr int kNumDtypes = 7;     // inferno_dtype's values
const char* const kDtypeNames[kNumDtypes] = {"f32", "f16", "bf16", "f64", "i64", "i32", "bool"};

PyObject* g_error_class = nullptr;  // inferno.InfernoError, set by the loader

struct Interned {
  PyObject* dtype;
  PyObject* shape;
  PyObject* get_device;
  PyObject* is_contiguous;
  PyObject* contiguous;
  PyObject* data_ptr;
};
Interned g_names{};

// Plain data without initializers: a call's arrays of them are not cleared on every call.
struct TensorType {
  int32_t dtype;
  int32_t rank;
  int64_t shape[kMaxRank];
};

struct InputSpec {
  TensorType type{};
  std::string name;
};

struct OutputSpec {
  TensorType type{};
  std::string name;
  PyObject* empty_args = nullptr;    // (shape,)
  PyObject* empty_kwargs = nullptr;  // {"dtype": ..., "device": ...}
};

struct Variant {
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
};

// What one call reads from a tensor.
struct TensorView {
  TensorType type;
  void* data;
  long device;  // torch's get_device(): -1 for the CPU
};

struct Runner {
  PyObject_HEAD inferno_session* session;
  int device;
  PyObject* device_index;  // the same, as a Python int for stream_function
  PyObject* tensor_type;
  PyObject* empty;
  PyObject* stream_function;
  PyObject* dtypes[kNumDtypes];
  std::vector<Variant>* variants;
};

std::string type_text(const TensorType& t) {
  std::string text = kDtypeNames[t.dtype];
  text += '[';
  for (int32_t d = 0; d < t.rank; ++d) text += (d ? "," : "") + std::to_string(t.shape[d]);
  return text + ']';
}

bool same_type(const TensorType& a, const TensorType& b) {
  if (a.dtype != b.dtype || a.rank != b.rank) return false;
  for (int32_t d = 0; d < a.rank; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

PyObject* raise_inferno(const char* status, const std::string& message) {
  if (g_error_class == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, (std::string(status) + ": " + message).c_str());
    return nullptr;
  }
  PyObject* error = PyObject_CallFunction(g_error_class, "ss", status, message.c_str());
  if (error != nullptr) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error)), error);
    Py_DECREF(error);
  }
  return nullptr;
}

PyObject* raise_status(inferno_status status) {
  return raise_inferno(inferno_status_name(status), inferno_last_error());
}

std::string tensor_name(const char* role, Py_ssize_t index) {
  return std::string(role) + " " + std::to_string(index);
}

int dtype_code(const Runner* self, PyObject* dtype) {
  for (int i = 0; i < kNumDtypes; ++i) {
    if (self->dtypes[i] == dtype) return i;
  }
  return -1;
}

// Reads a shape (a tuple of ints, torch.Size included) into `type`; false with an exception set.
bool read_shape(PyObject* shape, const std::string& what, TensorType* type) {
  if (!PyTuple_Check(shape)) {
    PyErr_Format(PyExc_TypeError, "%s: shape is not a tuple", what.c_str());
    return false;
  }
  const Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  if (rank > kMaxRank) {
    raise_inferno("invalid_argument",
                  what + ": rank " + std::to_string(rank) + " is over " + std::to_string(kMaxRank));
    return false;
  }
  type->rank = static_cast<int32_t>(rank);
  for (Py_ssize_t d = 0; d < rank; ++d) {
    type->shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
    if (type->shape[d] == -1 && PyErr_Occurred()) return false;
  }
  return true;
}

// Reads tensor `t` (input or output `index`); its device is checked once the variant (and so
// the tensor's name) is known. A non-contiguous input is replaced by a contiguous
// copy, whose reference goes to `*keep`; a non-contiguous output is an error (it is written in
// place). False with an exception set.
bool read_tensor(const Runner* self, PyObject* t, const char* role, Py_ssize_t index,
                 TensorView* view, PyObject** keep) {
  if (!PyObject_TypeCheck(t, reinterpret_cast<PyTypeObject*>(self->tensor_type))) {
    PyErr_Format(PyExc_TypeError, "%s: expected a torch.Tensor, got %s",
                 tensor_name(role, index).c_str(), Py_TYPE(t)->tp_name);
    return false;
  }
  PyObject* dtype = PyObject_GetAttr(t, g_names.dtype);
  if (dtype == nullptr) return false;
  view->type.dtype = dtype_code(self, dtype);
  if (view->type.dtype < 0) {
    PyObject* text = PyObject_Str(dtype);
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype %U", tensor_name(role, index).c_str(),
                 text);
    Py_XDECREF(text);
    Py_DECREF(dtype);
    return false;
  }
  Py_DECREF(dtype);
  PyObject* device = PyObject_CallMethodNoArgs(t, g_names.get_device);
  if (device == nullptr) return false;
  view->device = PyLong_AsLong(device);
  Py_DECREF(device);
  if (view->device == -1 && PyErr_Occurred()) return false;
  PyObject* dense = PyObject_CallMethodNoArgs(t, g_names.is_contiguous);
  if (dense == nullptr) return false;
  const int is_dense = PyObject_IsTrue(dense);
  Py_DECREF(dense);
  if (is_dense < 0) return false;
  if (!is_dense) {
    if (*role == 'o') {
      PyErr_SetString(PyExc_ValueError,
                      "out tensors must be contiguous: the model writes them in place");
      return false;
    }
    *keep = PyObject_CallMethodNoArgs(t, g_names.contiguous);
    if (*keep == nullptr) return false;
    t = *keep;
  }
  PyObject* shape = PyObject_GetAttr(t, g_names.shape);
  if (shape == nullptr) return false;
  const bool shaped = read_shape(shape, tensor_name(role, index), &view->type);
  Py_DECREF(shape);
  if (!shaped) return false;
  PyObject* pointer = PyObject_CallMethodNoArgs(t, g_names.data_ptr);
  if (pointer == nullptr) return false;
  view->data = PyLong_AsVoidPtr(pointer);
  Py_DECREF(pointer);
  return !PyErr_Occurred();
}

const Variant* pick_variant(const Runner* self, const TensorView* inputs, Py_ssize_t count) {
  for (const Variant& v : *self->variants) {
    if (static_cast<Py_ssize_t>(v.inputs.size()) != count) continue;
    bool match = true;
    for (Py_ssize_t i = 0; i < count && match; ++i)
      match = same_type(v.inputs[i].type, inputs[i].type);
    if (match) return &v;
  }
  return nullptr;
}

// The runtime's messages (runtime/tensor_check.cpp, session.cpp) for the same mistakes.
std::string tensor_error(const char* role, const std::string& name, const std::string& what) {
  return std::string(role) + " '" + name + "': " + what;
}

std::string count_error(const char* role, size_t expected, Py_ssize_t given) {
  return "expected " + std::to_string(expected) + " " + role + (expected == 1 ? "" : "s") +
         ", got " + std::to_string(given);
}

PyObject* raise_no_variant(const Runner* self, const TensorView* inputs, Py_ssize_t count) {
  if (self->session != nullptr) {  // the runtime's words: in a dynamic dim's terms where it can
    inferno_tensor given[kMaxTensors];
    for (Py_ssize_t i = 0; i < count; ++i)
      given[i] = {inputs[i].data, inputs[i].type.dtype, inputs[i].type.rank, inputs[i].type.shape};
    // Refused while the inputs are checked, before the stream or any output is looked at.
    const inferno_status status =
        inferno_session_run(self->session, nullptr, given, static_cast<int32_t>(count), nullptr, 0);
    if (status != INFERNO_STATUS_OK) return raise_status(status);
  }
  const std::vector<Variant>& variants = *self->variants;
  if (variants.size() == 1) {  // the runtime then checks the model's own inputs one by one
    const std::vector<InputSpec>& specs = variants[0].inputs;
    if (static_cast<Py_ssize_t>(specs.size()) != count)
      return raise_inferno("invalid_argument", count_error("input", specs.size(), count));
    for (Py_ssize_t i = 0; i < count; ++i) {
      if (!same_type(specs[i].type, inputs[i].type)) {
        return raise_inferno("invalid_argument",
                             tensor_error("input", specs[i].name,
                                          "expected " + type_text(specs[i].type) + ", got " +
                                              type_text(inputs[i].type)));
      }
    }
  }
  std::string given;
  for (Py_ssize_t i = 0; i < count; ++i) given += (i ? ", " : "") + type_text(inputs[i].type);
  std::string accepted;
  for (const Variant& v : variants) {
    accepted += accepted.empty() ? "(" : " or (";
    for (size_t i = 0; i < v.inputs.size(); ++i)
      accepted += (i ? ", " : "") + v.inputs[i].name + " " + type_text(v.inputs[i].type);
    accepted += ")";
  }
  return raise_inferno("invalid_argument", "inputs (" + (count ? given : "no inputs") +
                                               ") match no variant of the model, which takes " +
                                               accepted);
}

// The device check of the runtime, made before it: a tensor on another device, or on the CPU.
bool check_device(const Runner* self, const char* role, const std::string& name,
                  const TensorView& view) {
  if (view.device == self->device) return true;
  raise_inferno(
      "invalid_argument",
      tensor_error(role, name,
                   view.device < 0 ? "data is host memory, not device memory (a CPU tensor)"
                                   : "data is on device " + std::to_string(view.device) +
                                         ", the model on device " + std::to_string(self->device)));
  return false;
}

// Holds the references one call owns, released on every return.
struct CallRefs {
  PyObject* kept[kMaxTensors] = {};  // contiguous copies of inputs
  PyObject* outputs[kMaxTensors] = {};
  Py_ssize_t num_outputs = 0;
  PyObject* out_sequence = nullptr;
  ~CallRefs() {
    for (PyObject* k : kept) Py_XDECREF(k);
    for (Py_ssize_t i = 0; i < num_outputs; ++i) Py_XDECREF(outputs[i]);
    Py_XDECREF(out_sequence);
  }
};

// Fills refs->outputs from `out` (a tensor or a sequence of them) or with new tensors.
bool prepare_outputs(const Runner* self, const Variant& variant, PyObject* out, CallRefs* refs,
                     TensorView* views) {
  const Py_ssize_t expected = static_cast<Py_ssize_t>(variant.outputs.size());
  if (out == nullptr || out == Py_None) {
    for (Py_ssize_t i = 0; i < expected; ++i) {
      const OutputSpec& spec = variant.outputs[i];
      refs->outputs[i] = PyObject_Call(self->empty, spec.empty_args, spec.empty_kwargs);
      if (refs->outputs[i] == nullptr) return false;
      refs->num_outputs = i + 1;
      PyObject* pointer = PyObject_CallMethodNoArgs(refs->outputs[i], g_names.data_ptr);
      if (pointer == nullptr) return false;
      views[i].type = spec.type;
      views[i].data = PyLong_AsVoidPtr(pointer);
      Py_DECREF(pointer);
      if (PyErr_Occurred()) return false;
    }
    return true;
  }
  Py_ssize_t count = 1;
  PyObject* const* items = &out;
  if (!PyObject_TypeCheck(out, reinterpret_cast<PyTypeObject*>(self->tensor_type))) {
    refs->out_sequence = PySequence_Fast(out, "out must be a tensor or a sequence of tensors");
    if (refs->out_sequence == nullptr) return false;
    count = PySequence_Fast_GET_SIZE(refs->out_sequence);
    items = PySequence_Fast_ITEMS(refs->out_sequence);
  }
  if (count != expected) {
    raise_inferno("invalid_argument", count_error("output", variant.outputs.size(), count));
    return false;
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* unused = nullptr;
    if (!read_tensor(self, items[i], "output", i, &views[i], &unused)) return false;
    const OutputSpec& spec = variant.outputs[i];
    if (!same_type(views[i].type, spec.type)) {
      raise_inferno("invalid_argument", tensor_error("output", spec.name,
                                                     "expected " + type_text(spec.type) + ", got " +
                                                         type_text(views[i].type)));
      return false;
    }
    if (!check_device(self, "output", spec.name, views[i])) return false;
    Py_INCREF(items[i]);
    refs->outputs[i] = items[i];
    refs->num_outputs = i + 1;
  }
  return true;
}

PyObject* runner_call(PyObject* object, PyObject* args, PyObject* kwargs) {
  Runner* self = reinterpret_cast<Runner*>(object);
  PyObject* out = nullptr;
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0) {
    out = PyDict_GetItemString(kwargs, "out");  // borrowed
    if (out == nullptr || PyDict_GET_SIZE(kwargs) > 1) {
      PyErr_SetString(PyExc_TypeError, "a model takes only tensors and out=");
      return nullptr;
    }
  }
  const Py_ssize_t count = PyTuple_GET_SIZE(args);
  if (count > kMaxTensors) {
    return raise_inferno("invalid_argument",
                         std::to_string(count) + " inputs are over " + std::to_string(kMaxTensors));
  }
  CallRefs refs;
  TensorView inputs[kMaxTensors];
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!read_tensor(self, PyTuple_GET_ITEM(args, i), "input", i, &inputs[i], &refs.kept[i]))
      return nullptr;
  }
  const Variant* variant = pick_variant(self, inputs, count);
  if (variant == nullptr) return raise_no_variant(self, inputs, count);
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!check_device(self, "input", variant->inputs[i].name, inputs[i])) return nullptr;
  }
  TensorView outputs[kMaxTensors];
  if (!prepare_outputs(self, *variant, out, &refs, outputs)) return nullptr;
  if (self->session == nullptr) return raise_inferno("invalid_argument", "the model is closed");

  PyObject* stream_object = PyObject_CallOneArg(self->stream_function, self->device_index);
  if (stream_object == nullptr) return nullptr;
  void* stream = PyLong_AsVoidPtr(stream_object);
  Py_DECREF(stream_object);
  if (PyErr_Occurred()) return nullptr;
  inferno_tensor in[kMaxTensors];
  inferno_tensor result[kMaxTensors];
  for (Py_ssize_t i = 0; i < count; ++i)
    in[i] = {inputs[i].data, inputs[i].type.dtype, inputs[i].type.rank, inputs[i].type.shape};
  for (Py_ssize_t i = 0; i < refs.num_outputs; ++i)
    result[i] = {outputs[i].data, outputs[i].type.dtype, outputs[i].type.rank,
                 outputs[i].type.shape};
  PyThreadState* thread = PyEval_SaveThread();  // a first run captures a CUDA graph: not instant
  const inferno_status status =
      inferno_session_run(self->session, stream, in, static_cast<int32_t>(count), result,
                          static_cast<int32_t>(refs.num_outputs));
  PyEval_RestoreThread(thread);
  if (status != INFERNO_STATUS_OK) return raise_status(status);

  if (refs.num_outputs == 1) {
    Py_INCREF(refs.outputs[0]);
    return refs.outputs[0];
  }
  PyObject* tuple = PyTuple_New(refs.num_outputs);
  if (tuple == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < refs.num_outputs; ++i) {
    Py_INCREF(refs.outputs[i]);
    PyTuple_SET_ITEM(tuple, i, refs.outputs[i]);
  }
  return tuple;
}

// Converts one (name, dtype, shape, ...) entry of the loader's variant table.
bool read_spec(const Runner* self, PyObject* spec, const char* what, TensorType* type,
               std::string* name) {
  if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 3 ||
      !PyUnicode_Check(PyTuple_GET_ITEM(spec, 0))) {
    PyErr_Format(PyExc_TypeError, "%s: expected a (name, dtype, shape, ...) tuple", what);
    return false;
  }
  const char* text = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 0));
  if (text == nullptr) return false;
  *name = text;
  type->dtype = dtype_code(self, PyTuple_GET_ITEM(spec, 1));
  if (type->dtype < 0) {
    PyErr_Format(PyExc_TypeError, "%s: unknown dtype", what);
    return false;
  }
  return read_shape(PyTuple_GET_ITEM(spec, 2), what, type);
}

bool read_variants(Runner* self, PyObject* table) {
  if (!PyTuple_Check(table) || PyTuple_GET_SIZE(table) == 0) {
    PyErr_SetString(PyExc_TypeError, "variants: expected a non-empty tuple");
    return false;
  }
  for (Py_ssize_t v = 0; v < PyTuple_GET_SIZE(table); ++v) {
    PyObject* entry = PyTuple_GET_ITEM(table, v);
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(entry, 1))) {
      PyErr_SetString(PyExc_TypeError, "variants: expected (inputs, outputs) tuples");
      return false;
    }
    PyObject* ins = PyTuple_GET_ITEM(entry, 0);
    PyObject* outs = PyTuple_GET_ITEM(entry, 1);
    if (PyTuple_GET_SIZE(ins) > kMaxTensors || PyTuple_GET_SIZE(outs) > kMaxTensors) {
      PyErr_SetString(PyExc_ValueError, "variants: too many tensors");
      return false;
    }
    self->variants->emplace_back();
    Variant& variant = self->variants->back();
    variant.inputs.resize(PyTuple_GET_SIZE(ins));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ins); ++i) {
      InputSpec& input = variant.inputs[i];
      if (!read_spec(self, PyTuple_GET_ITEM(ins, i), "variant input", &input.type, &input.name))
        return false;
    }
    variant.outputs.resize(PyTuple_GET_SIZE(outs));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(outs); ++i) {
      PyObject* spec = PyTuple_GET_ITEM(outs, i);
      OutputSpec& output = variant.outputs[i];
      if (!read_spec(self, spec, "variant output", &output.type, &output.name)) return false;
      if (PyTuple_GET_SIZE(spec) != 4 || !PyDict_Check(PyTuple_GET_ITEM(spec, 3))) {
        PyErr_SetString(PyExc_TypeError,
                        "variant output: expected (name, dtype, shape, empty_kwargs)");
        return false;
      }
      output.empty_args = PyTuple_Pack(1, PyTuple_GET_ITEM(spec, 2));
      if (output.empty_args == nullptr) return false;
      output.empty_kwargs = PyTuple_GET_ITEM(spec, 3);
      Py_INCREF(output.empty_kwargs);
    }
  }
  return true;
}

int runner_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  Runner* self = reinterpret_cast<Runner*>(object);
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0) {
    PyErr_SetString(PyExc_TypeError, "Runner takes positional arguments only");
    return -1;
  }
  if (self->tensor_type != nullptr) {  // its references and tables are made once
    PyErr_SetString(PyExc_TypeError, "a Runner is initialized once");
    return -1;
  }
  PyObject* session = nullptr;
  PyObject *table = nullptr, *dtypes = nullptr;
  if (!PyArg_ParseTuple(args, "OiO!O!O!OO:Runner", &session, &self->device, &PyTuple_Type, &table,
                        &PyTuple_Type, &dtypes, &PyType_Type, &self->tensor_type, &self->empty,
                        &self->stream_function)) {
    self->tensor_type = self->empty = self->stream_function = nullptr;
    return -1;
  }
  Py_INCREF(self->tensor_type);
  Py_INCREF(self->empty);
  Py_INCREF(self->stream_function);
  self->session =
      static_cast<inferno_session*>(session == Py_None ? nullptr : PyLong_AsVoidPtr(session));
  if (PyErr_Occurred()) return -1;
  self->device_index = PyLong_FromLong(self->device);
  if (self->device_index == nullptr) return -1;
  if (PyTuple_GET_SIZE(dtypes) != kNumDtypes) {
    PyErr_Format(PyExc_TypeError, "dtypes: expected %d torch dtypes", kNumDtypes);
    return -1;
  }
  for (int i = 0; i < kNumDtypes; ++i) {
    self->dtypes[i] = PyTuple_GET_ITEM(dtypes, i);
    Py_INCREF(self->dtypes[i]);
  }
  return read_variants(self, table) ? 0 : -1;
}

PyObject* runner_new(PyTypeObject* type, PyObject*, PyObject*) {
  Runner* self = reinterpret_cast<Runner*>(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  self->variants = new (std::nothrow) std::vector<Variant>();
  if (self->variants == nullptr) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  return reinterpret_cast<PyObject*>(self);
}

void runner_dealloc(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);  // a heap type: each instance holds a reference
  Runner* self = reinterpret_cast<Runner*>(object);
  if (self->variants != nullptr) {
    for (Variant& v : *self->variants) {
      for (OutputSpec& o : v.outputs) {
        Py_XDECREF(o.empty_args);
        Py_XDECREF(o.empty_kwargs);
      }
    }
    delete self->variants;
  }
  for (PyObject* d : self->dtypes) Py_XDECREF(d);
  Py_XDECREF(self->device_index);
  Py_XDECREF(self->tensor_type);
  Py_XDECREF(self->empty);
  Py_XDECREF(self->stream_function);
  type->tp_free(object);
  Py_DECREF(type);
}

PyObject* runner_close(PyObject* object, PyObject*) {
  reinterpret_cast<Runner*>(object)->session = nullptr;  // the loader destroys the session
  Py_RETURN_NONE;
}

PyMethodDef runner_methods[] = {
    {"close", runner_close, METH_NOARGS,
     "Forgets the session (the loader destroys it); later calls raise."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot runner_slots[] = {
    {Py_tp_doc, const_cast<char*>("Runner(session, device, variants, dtypes, tensor_type, empty, "
                                  "stream_function): calls one session of a loaded model with "
                                  "torch tensors.")},
    {Py_tp_new, reinterpret_cast<void*>(runner_new)},
    {Py_tp_init, reinterpret_cast<void*>(runner_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(runner_dealloc)},
    {Py_tp_call, reinterpret_cast<void*>(runner_call)},
    {Py_tp_methods, runner_methods},
    {0, nullptr}};

PyType_Spec runner_spec = {"inferno._native.Runner", sizeof(Runner), 0, Py_TPFLAGS_DEFAULT,
                           runner_slots};

PyObject* set_error_class(PyObject*, PyObject* error_class) {
  if (!PyType_Check(error_class)) {
    PyErr_SetString(PyExc_TypeError, "set_error_class takes an exception class");
    return nullptr;
  }
  Py_INCREF(error_class);
  Py_XSETREF(g_error_class, error_class);
  Py_RETURN_NONE;
}

PyObject* library_path(PyObject*, PyObject*) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&inferno_status_name), &info) == 0 ||
      info.dli_fname == nullptr) {
    PyErr_SetString(PyExc_OSError, "cannot locate libinferno_runtime");
    return nullptr;
  }
  return PyUnicode_DecodeFSDefault(info.dli_fname);
}

PyObject* load(PyObject*, PyObject* args) {
  const char* path = nullptr;
  int device = 0;
  if (!PyArg_ParseTuple(args, "yi:load", &path, &device)) return nullptr;
  inferno_loaded_model* model = nullptr;
  PyThreadState* thread = PyEval_SaveThread();  // uploads the weights
  const inferno_status status = inferno_model_load(path, device, &model);
  PyEval_RestoreThread(thread);
  if (status != INFERNO_STATUS_OK) return raise_status(status);
  return PyLong_FromVoidPtr(model);
}

PyMethodDef module_methods[] = {
    {"set_error_class", set_error_class, METH_O, "The exception class runtime errors raise."},
    {"library_path", library_path, METH_NOARGS, "The path of the libinferno_runtime linked."},
    {"load", load, METH_VARARGS, "load(path: bytes, device: int) -> the loaded model's handle"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def{};

bool intern_names() {
  g_names = {PyUnicode_InternFromString("dtype"),      PyUnicode_InternFromString("shape"),
             PyUnicode_InternFromString("get_device"), PyUnicode_InternFromString("is_contiguous"),
             PyUnicode_InternFromString("contiguous"), PyUnicode_InternFromString("data_ptr")};
  return g_names.dtype && g_names.shape && g_names.get_device && g_names.is_contiguous &&
         g_names.contiguous && g_names.data_ptr;
}

}  // namespace

PyMODINIT_FUNC PyInit__native() {
  if (!intern_names()) return nullptr;
  module_def.m_base = PyModuleDef_HEAD_INIT;
  module_def.m_name = "_native";
  module_def.m_doc = "The native call path of inferno's Python loader (see runtime.py).";
  module_def.m_size = -1;
  module_def.m_methods = module_methods;
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  PyObject* runner_type = PyType_FromSpec(&runner_spec);
  if (runner_type == nullptr || PyModule_AddObject(module, "Runner", runner_type) < 0) {
    Py_XDECREF(runner_type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
