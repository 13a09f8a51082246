# inferno_set_warnings(target): the project's warning flags, as errors when INFERNO_WERROR is on.
function(inferno_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports impossible std::string copies as -Wrestrict at -O2 (GCC bug 105651).
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(INFERNO_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# inferno_component(name SOURCES ... DEPS ...): one static library per compiler stage, so the
# link graph enforces the design's rule that data only flows forward between stages.
function(inferno_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  inferno_set_warnings(${name})
endfunction()
