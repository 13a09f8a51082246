#include "cupti_kernel_times.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#if __has_include(<cupti.h>)
#include <cupti.h>
#define INFERNO_HAVE_CUPTI 1
#endif

namespace inferno::run {

#ifdef INFERNO_HAVE_CUPTI

namespace {

constexpr size_t kBufferBytes = size_t{4} << 20;
constexpr size_t kBufferAlign = 8;  // CUPTI's records are 8-byte aligned

// A kernel's, copy's or memset's GPU time (the records' versions in the headers this is built
// with; a newer libcupti only appends fields, and start() refuses an older one).
struct KernelRecord {
  uint32_t correlation;
  uint64_t start, end;
};

// What the buffer callbacks collect (CUPTI calls them from its own threads).
struct Collected {
  std::mutex mutex;
  std::vector<KernelRecord> kernels;
  std::map<uint32_t, uint64_t> external;  // correlation id -> external id
  size_t dropped = 0;
  bool bad_record = false;
};
Collected collected;

using GetNextRecordFn = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
using DroppedFn = CUptiResult (*)(CUcontext, uint32_t, size_t*);
GetNextRecordFn get_next_record = nullptr;
DroppedFn get_dropped = nullptr;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                               size_t valid) {
  std::lock_guard<std::mutex> lock(collected.mutex);
  CUpti_Activity* record = nullptr;
  while (buffer != nullptr && get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    KernelRecord work{};
    bool is_work = true;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      work = {kernel->correlationId, kernel->start, kernel->end};
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      work = {copy->correlationId, copy->start, copy->end};
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      work = {set->correlationId, set->start, set->end};
    } else {
      is_work = false;
    }
    if (is_work) {
      if (work.end < work.start) collected.bad_record = true;
      collected.kernels.push_back(work);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* link = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (link->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        collected.external[link->correlationId] = link->externalId;
    }
  }
  size_t dropped = 0;
  if (get_dropped != nullptr && get_dropped(context, stream, &dropped) == CUPTI_SUCCESS)
    collected.dropped += dropped;
  std::free(buffer);
}

// The first of the candidate paths that dlopen accepts.
void* open_cupti() {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("INFERNO_CUPTI_LIB"); path != nullptr && *path != '\0')
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);  // named: no other is tried
  candidates = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0')
    candidates.push_back(std::string(home) + "/extras/CUPTI/lib64/libcupti.so");
  candidates.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
  for (const std::string& path : candidates) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

}  // namespace

struct CuptiKernelTimes::Library {
  void* handle = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
  CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;
  CUptiResult (*version)(uint32_t*) = nullptr;
  CUptiResult (*result_string)(CUptiResult, const char**) = nullptr;

  std::string describe(const char* call, CUptiResult result) const {
    const char* text = nullptr;
    if (result_string == nullptr || result_string(result, &text) != CUPTI_SUCCESS) text = nullptr;
    return std::string(call) + " failed: " + (text != nullptr ? text : std::to_string(result));
  }
};

