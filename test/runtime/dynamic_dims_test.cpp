// The runtime's reading of a model's dynamic dims table (inferno/model_dims.h) and the refusals it
// words in their terms, without a GPU: a fake LLM whose prompt lengths 4, 1 and 8 are sizes of
// one dynamic dim that input_ids (dim 1) and the positions (dim 0) share.
#include "runtime/dynamic_dims.h"

#include <cstddef>
#include <string>
#include <vector>

#include "fake_models.h"
#include "runtime/error.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
using inferno::test::FakeLlm;
namespace rt = inferno::runtime;

namespace {

struct Table {
  inferno_model_dim dims[1] = {{"s27", 1, 31}};
  inferno_model_dim_use uses[2] = {{0, 1, 0}, {1, 0, 0}};
  inferno_model_dims table{
      INFERNO_MODEL_DIMS_VERSION, sizeof(inferno_model_dims), 1, dims, 2, uses, -1};
};

// The message read_dynamic_dims throws for `table` ("" when it accepts it).
std::string problem(const inferno_model_dims& table, const rt::EntryPoints& entries) {
  try {
    rt::read_dynamic_dims(&table, entries, "m.so");
  } catch (const rt::Error& e) {
    CHECK(e.status() == INFERNO_STATUS_ABI_MISMATCH);
    return e.what();
  }
  return "";
}

// The refusal for ids [1, ids_length] and positions [positions_length].
std::string refusal(const rt::DynamicDims& dims, const rt::EntryPoints& entries, int64_t ids_length,
                    int64_t positions_length) {
  std::vector<int64_t> ids{1, ids_length}, positions{positions_length};
  const inferno_tensor inputs[] = {{nullptr, INFERNO_DTYPE_I64, 2, ids.data()},
                                   {nullptr, INFERNO_DTYPE_I64, 1, positions.data()}};
  return rt::dynamic_dims_error(dims, entries, inputs, 2);
}

}  // namespace

TEST_CASE("dynamic dims: the split dim is read where the table has it, and checked", "[runtime]") {
  FakeLlm llm({4, 1, 8}, 10);
  Table t;
  CHECK(!rt::read_dynamic_dims(&t.table, llm.entries(), "m.so")[0].split);
  // A table written before split_dim existed ends before it: no split, whatever follows.
  t.table.split_dim = 0;
  t.table.struct_size = offsetof(inferno_model_dims, split_dim);
  CHECK(!rt::read_dynamic_dims(&t.table, llm.entries(), "m.so")[0].split);
  t.table.struct_size = sizeof(inferno_model_dims);
  // The LLM's length is input_ids' dim 1: not a dim a run can be split along.
  CHECK(contains(problem(t.table, llm.entries()), "not one size of the inputs' first axes"));
  t.table.split_dim = 1;
  CHECK(contains(problem(t.table, llm.entries()), "a split dim it does not have"));
}

TEST_CASE("dynamic dims: the table is read and checked against the entry points", "[runtime]") {
  FakeLlm llm({4, 1, 8}, 10);
  Table t;
  const rt::DynamicDims dims = rt::read_dynamic_dims(&t.table, llm.entries(), "m.so");
  REQUIRE(dims.size() == 1);
  CHECK(dims[0].name == "s27");
  CHECK(dims[0].min == 1);
  CHECK(dims[0].max == 31);
  REQUIRE(dims[0].uses.size() == 2);
  CHECK((dims[0].uses[1].input == 1 && dims[0].uses[1].axis == 0));
  CHECK(rt::read_dynamic_dims(nullptr, llm.entries(), "m.so").empty());

  t.uses[1].axis = 1;  // positions has one dim
  CHECK(
      contains(problem(t.table, llm.entries()), "an input dim that an entry point does not have"));
  t.uses[1] = {2, 0, 0};
  CHECK(
      contains(problem(t.table, llm.entries()), "an input dim that an entry point does not have"));
  t.uses[1] = {1, 0, 1};
  CHECK(contains(problem(t.table, llm.entries()), "a use of no dim"));
  t.uses[1] = {1, 0, 0};
  t.dims[0].name = "s27\n";
  CHECK(contains(problem(t.table, llm.entries()), "printable name"));
  t.dims[0] = {"s27", 5, 4};
  CHECK(contains(problem(t.table, llm.entries()), "a bad range"));
  t.dims[0] = {"s27", 1, -1};
  CHECK(problem(t.table, llm.entries()).empty());  // unbounded
  t.table.num_dims = 65;
  CHECK(contains(problem(t.table, llm.entries()), "bad counts"));
  t.table.num_dims = 1;
  t.table.version = 2;
  CHECK(contains(problem(t.table, llm.entries()), "unknown version"));
}

TEST_CASE("dynamic dims: a refused shape is explained in the export's terms", "[runtime]") {
  FakeLlm llm({4, 1, 8}, 10);
  Table t;
  const rt::DynamicDims dims = rt::read_dynamic_dims(&t.table, llm.entries(), "m.so");
  CHECK(refusal(dims, llm.entries(), 40, 40) ==
        "input 'input_ids' dim 1 is 40, outside the range of s27 the model was exported for "
        "(1..31)");
  CHECK(refusal(dims, llm.entries(), 4, 8) ==
        "input 'cache_position' dim 0 is 8 but input 'input_ids' dim 1 is 4: both are s27");
  CHECK(refusal(dims, llm.entries(), 5, 5) ==
        "s27 = 5 (input 'input_ids' dim 1) is in the range the model was exported for (1..31), "
        "but this library was compiled for s27 = 4, 1, 8 only (infernoc --specialize s27=... "
        "compiles other sizes)");
  CHECK(refusal(dims, llm.entries(), 8, 8).empty());  // compiled: not the dims' to explain
  // Tensors that cannot be read where the dim is say nothing.
  std::vector<int64_t> ids{1, 40};
  const inferno_tensor unreadable[] = {{nullptr, INFERNO_DTYPE_I64, 1, ids.data()},
                                       {nullptr, INFERNO_DTYPE_I64, 1, nullptr}};
  CHECK(rt::dynamic_dims_error(dims, llm.entries(), unreadable, 2).empty());
  CHECK(rt::dynamic_dims_error(dims, llm.entries(), nullptr, 2).empty());
  CHECK(rt::dynamic_dims_error(dims, llm.entries(), unreadable, 0).empty());
}
