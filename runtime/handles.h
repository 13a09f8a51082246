// What the C API's opaque handles are. Internal; tests include it to reach a session's hooks.
#pragma once

#include <memory>

#include "runtime/model.h"
#include "runtime/session.h"

/// The caller's reference to a model; sessions hold their own, so unload order does not matter.
struct inferno_loaded_model {
  std::shared_ptr<const inferno::runtime::Model> model;
};

struct inferno_session {
  template <typename... Args>
  explicit inferno_session(Args&&... args) : session(std::forward<Args>(args)...) {}
  inferno::runtime::Session session;
};