namespace {

template <typename Fn>
bool bind(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return fn != nullptr;
}

// Kernels, copies and memsets: every kind of work a step can put on the GPU; and the API calls
// that launch them, because CUPTI writes an external correlation record only for an API
// activity record made while an id is pushed (on a first H100 run without the API kinds,
// inferno-run fell back to events). The runtime links cudart statically: its launches may reach
// CUPTI only as driver calls, so both API kinds are on; their records are read for nothing else.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_DRIVER,
                                         CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

std::unique_ptr<CuptiKernelTimes> CuptiKernelTimes::start(std::string& why_not) {
  auto lib = std::make_unique<Library>();
  // Never closed: CUPTI keeps threads and callbacks of its own once initialized.
  lib->handle = open_cupti();
  if (lib->handle == nullptr) {
    why_not = "libcupti not found (set INFERNO_CUPTI_LIB to its path)";
    return nullptr;
  }
  void* h = lib->handle;
  if (!bind(h, "cuptiActivityEnable", lib->enable) ||
      !bind(h, "cuptiActivityDisable", lib->disable) ||
      !bind(h, "cuptiActivityRegisterCallbacks", lib->register_callbacks) ||
      !bind(h, "cuptiActivityFlushAll", lib->flush_all) ||
      !bind(h, "cuptiActivityPushExternalCorrelationId", lib->push) ||
      !bind(h, "cuptiActivityPopExternalCorrelationId", lib->pop) ||
      !bind(h, "cuptiGetVersion", lib->version) ||
      !bind(h, "cuptiGetResultString", lib->result_string) ||
      !bind(h, "cuptiActivityGetNextRecord", get_next_record)) {
    why_not = "libcupti lacks an activity API function";
    return nullptr;
  }
  bind(h, "cuptiActivityGetNumDroppedRecords", get_dropped);  // optional
  uint32_t version = 0;
  if (lib->version(&version) != CUPTI_SUCCESS || version < CUPTI_API_VERSION) {
    why_not = "libcupti's API version " + std::to_string(version) + " is older than " +
              std::to_string(CUPTI_API_VERSION) + ", which inferno-run was built with";
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(collected.mutex);
    collected.kernels.clear();
    collected.external.clear();
    collected.dropped = 0;
    collected.bad_record = false;
  }
  CUptiResult r = lib->register_callbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    why_not = lib->describe("cuptiActivityRegisterCallbacks", r);
    return nullptr;
  }
  for (const CUpti_ActivityKind kind : kKinds) {
    r = lib->enable(kind);
    if (r != CUPTI_SUCCESS) {
      why_not = lib->describe("cuptiActivityEnable", r);
      for (const CUpti_ActivityKind k : kKinds) lib->disable(k);
      return nullptr;
    }
  }
  std::unique_ptr<CuptiKernelTimes> times(new CuptiKernelTimes());
  times->lib_ = std::move(lib);
  return times;
}

CuptiKernelTimes::~CuptiKernelTimes() {
  if (!finished_) {
    for (const CUpti_ActivityKind kind : kKinds) lib_->disable(kind);
    lib_->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
}

void CuptiKernelTimes::push(uint64_t id) {
  lib_->push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void CuptiKernelTimes::pop() {
  uint64_t last = 0;
  lib_->pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

bool CuptiKernelTimes::finish(std::map<uint64_t, KernelSpan>& spans, std::string& error) {
  finished_ = true;
  CUptiResult r = lib_->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (const CUpti_ActivityKind kind : kKinds) lib_->disable(kind);
  if (r != CUPTI_SUCCESS) {
    error = lib_->describe("cuptiActivityFlushAll", r);
    return false;
  }
  std::lock_guard<std::mutex> lock(collected.mutex);
  if (collected.dropped > 0 || collected.bad_record) {
    error = "CUPTI dropped " + std::to_string(collected.dropped) + " records" +
            (collected.bad_record ? " or wrote a kernel record ending before its start" : "");
    return false;
  }
  for (const KernelRecord& k : collected.kernels) {
    const auto link = collected.external.find(k.correlation);
    if (link == collected.external.end()) continue;  // launched outside any step
    KernelSpan& span = spans[link->second];
    span.kernel_ns += k.end - k.start;
    span.first_start_ns = span.kernels == 0 ? k.start : std::min(span.first_start_ns, k.start);
    span.last_end_ns = std::max(span.last_end_ns, k.end);
    ++span.kernels;
  }
  return true;
}

#else  // built without CUPTI's headers

struct CuptiKernelTimes::Library {};

std::unique_ptr<CuptiKernelTimes> CuptiKernelTimes::start(std::string& why_not) {
  why_not = "inferno-run was built without CUPTI's headers";
  return nullptr;
}
CuptiKernelTimes::~CuptiKernelTimes() = default;
void CuptiKernelTimes::push(uint64_t) {}
void CuptiKernelTimes::pop() {}
bool CuptiKernelTimes::finish(std::map<uint64_t, KernelSpan>&, std::string& error) {
  error = "no CUPTI";
  return false;
}

#endif

}  // namespace inferno::run
